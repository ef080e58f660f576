"""numpy forms numba lacks, rewritten into s2sad.runtime helpers (s2sad/forms.py) by
the late pass transforms/emit/numba_forms.py: each helper gives numpy's result
(values, shape, dtype) compiled and as Python, and derivatives using the
forms compile (a NumbaFallbackWarning is an error here, see conftest.py)
and agree with finite differences."""
import importlib.util
import itertools
import os

import numba
import numpy as np
import pytest

import s2sad
from gradcheck import check_grad, check_jvp, check_tree_grad, numerical_grad
from s2sad import runtime as F

rng = np.random.default_rng(7)
ARRAYS = {1: rng.standard_normal(5) + 0.5, 2: rng.standard_normal((3, 4)) + 0.5,
          3: rng.standard_normal((2, 3, 4)) + 0.5}
REDUCTIONS = [(F.mean_axis, np.mean), (F.max_axis, np.max), (F.min_axis, np.min),
              (F.prod_axis, np.prod), (F.var_axis, np.var), (F.std_axis, np.std)]


def _int_axes(nd):
    return list(range(nd)) + list(range(-nd, 0))


def _tuple_axes(nd):
    """Pairs in both orders, with negative spellings, and all axes."""
    pairs = [(a, b) for a, b in itertools.permutations(range(nd), 2)]
    pairs += [(a - nd, b) for a, b in pairs[:2]]
    return pairs + ([tuple(range(nd))] if nd > 2 else [])


def _same(got, expected):
    assert np.shape(got) == np.shape(expected)
    assert np.asarray(got).dtype == np.asarray(expected).dtype
    np.testing.assert_allclose(got, expected, rtol=1e-13, atol=1e-15)


def _njit_call(helper, **fixed):
    """A compiled caller of `helper(a, axis=axis, **fixed)` (axis known at run time)."""
    extra = "".join(f", {k}={v!r}" for k, v in fixed.items())
    scope = {"helper": helper}
    exec(f"def call(a, axis):\n    return helper(a, axis=axis{extra})", scope)
    return numba.njit(scope["call"])


@pytest.mark.parametrize("helper, fn", REDUCTIONS, ids=lambda h: getattr(h, "__name__", ""))
@pytest.mark.parametrize("nd", [1, 2, 3])
def test_reduction_matches_numpy(helper, fn, nd, jit):
    x = ARRAYS[nd]
    ints = _int_axes(nd)
    tuples = _tuple_axes(nd)
    run_int = _njit_call(helper) if jit else helper
    for axis in ints:
        _same(run_int(x, axis), fn(x, axis=axis))
    if tuples:
        run_tuple = {} if jit else None
        for axis in tuples:
            if jit:  # one compilation per tuple length
                run = run_tuple.setdefault(len(axis), _njit_call(helper))
            else:
                run = helper
            _same(run(x, axis), fn(x, axis=axis))


@pytest.mark.parametrize("helper, fn", REDUCTIONS[:4], ids=lambda h: getattr(h, "__name__", ""))
def test_reduction_of_integers_keeps_numpys_dtype(helper, fn, jit):
    x = np.arange(1, 13, dtype=np.int32).reshape(3, 4)
    run = _njit_call(helper) if jit else helper
    _same(run(x, 1), fn(x, axis=1))


def test_literal_axes_and_ddof():
    x = ARRAYS[3]

    @numba.njit
    def f(a):
        return (F.mean_axis(a, axis=(0, -1)), F.max_axis(a, axis=-2), F.var_axis(a, axis=1, ddof=1),
                F.std_axis(a, ddof=1), F.norm_axis(a, axis=(1, 2)))
    got = f(x)
    expected = (np.mean(x, axis=(0, -1)), np.max(x, axis=-2), np.var(x, axis=1, ddof=1),
                np.std(x, ddof=1), np.linalg.norm(x, axis=(1, 2)))
    for g, e in zip(got, expected):
        _same(g, e)


@pytest.mark.parametrize("ord", [None, 1, 2, 3, np.inf])
def test_norm_over_an_axis(ord, jit):
    x = ARRAYS[3]
    run = _njit_call(F.norm_axis, ord=ord) if jit and ord is not np.inf else \
        (lambda a, axis: F.norm_axis(a, ord=ord, axis=axis))
    for axis in _int_axes(3):
        _same(run(x, axis), np.linalg.norm(x, ord=ord, axis=axis))


def test_frobenius_norm(jit):
    x = ARRAYS[2]
    f = numba.njit(lambda a: F.norm_axis(a, ord="fro")) if jit else \
        (lambda a: F.norm_axis(a, ord="fro"))
    _same(f(x), np.linalg.norm(x, ord="fro"))


def test_array_of_arrays_and_numbers(jit):
    a, b = ARRAYS[2], 2 * ARRAYS[2]
    f = numba.njit(lambda parts: F.array_of(parts)) if jit else F.array_of
    _same(f((a, b)), np.array((a, b)))
    _same(f((1.5, 2.5)), np.array((1.5, 2.5)))


# ---- the pass, and derivatives that compile --------------------------------------

def mean0(x):
    return np.sum(np.mean(x, axis=0) ** 2)


def softmax_loss(x):
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return np.sum(np.log(e / np.sum(e, axis=-1, keepdims=True)) * np.mean(x, axis=(0, 1)))


def extremes(x):
    return np.sum(np.amax(x, axis=1) * np.amin(x, axis=-1)) + np.sum(np.min(x, axis=0) ** 2)


def products(x):
    return np.sum(np.prod(x, axis=-1) ** 2)


def spread(x):
    return np.sum(np.var(x, axis=0, ddof=1)) + np.sum(np.std(x, axis=(0, 1)))


def norms(x):
    return np.sum(np.linalg.norm(x, axis=1)) + np.linalg.norm(x, ord="fro") ** 2 \
        + np.sum(np.linalg.norm(x, ord=3, axis=0))


def stacked(x):
    y = np.array((x, 2.0 * x))
    z = np.array([np.sin(x), x])
    return np.sum(y ** 2 * z)


def sum_over_pair(x):
    return np.sum(np.sum(x, axis=(0, 2)) ** 2)


CASES = [(mean0, 2), (mean0, 3), (softmax_loss, 3), (extremes, 2), (products, 2), (spread, 3),
         (norms, 2), (stacked, 1), (sum_over_pair, 3)]


@pytest.mark.parametrize("f, nd", CASES, ids=lambda c: getattr(c, "__name__", str(c)))
def test_grad_compiles_and_is_right(f, nd, jit):
    check_grad(f, (ARRAYS[nd],), jit=jit)


@pytest.mark.parametrize("f, nd", CASES[:4] + CASES[6:8], ids=lambda c: getattr(c, "__name__", str(c)))
def test_jvp_compiles_and_is_right(f, nd):
    check_jvp(f, (ARRAYS[nd],), jit="require")


@pytest.mark.parametrize("f, nd", [(mean0, 2), (extremes, 2), (norms, 2), (stacked, 1)],
                         ids=lambda c: getattr(c, "__name__", str(c)))
def test_hessian_compiles_and_is_right(f, nd):
    x = ARRAYS[nd]
    h = s2sad.hessian(f, jit=True)(x)
    g = s2sad.grad(f, jit=False)
    expected = np.stack([numerical_grad(lambda v: g(v)[k], (x,), 0)
                         for k in np.ndindex(x.shape)]).reshape(x.shape * 2)
    np.testing.assert_allclose(h, expected, rtol=1e-5, atol=1e-5)


def test_generated_source_calls_the_helpers():
    source = s2sad.grad(softmax_loss, jit=False).source_for(ARRAYS[3])
    assert "max_axis(x, axis=-1)" in source and "mean_axis(x, axis=(0, 1))" in source
    code = "\n".join(line for line in source.splitlines() if not line.strip().startswith("#"))
    assert "np.max(" not in code and "np.mean(" not in code


def test_export_runs_standalone(tmp_path, monkeypatch):
    # (it asserted the word "s2sad" absent from the exported derivative, whose
    # docstring names the source file: false in a checkout whose path has it)
    from exporting import imports_no_s2sad, run_without_s2sad
    d = s2sad.grad(norms, jit=False)
    d(ARRAYS[2])
    path = str(tmp_path / "exported_norms.py")
    entry = s2sad.export(d, path)
    assert imports_no_s2sad(path)
    monkeypatch.setenv("S2SAD_EXPORT_JIT", "0")
    spec = importlib.util.spec_from_file_location("exported_norms", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    value, grad = getattr(module, entry)(ARRAYS[2])
    np.testing.assert_allclose(value, norms(ARRAYS[2]))
    np.testing.assert_allclose(grad, numerical_grad(norms, (ARRAYS[2],), 0), rtol=1e-6)
    got_value, got_grad = run_without_s2sad(path, entry, (ARRAYS[2],), jit=False)
    np.testing.assert_allclose(got_value, value, rtol=1e-12)
    np.testing.assert_allclose(got_grad, grad, rtol=1e-12)


def test_array_copy_and_matmul(jit):
    x = ARRAYS[2]
    copy = numba.njit(lambda a: F.array_copy(a, dtype=float)) if jit else \
        (lambda a: F.array_copy(a, dtype=float))
    got = copy(x)
    _same(got, np.array(x, dtype=float))
    assert got is not x
    pair = numba.njit(lambda a: F.array_copy((a, a))) if jit else (lambda a: F.array_copy((a, a)))
    _same(pair(x), np.array((x, x)))
    mm = numba.njit(lambda a, b: F.matmul_of(a, b)) if jit else F.matmul_of
    for a, b in [(x, x.T), (x[0], x.T), (x, x[0]), (x[0], x[0])]:
        _same(mm(a, b), np.matmul(a, b))


def copied_products(x):
    y = np.array(x, dtype=float)
    return np.sum(np.matmul(y, y.T) ** 2) + np.sum(np.matmul(y[0], y.T) * np.array(x)[:, 0])


def test_copies_and_matmul_compile(jit):
    check_grad(copied_products, (ARRAYS[2],), jit=jit)
    check_jvp(copied_products, (ARRAYS[2],), jit=jit)


def test_axis_none_empty_tuple_and_numbers(jit):
    x = ARRAYS[2]

    def f(a):
        return (F.mean_axis(a, axis=None), F.prod_axis(a, axis=()), F.max_axis(2.5, axis=None),
                F.prod_axis(3, axis=()), F.var_axis(2.0, ddof=0))
    got = (numba.njit(f) if jit else f)(x)
    expected = (np.mean(x, axis=None), np.prod(x, axis=()), np.max(2.5, axis=None),
                np.prod(3, axis=()), np.var(2.0, ddof=0))
    for g, e in zip(got, expected):
        assert np.shape(g) == np.shape(e)
        np.testing.assert_allclose(g, e)


# ---- methods in a helper's forward copy --------------------------------------
# A helper called by the differentiated function runs as the user wrote it in
# the compiled forward sweep; `a.max(axis=0)` there is np.max(a, axis=0) too.

def _h_max(a):
    return a.max(axis=0) + a.min(axis=1).sum()


def _h_mean_keepdims(a):
    return a - a.mean(axis=1, keepdims=True)


def _h_var_std(a):
    return a.var(axis=0, ddof=1) * a.std(axis=1).sum()


def _h_prod(a):
    return a.prod(axis=-1)


def _f_max(x):
    return np.sum(_h_max(x * 1.5) ** 2)


def _f_mean_keepdims(x):
    return np.sum(_h_mean_keepdims(x * 1.5) ** 2)


def _f_var_std(x):
    return np.sum(_h_var_std(x * 1.5) ** 2)


def _f_prod(x):
    return np.sum(_h_prod(x * 1.5) ** 2)


HELPER_METHOD_CASES = [(_f_max, "_h_max"), (_f_mean_keepdims, "_h_mean_keepdims"),
                       (_f_var_std, "_h_var_std"), (_f_prod, "_h_prod")]


@pytest.mark.parametrize("f, helper", HELPER_METHOD_CASES, ids=lambda c: getattr(c, "__name__", ""))
@pytest.mark.parametrize("jit", [True, False])
def test_method_reductions_in_a_helper_compile(f, helper, jit):
    x = rng.standard_normal((4, 3)) + 2.0
    df = check_grad(f, (x,), jit=jit)
    src = df.source_for(x)
    copy = src[src.index(f"def {helper}("):src.index("def vjp_")]
    assert ".max(axis" not in copy and ".mean(axis" not in copy and ".var(axis" not in copy \
        and ".prod(axis" not in copy, copy


def _h_swapped(a):
    return a.swapaxes(0, 1) * a.trace()


def _f_swapped(x):
    return np.sum(_h_swapped(x * 1.5) * np.arange(12.0).reshape(3, 4))


@pytest.mark.parametrize("jit", [True, False])
def test_methods_numba_has_only_as_functions_in_a_helper(jit):
    # (numba has np.swapaxes and np.trace, not the methods: the forward
    # sweep's copy of the helper fell back to Python)
    x = rng.standard_normal((4, 3))
    df = check_grad(_f_swapped, (x,), jit=jit)
    src = df.source_for(x)
    copy = src[src.index("def _h_swapped("):src.index("def vjp_")]
    assert "a.swapaxes(" not in copy and "a.trace(" not in copy, copy


# ---- np.linalg.cholesky(a, upper=True): numba's has no `upper` ---------------------

def _upper_factor(A):
    U = np.linalg.cholesky(A, upper=True)
    return np.sum(U * np.arange(9.0).reshape(3, 3))


_SPD = np.array([[2.0, 0.3, -0.2], [0.3, 1.5, 0.4], [-0.2, 0.4, 1.8]])
_SPD_LOWER_JUNK = _SPD + np.tril(np.full((3, 3), 5.0), -1)  # numpy reads the upper triangle


@pytest.mark.parametrize("upper", [True, False])
def test_np_cholesky_helper_is_numpys(upper):
    from s2sad.runtime import np_cholesky
    A = _SPD_LOWER_JUNK if upper else _SPD_LOWER_JUNK.T
    expected = np.linalg.cholesky(A, upper=upper)
    _same(np_cholesky(A, upper=upper), expected)
    _same(numba.njit(lambda a, u: np_cholesky(a, upper=u))(A, upper), expected)


def test_cholesky_upper_takes_the_helper(jit):
    if jit and os.environ.get("S2SAD_FULL", "") in ("", "0"):
        pytest.skip("compiling the Cholesky rules takes ~100 s: S2SAD_FULL=1")
    df = check_grad(_upper_factor, (_SPD_LOWER_JUNK,), jit=jit)
    assert "np_cholesky(" in df.source_for(_SPD_LOWER_JUNK)


# ---- np.hstack / vstack / column_stack of a list built in a loop (an array's rows) ----------

def joined_rows(x):
    rows = []
    for i in range(3):
        rows.append(x * (i + 1.0))
    blocks = [np.outer(x[:2], x) * i for i in range(3)]
    W = np.arange(1.0, 13.0)
    return (np.sum(np.column_stack(rows) * W.reshape(4, 3)) + np.sum(np.hstack(rows) * W)
            + np.sum(np.vstack(rows) * W.reshape(3, 4)) + np.sum(np.sin(np.hstack(blocks)))
            + np.sum(np.cos(np.vstack(blocks))) + np.sum(np.column_stack(blocks) ** 2))


def test_joins_of_rows_built_in_a_loop(jit):
    check_grad(joined_rows, [np.array([0.3, -1.1, 0.8, 2.0])], jit=jit)


@pytest.mark.parametrize("shape", [(3, 4), (3, 2, 4)])
@pytest.mark.parametrize("join", ["hstack_of", "vstack_of", "column_stack_of"])
def test_joins_of_rows_agree_with_numpy(join, shape):
    rows = rng.standard_normal(shape)
    numpy_join, helper = getattr(np, join[:-3]), getattr(F, join)
    _same(numba.njit(lambda r: helper(r))(rows), numpy_join(rows))
    _same(numba.njit(lambda r: helper((r[0], r[1])))(rows), numpy_join((rows[0], rows[1])))


@pytest.mark.parametrize("offset", [0, 1, -2])
@pytest.mark.parametrize("axes", [(0, 1), (1, 0), (-1, 0)])
def test_diagonal_of_a_matrix_agrees_with_numpy(offset, axes):
    a = rng.standard_normal((4, 5))
    got = numba.njit(lambda m: F.diagonal_of(m, offset, axes[0], axes[1]))(a)
    _same(got, np.ascontiguousarray(np.diagonal(a, offset, *axes)))


def diagonals(A):
    M = A @ A.T
    return np.sum(np.diagonal(M) ** 2) + np.sum(np.sin(np.diagonal(A, 1)))


def test_diagonal_compiles(jit):
    check_grad(diagonals, [rng.standard_normal((3, 4))], jit=jit)


def vector_of(value):
    if isinstance(value, dict):
        return np.concatenate([vector_of(v) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        return np.concatenate([vector_of(v) for v in value])
    return np.ravel(value)


def rebuilt(like, v):
    if isinstance(like, (list, tuple)):
        out, start = [], 0
        for item in like:
            size = len(vector_of(item))
            out.append(rebuilt(item, v[start:start + size]))
            start += size
        return out
    return np.reshape(v, np.shape(like))


def make_unflatten(like):
    def unflatten(v):
        return rebuilt(like, v)
    return unflatten


def flatten(value):
    return vector_of(value), make_unflatten(value)


def flat_norm(params):
    """(autograd's neural_net_regression: flat, _ = flatten(params); the
    helper's copy joins a list literal, which numba's np.concatenate does
    not take: a tuple in the generated code)."""
    flat, _ = flatten(params)
    return np.sum(-0.5 * (flat / 10.0) ** 2 - np.log(10.0))


def objective(params, t):
    return -flat_norm(params) * t


def test_a_list_literal_given_to_concatenate_compiles(jit):
    check_tree_grad(objective, ([(np.array([[0.5, -1.0]]), np.array([0.2])),
                                 (np.array([[0.3], [0.1]]), np.array([0.7]))], 2.0), jit=jit)
