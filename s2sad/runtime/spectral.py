"""numpy.linalg's eigh, svd and pinv: the pieces of their gradient rules,
plain numpy that numba compiles as it is (`register_jitable`), for real 2-d
arrays. Each recomputes the factorisation with the function the primal
calls, so the eigenvectors' (singular vectors') signs are the primal's
(scipy's eigh may choose others: its helpers are not shared)."""
import numpy as np
from s2sad.lazy_numba import register_jitable

from .linalg import _eigen_gaps  # (one copy of the eigenvalue gaps)

__all__ = ["eigh_lower_grad", "eigh_lower_tangent", "reduced_svd", "singular_values", "svd_grad", "svd_values_grad", "svd_tangent", "svd_values_tangent", "pinv_grad",
           "pinv_tangent"]


@register_jitable
def eigh_lower_grad(gw, gv, a):
    """The gradient of np.linalg.eigh(a) (which reads a's lower triangle)
    from the cotangents of the eigenvalues and eigenvectors (either may be
    the number 0): M = V (diag(gw) + F * (V^T gv)) V^T, symmetrised, folded
    into the lower triangle (an entry below the diagonal stands for two)."""
    w, v = np.linalg.eigh(a)
    n = w.shape[0]
    inner = _eigen_gaps(w) * (v.T @ (np.zeros((n, n)) + gv))
    cw = np.zeros(n) + gw
    for i in range(n):
        inner[i, i] += cw[i]
    m = v @ inner @ v.T
    out = np.zeros((n, n))
    for i in range(n):
        out[i, i] = m[i, i]
        for j in range(i):
            out[i, j] = m[i, j] + m[j, i]
    return out


@register_jitable
def eigh_lower_tangent(t, a):
    """The tangent of np.linalg.eigh(a) along t (its lower triangle):
    (diag(V^T T V), V (F * (V^T T V)))."""
    w, v = np.linalg.eigh(a)
    n = w.shape[0]
    ts = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1):
            ts[i, j] = t[i, j]
            ts[j, i] = t[i, j]
    p = v.T @ ts @ v
    dw = np.zeros(n)
    for i in range(n):
        dw[i] = p[i, i]
    return dw, v @ (_eigen_gaps(w) * p)


@register_jitable
def reduced_svd(a):
    """np.linalg.svd(a, full_matrices=False): (U, s, Vh)."""
    return np.linalg.svd(a, full_matrices=False)


@register_jitable
def singular_values(a):
    """np.linalg.svd(a, compute_uv=False), descending (numba's svd always
    computes the vectors)."""
    return np.linalg.svd(a, full_matrices=False)[1]


@register_jitable
def _svd_gaps(s):
    """F[i, j] = 1 / (s[j]^2 - s[i]^2) off the diagonal, 0 on it (distinct
    singular values: equal ones give inf, as the derivative of the vectors
    does not exist there)."""
    k = s.shape[0]
    f = np.zeros((k, k))
    for i in range(k):
        for j in range(k):
            if i != j:
                f[i, j] = 1.0 / (s[j] * s[j] - s[i] * s[i])
    return f


@register_jitable
def svd_values_grad(gs, a):
    """The gradient of svd(a, compute_uv=False) (the singular values):
    U diag(gs) V^T of the reduced factors."""
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return (u * gs) @ vh


@register_jitable
def svd_values_tangent(t, a):
    """The tangent of the singular values: diag(U^T T V)."""
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return np.sum(u * (t @ vh.T), axis=0)


@register_jitable
def svd_grad(gu, gs, gvh, a):
    """The gradient of (U, s, Vh) = svd(a, full_matrices=False) from the
    cotangents of its three results (Townsend, "Differentiating the singular
    value decomposition", 2016; autograd's grad_svd): U [sym. parts] V^T plus
    the parts outside the column spaces of U and V when a is not square.
    Needs distinct, nonzero singular values."""
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    m, n = a.shape
    k = s.shape[0]
    v = vh.T
    gv = (np.zeros((k, n)) + gvh).T
    gu = np.zeros((m, k)) + gu
    f = _svd_gaps(s)
    utgu = u.T @ gu
    vtgv = v.T @ gv
    inner = (f * (utgu - utgu.T)) * s.reshape((1, k)) + s.reshape((k, 1)) * (f * (vtgv - vtgv.T))
    inner += np.diag(np.zeros(k) + gs)
    out = u @ inner @ vh
    if m > k:
        out += (np.eye(m) - u @ u.T) @ gu @ (vh / s.reshape((k, 1)))
    if n > k:
        out += (u / s.reshape((1, k))) @ gv.T @ (np.eye(n) - v @ vh)
    return out


@register_jitable
def svd_tangent(t, a):
    """The tangent of (U, s, Vh) = svd(a, full_matrices=False) along t."""
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    m, n = a.shape
    k = s.shape[0]
    v = vh.T
    p = u.T @ t @ v
    ds = np.zeros(k)
    for i in range(k):
        ds[i] = p[i, i]
    f = _svd_gaps(s)
    sm = s.reshape((1, k))
    sc = s.reshape((k, 1))
    du = u @ (f * (p * sm + sc * p.T))
    dv = v @ (f * (sc * p + p.T * sm))
    if m > k:
        du += (np.eye(m) - u @ u.T) @ t @ (v / sm)
    if n > k:
        dv += (np.eye(n) - v @ vh) @ t.T @ (u / sm)
    return u * 0.0 + du, ds, (dv.T).copy()


@register_jitable
def pinv_grad(g, p, a):
    """The gradient of p = pinv(a) at constant rank (Golub and Pereyra):
    -P^T G P^T + (I - A P) G^T P P^T + P^T P G^T (I - P A)."""
    m, n = a.shape
    pt = p.T
    return (-(pt @ g @ pt) + (np.eye(m) - a @ p) @ g.T @ p @ pt
            + pt @ p @ g.T @ (np.eye(n) - p @ a))


@register_jitable
def pinv_tangent(t, p, a):
    """The tangent of p = pinv(a) at constant rank."""
    m, n = a.shape
    return (-(p @ t @ p) + p @ p.T @ t.T @ (np.eye(m) - a @ p)
            + (np.eye(n) - p @ a) @ t.T @ p.T @ p)
