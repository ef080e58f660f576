"""The runtime helpers of np.linalg's and scipy.linalg's gradient rules
(s2sad.runtime.linalg, .spectral, .stacks), defined in terms of functions
that have rules (np.linalg.solve, eigh and svd, scipy.linalg.eigh and expm,
np.tril, products), so that a derivative calling them is differentiated
through the definition, to any order (derivative_pieces.py says why). Each
computes its helper's values, by the helper's formula (the helper's
docstring gives it): triangular solves are np.linalg.solve with the
triangle, the factorisations are recomputed with the function the primal
calls (so eigenvectors' signs are the primal's). Real matrices; the eigen
and singular value ones need distinct (nonzero) values, as the rules do.
Those calling scipy.linalg are in scipy_linalg_pieces.py."""
import numpy as np

from .. import runtime as rt
from .registry import define


# ---- triangles ----------------------------------------------------------------------------

def _symmetric_from(a, lower):
    """The symmetric matrix whose lower (or upper) triangle is a's."""
    if lower:
        return np.tril(a) + np.tril(a, -1).T
    return np.triu(a) + np.triu(a, 1).T


def _fold_triangle(g, lower):
    """The adjoint of _symmetric_from: g's entries off the diagonal added into
    the read triangle."""
    folded = g + g.T
    if lower:
        return np.tril(folded, -1) + g * np.eye(g.shape[0])
    return np.triu(folded, 1) + g * np.eye(g.shape[0])


def _half_diagonal(p):
    """np.tril(p) with its diagonal halved."""
    low = np.tril(p)
    return low - 0.5 * low * np.eye(p.shape[0])


def _outer_product(gb, x):
    """gb x^T, for the vectors or matrices of right-hand sides."""
    if x.ndim == 1:
        return np.outer(gb, x)
    return gb @ x.T


def _triangular(a, lower, unit):
    """The triangular matrix solve_triangular reads from a."""
    t = np.tril(a) if lower else np.triu(a)
    if unit:
        return t - t * np.eye(a.shape[0]) + np.eye(a.shape[0])
    return t


# ---- Cholesky -----------------------------------------------------------------------------

@define(rt.cholesky_grad)
def cholesky_grad(g, factor, lower):
    if lower:
        low, gl = factor, np.tril(g)
    else:
        low, gl = factor.T, np.tril(g.T)
    p = _half_diagonal(low.T @ gl)
    return _fold_triangle(np.linalg.solve(low.T, np.linalg.solve(low.T, p.T).T), lower)


@define(rt.cholesky_tangent)
def cholesky_tangent(t, factor, lower):
    low = factor if lower else factor.T
    s = _symmetric_from(t, lower)
    p = _half_diagonal(np.linalg.solve(low, np.linalg.solve(low, s).T))
    dl = low @ p
    return dl if lower else dl.T


@define(rt.cho_factor_grad)
def cho_factor_grad(gc, factor, lower):
    other = np.triu(gc, 1) if lower else np.tril(gc, -1)
    return cholesky_grad(gc, factor, lower) + other


@define(rt.cho_factor_tangent)
def cho_factor_tangent(t, factor, lower):
    other = np.triu(t, 1) if lower else np.tril(t, -1)
    return cholesky_tangent(t, factor, lower) + other, lower


@define(rt.cho_solve_grad_c)
def cho_solve_grad_c(gb, x, c, lower):
    ga = -_outer_product(gb, x)
    s = ga + ga.T
    if lower:
        return np.tril(s @ np.tril(c))
    return np.triu(np.triu(c) @ s)


@define(rt.cho_solve_tangent)
def cho_solve_tangent(tc, tb, x, c, lower):
    low = np.tril(c) if lower else np.triu(c).T
    dl = np.tril(tc) if lower else np.triu(tc).T
    da = dl @ low.T + low @ dl.T
    return np.linalg.solve(low.T, np.linalg.solve(low, tb - da @ x))


# ---- triangular and general solves --------------------------------------------------------

@define(rt.solve_triangular_adjoint)
def solve_triangular_adjoint(g, a, transposed, lower, unit):
    t = _triangular(a, lower, unit)
    return np.linalg.solve(t if transposed else t.T, g)


@define(rt.solve_triangular_grad_a)
def solve_triangular_grad_a(gb, x, transposed, lower, unit):
    gop = -_outer_product(gb, x)
    ga = gop.T if transposed else gop
    ga = np.tril(ga) if lower else np.triu(ga)
    if unit:
        return ga - ga * np.eye(ga.shape[0])
    return ga


@define(rt.solve_triangular_tangent)
def solve_triangular_tangent(ta, tb, x, a, transposed, lower, unit):
    t = np.tril(ta) if lower else np.triu(ta)
    if unit:
        t = t - t * np.eye(t.shape[0])
    op = t.T if transposed else t
    m = _triangular(a, lower, unit)
    return np.linalg.solve(m.T if transposed else m, tb - op @ x)


@define(rt.solve_grad_a)
def solve_grad_a(gb, x, lower=False, assume_a=None):
    ga = -_outer_product(gb, x)
    if rt.solves_symmetric(assume_a):
        return _fold_triangle(ga, lower)
    return ga


@define(rt.solve_tangent)
def solve_tangent(ta, tb, x, a, lower=False, assume_a=None):
    if rt.solves_symmetric(assume_a):
        return np.linalg.solve(_symmetric_from(a, lower), tb - _symmetric_from(ta, lower) @ x)
    return np.linalg.solve(a, tb - ta @ x)


# ---- eigenvalues and singular values ------------------------------------------------------

def _gaps(w):
    """F[i, j] = 1 / (w[j] - w[i]) off the diagonal, 0 on it."""
    eye = np.eye(w.shape[0])
    return (1.0 - eye) / (w[None, :] - w[:, None] + eye)


def _eigen_grad(w, v, gw, gv):
    """V (diag(gw) + F * (V^T gv)) V^T, symmetrised."""
    inner = np.diag(gw + np.zeros_like(w)) + _gaps(w) * (v.T @ (gv + np.zeros_like(v)))
    m = v @ inner @ v.T
    return 0.5 * (m + m.T)


@define(rt.eigh_lower_grad)
def eigh_lower_grad(gw, gv, a):
    w, v = np.linalg.eigh(a)
    return _fold_triangle(_eigen_grad(w, v, gw, gv), True)


@define(rt.eigh_lower_tangent)
def eigh_lower_tangent(t, a):
    w, v = np.linalg.eigh(a)
    p = v.T @ _symmetric_from(t, True) @ v
    return np.diag(p), v @ (_gaps(w) * p)


def _svd_gaps(s):
    """F[i, j] = 1 / (s[j]^2 - s[i]^2) off the diagonal, 0 on it."""
    return _gaps(s * s)


@define(rt.svd_values_grad)
def svd_values_grad(gs, a):
    u, s, vh = rt.reduced_svd(a)
    return (u * gs) @ vh


@define(rt.svd_values_tangent)
def svd_values_tangent(t, a):
    u, s, vh = rt.reduced_svd(a)
    return np.sum(u * (t @ vh.T), axis=0)


@define(rt.svd_grad)
def svd_grad(gu, gs, gvh, a):
    u, s, vh = rt.reduced_svd(a)
    m, n = a.shape
    k = s.shape[0]
    v = vh.T
    gv = (gvh + np.zeros_like(vh)).T
    gu = gu + np.zeros_like(u)
    f = _svd_gaps(s)
    utgu = u.T @ gu
    vtgv = v.T @ gv
    inner = (f * (utgu - utgu.T)) * s[None, :] + s[:, None] * (f * (vtgv - vtgv.T))
    out = u @ (inner + np.diag(gs + np.zeros_like(s))) @ vh
    if m > k:
        out = out + (np.eye(m) - u @ u.T) @ gu @ (vh / s[:, None])
    if n > k:
        out = out + (u / s[None, :]) @ gv.T @ (np.eye(n) - v @ vh)
    return out


@define(rt.svd_tangent)
def svd_tangent(t, a):
    u, s, vh = rt.reduced_svd(a)
    m, n = a.shape
    k = s.shape[0]
    v = vh.T
    p = u.T @ t @ v
    f = _svd_gaps(s)
    du = u @ (f * (p * s[None, :] + s[:, None] * p.T))
    dv = v @ (f * (s[:, None] * p + p.T * s[None, :]))
    if m > k:
        du = du + (np.eye(m) - u @ u.T) @ t @ (v / s[None, :])
    if n > k:
        dv = dv + (np.eye(n) - v @ vh) @ t.T @ (u / s[None, :])
    return du, np.diag(p), dv.T


@define(rt.pinv_grad)
def pinv_grad(g, p, a):
    m, n = a.shape
    pt = p.T
    return (-(pt @ g @ pt) + (np.eye(m) - a @ p) @ g.T @ p @ pt
            + pt @ p @ g.T @ (np.eye(n) - p @ a))


@define(rt.pinv_tangent)
def pinv_tangent(t, p, a):
    m, n = a.shape
    return (-(p @ t @ p) + p @ p.T @ t.T @ (np.eye(m) - a @ p)
            + (np.eye(n) - p @ a) @ t.T @ p.T @ p)


# ---- stacks of matrices (np.linalg's cholesky and eigh, eigh with UPLO) -------------------

def _swapped(x):
    return np.swapaxes(x, -1, -2)


@define(rt.cholesky_stack_grad)
def cholesky_stack_grad(g, ans, upper):
    if upper:
        low, gl = _swapped(ans), np.tril(_swapped(g))
    else:
        low, gl = ans, np.tril(g)
    eye = np.eye(ans.shape[-1])
    p = np.tril(_swapped(low) @ gl)
    p = p - 0.5 * p * eye
    s = np.linalg.solve(_swapped(low), _swapped(np.linalg.solve(_swapped(low), _swapped(p))))
    folded = s + _swapped(s)
    return (np.triu(folded, 1) if upper else np.tril(folded, -1)) + s * eye


@define(rt.cholesky_stack_tangent)
def cholesky_stack_tangent(t, ans, upper):
    low = _swapped(ans) if upper else ans
    eye = np.eye(ans.shape[-1])
    half = np.triu(t, 1) if upper else np.tril(t, -1)
    s = half + _swapped(half) + t * eye
    p = np.tril(np.linalg.solve(low, _swapped(np.linalg.solve(low, s))))
    dl = low @ (p - 0.5 * p * eye)
    return _swapped(dl) if upper else dl


def _stack_gaps(w):
    """_gaps of each vector of eigenvalues of a stack."""
    eye = np.eye(w.shape[-1])
    return (1.0 - eye) / (np.expand_dims(w, -2) - np.expand_dims(w, -1) + eye)


@define(rt.eigh_uplo_grad)
def eigh_uplo_grad(gw, gv, a, UPLO="L"):  # noqa: N803 (numpy's name)
    upper = UPLO == "U" or UPLO == "u"
    w, v = np.linalg.eigh(a, UPLO)
    eye = np.eye(a.shape[-1])
    vt = _swapped(v)
    inner = _stack_gaps(w) * (vt @ (gv + np.zeros_like(v)))
    inner = inner + np.expand_dims(gw + np.zeros_like(w), -1) * eye
    m = v @ inner @ vt
    folded = m + _swapped(m)
    return (np.triu(folded, 1) if upper else np.tril(folded, -1)) + m * eye


@define(rt.eigh_uplo_tangent)
def eigh_uplo_tangent(t, a, UPLO="L"):  # noqa: N803 (numpy's name)
    upper = UPLO == "U" or UPLO == "u"
    w, v = np.linalg.eigh(a, UPLO)
    half = np.triu(t, 1) if upper else np.tril(t, -1)
    ts = half + _swapped(half) + t * np.eye(a.shape[-1])
    p = _swapped(v) @ ts @ v
    return np.diagonal(p, axis1=-2, axis2=-1), v @ (_stack_gaps(w) * p)
