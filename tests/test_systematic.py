"""Systematic rule tests (tests/systematic): a deterministic sample of the
grid of cases, every registered numpy / math / builtins / operator rule over
ranks, axis forms, spellings, broadcasting, special points and domains,
against central finite differences; and the whole refusal grid.

- as Python (jit=False): grad, jvp, hvp and (small arguments) hessian;
- compiled (jit=True): grad and jvp, for a smaller sample. A numba fallback
  (NumbaFallbackWarning) is accepted but counted, and the count printed at
  the end of the run.

The full grid is a command (about a minute as Python, half an hour compiled):

    python -m tests.systematic.run [--jit] [--limit N] [--sample N]

Failures already known are listed in KNOWN by (case, mode): they xfail, and
a known failure that passes makes its test fail, so the list stays true.
S2SAD_SYSTEMATIC_CASES / S2SAD_SYSTEMATIC_JIT_CASES change the sample sizes."""
import os

import numba
import numpy as np
import pytest

import s2sad
from systematic.cases import Case, make
from systematic.check import run_case, write_module
from systematic.grid import build_cases, ci_sample, coverage

N_PYTHON = int(os.environ.get("S2SAD_SYSTEMATIC_CASES", "260"))
N_JIT = int(os.environ.get("S2SAD_SYSTEMATIC_JIT_CASES", "40"))
PYTHON_SAMPLE = ci_sample(N_PYTHON, salt="ci")
JIT_SAMPLE = ci_sample(N_JIT, salt="ci-jit", jit=True)
REFUSALS = build_cases(("refuse",))
PYTHON_MODES = ("grad", "jvp", "hvp", "hessian")
JIT_MODES = ("grad", "jvp")

# Known failures, (case id, mode) -> why; the full list is the report of
# `python -m tests.systematic.run`.
_BOTH = ("grad", "jvp")
KNOWN = {
    ("numpy.where:zero/where_sqrt_nan", "grad"): "nan from the branch np.where does not take "
    "(0 * nan, as in JAX and autograd)",
}


@pytest.fixture(scope="module")
def functions(tmp_path_factory):
    cases = {c.id: c for c in PYTHON_SAMPLE + JIT_SAMPLE + REFUSALS}
    return write_module(list(cases.values()), tmp_path_factory.mktemp("systematic"),
                        "systematic_ci_cases")


@pytest.fixture(scope="module")
def fallbacks(request):
    """The jit=True checks that ran as Python, reported at the end."""
    seen = []
    yield seen
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line(f"\ntest_systematic: {len(seen)} jit=True checks fell back to "
                            f"Python (NumbaFallbackWarning)" + (":" if seen else ""))
        for case, mode, reason in seen:
            reporter.write_line(f"  {case} [{mode}]: {reason[:150]}")


def _verdict(case, results):
    """Fail on a failure not in KNOWN, or on a KNOWN failure that passed;
    xfail when every failure is known."""
    failed = {r.mode: r for r in results if r.failed}
    new = [r for mode, r in failed.items() if (case.id, mode) not in KNOWN]
    fixed = [mode for (cid, mode) in KNOWN if cid == case.id and mode not in failed
             and any(r.mode == mode for r in results)]
    lines = [f"{r.mode}: {r.status}: {r.detail}" for r in new]
    lines += [f"{mode}: passes now: remove it from KNOWN" for mode in fixed]
    if lines:
        pytest.fail(f"{case.id}\n  {case.reproducer()}\n  " + "\n  ".join(lines),
                    pytrace=False)
    if failed:
        pytest.xfail("; ".join(KNOWN[(case.id, m)] for m in failed))


@pytest.mark.parametrize("case", PYTHON_SAMPLE, ids=lambda c: c.id)
def test_rule_python(case, functions):
    _verdict(case, run_case(case, functions[case.id], jit=False, modes=PYTHON_MODES))


@pytest.mark.parametrize("case", JIT_SAMPLE, ids=lambda c: c.id)
def test_rule_jit(case, functions, fallbacks):
    results = run_case(case, functions[case.id], jit=True, modes=JIT_MODES)
    fallbacks += [(case.id, r.mode, r.fallback) for r in results if r.fallback]
    _verdict(case, results)


# Forms numba lacks, rewritten into runtime helpers by the late pass
# (transforms/emit/numba_forms.py, s2sad/forms.py): they ran as Python
# with jit=True before; now their derivatives must compile.
MUST_COMPILE = [
    "numpy.mean:mean/2x3x4/axis=(2, 0)", "numpy.mean:mean/3/axis=None", "numpy.mean:mean/s/axis=()",
    "numpy.max:max/2x3/axis=-1/keepdims", "numpy.amin:amin/2x3x4/axis=(0, 1)",
    "numpy.prod:prod/2x3/axis=-2", "numpy.var:var/3/axis=0/ddof1", "numpy.std:std/3/axis=-1/keepdims",
    "numpy.linalg.norm:norm/4/axis=0", "numpy.linalg.norm:norm/2x3/ord=1, axis=1",
    "numpy.linalg.norm:norm/2x3x4/ord='fro', axis=(0, 2)", "numpy.matmul:matmul/2x3_3x4",
    "numpy.array:array/dtype=float", "numpy.sum:sum/s/axis=None/keepdims",
    "numpy.sum:sum/2x3x4/axis=(0, 2)"]


@pytest.fixture(scope="module")
def must_compile(tmp_path_factory):
    cases = {c.id: c for c in build_cases(("value",))}
    chosen = [cases[i] for i in MUST_COMPILE]
    functions = write_module(chosen, tmp_path_factory.mktemp("compiled"), "systematic_compiled")
    return {c.id: (c, functions[c.id]) for c in chosen}


@pytest.mark.parametrize("case_id", MUST_COMPILE)
def test_rule_compiles(case_id, must_compile):
    case, fn = must_compile[case_id]
    results = run_case(case, fn, jit=True, modes=JIT_MODES)
    fell = [f"{r.mode}: {r.fallback[:300]}" for r in results if r.fallback]
    assert not fell, f"{case.id} fell back to Python:\n" + "\n".join(fell)
    _verdict(case, results)


@pytest.mark.parametrize("case", REFUSALS, ids=lambda c: c.id)
def test_refused(case, functions):
    """Calls a rule does not implement raise (LookupError, TypeError or an
    s2sad error), in reverse and forward mode."""
    _verdict(case, run_case(case, functions[case.id], jit=False, modes=("grad", "jvp")))


def test_grid_covers_every_rule():
    """Every rule registered for a numpy / math / builtins / operator
    function has cases (a new rule needs its rows in tests/systematic)."""
    missing, unknown = coverage()
    assert not missing, f"rules without a systematic case: {missing}"
    assert not unknown, f"cases for rules that are not registered: {unknown}"


def test_grid_is_deterministic():
    from systematic import (families_arrays, families_elementwise, families_keywords,
                            families_numpy_more, families_scipy, families_shapes,
                            families_special)
    first = (families_elementwise.cases() + families_arrays.cases() + families_special.cases()
             + families_shapes.cases() + families_scipy.cases() + families_numpy_more.cases()
             + families_keywords.cases())
    again = build_cases()
    assert [c.id for c in first] == [c.id for c in again]
    for a, b in zip(first, again):
        assert a.lines == b.lines and a.wrt == b.wrt
        for x, y in zip(a.args, b.args):
            x, y = np.asarray(x), np.asarray(y)
            assert np.array_equal(x, y, equal_nan=x.dtype.kind in "fc"), a.id


@numba.njit
def _cube(x):
    return x ** 3


def _cube_grad_wrong(dy, y, x):
    return dy * 2.0 * x ** 2  # should be 3 x^2


def _cube_grad(dy, y, x):
    return dy * 3.0 * x ** 2


def _kernel_case(kind="value", expr="np.sum(cube(x) * w)"):
    x = np.array([0.5, -1.2, 2.0])
    w = np.array([1.0, -2.0, 0.5])
    return Case(f"selftest:{kind}:{expr}", "selftest", (f"return {expr}",), ("x", "w"),
                (x, w), (0,), kind)


def test_the_checks_catch_a_wrong_gradient(tmp_path):
    """A kernel with a wrong registered gradient fails the check; with the
    right one it passes (the checks can fail)."""
    case = _kernel_case()
    fn = write_module([case], tmp_path, "systematic_selftest")[case.id]
    fn.__globals__["cube"] = _cube
    s2sad.register_gradient(_cube, _cube_grad_wrong)
    (grad,) = run_case(case, fn, modes=("grad",))
    assert grad.status == "wrong", grad
    s2sad.register_gradient(_cube, _cube_grad)
    (grad,) = run_case(case, fn, modes=("grad",))
    assert grad.status == "ok", grad


def test_the_checks_catch_a_missing_refusal(tmp_path):
    """A call marked as one to refuse that s2sad differentiates fails."""
    case = make("selftest", "refuse", "np.sin(x)", {"x": ((3,), lambda rng, s: np.ones(s))},
                kind="refuse")
    fn = write_module([case], tmp_path, "systematic_selftest_refusal")[case.id]
    statuses = {r.mode: r.status for r in run_case(case, fn, modes=("grad", "jvp"))}
    assert statuses == {"grad": "should-refuse", "jvp": "should-refuse"}
