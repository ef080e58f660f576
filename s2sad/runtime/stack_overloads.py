"""numpy's linear algebra of stacks, compiled: numba's np.dot, `@` and
np.linalg take one matrix (or vector) at a time, so a derivative using
numpy's N-d forms (np.dot of an N-d operand, `@` / np.matmul of stacks,
np.linalg.inv, det, slogdet, solve, cholesky and eigh of (..., n, n),
eigh's UPLO) fell back to Python. The overloads here teach numba those
forms with numpy's semantics: each is a loop over the leading axes calling
numba's own 2-D operation (or one 2-D product of reshaped operands), so the
generated source keeps the numpy call the user wrote. The forms numba has
(1-D and 2-D operands, no UPLO) are left to numba: an overload here declines
them (returns None).

Like s2sad.runtime (which re-exports this module), it needs numpy and numba
only; s2sad.export copies it into exported derivatives, which then compile
the same forms."""
import operator

import numpy as np
from s2sad.lazy_numba import as_dtype, overload, register_jitable, types

from .base import unbroadcast
from .linalg import cholesky_grad, cholesky_tangent, eigh_grad, eigh_tangent
from .shapes import cross_grad
# (one line each: s2sad.export drops these lines, the names being in its copy already)
from .stacks import cholesky_stack_grad, cholesky_stack_tangent, slogdet_stack_tangent
from .stacks import cross_axes_grad_left, cross_axes_grad_right
from .stacks import eigh_uplo_grad, eigh_uplo_tangent

__all__ = ["matmul_stacks", "dot_grad_left", "dot_grad_right", "matmul_stack_grad_left",
           "matmul_stack_grad_right"]


def _floats(*ts):
    return all(isinstance(t, types.Array) and isinstance(t.dtype, types.Float) for t in ts)


def _result_dtype(*ts):
    return np.result_type(*[as_dtype(t.dtype) for t in ts])


# ---- products -------------------------------------------------------------------------

def matmul_stacks(a, b):
    """np.matmul(a, b) of operands one of which is a stack (numpy's own;
    numba compiles the overload below): a 1-d operand is a row (left) or a
    column (right) vector, whose added axis the result drops; the leading
    axes broadcast."""
    return np.matmul(a, b)


def _matmul_stacks_impl(a, b):
    if not (_floats(a, b) and max(a.ndim, b.ndim) > 2):
        return None
    dtype = _result_dtype(a, b)
    row, column = a.ndim == 1, b.ndim == 1

    def impl(a, b):
        a2 = a.reshape((1, a.shape[0])) if row else a
        b2 = b.reshape((b.shape[0], 1)) if column else b
        m, k, n = a2.shape[-2], a2.shape[-1], b2.shape[-1]
        if b2.shape[-2] != k:
            raise ValueError("matmul: the operands' inner dimensions differ")
        lead = np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
        a3 = np.ascontiguousarray(np.broadcast_to(a2, lead + (m, k))).reshape((-1, m, k))
        b3 = np.ascontiguousarray(np.broadcast_to(b2, lead + (k, n))).reshape((-1, k, n))
        out = np.empty((a3.shape[0], m, n), dtype=dtype)
        for i in range(a3.shape[0]):
            out[i] = a3[i] @ b3[i]
        full = out.reshape(lead + (m, n))
        if row and column:
            return full[..., 0, 0]
        if row:
            return full[..., 0, :]
        if column:
            return full[..., 0]
        return full
    return impl


overload(matmul_stacks)(_matmul_stacks_impl)
overload(operator.matmul)(_matmul_stacks_impl)
overload(np.matmul)(_matmul_stacks_impl)


@overload(np.dot)
def _dot_nd(a, b):
    """np.dot with an operand of more than 2 axes: the sum over a's last axis
    and b's second-to-last (its only one when 1-d), the result's axes a's
    others then b's others: one 2-D product of reshaped operands."""
    if not (_floats(a, b) and max(a.ndim, b.ndim) > 2):
        return None
    nb = b.ndim
    # b's contracted axis first, its other axes in order after it
    order = (nb - 2,) + tuple(range(nb - 2)) + (nb - 1,) if nb >= 2 else (0,)

    def impl(a, b):
        k = a.shape[-1]
        a2 = np.ascontiguousarray(a).reshape((-1, k))
        b2 = np.ascontiguousarray(np.transpose(b, order)).reshape((k, -1))
        r = a2 @ b2
        if nb == 1:
            return r.reshape(a.shape[:-1])
        return r.reshape(a.shape[:-1] + b.shape[:-2] + b.shape[-1:])
    return impl


# ---- np.linalg of stacks of matrices ------------------------------------------------------

@register_jitable
def _matrices(a):
    """The stack as (count, n, n), contiguous."""
    n = a.shape[-1]
    return np.ascontiguousarray(a).reshape((-1, a.shape[-2], n))


@overload(np.linalg.inv)
def _inv_stack(a):
    if not (_floats(a) and a.ndim > 2):
        return None

    def impl(a):
        a3 = _matrices(a)
        out = np.empty(a3.shape, dtype=a.dtype)
        for i in range(a3.shape[0]):
            out[i] = np.linalg.inv(a3[i])
        return out.reshape(a.shape)
    return impl


@overload(np.linalg.det)
def _det_stack(a):
    if not (_floats(a) and a.ndim > 2):
        return None

    def impl(a):
        a3 = _matrices(a)
        out = np.empty(a3.shape[0], dtype=a.dtype)
        for i in range(a3.shape[0]):
            out[i] = np.linalg.det(a3[i])
        return out.reshape(a.shape[:-2])
    return impl


@overload(np.linalg.slogdet)
def _slogdet_stack(a):
    if not (_floats(a) and a.ndim > 2):
        return None

    def impl(a):
        a3 = _matrices(a)
        sign = np.empty(a3.shape[0], dtype=a.dtype)
        logdet = np.empty(a3.shape[0], dtype=a.dtype)
        for i in range(a3.shape[0]):
            s, ld = np.linalg.slogdet(a3[i])
            sign[i] = s
            logdet[i] = ld
        return sign.reshape(a.shape[:-2]), logdet.reshape(a.shape[:-2])
    return impl


@overload(np.linalg.solve)
def _solve_stack(a, b):
    """numpy's solve: b is a vector when 1-d, else a (stack of) matrices;
    the leading axes of a and b broadcast."""
    if not (_floats(a, b) and (a.ndim > 2 or b.ndim > 2)):
        return None
    dtype = _result_dtype(a, b)
    vector = b.ndim == 1

    def impl(a, b):
        n = a.shape[-1]
        b2 = b.reshape((n, 1)) if vector else b
        k = b2.shape[-1]
        lead = np.broadcast_shapes(a.shape[:-2], b2.shape[:-2])
        a3 = np.ascontiguousarray(np.broadcast_to(a, lead + (n, n))).reshape((-1, n, n))
        b3 = np.ascontiguousarray(np.broadcast_to(b2, lead + (n, k))).reshape((-1, n, k))
        out = np.empty(b3.shape, dtype=dtype)
        for i in range(a3.shape[0]):
            out[i] = np.linalg.solve(a3[i], b3[i])
        full = out.reshape(lead + (n, k))
        if vector:
            return full[..., 0]
        return full
    return impl


@overload(np.linalg.cholesky)
def _cholesky_stack(a, upper=False):
    if not (_floats(a) and a.ndim > 2):
        return None

    def impl(a, upper=False):
        a3 = _matrices(a)
        out = np.empty(a3.shape, dtype=a.dtype)
        for i in range(a3.shape[0]):
            if upper:  # (numpy reads the upper triangle then: a.T's lower one)
                out[i] = np.ascontiguousarray(
                    np.linalg.cholesky(np.ascontiguousarray(a3[i].T)).T)
            else:
                out[i] = np.linalg.cholesky(a3[i])
        return out.reshape(a.shape)
    return impl


def _given(t):
    """An argument the call passes (numba gives a left-out one as its default value,
    or as Omitted)."""
    return isinstance(t, types.Type) and not isinstance(t, (types.Omitted, types.NoneType))


@overload(np.linalg.eigh)
def _eigh_stack(a, UPLO="L"):
    """A stack, or a matrix with UPLO: numba's eigh reads the lower triangle;
    UPLO="U" (or "u") reads the upper one, which is the lower one of the
    transpose."""
    if not (_floats(a) and (a.ndim > 2 or _given(UPLO))):
        return None

    def impl(a, UPLO="L"):
        upper = UPLO == "U" or UPLO == "u"
        if not (upper or UPLO == "L" or UPLO == "l"):
            raise ValueError("UPLO argument must be 'L' or 'U'")
        n = a.shape[-1]
        a3 = _matrices(a)
        w = np.empty((a3.shape[0], n), dtype=a.dtype)
        v = np.empty(a3.shape, dtype=a.dtype)
        for i in range(a3.shape[0]):
            m = np.ascontiguousarray(a3[i].T) if upper else a3[i]
            wi, vi = np.linalg.eigh(m)
            w[i] = wi
            v[i] = vi
        return w.reshape(a.shape[:-1]), v.reshape(a.shape)
    return impl


# ---- the gradients of products that numba compiles ------------------------------------------

def _dot_order(nb):
    """np.dot's b with its contracted axis first (b's others after it, in order)."""
    return (nb - 2,) + tuple(range(nb - 2)) + (nb - 1,) if nb >= 2 else (0,)


def dot_grad_left(g, a, b):
    """The cotangent of a in np.dot(a, b) of N-d operands: np.dot is one 2-D
    product A2 @ B2 of a as rows of its last axis and b as columns, so a's is
    G2 @ B2^T (linear in g and b)."""
    k = np.shape(a)[-1]
    b2 = np.reshape(np.transpose(b, _dot_order(np.ndim(b))), (k, -1))
    return np.reshape(np.reshape(g, (-1, b2.shape[1])) @ b2.T, np.shape(a))


def dot_grad_right(g, a, b):
    """The cotangent of b in np.dot(a, b) of N-d operands: A2^T G2, put back
    in b's axes (linear in g and a)."""
    k = np.shape(a)[-1]
    order = _dot_order(np.ndim(b))
    moved = tuple(np.shape(b)[i] for i in order)
    r = np.reshape(np.reshape(a, (-1, k)).T @ np.reshape(g, (np.size(a) // k, -1)), moved)
    return np.transpose(r, np.argsort(order))


@overload(dot_grad_left)
def _dot_grad_left(g, a, b):
    order = _dot_order(b.ndim)

    def impl(g, a, b):
        k = a.shape[-1]
        b2 = np.ascontiguousarray(np.transpose(b, order)).reshape((k, -1))
        g2 = np.ascontiguousarray(g).reshape((-1, b2.shape[1]))
        return np.ascontiguousarray(g2 @ np.ascontiguousarray(b2.T)).reshape(a.shape)
    return impl


@overload(dot_grad_right)
def _dot_grad_right(g, a, b):
    order = _dot_order(b.ndim)
    back = tuple(int(i) for i in np.argsort(order))

    def impl(g, a, b):
        k = a.shape[-1]
        a2 = np.ascontiguousarray(a).reshape((-1, k))
        g2 = np.ascontiguousarray(g).reshape((a2.shape[0], -1))
        r = np.ascontiguousarray(a2.T) @ g2
        moved = np.transpose(b, order).shape
        return np.ascontiguousarray(np.transpose(r.reshape(moved), back))
    return impl


def _as_matrices(g, a, b):
    """g, a and b with a 1-d a as a row and a 1-d b as a column (the axes
    np.matmul adds and drops)."""
    a2 = np.reshape(a, (1, -1)) if np.ndim(a) == 1 else a
    b2 = np.reshape(b, (-1, 1)) if np.ndim(b) == 1 else b
    g2 = np.expand_dims(g, -2) if np.ndim(a) == 1 else g
    g2 = np.expand_dims(g2, -1) if np.ndim(b) == 1 else g2
    return g2, a2, b2


def _summed_to(r, shape):
    """r summed over the leading axes it has beyond `shape`'s and those where
    `shape` is 1."""
    r = np.sum(r, axis=tuple(range(np.ndim(r) - len(shape)))) if np.ndim(r) > len(shape) else r
    ones = tuple(i for i, n in enumerate(shape) if n == 1 and r.shape[i] != 1)
    return np.sum(r, axis=ones, keepdims=True) if ones else r


def matmul_stack_grad_left(g, a, b):
    """The cotangent of a in a @ b with a stack (a 1-d operand a row or a
    column vector; the leading axes broadcast): g @ b^T summed over the axes
    a was broadcast along (linear in g and b)."""
    g2, a2, b2 = _as_matrices(g, a, b)
    return np.reshape(_summed_to(g2 @ np.swapaxes(b2, -1, -2), np.shape(a2)), np.shape(a))


def matmul_stack_grad_right(g, a, b):
    """The cotangent of b in a @ b with a stack: a^T @ g, summed likewise
    (linear in g and a)."""
    g2, a2, b2 = _as_matrices(g, a, b)
    return np.reshape(_summed_to(np.swapaxes(a2, -1, -2) @ g2, np.shape(b2)), np.shape(b))


def _matmul_stack_grad(left):
    def make(g, a, b):
        row, column = a.ndim == 1, b.ndim == 1

        def impl(g, a, b):
            a2 = a.reshape((1, a.shape[0])) if row else a
            b2 = b.reshape((b.shape[0], 1)) if column else b
            m, n = a2.shape[-2], b2.shape[-1]
            lead = np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
            g3 = np.ascontiguousarray(g).reshape((-1, m, n))
            a3 = np.ascontiguousarray(np.broadcast_to(a2, lead + a2.shape[-2:])).reshape(
                (-1,) + a2.shape[-2:])
            b3 = np.ascontiguousarray(np.broadcast_to(b2, lead + b2.shape[-2:])).reshape(
                (-1,) + b2.shape[-2:])
            own = a2 if left else b2
            full = np.empty((g3.shape[0],) + own.shape[-2:])
            for i in range(g3.shape[0]):
                if left:
                    full[i] = g3[i] @ np.ascontiguousarray(b3[i].T)
                else:
                    full[i] = np.ascontiguousarray(a3[i].T) @ g3[i]
            # summed over the axes own was broadcast along
            r = unbroadcast(full.reshape(lead + own.shape[-2:]), own)
            return np.ascontiguousarray(r).reshape((a if left else b).shape)
        return impl
    return make


overload(matmul_stack_grad_left)(_matmul_stack_grad(True))
overload(matmul_stack_grad_right)(_matmul_stack_grad(False))


# ---- the gradients of np.linalg's stacked cholesky and eigh -----------------------------

@overload(cholesky_stack_grad)
def _cholesky_stack_grad(g, ans, upper):
    def impl(g, ans, upper):
        f3 = _matrices(ans)
        g3 = np.ascontiguousarray(np.zeros(ans.shape) + g).reshape(f3.shape)
        out = np.empty(f3.shape)
        for i in range(f3.shape[0]):
            out[i] = cholesky_grad(g3[i], f3[i], not upper)
        return out.reshape(ans.shape)
    return impl


@overload(cholesky_stack_tangent)
def _cholesky_stack_tangent(t, ans, upper):
    def impl(t, ans, upper):
        f3 = _matrices(ans)
        t3 = np.ascontiguousarray(np.zeros(ans.shape) + t).reshape(f3.shape)
        out = np.empty(f3.shape)
        for i in range(f3.shape[0]):
            out[i] = cholesky_tangent(t3[i], f3[i], not upper)
        return out.reshape(ans.shape)
    return impl


@overload(eigh_uplo_grad)
def _eigh_uplo_grad(gw, gv, a, UPLO="L"):
    def impl(gw, gv, a, UPLO="L"):
        lower = not (UPLO == "U" or UPLO == "u")
        n = a.shape[-1]
        a3 = _matrices(a)
        count = a3.shape[0]
        # (either cotangent may be the number 0)
        gw2 = np.ascontiguousarray(np.zeros(a.shape[:-1]) + gw).reshape((count, n))
        gv3 = np.ascontiguousarray(np.zeros(a.shape) + gv).reshape(a3.shape)
        out = np.empty(a3.shape)
        for i in range(count):
            out[i] = eigh_grad(gw2[i], gv3[i], a3[i], lower)
        return out.reshape(a.shape)
    return impl


# ---- np.cross along any axes (written as constants: literal types) ------------------------

def _literal(t, default):
    """The value of an axis argument numba typed as a literal (None if absent)."""
    if t is None or isinstance(t, types.NoneType):
        return default
    if isinstance(t, types.Omitted):
        return t.value
    if isinstance(t, int):  # (a default numba passes as it is)
        return t
    if isinstance(t, types.IntegerLiteral):
        return t.literal_value
    raise TypeError("np.cross's axes must be written as constants to compile")


def _to_last(nd, axis):
    """The permutation moving `axis` of an nd array last."""
    axis %= nd
    return tuple(i for i in range(nd) if i != axis) + (axis,)


def _from_last(nd, axis):
    """The permutation moving the last axis of an nd array to `axis`."""
    return tuple(int(i) for i in np.argsort(_to_last(nd, axis)))


def _cross_axes(a, b, axisa, axisb, axisc, axis):
    """numpy's axes of np.cross: axis, when given, stands for all three."""
    axis = _literal(axis, None)
    if axis is not None:
        return axis, axis, axis
    return _literal(axisa, -1), _literal(axisb, -1), _literal(axisc, -1)


@overload(np.cross, prefer_literal=True)
def _cross_with_axes(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    given = [t for t in (axisa, axisb, axisc, axis)
             if isinstance(t, types.Type) and not isinstance(t, types.Omitted)]
    if not (_floats(a, b) and given):
        return None  # (numba's own np.cross: vectors along the last axes)
    pa, pb, pc = _cross_axes(a, b, axisa, axisb, axisc, axis)
    to_a, to_b = _to_last(a.ndim, pa), _to_last(b.ndim, pb)
    out_nd = max(a.ndim, b.ndim)
    back = _from_last(out_nd, pc)

    def impl(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
        r = np.cross(np.ascontiguousarray(np.transpose(a, to_a)),
                     np.ascontiguousarray(np.transpose(b, to_b)))
        return np.ascontiguousarray(np.transpose(r, back))
    return impl


def _cross_axes_grad_overload(k):
    def make(g, a, b, axisa, axisb, axisc, axis):
        pa, pb, pc = _cross_axes(a, b, axisa, axisb, axisc, axis)
        to_a, to_b = _to_last(a.ndim, pa), _to_last(b.ndim, pb)
        g_nd = g.ndim if isinstance(g, types.Array) else 0
        to_g = _to_last(g_nd, pc) if g_nd == max(a.ndim, b.ndim) else tuple(range(g_nd))
        back = _from_last(a.ndim, pa) if k == 0 else _from_last(b.ndim, pb)

        def impl(g, a, b, axisa, axisb, axisc, axis):
            am = np.ascontiguousarray(np.transpose(a, to_a))
            bm = np.ascontiguousarray(np.transpose(b, to_b))
            gm = np.ascontiguousarray(np.transpose(np.zeros(np.shape(g)) + g, to_g))
            own = am if k == 0 else bm
            r = unbroadcast(cross_grad(gm, am, bm, k), own)
            return np.ascontiguousarray(np.transpose(r, back))
        return impl
    return make


overload(cross_axes_grad_left, prefer_literal=True)(_cross_axes_grad_overload(0))
overload(cross_axes_grad_right, prefer_literal=True)(_cross_axes_grad_overload(1))


# ---- tangents of np.linalg's stacked slogdet and eigh ------------------------------------

@overload(slogdet_stack_tangent)
def _slogdet_stack_tangent(t, a):
    def impl(t, a):
        a3 = _matrices(a)
        t3 = np.ascontiguousarray(np.zeros(a.shape) + t).reshape(a3.shape)
        logdet = np.empty(a3.shape[0])
        for i in range(a3.shape[0]):
            logdet[i] = np.trace(np.linalg.solve(a3[i], t3[i]))
        return np.zeros(a.shape[:-2]), logdet.reshape(a.shape[:-2])
    return impl


@overload(eigh_uplo_tangent)
def _eigh_uplo_tangent(t, a, UPLO="L"):
    def impl(t, a, UPLO="L"):
        lower = not (UPLO == "U" or UPLO == "u")
        n = a.shape[-1]
        a3 = _matrices(a)
        t3 = np.ascontiguousarray(np.zeros(a.shape) + t).reshape(a3.shape)
        w = np.empty((a3.shape[0], n))
        v = np.empty(a3.shape)
        for i in range(a3.shape[0]):
            wi, vi = eigh_tangent(t3[i], a3[i], lower)
            w[i] = wi
            v[i] = vi
        return w.reshape(a.shape[:-1]), v.reshape(a.shape)
    return impl
