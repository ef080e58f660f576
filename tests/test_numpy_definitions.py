"""numpy functions s2sad differentiates through its own definitions
(s2sad/definitions/), the casts np.float64(x) and x.item(), and
`is None` / isinstance tests of a parameter, decided by the argument's kind: against finite differences (and numpy's
values), compiled and as Python, reverse and forward mode."""
import numpy as np
import pytest

import s2sad
from gradcheck import check_grad, check_jvp, wrt_cases

A = np.array([[0.5, -1.2, 0.8], [1.4, 0.3, -0.6]])
W2 = np.array([0.3, 0.7])
W3 = np.array([0.2, 0.5, 0.3])


def average_forms(a, w2, w3):
    return (np.average(a) + np.sum(np.average(a, axis=0, weights=w2) ** 2)
            + np.sum(np.average(a, axis=1, weights=w3) * np.arange(2.0))
            + np.average(a, weights=a * a + 1.0))


def nan_reductions(a):
    b = np.where(a > 1.0, np.nan, a)  # entries above 1 are missing
    return np.nansum(b * b) + np.sum(np.nanmean(b, axis=0) ** 2) + np.nanmean(b)


def running_products(a):
    return np.sum(np.cumprod(a) * np.arange(6.0)) + np.sum(np.cumprod(a[0], axis=0) ** 2)


@pytest.mark.parametrize("fn, args, wrts", [
    (average_forms, (A, W2, W3), (0, 1, 2)),
    (nan_reductions, (A,), (0,)),
    (running_products, (A,), (0,)),
])
def test_definitions_against_finite_differences(fn, args, wrts, jit):
    for wrt in wrt_cases(wrts, jit):
        check_grad(fn, args, wrt=wrt, jit=jit)
        check_jvp(fn, args, wrt=wrt, jit=jit)


def test_definitions_agree_with_numpy():
    from s2sad.definitions import reductions as d
    np.testing.assert_allclose(d.average(A, 0, W2), np.average(A, axis=0, weights=W2))
    np.testing.assert_allclose(d.average(A, 1, W3), np.average(A, axis=1, weights=W3))
    np.testing.assert_allclose(d.average(A, None, A * A), np.average(A, weights=A * A))
    b = np.where(A > 1.0, np.nan, A)
    np.testing.assert_allclose(d.nanmean(b, 0), np.nanmean(b, axis=0))
    np.testing.assert_allclose(d.nansum(b, None), np.nansum(b))
    np.testing.assert_allclose(d.cumprod(A, None), np.cumprod(A))


def cumprod_rows(a):
    return np.sum(np.cumprod(a, axis=1) * np.arange(1.0, 1.0 + a.size).reshape(a.shape))


def cumprod_columns_with_zero(a):
    b = a * 1.0
    b[1, 1] = 0.0  # (a zero entry: its gradient comes from the products it is in)
    return np.sum(np.cumprod(b, axis=0) ** 2) + np.sum(b.cumprod(axis=-1))


def test_definitions_agree_with_numpy_along_axes():
    from s2sad.definitions import reductions as d
    cube = np.arange(1.0, 25.0).reshape(2, 3, 4) / 10
    for axis in (0, 1, 2, -1):
        np.testing.assert_allclose(d.cumprod(cube, axis), np.cumprod(cube, axis=axis))


@pytest.mark.parametrize("f", [cumprod_rows, cumprod_columns_with_zero])
def test_cumprod_of_a_matrix_along_an_axis(f, jit):
    check_grad(f, [A.copy()], jit=jit)


def trapezoid_forms(a):
    grid = np.linspace(0.0, 1.0, a.shape[1])
    return (np.trapezoid(a[0] ** 2, dx=0.1) + np.trapezoid(a[1], x=a[0] * 2.0)
            + np.sum(np.trapezoid(a, axis=0)) + np.sum(np.trapezoid(np.sin(a), x=grid))
            + np.sum(np.trapezoid(a * a, x=a + 1.0, axis=1)))


def test_trapezoid(jit):
    check_grad(trapezoid_forms, [A.copy()], jit=jit)
    from s2sad.definitions import reductions as d
    grid = np.linspace(0.0, 1.0, A.shape[1])
    np.testing.assert_allclose(d.trapezoid(A, None, 0.5, 0), np.trapezoid(A, dx=0.5, axis=0))
    np.testing.assert_allclose(d.trapezoid(A, grid, 1.0, -1), np.trapezoid(A, x=grid))
    np.testing.assert_allclose(d.trapezoid(A, A * A, 1.0, 1), np.trapezoid(A, x=A * A, axis=1))


# ---- `is None` on an optional parameter ------------------------------------------

def weighted_loss(x, w=None, scale=None):
    if w is None:
        total = np.sum(x * x)
    else:
        total = np.sum(w * x * x)
    if scale is not None:
        total = total * scale
    return total


def calls_with_and_without_options(x, w):
    return weighted_loss(x) + weighted_loss(x, w) + weighted_loss(x, w=w, scale=2.0)


@pytest.mark.parametrize("wrt", [0, 1])
def test_none_tests_decided_by_kind(jit, wrt):
    check_grad(calls_with_and_without_options, (A[0], W3), wrt=wrt, jit=jit)
    check_jvp(calls_with_and_without_options, (A[0], W3), wrt=wrt, jit=jit)
    np.testing.assert_allclose(s2sad.grad(weighted_loss, jit=jit)(A[0]), 2.0 * A[0])
    np.testing.assert_allclose(s2sad.grad(weighted_loss, jit=jit)(A[0], W3, 3.0),
                               6.0 * W3 * A[0])


# ---- casts and x.item(), isinstance on an argument ----------------------------------

def casts_and_items(A):
    return (float(A[0, 0]) * np.float64(A[0, 1]) + A[1, 2].item() ** 2
            + np.sum(A[:1, 2:]).item() * A[1:, :1].item())


def shape_agnostic(x, scale=2.0):
    if isinstance(x, np.ndarray):
        return np.sum(x * x) * scale
    if isinstance(scale, (int, float)):
        return x * x * scale
    return x


@pytest.mark.parametrize("fn, args", [(casts_and_items, (A,)), (shape_agnostic, (A[0],)),
                                      (shape_agnostic, (0.7,))])
def test_casts_items_and_isinstance(fn, args, jit):
    check_grad(fn, args, jit=jit)
    check_jvp(fn, args, jit=jit)


def item_of_a_row(A):
    return A[0].item()


def test_item_of_more_than_one_element_raises(jit):
    with pytest.raises(ValueError, match="size 1"):
        s2sad.grad(item_of_a_row, jit=jit)(A)


def takes(A):
    return (np.sum(np.take(A, [0, 2], axis=1) ** 2) + np.take(A, 4) * 3.0
            + np.sum(np.take(A, np.array([1, 1, 0]), axis=0)[2] * A[0])
            + np.sum(np.take(A, np.array([1, 1, 0])) * A[0]))


def take_one_along_an_axis(A):
    return np.sum(np.take(A, 1, axis=0))


def test_take(jit):
    check_grad(takes, (A,), jit=jit)
    check_jvp(takes, (A,), jit=jit)
    from s2sad.definitions import shapes as d
    np.testing.assert_allclose(d.take(A, np.array([2, 0, 2]), 1), np.take(A, [2, 0, 2], axis=1))


def test_take_of_an_int_along_an_axis_is_refused():
    with pytest.raises(ValueError, match="1-D array of indices"):
        s2sad.grad(take_one_along_an_axis, jit=False)(A)


def eigenvalue_sums(x):
    a = np.outer(x[:3], x[:3]) + np.eye(3) + np.diag(x[3:])
    a[0, 2] += 0.3  # (not symmetric: each spelling reads its own triangle)
    return (np.sum(np.linalg.eigvalsh(a) ** 2) + np.linalg.eigvalsh(a, "U")[0]
            + np.linalg.eigvalsh(a, UPLO="U")[2])


def grids(x):
    gx, gy = np.meshgrid(x[:3], x[3:5])
    p, q = np.meshgrid(x[:2], x[2:], indexing="ij")
    return np.sum(gx * gy ** 2) + np.sum(np.sin(p) * q)


X6 = np.array([0.3, 0.7, 0.15, 0.95, 0.45, 0.6])


@pytest.mark.parametrize("fn", [eigenvalue_sums, grids])
def test_eigvalsh_and_meshgrid(fn, jit):
    check_grad(fn, (X6,), jit=jit)
    check_jvp(fn, (X6,), jit=False)


def test_eigvalsh_and_meshgrid_agree_with_numpy():
    from s2sad.definitions import linalg, shapes
    a = np.outer(X6[:3], X6[:3]) + np.eye(3)
    a[0, 2] += 0.3
    for uplo in ("L", "U"):
        np.testing.assert_allclose(linalg.eigvalsh(a, uplo), np.linalg.eigvalsh(a, uplo))
    for indexing in ("xy", "ij"):
        for got, want in zip(shapes.meshgrid(X6[:3], X6[3:5].reshape(1, 2), indexing),
                             np.meshgrid(X6[:3], X6[3:5].reshape(1, 2), indexing=indexing)):
            np.testing.assert_array_equal(got, want)


IDX = np.array([0, 2, 2, 3, 0, 2])


def segment_sums(w):
    return np.sum(np.bincount(IDX, weights=w * w, minlength=6) * np.arange(6.0))


def segment_sums_positional(w):
    s = np.bincount(IDX, np.sin(w))
    return np.sum(s * s)


def counted(w):
    c = np.bincount(IDX)  # counts: no gradient
    return np.sum(w[:c.shape[0]] * c)


@pytest.mark.parametrize("fn", [segment_sums, segment_sums_positional, counted])
def test_bincount(fn, jit):
    check_grad(fn, (X6,), jit=jit)


def test_bincount_agrees_with_numpy():
    from s2sad.definitions import elementwise
    for minlength in (0, 3, 8):
        np.testing.assert_allclose(elementwise.bincount_weighted(IDX, X6, minlength),
                                   np.bincount(IDX, X6, minlength))
    with pytest.raises(ValueError, match="no negative elements"):
        elementwise.bincount_weighted(np.array([1, -1]), X6[:2])
