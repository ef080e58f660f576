"""Hashes of the derivative sources s2sad generates for the test programs
and the benchmark workloads, to show a refactoring leaves every generated
source byte-identical.

Run it once with each version of s2sad (each in its own process and
environment: it imports whichever s2sad the interpreter finds, and the
tests and workloads of that s2sad's checkout), then compare:

    python tests/tools/source_hashes.py --out before.txt
    python tests/tools/source_hashes.py --out after.txt
    python tests/tools/source_hashes.py --compare before.txt after.txt

The programs: every case of the systematic grid (tests/systematic: its
function and arguments; grad, and jvp for every third case), the benchmark
workloads (grad, vjp and jvp at their small inputs), and the functions of
the test modules listed in TEST_MODULES, with the arguments a module-level
table gives them (`(function, args, ...)` rows) or, without one, the
kinds guessed from their source. A generation that raises is recorded by
its error's type and first line, so a changed refusal shows too. Paths
(the checkout, the grid's module) and the names of generated modules
(hashes of their text) are replaced by placeholders.

Each source gets two hashes: of its text, and of its text with the
locations in s2sad's own files masked (`s2sad/definitions/...py:15`,
`(numpy_definitions_more.py:261)`) and the line argument of memory checks
(`check_memory(..., 72)`): a derivative through one of s2sad's numpy
definitions names the definition's file and lines in comments, messages
and memory checks, which moving the definition changes. The comparison reports the
sources that differ in text, and those that differ once such locations
are masked (which must be none).
"""
import argparse
import hashlib
import importlib
import inspect
import os
import re
import sys
import tempfile
import warnings

os.environ.setdefault("S2SAD_CACHE_DIR", tempfile.mkdtemp(prefix="s2sad-hashes-"))

import numpy as np  # noqa: E402

import s2sad  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(s2sad.__file__)))
TEST_MODULES = ("test_numba_forms", "test_numpy_more", "test_numpy_definitions",
                "test_numpy_keywords", "test_linalg_stacks", "test_scipy", "test_numba_axes",
                "test_rules", "test_binding", "test_functions", "test_containers",
                "test_array_forms", "test_everyday_python", "test_more_python_forms",
                "test_builtin_forms", "test_export", "test_forward", "test_reciprocals",
                "test_autograd_styles", "test_autograd_styles_more", "test_tangent_styles",
                "test_ported_functions", "test_stencils", "test_nests", "test_python_structures")


def _normalised(text, cases_dir):
    text = text.replace(cases_dir, "<cases>").replace(ROOT, "<root>")
    # (the name of a generated module is a hash of its text, which has paths)
    return re.sub(r"<s2sad s2sad_[0-9a-f]+>", "<s2sad module>", text)


_OWN_FILES = sorted({os.path.splitext(f)[0] for _, _, files in os.walk(os.path.dirname(
    s2sad.__file__)) for f in files if f.endswith(".py")}, key=len, reverse=True)


def _s2sad_locations_masked(text):
    text = re.sub(r"<root>/s2sad/[\w/]+\.py:\d+", "<s2sad file>", text)
    text = re.sub(r"\b(%s)\.py:\d+" % "|".join(_OWN_FILES), "<s2sad file>", text)
    # (the line of the loop a memory check names: in a definition's copy, its line)
    return re.sub(r"^(\s*check_memory\(.*), \d+\)$", r"\1, <line>)", text, flags=re.M)


def _generated(make, cases_dir):
    """The source `make()` returns, or its error, as normalised text."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            text = make()
    except Exception as e:  # noqa: BLE001 (a refusal is a result too)
        first = (str(e).splitlines() or [""])[0]
        text = f"error {type(e).__name__}: {first}"
    return _normalised(text, cases_dir)


def _grid(cases_dir):
    from tests.systematic.check import write_module
    from tests.systematic.grid import build_cases
    cases = build_cases()
    functions = write_module(cases, cases_dir, name="source_hashes_cases")
    for k, case in enumerate(cases):
        fn = functions[case.id]
        wrt = tuple(case.wrt) or (0,)
        yield f"grid grad {case.id}", lambda: s2sad.grad(fn, wrt=wrt, jit=False).source_for(
            *case.args)
        if k % 3 == 0:
            yield f"grid jvp {case.id}", lambda: s2sad.jvp(fn, wrt=wrt, jit=False).source_for(
                *case.args)


def _workloads():
    from benchmarks.workloads import WORKLOADS, load
    for key in WORKLOADS:
        mod = load(key)
        args = mod.make_inputs("small")
        for mode in ("grad", "vjp", "jvp"):
            make = getattr(s2sad, mode)
            yield f"workload {mode} {key}", lambda: make(mod.primal, wrt=mod.WRT,
                                                         jit=False).source_for(*args)


def _rows(module):
    """{function: (args, wrt)} from the module's tables of (function, args, ...)."""
    out = {}
    for value in vars(module).values():
        if not isinstance(value, (list, tuple)):
            continue
        for row in value:
            if not (isinstance(row, tuple) and len(row) >= 2 and inspect.isfunction(row[0])
                    and isinstance(row[1], (tuple, list))):
                continue
            wrt = row[2] if len(row) > 2 and isinstance(row[2], tuple) and all(
                isinstance(w, int) for w in row[2]) and row[2] else (0,)
            out.setdefault(row[0], (tuple(row[1]), wrt))
    return out


def _test_functions():
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    for name in TEST_MODULES:
        try:
            module = importlib.import_module(name)
        except Exception as e:  # noqa: BLE001
            yield f"module {name}", lambda e=e: f"error importing: {type(e).__name__}"
            continue
        rows = _rows(module)
        for fname, fn in sorted(vars(module).items()):
            if not inspect.isfunction(fn) or fn.__module__ != module.__name__ or \
                    fname.startswith(("test_", "_")):
                continue
            if fn in rows:
                args, wrt = rows[fn]
                yield f"test {name}.{fname}", lambda fn=fn, args=args, wrt=wrt: s2sad.grad(
                    fn, wrt=wrt, jit=False).source_for(*args)
            else:
                yield f"test {name}.{fname} guessed", lambda fn=fn: s2sad.grad(
                    fn, jit=False).source


def collect(out_path):
    sys.path.insert(0, ROOT)
    cases_dir = tempfile.mkdtemp(prefix="s2sad-hashes-cases-")
    count = errors = 0
    with open(out_path, "w") as out:
        for source in (_workloads(), _test_functions(), _grid(cases_dir)):
            for key, make in source:
                text = _generated(make, cases_dir)
                errors += text.startswith("error ")
                digest = hashlib.sha256(text.encode()).hexdigest()[:20]
                masked = hashlib.sha256(_s2sad_locations_masked(text).encode()).hexdigest()[:20]
                out.write(f"{digest} {masked} {key}\n")
                count += 1
    print(f"{count} sources ({errors} of them errors) from {s2sad.__file__} -> {out_path}")


def compare(before, after):
    def read(path):
        with open(path) as f:
            return {key: (digest, masked) for digest, masked, key in
                    (line.rstrip("\n").split(" ", 2) for line in f)}
    a, b = read(before), read(after)
    both = a.keys() & b.keys()
    in_text = sorted(k for k in both if a[k][0] != b[k][0])
    differ = sorted(k for k in both if a[k][1] != b[k][1])
    only = sorted(a.keys() ^ b.keys())
    for k in differ[:50]:
        print("differs:", k)
    for k in only[:50]:
        print("only in one:", k)
    print(f"{len(both)} sources compared: {len(both) - len(in_text)} byte-identical, "
          f"{len(in_text) - len(differ)} differ only in locations in s2sad's own files, "
          f"{len(differ)} differ otherwise; {len(only)} in one file only")
    return 1 if differ or only else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out")
    ap.add_argument("--compare", nargs=2)
    opts = ap.parse_args(argv)
    if opts.compare:
        return compare(*opts.compare)
    collect(opts.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
