"""numpy's linear algebra beyond single matrices (s2sad/rules/stacks.py):
np.inner, np.dot and np.matmul / @ of N-d operands (1-d operands beside stacks,
broadcast batch axes), np.cross along any axes, np.linalg's functions of
stacks of matrices, and np.linalg.eigh with UPLO. Gradients against central
finite differences of numpy's own functions, reverse and forward mode, as
Python and compiled: numba has none of these forms, and s2sad.runtime.stack_overloads
teaches them to it (a loop over the leading axes calling numba's 2-D operation), so
the compiled checks also check that no s2sad.NumbaFallbackWarning is raised (a sample
by default; S2SAD_FULL=1 compiles every case). Every keyword is also spelled
positionally where numpy allows it."""
import os
import warnings

import numpy as np
import pytest

import s2sad
from gradcheck import check_grad, check_jvp

rng = np.random.default_rng(50)
FULL = os.environ.get("S2SAD_FULL") == "1"


def R(*shape):
    return rng.normal(size=shape)


def spd(*lead, n=3):
    a = R(*lead, n, n)
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


# not symmetric, eigenvalues well apart: eigh reads one triangle of it
NONSYM = np.array([[0.1, 0.4, -0.3], [0.2, 2.2, 0.5], [-0.4, 0.1, 3.9]])
NONSYM_STACK = np.stack([NONSYM, NONSYM.T + np.diag([0.5, -0.3, 1.0])])
W3 = np.array([0.3, -0.8, 1.1])


def _check(f, args, wrt, jit, compiles=False):
    """Reverse and forward mode against finite differences; `compiles`: with
    jit=True, numba compiles it (the fallback warning is an error)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error" if compiles else "ignore", s2sad.NumbaFallbackWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        check_grad(f, args, wrt=wrt, jit=jit)
        check_jvp(f, args, wrt=wrt, jit=jit)


# ---- products --------------------------------------------------------------------------

def inner(a, b):
    return np.inner(a, b)


def dot(a, b):
    return np.dot(a, b)


def dot_keywords(a, b):
    return np.dot(a=a, b=b) * 2.0


def matmul(a, b):
    return np.matmul(a, b)


def matmul_operator(a, b):
    return a @ b


PRODUCTS = [
    ("inner/1d", inner, (R(4), R(4))),
    ("inner/3d_2d", inner, (R(2, 3, 4), R(5, 4))),
    ("inner/1d_3d", inner, (R(4), R(2, 3, 4))),
    ("dot/3d_2d", dot, (R(2, 3, 4), R(4, 5))),
    ("dot/3d_3d", dot, (R(2, 3, 4), R(2, 4, 5))),
    ("dot/3d_1d", dot, (R(2, 3, 4), R(4))),
    ("dot/1d_3d", dot, (R(4), R(2, 4, 5))),
    ("dot/2d_3d", dot, (R(3, 4), R(2, 4, 5))),
    ("dot/keywords", dot_keywords, (R(2, 3, 4), R(4, 2))),
    ("matmul/3d_3d_broadcast", matmul, (R(2, 3, 4), R(1, 4, 5))),
    ("matmul/3d_2d", matmul, (R(2, 3, 4), R(4, 5))),
    ("matmul/1d_3d", matmul, (R(4), R(2, 4, 5))),
    ("matmul/3d_1d", matmul, (R(2, 3, 4), R(4))),
    ("matmul/1d_4d", matmul, (R(4), R(2, 1, 4, 3))),
    ("@/4d_3d_broadcast", matmul_operator, (R(2, 1, 3, 4), R(3, 4, 5))),
    ("@/1d_3d", matmul_operator, (R(4), R(2, 4, 5))),
    ("@/3d_1d", matmul_operator, (R(2, 3, 4), R(4))),
]


@pytest.mark.parametrize("name,f,args", PRODUCTS, ids=[p[0] for p in PRODUCTS])
def test_products_python(name, f, args):
    _check(f, args, (0, 1), jit=False)


COMPILED_PRODUCTS = PRODUCTS if FULL else PRODUCTS[1::3]


@pytest.mark.parametrize("name,f,args", COMPILED_PRODUCTS, ids=[p[0] for p in COMPILED_PRODUCTS])
def test_products_compiled(name, f, args):
    _check(f, args, (0, 1), jit=True, compiles=True)


def test_dot_of_a_stack_matches_numpy():
    a, b = R(2, 3, 4), R(2, 4, 5)
    assert s2sad.grad(dot, wrt=(0, 1), jit=False)(a, b)[0].shape == a.shape
    # the gradient of sum(dot(a, b)) w.r.t. a: b summed over all but its second-to-last axis
    np.testing.assert_allclose(s2sad.grad(dot, jit=False)(a, b),
                               np.broadcast_to(b.sum(axis=(0, 2)), a.shape))


# ---- np.cross along any axes -----------------------------------------------------------------

def cross_axes(a, b):
    return np.cross(a, b, axisa=0, axisb=1, axisc=0) * np.arange(1.0, 4.0)[:, None]


def cross_axes_positional(a, b):
    return np.cross(a, b, 0, 1, 0) * np.arange(1.0, 4.0)[:, None]


def cross_axis(a, b):
    return np.cross(a, b, axis=0) * np.arange(1.0, 4.0)[:, None]


def cross_axis_positional(a, b):
    return np.cross(a, b, -1, -1, -1, 0) * np.arange(1.0, 4.0)[:, None]


def cross_broadcast(a, b):
    return np.cross(a, b, axisa=0, axisc=1) * np.arange(1.0, 4.0)


def cross_axis_wins(a, b):
    # axis overrides axisa, axisb and axisc, as in numpy
    return np.cross(a, b, axisa=1, axisb=1, axisc=1, axis=0) * np.arange(1.0, 4.0)[:, None]


CROSSES = [
    ("axes", cross_axes, (R(3, 4), R(4, 3))),
    ("axes_positional", cross_axes_positional, (R(3, 4), R(4, 3))),
    ("axis", cross_axis, (R(3, 4), R(3, 4))),
    ("axis_positional", cross_axis_positional, (R(3, 4), R(3, 4))),
    ("broadcast", cross_broadcast, (R(3, 4), R(3))),
    ("axis_wins", cross_axis_wins, (R(3, 3), R(3, 3))),
]


@pytest.mark.parametrize("name,f,args", CROSSES, ids=[c[0] for c in CROSSES])
def test_cross_axes(name, f, args):
    _check(f, args, (0, 1), jit=False)


COMPILED_CROSSES = CROSSES if FULL else CROSSES[::2]


@pytest.mark.parametrize("name,f,args", COMPILED_CROSSES, ids=[c[0] for c in COMPILED_CROSSES])
def test_cross_axes_compiled(name, f, args):
    _check(f, args, (0, 1), jit=True, compiles=True)


def test_cross_spellings_agree_with_numpy():
    a, b = R(3, 4), R(4, 3)
    np.testing.assert_allclose(cross_axes(a, b), cross_axes_positional(a, b))
    g1 = s2sad.grad(cross_axes, wrt=(0, 1), jit=False)(a, b)
    g2 = s2sad.grad(cross_axes_positional, wrt=(0, 1), jit=False)(a, b)
    for x, y in zip(g1, g2):
        np.testing.assert_allclose(x, y)


# ---- np.linalg of stacks of matrices ------------------------------------------------------

def inv(a):
    return np.linalg.inv(a) * np.arange(9.0).reshape(3, 3)


def det(a):
    return np.linalg.det(a) * np.array([1.0, -2.0])


def slogdet(a):
    sign, logdet = np.linalg.slogdet(a)
    return logdet * np.array([1.0, -2.0]) + sign


def solve(a, b):
    return np.linalg.solve(a, b) * 1.5


def cholesky(a):
    return np.linalg.cholesky(a) * np.arange(9.0).reshape(3, 3)


def cholesky_upper(a):
    return np.linalg.cholesky(a, upper=True) * np.arange(9.0).reshape(3, 3)


def eigh(a):
    w, v = np.linalg.eigh(a)
    return np.sum(w * W3) + np.sum(v[..., 0, :] * v[..., 1, :] * W3)


def norm_matrices(a):
    return np.linalg.norm(a, axis=(-2, -1)) * np.array([1.0, -2.0])


def norm_fro(a):
    return np.linalg.norm(a, "fro", (1, 2))


STACKS = [
    ("inv", inv, (spd(2),), 0),
    ("det", det, (R(2, 3, 3),), 0),
    ("slogdet", slogdet, (R(2, 3, 3),), 0),
    ("solve/matrices", solve, (spd(2), R(2, 3, 2)), (0, 1)),
    ("solve/vector", solve, (spd(2), R(3)), (0, 1)),
    ("solve/one_matrix_stacked_b", solve, (spd(), R(2, 3, 2)), (0, 1)),
    ("solve/broadcast", solve, (spd(2, 1), R(4, 3, 1)), (0, 1)),
    ("cholesky", cholesky, (spd(2),), 0),
    ("cholesky/upper", cholesky_upper, (spd(2),), 0),
    ("eigh", eigh, (spd(2),), 0),
    ("eigh/not_symmetric", eigh, (NONSYM_STACK,), 0),
    ("norm", norm_matrices, (R(2, 3, 3),), 0),
    ("norm/fro", norm_fro, (R(2, 3, 3),), 0),
]


@pytest.mark.parametrize("name,f,args,wrt", STACKS, ids=[s[0] for s in STACKS])
def test_stacks_python(name, f, args, wrt):
    _check(f, args, wrt, jit=False)


# (compiled: a sample, as each compilation takes seconds, and norm's compiled axis helper
# a minute)
COMPILED_STACKS = [s for s in STACKS if FULL and not s[0].startswith("norm") or s[0] in (
    "inv", "det", "solve/vector", "solve/broadcast", "cholesky/upper", "eigh/not_symmetric")]


@pytest.mark.parametrize("name,f,args,wrt", COMPILED_STACKS, ids=[s[0] for s in COMPILED_STACKS])
def test_stacks_compiled(name, f, args, wrt):
    _check(f, args, wrt, jit=True, compiles=True)


@pytest.mark.parametrize("f", [cholesky, cholesky_upper], ids=["lower", "upper"])
def test_cholesky_of_a_non_symmetric_stack_compiled(f):
    """Compiled too, each factor reads numpy's triangle (the upper one with
    upper=True: the stacked form once read the lower one, a wrong value)."""
    a = spd(2)  # (positive definite whichever triangle is read: n on the diagonal)
    a[:, 0, 2] += 0.3
    a[:, 2, 1] -= 0.4
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.NumbaFallbackWarning)
        value, _ = s2sad.value_and_grad(f, jit=True)(a)
        np.testing.assert_allclose(value, f(a), rtol=1e-12)
        check_grad(f, (a,), jit=True)


def test_cholesky_of_a_stack_reads_one_triangle():
    """numpy's cholesky reads the lower triangle (upper=True: the upper one): the
    other triangle's elements get a zero gradient, as finite differences say."""
    a = spd(2)
    a[:, 0, 2] += 5.0  # not symmetric: the upper element is never read
    g = s2sad.grad(cholesky, jit=False)(a)
    assert np.all(g[:, 0, 2] == 0.0)
    check_grad(cholesky, (a,), jit=False)


# ---- np.linalg.eigh with UPLO: one triangle read ----------------------------------------

def eigh_upper_positional(a):
    w, v = np.linalg.eigh(a, "U")
    return np.sum(w * W3) + np.sum(v[..., 0, :] * v[..., 2, :] * W3)


def eigh_upper_keyword(a):
    w, v = np.linalg.eigh(a, UPLO="U")
    return np.sum(w * W3) + np.sum(v[..., 0, :] * v[..., 2, :] * W3)


def eigh_lower_keyword(a):
    w, v = np.linalg.eigh(a, UPLO="L")
    return np.sum(w * W3) + np.sum(v[..., 0, :] * v[..., 2, :] * W3)


def eigh_upper_lowercase(a):
    w, v = np.linalg.eigh(a, "u")
    return np.sum(w * W3) + np.sum(v[..., 0, :] * v[..., 2, :] * W3)


def eigh_values_upper(a):
    return np.linalg.eigh(a, UPLO="U")[0] * W3


UPLOS = [eigh_upper_positional, eigh_upper_keyword, eigh_lower_keyword, eigh_upper_lowercase,
         eigh_values_upper]


@pytest.mark.parametrize("f", UPLOS, ids=[f.__name__ for f in UPLOS])
@pytest.mark.parametrize("a", [NONSYM, NONSYM_STACK], ids=["matrix", "stack"])
def test_eigh_uplo_on_a_non_symmetric_matrix(f, a):
    """Finite differences perturb one element at a time of a non-symmetric
    matrix: an element of the triangle numpy does not read has derivative 0,
    one of the read triangle off the diagonal counts for both of the
    symmetric matrix's entries."""
    _check(f, (a,), 0, jit=False)
    g = s2sad.grad(f, jit=False)(a)
    unread = np.tril(np.ones((3, 3)), -1) if "upper" in f.__name__ else np.triu(np.ones((3, 3)), 1)
    assert np.all(g[..., unread == 1] == 0.0)


@pytest.mark.parametrize("a", [NONSYM, NONSYM_STACK], ids=["matrix", "stack"])
def test_eigh_uplo_compiled(a):
    _check(eigh_upper_keyword, (a,), 0, jit=True, compiles=True)


def test_eigh_uplo_values_are_refused():
    def f(a):
        return np.sum(np.linalg.eigh(a, UPLO="X")[0])
    with pytest.raises(LookupError, match="UPLO"):
        s2sad.grad(f, jit=False)(NONSYM)


# ---- what stays refused names the user's line ---------------------------------------

def svd_of_stack(a):
    return np.linalg.svd(a, full_matrices=False)[1]


def test_svd_of_a_stack_names_the_users_line():
    for make in (lambda: s2sad.grad(svd_of_stack, jit=False)(R(2, 3, 3)),
                 lambda: s2sad.jvp(svd_of_stack, jit=False)(R(2, 3, 3), R(2, 3, 3))):
        with pytest.raises(LookupError) as info:
            make()
        text = str(info.value)
        assert f"{__file__}:{svd_of_stack.__code__.co_firstlineno + 1}, in svd_of_stack" in text
        assert "definitions" not in text and "stacks of matrices" in text


def sum_of_factors(a):
    return np.sum(np.linalg.cholesky(a))


def test_second_derivatives_through_stacks():
    """(through the helpers' definitions, s2sad/definitions/linalg_pieces.py)"""
    a = spd(2)
    h = s2sad.hessian(sum_of_factors, jit=False)(a)
    g = s2sad.grad(sum_of_factors, jit=False)
    eps = 1e-6
    for idx in [(0, 0, 0), (1, 2, 1), (0, 1, 0)]:
        e = np.zeros_like(a)
        e[idx] = eps
        np.testing.assert_allclose(h[(...,) + idx], (g(a + e) - g(a - e)) / (2 * eps),
                                   rtol=1e-5, atol=1e-7)
