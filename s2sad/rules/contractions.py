"""numpy's products and contractions: np.dot, np.matmul, np.outer (their 1-d
and 2-d forms; stacks: stacks.py), np.einsum, np.tensordot, np.inner,
np.kron and np.cross. Names like `matmul_grad_left` are helpers of
`s2sad.runtime` (see there)."""
# flake8: noqa: F821  (runtime helpers are globals of the generated module)
import numpy as np

from ..extend import (ARRAY, ARRAY_OR_NONE, AXIS_INT, AXIS_INT_OR_NONE, DOT_OPERAND,
                      EINSUM_SUBSCRIPTS, K, MATMUL_OPERAND, TENSORDOT_AXES, VECTOR_OR_MATRIX,
                      adjoint, ndims_are)


# ---- dot, matmul, outer ---------------------------------------------------------------------

def _dot_kind(args, kws):
    a, b = args
    if a.is_scalar or b.is_scalar:
        return K.broadcast(a, b)
    if a.is_array and b.is_array and (a.ndim > 2 or b.ndim > 2):  # a's others, then b's
        return K.array(a.ndim + b.ndim - 2, K.promote(a.dtype, b.dtype))
    return K.matmul(a, b)


@adjoint(np.dot, kind=_dot_kind, linear=(0, 1), values={"a": DOT_OPERAND, "b": DOT_OPERAND})
def dot(g, ans, a, b):
    return matmul_grad_left(g, a, b), matmul_grad_right(g, a, b)


@adjoint(np.matmul, kind=lambda args, kws: K.matmul(*args), linear=(0, 1),
         values={"a": MATMUL_OPERAND, "b": MATMUL_OPERAND})
def matmul(g, ans, a, b):
    return matmul_grad_left(g, a, b), matmul_grad_right(g, a, b)


@adjoint(np.matmul, when=lambda a, b: min(a.ndim, b.ndim) >= 2 and max(a.ndim, b.ndim) > 2)
def matmul_stacked(g, ans, a, b):
    return (unbroadcast(g @ np.swapaxes(b, -1, -2), a),
            unbroadcast(np.swapaxes(a, -1, -2) @ g, b))


@adjoint(np.dot, when=lambda a, b: a.is_scalar and b.is_scalar)
def dot_scalars(g, ans, a, b):
    return g * b, g * a


@adjoint(np.dot, when=lambda a, b: a.is_scalar)
def dot_scalar_left(g, ans, a, b):
    return np.sum(g * b), g * a


@adjoint(np.dot, when=lambda a, b: b.is_scalar)
def dot_scalar_right(g, ans, a, b):
    return g * b, np.sum(g * a)


@adjoint(np.dot, np.matmul, when=lambda a, b: a.ndim == 2 and b.ndim == 2)
def dot_2d(g, ans, a, b):
    return g @ b.T, a.T @ g


# matrix-vector and vector-matrix products (vector-vector: dot_1d): numpy itself (the
# generic helper is decided by ndim inside numba, which costs compile time, and reads less
# plainly)
@adjoint(np.dot, np.matmul, when=lambda a, b: ndims_are(a, b, 2, 1))
def dot_matrix_vector(g, ans, a, b):
    return np.outer(g, b), g @ a


@adjoint(np.dot, np.matmul, when=lambda a, b: ndims_are(a, b, 1, 2))
def dot_vector_matrix(g, ans, a, b):
    return b @ g, np.outer(a, g)


@adjoint(np.dot, np.matmul, when=lambda a, b: a.ndim == 1 and b.ndim == 1)
def dot_1d(g, ans, a, b):
    return g * b, g * a


@adjoint(np.outer, kind=lambda args, kws: K.array(2, K.promote(args[0].scalar_dtype,
                                                                args[1].scalar_dtype)),
         linear=(0, 1))
def outer(g, ans, a, b):
    return np.dot(g, np.ravel(b)).reshape(np.shape(a)), np.dot(np.ravel(a), g).reshape(np.shape(b))


@adjoint(np.outer, when=lambda a, b: a.ndim == 1 and b.ndim == 1)
def outer_1d(g, ans, a, b):
    return np.dot(g, b), np.dot(a, g)


# ---- einsum, tensordot, inner, kron, cross --------------------------------------------------

def _ndim(k):
    return k.ndim if k.is_array else 0


@adjoint(np.einsum, kind=lambda args, kws: K.UNKNOWN, diff_argnums=(1, 2, 3), linear=(1, 2, 3),
         values={"subscripts": EINSUM_SUBSCRIPTS})
def einsum(g, ans, subscripts, a):
    return None, einsum_grad_one(g, subscripts, a)


@adjoint(np.einsum, when=lambda subscripts, a, b: True, values={"b": ARRAY_OR_NONE})
def einsum_two(g, ans, subscripts, a, b):
    return None, einsum_grad_left(g, subscripts, a, b), einsum_grad_right(g, subscripts, a, b)


@adjoint(np.einsum, when=lambda subscripts, a, b, c: True, values={"c": ARRAY_OR_NONE})
def einsum_three(g, ans, subscripts, a, b, c):
    return (None, einsum_grad_first(g, subscripts, a, b, c),
            einsum_grad_second(g, subscripts, a, b, c), einsum_grad_third(g, subscripts, a, b, c))


@adjoint(np.tensordot, kind=lambda args, kws: K.UNKNOWN, linear=(0, 1),
         values={"a": ARRAY, "b": ARRAY, "axes": TENSORDOT_AXES})
def tensordot(g, ans, a, b, axes=2):
    subscripts = tensordot_subscripts(a, b, axes)
    return einsum_grad_left(g, subscripts, a, b), einsum_grad_right(g, subscripts, a, b)


@adjoint(np.inner, kind=lambda args, kws: K.array(args[0].ndim + args[1].ndim - 2, "f"),
         linear=(0, 1), values={"a": ARRAY, "b": ARRAY})
def inner(g, ans, a, b):
    # (s2sad.runtime.stacks: matrix products of the arrays as (rows, last axis), compiled)
    return inner_grad_left(g, a, b), inner_grad_right(g, a, b)


@adjoint(np.kron, kind=lambda args, kws: K.array(max(_ndim(args[0]), _ndim(args[1])), "f"),
         linear=(0, 1), values={"a": VECTOR_OR_MATRIX, "b": VECTOR_OR_MATRIX})
def kron(g, ans, a, b):
    return unkron_left(g, a, b), unkron_right(g, a, b)


# (not `elementwise`: the result's shape is not the arguments' broadcast one with axisc or
# 2-vectors, so forward mode must not start a tangent from zeros of an argument's shape)
@adjoint(np.cross, kind=lambda args, kws: K.broadcast(*args), linear=(0, 1),
         values={"a": ARRAY, "b": ARRAY, "axisa": AXIS_INT, "axisb": AXIS_INT, "axisc": AXIS_INT,
                 "axis": AXIS_INT_OR_NONE})
def cross(g, ans, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    # vectors along the given axes (axis, when given, for all three): s2sad.runtime.stacks
    # (without axes: the variant in stacks.py)
    return (cross_axes_grad_left(g, a, b, axisa, axisb, axisc, axis),
            cross_axes_grad_right(g, a, b, axisa, axisb, axisc, axis))
