"""Keyword forms of numpy functions (where=, initial=, dtype=, np.diff's
prepend/append, einsum's optimize, np.average's returned/keepdims,
np.concatenate(axis=None), one-sided clip, astype(float)) against finite
differences, from the grid in tests/systematic/families_keywords.py: a
sample as Python (grad, jvp and a third hvp) and three cases compiled
(S2SAD_FULL=1: every case both ways); every refusal names the user's line.
Plus the errors numpy's semantics call for."""
import warnings
import zlib

import numpy as np
import pytest

import s2sad
from gradcheck import FULL
from systematic.check import REFUSALS as REFUSAL_ERRORS, run_case, write_module
from systematic.families_keywords import cases

CASES = cases()
VALUES = [c for c in CASES if c.kind != "refuse"]
REFUSALS = [c for c in CASES if c.kind == "refuse"]


def _sampled(case, every):
    return FULL or zlib.crc32(case.id.encode()) % every == 0


# by default a sample (CI's budget): a twenty-fourth as Python, and three cases compiled (a
# masked reduction, a cast, a one-sided clip); the definitions compile as a user's helpers do
PYTHON_CASES = [c for c in VALUES if _sampled(c, 24)]
COMPILED = {"numpy.sum:where/mask_arg/sum/1/where=c", "numpy.sum:dtype/method/float",
            "numpy.clip:clip/x.clip(max=hi)"}
JIT_CASES = [c for c in VALUES if FULL or c.id in COMPILED]


@pytest.fixture(scope="module")
def functions(tmp_path_factory):
    return write_module(CASES, tmp_path_factory.mktemp("keywords"), "numpy_keyword_cases")


def _verdict(case, results):
    bad = [f"{r.mode}: {r.status}: {r.detail}" for r in results
           if r.status not in ("ok", "refused-ok", "skip")]
    assert not bad, f"{case.id}\n  {case.reproducer()}\n  " + "\n  ".join(bad)


@pytest.mark.parametrize("case", PYTHON_CASES, ids=lambda c: c.id)
def test_python(case, functions):
    modes = ("grad", "jvp", "hvp") if _sampled(case, 3) else ("grad", "jvp")
    _verdict(case, run_case(case, functions[case.id], jit=False, modes=modes))


@pytest.mark.parametrize("case", JIT_CASES, ids=lambda c: c.id)
def test_compiled(case, functions):
    """Compiled with numba, never falling back to Python (the definitions,
    the cast and einsum's loop nests compile)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.NumbaFallbackWarning)
        _verdict(case, run_case(case, functions[case.id], jit=True, modes=("grad", "jvp")))


@pytest.mark.parametrize("case", REFUSALS, ids=lambda c: c.id)
def test_refused_with_the_line(case, functions):
    fn = functions[case.id]
    for derivative in (s2sad.grad(fn, wrt=case.wrt, jit=False),
                       lambda *a: s2sad.jvp(fn, wrt=case.wrt[0], jit=False)(
                           *a, np.ones_like(a[case.wrt[0]]))):
        with pytest.raises(REFUSAL_ERRORS) as info:
            derivative(*case.args)
        text = str(info.value)
        assert "numpy_keyword_cases.py:" in text and f"in {fn.__name__}" in text, text


X = np.array([[0.3, -1.2, 0.8, 1.5], [-0.4, 0.9, -2.0, 0.1]])


def test_where_mask_larger_than_the_array_raises_as_numpy(jit):
    def f(x, c):
        return np.sum(x, where=c)
    c = np.ones((3, 2, 4), dtype=bool)
    with pytest.raises(ValueError):
        np.sum(X, where=c)
    if not jit:
        with pytest.raises(ValueError, match="where= must broadcast"):
            s2sad.grad(f, jit=False)(X, c)
        return
    with pytest.raises(Exception):  # (numba's typing error: the result's rank would change)
        s2sad.grad(f, jit=True)(X, c)


def test_max_with_where_needs_initial():
    def f(x):
        return x.max(axis=0, where=x > 0.0)
    with pytest.raises(ValueError, match="initial"):
        np.max(X, axis=0, where=X > 0.0)
    with pytest.raises(LookupError, match=r"test_numpy_keywords.py:\d+, in f: .*needs initial="):
        s2sad.grad(f, jit=False)(X)


def test_mask_gets_no_gradient_and_masked_entries_get_zero(jit):
    def f(x, y):
        return np.sum(x * y, axis=1, where=y > 0.0)
    y = np.array([[1.0, -1.0, 2.0, -0.5], [0.5, 0.5, -3.0, 1.0]])
    gx, gy = s2sad.grad(f, wrt=(0, 1), jit=jit)(X, y)
    np.testing.assert_allclose(gx, np.where(y > 0.0, y, 0.0))
    np.testing.assert_allclose(gy, np.where(y > 0.0, X, 0.0))


def test_average_returned_gives_both_gradients(jit):
    def f(x, w):
        avg, scale = np.average(x, axis=1, weights=w, returned=True)
        return np.sum(avg * scale)  # = the weighted sums
    w = np.abs(X) + 0.5
    gx, gw = s2sad.grad(f, wrt=(0, 1), jit=jit)(X, w)
    np.testing.assert_allclose(gx, w)
    np.testing.assert_allclose(gw, X)


def test_dtype_float64_is_a_cast_in_the_derivative_source():
    def f(x):
        return np.sum(np.cumsum(x, axis=1, dtype=float) ** 2, dtype="float64")
    df = s2sad.grad(f, jit=False)
    df(X)
    assert "np.asarray(x, dtype=np.float64)" in df.source


def test_float32_input_with_dtype_float64_computes_as_numpy(jit):
    """np.sum(x32, dtype=np.float64) sums in float64, as numpy does; the
    gradient keeps the argument's float32."""
    x = (np.arange(1, 9, dtype=np.float32) / 3).reshape(2, 4)

    def f(x):
        return np.sum(x * x, dtype=np.float64)
    value, g = s2sad.value_and_grad(f, jit=jit)(x)
    np.testing.assert_allclose(value, f(x), rtol=1e-6)  # (the value comes back in float32)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, 2 * x, rtol=1e-6)


def test_clip_in_a_helper_keeps_numpy_meaning(jit):
    def lower(u, lo):
        return u.clip(lo)

    def f(x):
        return np.sum(lower(x, 0.0) ** 2) + np.sum(x.clip(max=0.5))
    g = s2sad.grad(f, jit=jit)(X)
    np.testing.assert_allclose(g, 2 * np.maximum(X, 0.0) + (X <= 0.5))


def test_astype_float32_is_refused_saying_what_to_do():
    def f(x):
        return np.sum(x.astype(np.float32) * x)
    with pytest.raises(LookupError, match=r"test_numpy_keywords.py:\d+, in f: .*'dtype'.*"
                                          r"outside the differentiated function"):
        s2sad.grad(f, jit=False)(X)


def test_sum_with_keepdims_in_a_helper_compiles():
    """A helper's forward copy keeps np.sum(..., keepdims=True), which
    numba's np.sum lacks: it runs as the runtime form sum_kept."""
    def centred(u):
        return u - np.sum(u, axis=1, keepdims=True) / u.shape[1]

    def f(x):
        return np.sum(centred(x) ** 3)
    g = s2sad.grad(f, jit="require")(X)
    c = X - X.mean(axis=1, keepdims=True)
    np.testing.assert_allclose(g, 3 * c ** 2 - np.mean(3 * c ** 2, axis=1, keepdims=True))
