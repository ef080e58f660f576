"""Run-time helpers for numpy's linear algebra beyond single matrices: the
N-d products (np.dot, np.matmul with a 1-d operand beside a stack), np.cross
along any axes, and np.linalg's slogdet, cholesky and eigh of stacks of
matrices (..., n, n), with eigh's UPLO (the other stacked rules are numpy
expressions: s2sad/rules/stacks.py). Plain numpy: numba compiles none of these forms (its
np.dot, @ and np.linalg take 1-d and 2-d arrays only), so a derivative that
uses them runs as Python (s2sad.NumbaFallbackWarning under jit=True).

Like s2sad.runtime (which re-exports every name here), this module needs
numpy only: exported derivatives copy it in."""
import numpy as np
from s2sad.lazy_numba import overload, types

from .linalg import cholesky_grad, cholesky_tangent
from .shapes import cross_grad

__all__ = ["matmul_of", "inner_of", "inner_grad_left", "inner_grad_right", "dot_subscripts", "matmul_subscripts",
           "cross_axes_grad_left", "cross_axes_grad_right",
           "slogdet_stack_tangent", "cholesky_stack_grad", "cholesky_stack_tangent",
           "eigh_uplo_grad", "eigh_uplo_tangent"]

_LETTERS = "abcdefghijklmnopqrstuvwxyz"


# ---- np.matmul of vectors and matrices ---------------------------------------------

def matmul_of(a, b):
    """np.matmul(a, b) (numba has `@`, not the function; of stacks:
    s2sad.runtime.stack_overloads)."""
    return np.matmul(a, b)


@overload(matmul_of)
def _matmul_of(a, b):
    if isinstance(a, types.Array) and isinstance(b, types.Array) and a.ndim <= 2 \
            and b.ndim <= 2:
        return lambda a, b: np.dot(a, b)
    if isinstance(a, types.Array) and isinstance(b, types.Array):
        return lambda a, b: a @ b  # stacks (s2sad.runtime.stack_overloads)
    return None


# ---- np.inner as matrix products (numba has no np.inner) ------------------------------------

def inner_of(a, b):
    """np.inner(a, b): the sum over both last axes; the result's axes are a's
    others, then b's others."""
    return np.inner(a, b)


def inner_grad_left(g, a, b):
    """The cotangent of a in np.inner(a, b) (linear in g and b): g's axes of
    a times b, over b's others."""
    k = np.shape(a)[-1]
    g2 = np.reshape(g, (-1, int(np.prod(np.shape(b)[:-1]))))
    return np.reshape(g2 @ np.reshape(b, (-1, k)), np.shape(a))


def inner_grad_right(g, a, b):
    """The cotangent of b in np.inner(a, b) (linear in g and a)."""
    k = np.shape(b)[-1]
    g2 = np.reshape(g, (int(np.prod(np.shape(a)[:-1])), -1))
    return np.reshape(g2.T @ np.reshape(a, (-1, k)), np.shape(b))


def _arrays(*ts):
    return all(isinstance(t, types.Array) for t in ts)


@overload(inner_of)
def _inner_of(a, b):
    if not _arrays(a, b):
        return None
    if a.ndim == 1 and b.ndim == 1:
        return lambda a, b: np.dot(a, b)

    def impl(a, b):
        k = a.shape[-1]
        a2 = np.ascontiguousarray(a).reshape((-1, k))
        b2 = np.ascontiguousarray(b).reshape((-1, k))
        return np.ascontiguousarray(a2 @ b2.T).reshape(a.shape[:-1] + b.shape[:-1])
    return impl


def _inner_grad_overload(left):
    def make(g, a, b):
        if not _arrays(a, b):
            return None
        if not isinstance(g, types.Array):  # two vectors: g is a number
            return (lambda g, a, b: g * b) if left else (lambda g, a, b: g * a)

        def impl(g, a, b):
            ka, kb = a.shape[-1], b.shape[-1]
            ma, mb = a.size // ka, b.size // kb
            g2 = np.ascontiguousarray(g).reshape((ma, mb))
            if left:
                r = g2 @ np.ascontiguousarray(b).reshape((mb, kb))
                return np.ascontiguousarray(r).reshape(a.shape)
            r = g2.T @ np.ascontiguousarray(a).reshape((ma, ka))
            return np.ascontiguousarray(r).reshape(b.shape)
        return impl
    return make


overload(inner_grad_left)(_inner_grad_overload(True))
overload(inner_grad_right)(_inner_grad_overload(False))


# ---- products as einsums (their gradients: s2sad.runtime.contractions.einsum_grad) -------

def dot_subscripts(a, b):
    """np.dot(a, b) as an einsum: the sum over a's last axis and b's
    second-to-last (its only one when 1-d); the result's axes are a's others,
    then b's others."""
    na, nb = np.ndim(a), np.ndim(b)
    left = _LETTERS[:na - 1]
    right = _LETTERS[na - 1:na + nb - 2]
    s = "z"
    sb = right[:-1] + s + right[-1:] if nb >= 2 else s
    return f"{left}{s},{sb}->{left}{right}"


def matmul_subscripts(a, b):
    """np.matmul(a, b) as an einsum: a 1-d operand is a row (left) or column
    (right) vector whose added axis is dropped from the result; the stacks'
    leading axes broadcast ('...')."""
    sa = "...ij" if np.ndim(a) >= 2 else "j"
    sb = "...jk" if np.ndim(b) >= 2 else "j"
    out = "..." + ("i" if np.ndim(a) >= 2 else "") + ("k" if np.ndim(b) >= 2 else "")
    return f"{sa},{sb}->{out}"


def _sum_to(g, like):
    """g summed over the axes along which `like` was broadcast."""
    g = np.asarray(g)
    extra = g.ndim - np.ndim(like)
    g = g.sum(axis=tuple(range(extra))) if extra > 0 else g
    ones = tuple(i for i, n in enumerate(np.shape(like)) if n == 1 and g.shape[i] != 1)
    return g.sum(axis=ones, keepdims=True) if ones else g


# ---- np.cross along any axes ----------------------------------------------------------

def _cross_axes_grad(g, a, b, axisa, axisb, axisc, axis, k):
    """The cotangent of a (k = 0) or b (k = 1) in np.cross(a, b, axisa,
    axisb, axisc, axis): the vectors moved to the last axis, the product's
    cotangent there (s2sad.runtime.shapes.cross_grad), summed over the axes
    the vectors broadcast along, and moved back."""
    if axis is not None:  # numpy's rule: it stands for all three
        axisa = axisb = axisc = axis
    am, bm = np.moveaxis(a, axisa, -1), np.moveaxis(b, axisb, -1)
    if np.shape(am)[-1] == 3 or np.shape(bm)[-1] == 3:  # the result has a vector axis
        g = np.moveaxis(g, axisc, -1)
    own = am if k == 0 else bm
    r = _sum_to(cross_grad(g, am, bm, k), own)
    return np.moveaxis(r, -1, axisa if k == 0 else axisb)


def cross_axes_grad_left(g, a, b, axisa, axisb, axisc, axis):
    """The cotangent of a in np.cross(a, b, axisa, axisb, axisc, axis)
    (linear in g and b)."""
    return _cross_axes_grad(g, a, b, axisa, axisb, axisc, axis, 0)


def cross_axes_grad_right(g, a, b, axisa, axisb, axisc, axis):
    """The cotangent of b in np.cross(a, b, axisa, axisb, axisc, axis)
    (linear in g and a)."""
    return _cross_axes_grad(g, a, b, axisa, axisb, axisc, axis, 1)


# ---- np.linalg.slogdet of stacks ------------------------------------------------------------

def slogdet_stack_tangent(t, a):
    """The tangent of np.linalg.slogdet of a stack along t: the signs' (0)
    and each log|det|'s, trace(a^-1 t)."""
    return (np.zeros(np.shape(a)[:-2]),
            np.trace(np.linalg.solve(a, t), axis1=-2, axis2=-1))


# ---- one matrix's helper applied to each matrix of a stack --------------------------------

def _each(fn, arrays, shapes):
    """fn(*matrices) for each index of the stacks' leading axes (one shape:
    np.linalg's results of a stack have their argument's leading axes)."""
    lead = np.shape(arrays[0])[:-2]
    out = [np.zeros(lead + s) for s in shapes]
    for idx in np.ndindex(*lead):
        r = fn(*[x[idx] for x in arrays])
        for o, v in zip(out, r if isinstance(r, tuple) else (r,)):
            o[idx] = v
    return out if len(out) > 1 else out[0]


def cholesky_stack_grad(g, ans, upper):
    """np.linalg.cholesky of a stack: each matrix's (the read triangle)."""
    n = np.shape(ans)[-1]
    return _each(lambda gi, li: cholesky_grad(gi, li, not upper), (np.asarray(g), ans),
                 [(n, n)])


def cholesky_stack_tangent(t, ans, upper):
    n = np.shape(ans)[-1]
    return _each(lambda ti, li: cholesky_tangent(ti, li, not upper), (np.asarray(t), ans),
                 [(n, n)])


# ---- np.linalg.eigh of a matrix or a stack, either triangle read ------------------------

def _matrices(x, a):
    """A cotangent that may be the number 0 as an array of a's shape."""
    return np.zeros(np.shape(a)) + x


def _gaps(w):
    """F[..., i, j] = 1 / (w[j] - w[i]) off the diagonal, 0 on it (as
    s2sad.runtime.linalg's for one matrix: equal eigenvalues give inf)."""
    n = np.shape(w)[-1]
    d = w[..., None, :] - w[..., :, None]
    with np.errstate(divide="ignore"):
        return np.where(np.eye(n, dtype=bool), 0.0, 1.0 / (d + np.eye(n)))


def eigh_uplo_grad(gw, gv, a, UPLO="L"):
    """The gradient of np.linalg.eigh(a, UPLO), from the cotangents of the
    eigenvalues and eigenvectors (either may be the number 0): M = V
    (diag(gw) + F * (V^T gv)) V^T, with F the inverse eigenvalue gaps, is the
    gradient with respect to the symmetric matrix numpy builds from the read
    triangle; an entry off the diagonal there stands for two of it (M[i, j]
    + M[j, i]), the other triangle gets 0. The factorisation is recomputed
    with numpy's call, so the eigenvectors' signs are the primal's."""
    upper = UPLO.upper() == "U"
    w, v = np.linalg.eigh(a, UPLO)
    n = np.shape(a)[-1]
    vt = np.swapaxes(v, -1, -2)
    gaps = _gaps(w)
    inner = gaps * (vt @ _matrices(gv, a))
    inner = inner + np.zeros(np.shape(a)) + (np.zeros(np.shape(w)) + gw)[..., None] * np.eye(n)
    m = v @ inner @ vt
    folded = m + np.swapaxes(m, -1, -2)
    diagonal = m * np.eye(n)
    return (np.triu(folded, 1) if upper else np.tril(folded, -1)) + diagonal


def eigh_uplo_tangent(t, a, UPLO="L"):
    """The tangent of np.linalg.eigh(a, UPLO) along t (its read triangle,
    mirrored): (diag(V^T T V), V (F * (V^T T V)))."""
    upper = UPLO.upper() == "U"
    w, v = np.linalg.eigh(a, UPLO)
    n = np.shape(a)[-1]
    t = np.asarray(t)
    half = np.triu(t, 1) if upper else np.tril(t, -1)
    ts = half + np.swapaxes(half, -1, -2) + t * np.eye(n)
    p = np.swapaxes(v, -1, -2) @ ts @ v
    gaps = _gaps(w)
    return np.diagonal(p, axis1=-2, axis2=-1).copy(), v @ (gaps * p)
