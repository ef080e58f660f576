"""The time a new user waits for a first gradient.

    python benchmarks/first_call.py                # ~5-10 minutes, table on stdout
    python benchmarks/first_call.py --repeats 1 --only logistic,quadratic
    python benchmarks/first_call.py --out benchmarks/results/first_call.md

For the README's quickstart (examples/quickstart.py) and eight small
programs of the kinds users write, each measurement runs in a fresh Python
process (`sys.executable`), with fresh cache directories (S2SAD_CACHE_DIR
for s2sad's generated modules, NUMBA_CACHE_DIR for numba's machine code):

- cold: the cache directories are empty, as at a new user's first run,
  compiling at the first call (S2SAD_BACKGROUND_COMPILE=0, as jit=True);
- warm: a second process with the same directories, as at the next run;
- default: empty caches again, with the default background compile: the
  first call runs the derivative as Python while numba compiles it in
  another process (s2sad/background.py); then `wait_compiled()`;
- warm default: the default again in a second process on those caches:
  the first call runs as Python while a thread loads the compiled code;
- numba primal: `numba.njit` of the plain function, its first call (what
  numba alone costs for the function being differentiated), then of its
  gradient written by hand (benchmarks/first_call_programs.py), the
  reference of the compile time's target: the compiled derivative in use
  after at most 1.5x numba's compile of the primal and the hand gradient.

Columns: `import s2sad`; loading the compiler (the modules `import s2sad`
leaves for the first derivative: numba, the rules, the passes); source
generation (s2sad.api.generate); numba (compiling, or loading from the cache
when warm: backend.Entry._compile); the first call in all (loading the
compiler + generating + compiling + running); the second call; with the
default, the first call (loading + generating + running as Python) and
when the compiled code is in use (from the same start). Medians of
`--repeats` runs (3). The derivative is s2sad.grad with its defaults
(jit="auto"), self-checking off. s2sad's bytecode is written once first
(as pip does at install), whatever PYTHONDONTWRITEBYTECODE says."""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from benchmarks.first_call_programs import PROGRAMS  # noqa: E402
sys.path.pop(0)

# Run in a fresh process: prints one JSON line of seconds.
_S2SAD_CHILD = """
import json, sys, time
sys.path.insert(0, {dir!r})
t0 = time.perf_counter()
import s2sad
t_import = time.perf_counter() - t0
import program  # (numpy and the arguments: not timed)
t1 = time.perf_counter()
import s2sad.api, s2sad.backend  # what the first derivative loads
t2 = time.perf_counter()
spent = {{"generate": 0.0, "numba": 0.0}}

def timed(key, fn):
    def wrapper(*a, **k):
        start = time.perf_counter()
        try:
            return fn(*a, **k)
        finally:
            spent[key] += time.perf_counter() - start
    return wrapper

s2sad.api.generate = timed("generate", s2sad.api.generate)
s2sad.backend.Entry._compile = timed("numba", s2sad.backend.Entry._compile)
d = s2sad.grad(program.f, wrt=program.WRT)
d(*program.ARGS)
t3 = time.perf_counter()
d(*program.ARGS)
t4 = time.perf_counter()
d.wait_compiled()  # (in the background: until the compiled code is in use)
t5 = time.perf_counter()
print(json.dumps({{"import": t_import, "load": t2 - t1, "generate": spent["generate"],
                  "numba": spent["numba"], "first": t3 - t1, "second": t4 - t3,
                  "compiled": t5 - t1}}))
"""

_NUMBA_CHILD = """
import json, sys, time
sys.path.insert(0, {dir!r})
import program
t_numba = time.perf_counter()
import numba
t_numba = time.perf_counter() - t_numba  # (s2sad's compile column imports numba too)
# every function of the program compiled, as a user would decorate them
# (f calls its helpers through the module's globals)
for name, value in list(vars(program).items()):
    if getattr(value, "__module__", None) == "program" and callable(value):
        setattr(program, name, numba.njit(value))
jitted = program.f if hasattr(program.f, "py_func") else numba.njit(program.f)  # (quickstart's)
t0 = time.perf_counter()
try:
    jitted(*program.ARGS)
except Exception as exc:
    print(json.dumps({{"primal": None, "hand": None, "import_numba": t_numba,
                      "why": type(exc).__name__}}))
    raise SystemExit
t1 = time.perf_counter()
hand = None
if hasattr(program, "hand_grad"):  # (compiled after the primal: numba is loaded)
    program.hand_grad(*program.ARGS)
    hand = time.perf_counter() - t1
print(json.dumps({{"primal": t1 - t0, "hand": hand, "import_numba": t_numba}}))
"""


def _child(code, env):
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         timeout=1800)
    if out.returncode != 0:
        raise RuntimeError(out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def _child_environment():
    """The environment of a measured process: no s2sad or numba settings, and
    Python's bytecode written and read, as for an installed package (pip
    compiles it at install; a PYTHONDONTWRITEBYTECODE=1 machine would
    otherwise compile s2sad's 300 modules from source at every start, a
    quarter to half a second)."""
    return {k: v for k, v in os.environ.items()
            if not k.startswith(("S2SAD_", "NUMBA_")) and k != "PYTHONDONTWRITEBYTECODE"}


def _write_bytecode():
    subprocess.run([sys.executable, "-c", "import s2sad.api, s2sad.runtime.special, "
                    "s2sad.rules.scipy_linalg, s2sad.rules.special"],
                   env=_child_environment(), check=True, timeout=600)


def measure(name, repeats):
    """Medians over `repeats` of the cold run, the warm run (same caches,
    a second process) and numba's first call of the primal."""
    runs = {"cold": [], "warm": [], "background": [], "warm_background": [], "primal": []}
    for _ in range(repeats):
        work = tempfile.mkdtemp(prefix="s2sad_first_call_")
        try:
            with open(os.path.join(work, "program.py"), "w") as f:
                f.write(textwrap.dedent(PROGRAMS[name][0]))
            env = _child_environment()
            env.update(S2SAD_CACHE_DIR=os.path.join(work, "s2sad"),
                       NUMBA_CACHE_DIR=os.path.join(work, "numba"))
            code = _S2SAD_CHILD.format(dir=work)
            blocking = dict(env, S2SAD_BACKGROUND_COMPILE="0")  # (compiled at the first call)
            runs["cold"].append(_child(code, blocking))
            runs["warm"].append(_child(code, blocking))
            background = dict(env, S2SAD_CACHE_DIR=os.path.join(work, "s2sad_bg"),
                              NUMBA_CACHE_DIR=os.path.join(work, "numba_bg"))
            runs["background"].append(_child(code, background))  # the default
            # the default again on those caches: a thread loads the compiled code
            runs["warm_background"].append(_child(code, background))
            primal_env = dict(env, NUMBA_CACHE_DIR=os.path.join(work, "numba_primal"))
            runs["primal"].append(_child(_NUMBA_CHILD.format(dir=work), primal_env))
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return {kind: _medians(rows) for kind, rows in runs.items()}


def _medians(rows):
    keys = rows[0].keys()
    out = {}
    for key in keys:
        values = [r[key] for r in rows if r.get(key) is not None]
        out[key] = statistics.median(values) if values and not isinstance(values[0], str) \
            else (values[0] if values else None)
    return out


def _s(seconds):
    if seconds is None:
        return "n/a"
    if seconds < 0.01:
        return f"{seconds * 1000:.2f} ms"
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


def table(results):
    lines = ["| program | `import s2sad` | load compiler | generate source | numba compile | "
             "first call, compiling first | second call | warm: first call | "
             "warm: numba (cache load) | **first call (default)** | compiled in use after | "
             "**warm: first call (default)** | warm: compiled in use after | "
             "`import numba` | numba primal, first call | numba hand gradient, first call | "
             "**compiling first / numba** | compiled in use (default) / numba |",
             "|---|" + "---:|" * 17]
    for name, r in results.items():
        cold, warm, primal, bg = r["cold"], r["warm"], r["primal"], r["background"]
        warm_bg = r["warm_background"]
        refused = f"n/a (numba: {primal['why']})" if primal.get("primal") is None else None
        lines.append(f"| {name} | {_s(cold['import'])} | {_s(cold['load'])} | "
                     f"{_s(cold['generate'])} | {_s(cold['numba'])} | {_s(cold['first'])} | "
                     f"{_s(cold['second'])} | {_s(warm['first'])} | {_s(warm['numba'])} | "
                     f"**{_s(bg['first'])}** | {_s(bg['compiled'])} | "
                     f"**{_s(warm_bg['first'])}** | {_s(warm_bg['compiled'])} | "
                     f"{_s(primal.get('import_numba'))} | "
                     f"{refused or _s(primal['primal'])} | {_s(primal.get('hand'))} | "
                     f"{_ratio(cold['first'], primal)} | {_ratio(bg['compiled'], primal)} |")
    return "\n".join(lines)


def _ratio(seconds, primal):
    """`seconds` over what numba alone takes to a compiled gradient:
    importing numba, then the first calls of the primal and of the hand
    gradient (the target: at most 1.5)."""
    if primal.get("primal") is None or primal.get("hand") is None:
        return "n/a"
    return f"{seconds / (primal['import_numba'] + primal['primal'] + primal['hand']):.2f}"


def import_profile(statement, top=10):
    """The `top` modules by cumulative import time of `statement` in a
    fresh process (python -X importtime), as a markdown table."""
    out = subprocess.run([sys.executable, "-X", "importtime", "-c", statement],
                         capture_output=True, text=True, timeout=600, env=_child_environment())
    rows = []
    for line in out.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)", line)
        if m:
            rows.append((int(m.group(2)), int(m.group(1)), m.group(4)))
    rows.sort(reverse=True)
    lines = [f"`python -X importtime -c \"{statement}\"`, top {top} by cumulative time:", "",
             "| module | cumulative | self |", "|---|---:|---:|"]
    lines += [f"| {name} | {cum / 1000:.0f} ms | {own / 1000:.0f} ms |"
              for cum, own, name in rows[:top]]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", help="comma-separated program names")
    parser.add_argument("--out", help="also write the markdown here")
    args = parser.parse_args(argv)
    names = args.only.split(",") if args.only else list(PROGRAMS)
    _write_bytecode()
    results = {}
    for name in names:
        results[name] = measure(name, args.repeats)
        print(f"{name}: done", file=sys.stderr, flush=True)
    import numba
    import numpy
    text = "\n\n".join([
        f"Python {sys.version.split()[0]}, numpy {numpy.__version__}, numba {numba.__version__}, "
        f"{os.cpu_count()} cores, medians of {args.repeats} fresh processes.",
        table(results),
        "\n".join(f"- {name}: {PROGRAMS[name][1]}" for name in names),
        import_profile("import s2sad"),
        import_profile("import s2sad.api"),
    ])
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
