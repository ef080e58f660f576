"""Differential fuzzing (tests/fuzz): random programs in the supported
language, their gradients (jit off, and on for a subset) against finite
differences and against each other.

The short run here is a fixed set of programs (seed 0); the long run is

    python -m tests.fuzz.run --programs 10000 [--seed N] [--jit-fraction 0.1]

Both avoid the features of known, still open bugs (fuzz.generator.KNOWN_BUGS,
each with an xfail test in test_fuzz_regressions.py)."""
import functools
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from fuzz import loops, refusals
from fuzz.check import check_all, finite_differences, load, run_programs
from fuzz.generator import KNOWN_BUGS, Program, collect, programs
from fuzz.shrink import Shrinker
from gradcheck import FULL

PROGRAMS = int(os.environ.get("S2SAD_FUZZ_PROGRAMS", "300"))
# compiling is most of the run's time: every 15th program is also compiled
# (every 7th or 8th with S2SAD_FULL=1)
JIT_PROGRAMS = int(os.environ.get("S2SAD_FUZZ_JIT_PROGRAMS", "40" if FULL else "20"))


def _report(progs, results):
    lines = []
    bad = [(p, r) for p, r in zip(progs, results) if r["status"] in ("fail", "invalid")]
    for p, r in bad[:5]:
        lines += [f"--- {r['status']}: {r['category']}: {r.get('message', '')[:1500]}",
                  f"args {p.arg_names} = {p.call_text()}, wrt {p.wrt}, jit {p.jit}",
                  p.source]
    return f"{len(bad)} of {len(progs)} programs failed:\n" + "\n".join(lines)


def test_fuzz_programs():
    """A fixed set of programs, most checked as Python against finite
    differences, some compiled with numba too (and against Python)."""
    progs = collect(PROGRAMS, seed=0, avoid=frozenset(KNOWN_BUGS),
                    jit_fraction=JIT_PROGRAMS / PROGRAMS)
    assert len(progs) == PROGRAMS
    # a compiled program takes seconds; the limit only catches a hang (and
    # leaves room for a runner shared with other jobs)
    results = run_programs(progs, workers=min(2, os.cpu_count() or 1), timeout=600.0)
    assert all(r["status"] in ("ok", "skip", "refused") for r in results), \
        _report(progs, results)
    # a clear refusal (LookupError or UnsupportedSyntaxError naming the line) is
    # allowed, but the generator writes the supported language
    assert sum(r["status"] == "refused" for r in results) <= len(results) // 50, \
        [r["message"][:200] for r in results if r["status"] == "refused"]
    # a few programs make a call s2sad must refuse (fuzz/refusals.py): they
    # pass when it does, naming the line
    expected = sum(1 for r in results if r["status"] == "ok" and r["fd"] == "refused")
    assert expected >= 1
    # the run is worth something: nearly every other program was compared
    # with finite differences (the others crossed a kink within the step)
    compared = sum(1 for r in results if r["status"] == "ok" and r["fd"] == "ok")
    assert compared >= 0.9 * (PROGRAMS - expected)
    assert sum(p.jit for p in progs) >= JIT_PROGRAMS - 1


@settings(max_examples=20, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(programs(avoid=frozenset(KNOWN_BUGS), max_statements=5))
def test_fuzz_strategy(prog):
    """The generator as a hypothesis strategy (a failure shrinks with
    hypothesis); Python mode, in this process."""
    result = check_all(load([prog]), timeout=60.0)[0]
    assert result["status"] in ("ok", "skip"), _report([prog], [result])


# ---- the loops scientists write (fuzz/loops.py) -----------------------------------------

LOOP_PROGRAMS = int(os.environ.get("S2SAD_FUZZ_LOOP_PROGRAMS", "240"))
LOOP_JIT_PROGRAMS = int(os.environ.get("S2SAD_FUZZ_LOOP_JIT_PROGRAMS", "24" if FULL else "12"))


def test_fuzz_loops():
    """A fixed set of the loops family (neighbour reads, shared
    intermediates, accumulations, time loops, index arrays...): each
    checked as Python against finite differences and against its plain
    twin, a tenth with parallel=True, a few compiled (parallel too)."""
    progs = loops.collect(LOOP_PROGRAMS, seed=0, avoid=frozenset(KNOWN_BUGS),
                          jit_fraction=LOOP_JIT_PROGRAMS / LOOP_PROGRAMS, parallel_fraction=0.1)
    assert len(progs) == LOOP_PROGRAMS
    results = run_programs(progs, workers=min(2, os.cpu_count() or 1), timeout=600.0)
    assert all(r["status"] in ("ok", "skip", "refused") for r in results), \
        _report(progs, results)
    # (refused: an index array from np.where(...)[0], whose kind s2sad cannot tell)
    assert sum(r["status"] == "refused" for r in results) <= len(results) // 30, \
        [r["message"][:200] for r in results if r["status"] == "refused"]
    compared = sum(1 for r in results if r["status"] == "ok" and r["fd"] == "ok")
    assert compared >= 0.9 * LOOP_PROGRAMS
    assert sum(p.jit for p in progs) >= LOOP_JIT_PROGRAMS - 1
    assert sum(p.parallel and p.jit for p in progs) >= 1


def test_first_culprit_names_the_first_optimisation_to_blame(monkeypatch):
    """The bisection over s2sad.OPTIMISATIONS switches passes off through
    S2SAD_OPTIMISE: the first pass whose removal alone gives the plain
    gradient, else the shortest prefix whose removal does (here a stand-in
    derivative, wrong while `gather` runs, or while both `fusion` and
    `zero_writes` run)."""
    import s2sad
    from fuzz import twins
    monkeypatch.setattr(s2sad, "OPTIMISATIONS", ("fusion", "gather", "zero_writes"), raising=False)
    plain = (np.array([1.0, 2.0]),)
    culprits = [{"gather"}]
    before = os.environ.get("S2SAD_OPTIMISE")

    def stand_in(L, args, jit=False, **options):
        off = {p.lstrip("-") for p in os.environ.get("S2SAD_OPTIMISE", "").split(",")}
        wrong = any(not (c & off) for c in culprits)
        return (plain[0] + (1.0 if wrong else 0.0),)

    monkeypatch.setattr(twins, "gradients", stand_in)
    assert twins.first_culprit(None, [], plain) == "gather"
    culprits[:] = [{"fusion", "zero_writes"}]
    assert twins.first_culprit(None, [], plain) == "fusion"
    culprits[:] = [{"fusion"}, {"zero_writes"}]
    assert twins.first_culprit(None, [], plain) == "+zero_writes"
    assert os.environ.get("S2SAD_OPTIMISE") == before   # (restored)


@settings(max_examples=10, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(loops.programs(avoid=frozenset(KNOWN_BUGS)))
def test_fuzz_loops_strategy(prog):
    """The loops family as a hypothesis strategy (Python, in this process)."""
    result = check_all(load([prog]), timeout=60.0)[0]
    assert result["status"] in ("ok", "skip", "refused"), _report([prog], [result])


def test_loops_family_writes_the_loops_scientists_write():
    """The forms the family is for, with every feature (known bugs too)."""
    import re
    progs = loops.collect(300, seed=1, jit_fraction=0.1, parallel_fraction=0.3)
    text = "\n".join(p.source for p in progs)
    patterns = {
        "next neighbour": r"\w\[i \+ 1\] - \w+\[i\]",
        "laplacian": r"\[i - 1\] - 2\.0 \* \w+\[i\] \+",
        "i + 2": r"\[i \+ 2\]",
        "2-D neighbours": r"\[i - 1, j\] \+ \w+\[i \+ 1, j\] \+ \w+\[i, j - 1\]",
        "periodic": r"\[\(i \+ 1\) % (n|x\.shape\[0\]|len\(x\))\]",
        "boundary test": r"if (i > 0|i >= 1|0 < i < )",
        "boundary value": r"if i (>|>=|<|\+ 1 <) .* else ",
        "shared intermediate": r"(\w+) / \(1\.0 \+ \1 \* \1\)",
        "force assembly": r"\w+\[i \+ 1\] -= |\w+\[i - 1\] \+= ",
        "product accumulation": r"\w+ \*= 1\.0 \+ 0\.1",
        "swap": r"(\w+), (\w+) = \(?\2, \1\)?",
        "copy back": r"\w+\[:\] = \w+\n|= \w+\.copy\(\)\n|np\.copyto\(",
        "triangular": r"for j in range\(i\)",
        "strided": r"range\(0, .*, 2\)",
        "reversed": r"range\(.*, -1, -1\)",
        "unpack reading a target": r"(\w+), (\w+) = helper_\d\(\2, ",
        "helper in a loop": r"\n        e \+= helper_\d\(",
        "astype": r"\.astype\(int\)",
        "argsort": r"np\.argsort\(",
        "where": r"np\.where\(\w+ > 0\.0\)\[0\]",
        "index arithmetic": r"j = \(?i \* 2\)? %",
        "floor": r"np\.floor\(",
        "gather through an index array": r"\w+\[idx\d+\]",
        "scatter through an index array": r"\w+\[idx\d+\[m\]\] \+= ",
    }
    missing = [k for k, pat in patterns.items() if not re.search(pat, text)]
    assert not missing, missing
    features = set().union(*(p.features for p in progs))
    assert set(loops.FEATURES) - features <= {"vector_output"}, set(loops.FEATURES) - features
    wrt = [[p.arg_names[w] for w in p.wrt] for p in progs]
    assert any("x" in w and ("k" in w or "w" in w) for w in wrt)   # state and parameters


# ---- the machinery -------------------------------------------------------------------

def _program(source, shapes, wrt=(0,), seed=0):
    names = ("x", "c", "k")[:len(shapes)]
    return Program(source=source, arg_names=names, arg_shapes=shapes,
                   arg_ints=tuple(3 if s is None else None for s in shapes), wrt=wrt,
                   value_seed=seed)


def test_reference_replays_markers():
    """Finite differences of the instrumented twin treat marker values as
    constants, as s2sad does, so a marker program passes."""
    prog = _program(
        "def fuzzed(x, c):\n"
        "    s = stop_gradient(c * c) * c\n"
        "    with stop_recording():\n"
        "        t = x[0] * c\n"
        "    u = x[1] * c\n"
        "    reset_recording()\n"
        "    return s + t + u * c + np.sum(x)\n", ((4,), ()), wrt=(0, 1))
    (L,) = load([prog])
    args = prog.args()
    L.R.record()
    L.fr(*args)
    L.R.mode = "off"
    x, c = args
    # s, t and u are constants after the reset: only `u * c` and `np.sum(x)` count
    assert finite_differences(L, args, 1) == pytest.approx(x[1] * c, rel=1e-6)
    np.testing.assert_allclose(finite_differences(L, args, 0), np.ones(4), rtol=1e-6)
    assert check_all([L])[0]["status"] == "ok"


def test_reference_detects_kinks():
    """A branch flipping within the finite-difference step is noticed:
    the program is then only checked for jit/Python agreement."""
    prog = _program("def fuzzed(x, c):\n"
                    "    if c > 0.0:\n"
                    "        return c * c\n"
                    "    return -c + abs(x[0])\n", ((2,), ()), wrt=(1,))
    (L,) = load([prog])
    args = prog.args()
    args[1] = 1e-7   # within the step of the kink at 0
    L.R.record()
    L.fr(*args)
    L.R.mode = "off"
    assert finite_differences(L, args, 1) is None
    args[1] = 0.5
    L.R.record()
    L.fr(*args)
    L.R.mode = "off"
    assert finite_differences(L, args, 1) == pytest.approx(1.0, rel=1e-6)


def test_reference_traces_kinks_of_bound_calls():
    """Kinks called with keywords, over axes (tuples too) or as methods are
    traced: a perturbation that changes their side is noticed; away from
    it, finite differences are taken."""
    sources = [
        "np.sum(np.clip(x, a_max=0.8, a_min=c))",
        "np.sum(x.max(axis=0)) * c",
        "np.max(x, axis=(0, 1)) * c",
        "np.sum(np.min(x, 1, keepdims=True)) * c",
        "np.sum(np.linalg.norm(x, ord=1, axis=0)) * c",
        "np.sum(x.clip(-0.5, 0.5)) * c",
    ]
    at_kink = np.array([[0.5 + 1e-8, 0.5], [0.5, 1e-8]])   # ties, a bound, a zero
    away = np.array([[0.7, 0.3], [0.4, 0.1]])
    for body in sources:
        (L,) = load([_program(f"def fuzzed(x, c):\n    return {body}\n", ((2, 2), ()))])
        for x, traced in ((at_kink, False), (away, True)):
            args = [x, 0.5]
            L.R.record()
            L.fr(*args)
            L.R.mode = "off"
            assert (finite_differences(L, args, 0) is not None) == traced, (body, x)


@functools.lru_cache(maxsize=1)
def _programs_of_seed_1():
    return collect(150, seed=1)


def test_generator_writes_bound_calls():
    """The generator writes the call forms bound to signatures: helpers
    called by keyword, with defaults and keyword-only parameters, reductions
    over axes with keepdims, np.clip's and np.linalg.norm's keywords, nested
    lists in np.array and repeated fancy indices."""
    import re
    text = "\n".join(p.source for p in _programs_of_seed_1())
    patterns = {
        "keyword-only parameter": r"def helper_\d\(.*\*, p\d",
        "default": r"def helper_\d\(.*p\d=-?\d",
        "keyword argument": r"helper_\d\([^()]*p\d=",
        "tuple axis": r"axis=\(-?\d, -?\d\)",
        "negative axis": r"axis=-\d",
        "keepdims": r"keepdims=True",
        "method with axis": r"\.(sum|mean|max|min|prod)\(axis=",
        "cumsum over an axis": r"cumsum\(.*(axis=|, -?\d\))",
        "transpose axes": r"np\.transpose\(.*(axes=|\(1, 0\)|\(-1, 0\))",
        "clip keywords": r"np\.clip\(.*a_max=",
        "norm ord": r"np\.linalg\.norm\(.*ord=",
        "norm axis": r"np\.linalg\.norm\(.*axis=",
        "nested list": r"np\.array\(\[\[",
        "fancy list": r"\w\[\[-?\d+, -?\d+",
        "index array": r"idx\d+ = np\.array\(\[",
    }
    missing = [k for k, pat in patterns.items() if not re.search(pat, text)]
    assert not missing, missing


def test_generator_writes_the_forms_users_write():
    """The generator writes container arguments (read by key, with .get,
    looped over, passed whole to a helper), local containers passed whole,
    imports inside functions, Ellipsis reads and writes, closures over
    arguments, numpy calls with keywords, and calls that must be refused."""
    import re
    progs = _programs_of_seed_1()
    text = "\n".join(p.source for p in progs)
    patterns = {
        "dict argument": r"def fuzzed\(.*\bp\b",
        "tuple or list argument": r"def fuzzed\(.*\bt\b",
        "dict.get": r"p\.get\('\w'\)",
        "loop over a container argument": r"for .* in (enumerate\()?(p\.(items|values)\(\)|sorted\(p\)|p|t)\)?:",
        "argument passed whole": r"predict(_get|_pair)?\((p|t),",
        "local dict passed whole": r"prm\d+ = \{'w'",
        "import inside": r"\n    import (numpy|math)",
        "ellipsis read": r"\[\.\.\., ",
        "ellipsis write": r"\[(\.\.\.|\.\.\., [^\]]+|[^\]]+, \.\.\.)\] \+?= ",
        "closure over an argument": r"lambda u: .*\* (x|y)\b",
        "numpy keyword": r"np\.(sum|mean|prod|max)\(a=",
        "refused effect": r"np\.add\.at\(|np\.put\(|\.put\(\[|np\.fill_diagonal\(|\.resize\(|out=\w+\[",
    }
    missing = [k for k, pat in patterns.items() if not re.search(pat, text)]
    assert not missing, missing
    assert any("effect_refusal" in p.features for p in progs)


def test_effects_must_be_refused_naming_the_line():
    """A program making a call s2sad does not follow passes only when grad
    raises naming that call's line in the program's file."""
    import dataclasses
    prog = dataclasses.replace(_program(
        "def fuzzed(x, c):\n"
        "    b = x * c\n"
        "    np.put(b, [0, 2], c)\n"
        "    return np.sum(b * x)\n", ((3,), ()), wrt=(0, 1)), features=frozenset({"effect_refusal"}))
    (L,) = load([prog])
    result = check_all([L])[0]
    assert (result["status"], result["fd"]) == ("ok", "refused"), result
    path, lines = refusals.effect_lines(L.f)
    assert len(lines) == 1 and f"{path}:{lines[0]}" in result["message"]


def test_outside_the_language_is_rejected():
    """Writing an array through a second name is outside the language: the
    checker calls such a program invalid rather than a failure of s2sad."""
    prog = _program("def fuzzed(x, c):\n"
                    "    v = x\n"
                    "    b = v\n"
                    "    b[0] = c\n"
                    "    return np.sum(v * x)\n", ((3,), ()), wrt=(0, 1))
    result = check_all(load([prog]))[0]
    assert result["status"] == "invalid" and result["category"] == "outside the language"


def test_shrinker_keeps_the_failure():
    """The shrinker reduces a program while its failure persists (here a
    stand-in failure: using np.tanh)."""
    prog = _program("def fuzzed(x, c):\n"
                    "    s = c * c\n"
                    "    for i in range(3):\n"
                    "        s = s + np.tanh(x[i] * s)\n"
                    "        if s > 10.0:\n"
                    "            break\n"
                    "    t = np.sum(x * x)\n"
                    "    return s * t\n", ((3,), ()))

    class Tanh(Shrinker):
        def fails(self, p):
            self.checks += 1
            return "np.tanh(" in p.source and "return" in p.source

    small = Tanh(prog, ("stand-in",)).run()
    assert "np.tanh(" in small.source
    assert len(small.source.splitlines()) <= 3, small.source
