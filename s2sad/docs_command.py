"""`python -m s2sad docs`: build the documentation site and serve it locally.

The site's source (mkdocs.yml, docs/) is in the repository, beside the
package; building it needs the `docs` extra (`pip install -e ".[docs]"`).
`--build` only builds it (into site/, or --site-dir) and says where it is."""
import importlib.util
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def add_parser(commands):
    sub = commands.add_parser("docs", help="build the documentation site and serve it locally",
                              description=__doc__.split("\n\n")[0])
    sub.add_argument("--build", action="store_true",
                     help="only build the site, do not serve it")
    sub.add_argument("--site-dir", default=None, help="where to build it (default: site/)")
    sub.add_argument("--port", type=int, default=8000, help="the local port to serve on")
    return sub


def run(options):
    config = ROOT / "mkdocs.yml"
    if not config.is_file():
        print(f"s2sad: no mkdocs.yml beside the package ({ROOT}): the documentation's source "
              f"is in s2sad's repository; run this from a checkout installed with "
              f"pip install -e \".[docs]\"", file=sys.stderr)
        return 1
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None:
        print('s2sad: building the documentation needs its extra: pip install -e ".[docs]"',
              file=sys.stderr)
        return 1
    mkdocs = [sys.executable, "-m", "mkdocs"]
    if options.build:
        site = pathlib.Path(options.site_dir or ROOT / "site").resolve()
        done = subprocess.run(mkdocs + ["build", "--strict", "-f", str(config), "-d", str(site)])
        if done.returncode == 0:
            print(f"built {site}; open {site / 'index.html'}, or serve it: "
                  f"python -m http.server -d {site} {options.port}")
        return done.returncode
    address = f"127.0.0.1:{options.port}"
    print(f"building and serving the documentation at http://{address}/ (Ctrl-C stops)",
          flush=True)
    try:
        return subprocess.run(mkdocs + ["serve", "-f", str(config), "-a", address]).returncode
    except KeyboardInterrupt:
        return 0
