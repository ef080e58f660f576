"""mkdocs hooks (mkdocs.yml): the pages and pictures made at build time.

- Each tutorial script in docs/tutorials/ is run (docs_build/tutorials.py)
  and its page made from its code, its output and its figures.
- A page's `<!-- generated: NAME -->` line is replaced by what GENERATED[NAME]
  makes: the tables of what s2sad accepts (from the registry and the front
  end), the compiler's pipeline, the benchmark tables, the changelog.
- The performance page's plot is drawn from the newest benchmark results.

Nothing made here is written into docs/ or committed: a page cannot show
output its code no longer gives."""
import concurrent.futures
import hashlib
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

ROOT = pathlib.Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from docs_build import benchmarks, pipeline, tutorials  # noqa: E402

PLACEHOLDER = re.compile(r"^<!-- generated: (?P<name>[a-z -]+) -->$", re.MULTILINE)
_RUNS = {}  # script text's hash -> its record and figures (kept while `mkdocs serve` runs)


def _constructs():
    from s2sad import construct_table
    return construct_table.markdown()


def _functions():
    from s2sad import support_table
    return support_table.markdown()


def _changelog():
    text = (ROOT / "CHANGELOG.md").read_text()
    return text.split("\n", 1)[1].lstrip("\n")  # (the page has its own title)


GENERATED = {
    "constructs": _constructs,
    "functions": _functions,
    "stages": pipeline.stages_markdown,
    "optimisation passes": pipeline.passes_markdown,
    "benchmark tables": benchmarks.tables_markdown,
    "changelog": _changelog,
}


def _run_tutorial(script):
    """Run one tutorial in a process of its own; its record and figures."""
    key = hashlib.sha256(script.read_bytes()).hexdigest()
    if key in _RUNS:
        return _RUNS[key]
    with tempfile.TemporaryDirectory(prefix="s2sad-tutorial-") as out:
        env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=str(ROOT) + os.pathsep
                   + os.environ.get("PYTHONPATH", ""))
        done = subprocess.run([sys.executable, "-m", "docs_build.tutorials", str(script), out],
                              cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
        if done.returncode != 0:
            raise PluginError(f"the tutorial {script.relative_to(ROOT)} failed:\n"
                              f"{done.stderr[-4000:]}")
        record = json.loads((pathlib.Path(out) / f"{script.stem}.json").read_text())
        figures = {png: (pathlib.Path(out) / png).read_bytes()
                   for cell in record["cells"] for png in cell["figures"]}
    _RUNS[key] = record, figures
    return _RUNS[key]


def _not_run(script):
    """The page of a tutorial a build was told not to run."""
    title = tutorials.split(script.read_text())[0]
    return {"title": title, "intro": "**This build did not run the tutorials "
            "(S2SAD_DOCS_TUTORIALS=skip), so this page shows no code or output.**",
            "cells": []}, {}


def on_files(files, config):
    scripts = sorted((ROOT / config["docs_dir"] / "tutorials").glob("*.py"))
    if os.environ.get("S2SAD_DOCS_TUTORIALS") == "skip":  # (a quick build while writing pages)
        runs = [_not_run(script) for script in scripts]
    else:
        with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
            runs = list(pool.map(_run_tutorial, scripts))
    for script, (record, figures) in zip(scripts, runs):
        page = tutorials.markdown(record, script.name)
        files.append(File.generated(config, f"tutorials/{script.stem}.md", content=page))
        for png, data in figures.items():
            files.append(File.generated(config, f"tutorials/{png}", content=data))
    png = benchmarks.plot_png()
    files.append(File.generated(config, "performance_ratios.png", content=png))
    return files


def on_page_markdown(markdown, page, config, files):
    def replace(match):
        name = match.group("name")
        if name not in GENERATED:
            raise PluginError(f"{page.file.src_uri}: no generated content named {name!r}")
        return GENERATED[name]().rstrip("\n")
    return PLACEHOLDER.sub(replace, markdown)
