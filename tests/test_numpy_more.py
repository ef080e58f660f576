"""numpy functions s2sad differentiates through definitions chosen by the
call (s2sad/definitions/) and np.linalg's eigh, svd and pinv
rules: gradients against finite differences (reverse and forward mode,
compiled and as Python), values against numpy's own, and the calls that
are refused."""
import numpy as np
import pytest

import s2sad
from gradcheck import check_grad, check_jvp, wrt_cases

rng = np.random.default_rng(7)
X4 = np.array([0.3, -1.2, 2.0, 0.7])
X3 = np.array([0.5, -0.4, 1.1])
M23 = np.array([[0.5, -1.2, 0.8], [1.4, 0.3, -0.6]])
M34 = rng.uniform(-1.0, 1.0, (3, 4))
M43 = M34.T.copy()
SQ = np.array([[2.0, 0.5, -0.3], [0.4, 1.5, 0.2], [-0.1, 0.3, 3.0]])
# not symmetric (eigh reads the lower triangle), eigenvalues about 2 apart
NONSYM = np.array([[0.1, 0.4, -0.3], [0.2, 2.2, 0.5], [-0.4, 0.1, 3.9]])
W4 = np.array([0.3, -0.8, 1.1, 0.4])


# ---- polynomials, convolution, covariance ----------------------------------------------

def polyval_arrays(p, x):
    return np.sum(np.polyval(p, x) * W4)


def polyval_scalar(p, s):
    return np.polyval(p, s) * 2.0


def convolve_modes(a, v):
    return (np.sum(np.convolve(a, v) * np.arange(6.0)) + np.sum(np.convolve(a, v, "same") ** 2)
            + np.sum(np.convolve(a, v, mode="valid") * np.arange(2.0)))


def convolve_longer_second(a, v):
    return (np.sum(np.convolve(v, a, mode="same") * W4)
            + np.sum(np.convolve(v, a, "valid") * np.arange(2.0)) + np.sum(np.convolve(v, a)))


def cov_forms(m):
    return (np.sum(np.cov(m) * np.array([[1.0, 0.3], [-0.2, 0.5]]))
            + np.sum(np.cov(m, rowvar=False) ** 2) + np.sum(np.cov(m, bias=True))
            + np.sum(np.cov(m, ddof=0) * 0.5) + np.cov(m[0]) + np.cov(m[1], ddof=2))


def cov_two(x, y):
    return np.sum(np.cov(x, y) * np.array([[1.0, 0.4], [0.4, -0.7]]))


def cov_columns(m, y):
    return np.sum(np.cov(m, y, rowvar=False) * np.arange(16.0).reshape(4, 4))


@pytest.mark.parametrize("fn, args, wrts", [
    (polyval_arrays, (X3, X4), (0, 1)),
    (polyval_scalar, (X4, 0.7), (0, 1)),
    (convolve_modes, (X4, X3), (0, 1)),
    (convolve_longer_second, (X3, X4), (0, 1)),
    (cov_forms, (M23,), (0,)),
    (cov_two, (X4, W4), (0, 1)),
    (cov_columns, (M43, X4), (0, 1)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_against_finite_differences(fn, args, wrts, jit):
    for wrt in wrt_cases(wrts, jit):
        check_grad(fn, args, wrt=wrt, jit=jit)
        check_jvp(fn, args, wrt=wrt, jit=jit)


def polyval_out(p, x):
    return np.polyval(p, x)


def convolve_out(a, v):
    return np.convolve(a, v, "same")


def cov_out(m):
    return np.cov(m, rowvar=False, ddof=2)


def _value(fn, args, jit):
    """The value of fn as the generated code computes it (forward mode)."""
    t = np.zeros_like(args[0]) if isinstance(args[0], np.ndarray) else 0.0
    return s2sad.jvp(fn, wrt=0, jit=jit)(*args, t)[0]


@pytest.mark.parametrize("fn, args, expected", [
    (polyval_out, (X3, X4), np.polyval(X3, X4)),
    (convolve_out, (X4, X3), np.convolve(X4, X3, "same")),
    (convolve_out, (X3, X4), np.convolve(X3, X4, "same")),
    (cov_out, (M43,), np.cov(M43, rowvar=False, ddof=2)),
], ids=["polyval", "convolve_same", "convolve_same_swapped", "cov"])
def test_values_agree_with_numpy(fn, args, expected):
    np.testing.assert_allclose(_value(fn, args, False), expected, rtol=1e-12)


# ---- interpolation and selection ---------------------------------------------------------

XP = np.array([0.0, 1.0, 2.5, 4.0])
FP = np.array([1.0, -0.5, 2.0, 0.3])
XS = np.array([-0.5, 0.3, 1.7, 3.1, 4.6])  # below, inside, above


def interp_all(x, xp, fp):
    return np.sum(np.interp(x, xp, fp) * np.arange(1.0, 6.0))


def interp_bounds(x, fp):
    return np.sum(np.interp(x, XP, fp, left=-2.0, right=fp[1] * 3.0) * np.arange(1.0, 6.0))


def interp_point(s, xp, fp):
    return np.interp(s, xp, fp) * 1.5


def select_forms(x):
    return (np.sum(np.select([x > 0.5, x < -1.0], [x * 2.0, x ** 2], -1.0) * W4)
            + np.sum(np.select([x > 0.0], [np.sin(x)])))


@pytest.mark.parametrize("fn, args, wrts", [
    (interp_all, (XS, XP, FP), (0, 1, 2)),
    (interp_bounds, (XS, FP), (0, 1)),
    (interp_point, (1.7, XP, FP), (0, 1, 2)),
    (interp_point, (-0.4, XP, FP), (0, 1, 2)),
    (select_forms, (X4,), (0,)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_interp_select_against_finite_differences(fn, args, wrts, jit):
    for wrt in wrt_cases(wrts, jit):
        check_grad(fn, args, wrt=wrt, jit=jit)
        check_jvp(fn, args, wrt=wrt, jit=jit)


def interp_out(x, fp):
    return np.interp(x, XP, fp, right=7.0)


def test_interp_values_at_knots_and_outside():
    x = np.array([-1.0, 0.0, 1.0, 2.5, 4.0, 5.0, 1.3])
    np.testing.assert_allclose(_value(interp_out, (x, FP), False),
                               np.interp(x, XP, FP, right=7.0), rtol=1e-14)
    # at a knot: the slope of the piece to its right (one-sided, as numpy evaluates there)
    g = s2sad.grad(interp_all, wrt=0, jit=False)(np.array([-1.0, 1.0, 2.0, 4.0, 5.0]), XP, FP)
    np.testing.assert_allclose(g, [0.0, 2.0 * 2.5 / 1.5, 3.0 * 2.5 / 1.5, 0.0, 0.0])


def select_out(x):
    return np.select([x > 0.5, x > 0.0], [x * 2.0, x ** 2], 9.0)


def test_select_takes_the_first_condition_that_holds():
    x = np.array([0.7, 0.2, -0.3])
    np.testing.assert_allclose(_value(select_out, (x,), False), np.select(
        [x > 0.5, x > 0.0], [x * 2.0, x ** 2], 9.0))
    np.testing.assert_allclose(s2sad.grad(lambda v: np.sum(select_out(v)), jit=False)(x),
                               [2.0, 0.4, 0.0])


# ---- max / min with initial, matrix norms, Fortran-order reshapes ---------------------------

def extremum_initial(x):
    return (np.max(x, initial=0.5) + np.min(x, initial=-0.2) * 2.0
            + np.sum(np.amax(x, axis=0, initial=0.0) * np.arange(3.0))
            + np.sum(np.amin(x, axis=1, initial=0.1)) + x.max(initial=9.0))


def matrix_norms(a):
    return (np.linalg.norm(a, 1) + 2.0 * np.linalg.norm(a, ord=-1) + np.linalg.norm(a, np.inf)
            + np.linalg.norm(a, -np.inf) * 0.5 + np.linalg.norm(a, "nuc")
            + np.linalg.norm(a, 2) * 1.5 + np.linalg.norm(a, -2) + np.linalg.norm(a, "fro"))


def vector_norms(v):
    return (np.linalg.norm(v, 1) + np.linalg.norm(v, np.inf) * 2.0 + np.linalg.norm(v, -np.inf)
            + np.linalg.norm(v, 2) + np.linalg.norm(v, -1) + np.linalg.norm(v, ord=-2) * 0.5)


def vector_norms_axis(a):
    return (np.sum(np.linalg.norm(a, np.inf, axis=1) * np.arange(2.0))
            + np.sum(np.linalg.norm(a, ord=-np.inf, axis=0)) + np.sum(np.linalg.norm(a, -1, 0))
            + np.sum(np.linalg.norm(a, 1, axis=1)))


def fortran_reshapes(x):
    return (np.sum(x.reshape((3, 2), order="F") * np.arange(6.0).reshape(3, 2))
            + np.sum(np.reshape(x, 6, order="F") * np.arange(6.0))
            + np.sum(np.reshape(x, (1, 3, 2), order="F") ** 2 * np.arange(6.0).reshape(1, 3, 2))
            + np.sum(x.reshape(3, 2, order="C") * np.arange(6.0).reshape(3, 2)))


@pytest.mark.parametrize("fn, args", [
    (extremum_initial, (M23,)),
    (matrix_norms, (SQ,)),
    (matrix_norms, (M34,)),
    (vector_norms, (X4,)),
    (vector_norms_axis, (M23,)),
    (fortran_reshapes, (M23,)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_spellings_against_finite_differences(fn, args, jit):
    check_grad(fn, args, jit=jit)
    check_jvp(fn, args, jit=jit)


def max_initial_out(x):
    return np.max(x, axis=1, initial=0.9)


def reshape_f_out(x):
    return x.reshape(3, 2, order="F")


def matrix_norms_out(a):
    return (np.linalg.norm(a, 1), np.linalg.norm(a, -1), np.linalg.norm(a, np.inf),
            np.linalg.norm(a, -np.inf), np.linalg.norm(a, "nuc"), np.linalg.norm(a, 2),
            np.linalg.norm(a, -2))


def vector_norms_out(v):
    return (np.linalg.norm(v, 1), np.linalg.norm(v, -1), np.linalg.norm(v, np.inf),
            np.linalg.norm(v, -np.inf), np.linalg.norm(v, 2), np.linalg.norm(v, -2))


def test_spellings_agree_with_numpy():
    np.testing.assert_allclose(_value(max_initial_out, (M23,), False),
                               np.max(M23, axis=1, initial=0.9))
    np.testing.assert_allclose(_value(reshape_f_out, (M23,), False),
                               M23.reshape(3, 2, order="F"))
    got = _value(matrix_norms_out, (M34,), False)
    want = [np.linalg.norm(M34, o) for o in (1, -1, np.inf, -np.inf, "nuc", 2, -2)]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    got = _value(vector_norms_out, (X4,), False)  # vectors: numpy's vector norms
    want = [np.linalg.norm(X4, o) for o in (1, -1, np.inf, -np.inf, 2, -2)]
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_initial_above_every_element_gives_no_gradient(jit):
    g = s2sad.grad(lambda x: np.max(x, initial=5.0), jit=jit)(X4)
    np.testing.assert_array_equal(g, np.zeros(4))


# ---- np.linalg: eigh, svd, pinv, matrix_power ---------------------------------------------

def eigh_values(a):
    w, v = np.linalg.eigh(a)
    return np.sum(w * np.array([1.0, -0.5, 2.0]))


def eigh_vectors(a):
    # products of one eigenvector's entries: the sign numpy chooses cancels
    w, v = np.linalg.eigh(a)
    return np.sum(v * v * w) + np.sum(np.outer(v[:, 1], v[:, 1]) * SQ)


def svd_values_only(a):
    return np.sum(np.linalg.svd(a, compute_uv=False) * np.array([1.0, 0.5, -0.3]))


def svd_factors(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    # u_i v_i^T and u_i u_i^T do not depend on the signs numpy chooses
    return (np.sum(np.outer(u[:, 0], vh[0]) * np.arange(a.size).reshape(a.shape))
            + np.sum(np.outer(u[:, 1], u[:, 1]) ** 2 * 0.3) + np.sum(s * s)
            + np.sum(np.outer(vh[2], vh[2]) * 0.7))


def pinv_of(a):
    return np.sum(np.linalg.pinv(a) * np.arange(a.size).reshape(a.shape[::-1]))


def powers(a):
    return (np.sum(np.linalg.matrix_power(a, 3) * SQ) + np.sum(np.linalg.matrix_power(a, 1))
            + np.sum(np.linalg.matrix_power(a, 0)) + np.sum(np.linalg.matrix_power(a, -2)))


@pytest.mark.parametrize("fn, args", [
    (eigh_values, (NONSYM,)),
    (eigh_vectors, (NONSYM,)),
    (svd_values_only, (M34,)),
    (svd_values_only, (M43,)),
    (svd_factors, (M34,)),
    (svd_factors, (M43,)),
    (svd_factors, (SQ,)),
    (pinv_of, (SQ,)),
    (pinv_of, (M34,)),
    (pinv_of, (M43,)),
    (powers, (SQ,)),
], ids=lambda v: getattr(v, "__name__", "") or str(getattr(v, "shape", "")))
def test_linalg_against_finite_differences(fn, args, jit):
    check_grad(fn, args, jit=jit)
    check_jvp(fn, args, jit=jit)


def test_linalg_values_agree_with_numpy():
    def power_out(a):
        return np.linalg.matrix_power(a, -3)
    np.testing.assert_allclose(_value(power_out, (SQ,), False),
                               np.linalg.matrix_power(SQ, -3), rtol=1e-12)


# ---- refusals: a clear error naming the line, never a silent gradient ----------------------

def conv_bad_mode(a):
    return np.sum(np.convolve(a, a, mode="circular"))


def conv_mode_variable(a, mode):
    return np.sum(np.convolve(a, a, mode=mode))


def cov_weights(m):
    return np.sum(np.cov(m, aweights=np.ones(3)))


def interp_period(x):
    return np.sum(np.interp(x, XP, FP, period=4.0))


def max_where(x):
    return np.max(x, where=x > 0)  # (numpy raises: where= needs initial=)


def max_initial_keepdims_variable(x):
    return np.sum(np.max(x, axis=0, initial=0.0, keepdims=bool(x[0, 0] > 9.0)))


def reshape_order_a(x):
    return np.sum(np.reshape(x, (3, 2), order="A"))


def norm_axis_pair(a):
    return np.linalg.norm(a, 1, axis=(0, 1))


def svd_full(a):
    return np.sum(np.linalg.svd(a)[1])


def svd_hermitian(a):
    return np.sum(np.linalg.svd(a, compute_uv=False, hermitian=True))


def eigh_bad_uplo(a):
    return np.sum(np.linalg.eigh(a, UPLO="X")[0])  # (numpy raises: 'L' or 'U')


def pinv_hermitian(a):
    return np.sum(np.linalg.pinv(a, hermitian=True))


@pytest.mark.parametrize("fn, args, match", [
    (conv_bad_mode, (X4,), "mode 'full', 'same' or 'valid'"),
    (cov_weights, (M23,), "aweights"),
    (interp_period, (XS,), "period"),
    (max_where, (X4,), "needs initial="),
    (max_initial_keepdims_variable, (M23,), "keepdims written as True or False"),
    (reshape_order_a, (M23,), "order 'C' or 'F'"),
    (norm_axis_pair, (M23,), "without axis"),
    (svd_full, (M23,), "full_matrices=False"),
    (svd_hermitian, (M23,), "hermitian"),
    (eigh_bad_uplo, (SQ,), "UPLO"),
    (pinv_hermitian, (SQ,), "hermitian"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_refusals_name_the_line(fn, args, match):
    with pytest.raises(LookupError, match=match) as info:
        s2sad.grad(fn, jit=False)(*args)
    assert "test_numpy_more.py:" in str(info.value)


def test_mode_not_written_as_a_constant_is_refused():
    with pytest.raises(LookupError, match="constant"):
        s2sad.grad(conv_mode_variable, jit=False)(X4, "same")


def nuclear_norm_of_a_vector(v):
    return np.linalg.norm(v, "nuc")


def inf_norm_of_a_cube(t):
    return np.linalg.norm(t, np.inf)


def cov_one_row(m):
    return np.sum(np.cov(m))


@pytest.mark.parametrize("fn, args, match", [
    (nuclear_norm_of_a_vector, (X4,), "of a matrix only"),
    (inf_norm_of_a_cube, (np.ones((2, 2, 2)),), "Improper number of dimensions"),
    (cov_one_row, (M23[:1],), "1-d array"),
], ids=["nuc_vector", "inf_cube", "cov_one_row"])
def test_forms_numpy_shapes_differently_raise(fn, args, match):
    with pytest.raises(ValueError, match=match):
        s2sad.grad(fn, jit=False)(*args)


# ---- np.median (of the flattened array) and np.vdot, through definitions -------------
def _median_times(x):
    return np.median(x) * x[0]


def _median_of_matrix(x):
    return np.median(x.reshape(2, 3) ** 2)


def _vdots(x):
    return np.vdot(x, x ** 2) + np.vdot(x.reshape(2, 3), np.cos(x).reshape(2, 3))


@pytest.mark.parametrize("f, x", [
    (_median_times, np.array([0.7, -1.3, 2.1, 0.4, 1.1])),   # odd: the middle value
    (_median_times, np.array([0.7, -1.3, 2.1, 0.4])),        # even: the mean of two
    (_median_of_matrix, np.array([0.7, -1.3, 2.1, 0.4, 1.5, -0.2])),
    (_vdots, np.array([0.7, -1.3, 2.1, 0.4, 1.5, -0.2])),
], ids=["median_odd", "median_even", "median_matrix", "vdot"])
def test_median_and_vdot(f, x, jit):
    check_grad(f, (x,), jit=jit)


def _quantiles(x, q):
    return np.quantile(x, q) * np.percentile(x ** 2, 62.5) + np.quantile(x, 1.0)


@pytest.mark.parametrize("x", [np.array([0.7, -1.3, 2.1, 0.4, 1.1]),
                               np.array([[0.7, -1.3, 2.1], [0.4, 1.5, -0.2]])],
                         ids=["vector", "matrix"])
def test_quantile_and_percentile(x, jit):
    """np.quantile / np.percentile of the flattened array, numpy's linear
    method: the value is numpy's, the gradient (q's too) finite differences'."""
    check_grad(_quantiles, (x, 0.37), wrt=(0, 1), jit=jit)
    value, _ = s2sad.value_and_grad(_quantiles, jit=jit)(x, 0.37)
    assert value == pytest.approx(_quantiles(x, 0.37), rel=1e-12)


def _ufunc_outers(x):
    return (np.sum(np.subtract.outer(x, x) ** 2)
            + np.sum(np.add.outer(x[:2], x.reshape(2, 3)) * np.multiply.outer(x[:2], x.reshape(2, 3)))
            + np.sum(np.multiply.outer(x[0], x) ** 2))


def _nan_extremes(x):
    y = np.where(x > 1.0, np.nan, x)  # (a NaN entry: gradient 0)
    return np.nanmax(y) * np.nanmin(y * y) + np.sum(np.nanmax(x.reshape(2, 3), axis=1))


@pytest.mark.parametrize("f", [_ufunc_outers, _nan_extremes], ids=lambda f: f.__name__)
def test_ufunc_outer_and_nan_extremes(f, jit):
    """np.add/subtract/multiply.outer (any ranks: a's axes, then b's) and
    np.nanmax / np.nanmin, through definitions: numpy's value, and the
    gradient of finite differences."""
    x = np.array([0.3, -0.7, 1.1, 0.45, 0.9, -0.2])
    check_grad(f, (x,), jit=jit)
    value, _ = s2sad.value_and_grad(f, jit=jit)(x)
    assert value == pytest.approx(f(x), rel=1e-12)


def test_median_over_a_tuple_of_axes_is_refused():
    # (one int axis is implemented: tests/test_everyday_python.py)
    with pytest.raises(LookupError, match="axis"):
        s2sad.grad(lambda x: np.sum(np.median(x, axis=(0, 1))), jit=False)(np.ones((2, 3)))


def _quantile_at(x, q):
    return np.quantile(x, q)


def _percentile_at(x, q):
    return np.percentile(x, q)


@pytest.mark.parametrize("f, q", [(_quantile_at, 1.5), (_quantile_at, -0.1),
                                  (_percentile_at, 120.0)], ids=["q>1", "q<0", "p>100"])
def test_a_quantile_out_of_range_raises_as_numpy(f, q, jit):
    """numpy raises ValueError for q outside [0, 1] (percentiles outside
    [0, 100]); the definition does too, rather than clamping."""
    with pytest.raises(ValueError, match="must be in the range"):
        f(np.array([0.3, 1.2, -0.5]), q)
    with pytest.raises(ValueError, match="must be in the range"):
        s2sad.grad(f, jit=jit, check=False)(np.array([0.3, 1.2, -0.5]), q)
