"""The reverse rules of the runtime helpers that are linear: a generated
derivative calls them, so a derivative of it needs their cotangents. A
helper linear in its cotangent `g` has as reverse rule its transpose, and
the transpose of a cotangent helper is (mostly) the numpy function whose
gradient it is: `unrepeat`'s is np.repeat, `undiff`'s np.diff (an axis is
passed by keyword: numba's forms of these calls are chosen by it,
s2sad/forms.py). As JAX
writes transpose rules, each is written with functions that have rules of
their own, reverse and forward, so derivatives go to any order
(tests/test_helper_rules.py checks that every helper a rule emits has both).

A product's cotangent helper (`matmul_grad_left(g, x, y)`, the cotangent of
x in x @ y) is linear in g and in the other operand y: its cotangent for g
is the product with h in x's place (h @ y), and for y the other operand's
cotangent helper with h in x's place (matmul_grad_right(g, h, y)).

Forward mode needs nothing here: a linear helper is its own tangent map
(`Rule.linear`, registered in runtime_rules.py and stacks.py). The other
arguments (shapes, the permutation a sort made) are locally constant."""
# flake8: noqa: F821  (runtime helpers are globals of the generated module)
import numpy as np

from .. import runtime as rt
from ..extend import REGISTRY


def transpose_of(fn):
    """Give `fn`, a runtime helper registered as linear, the decorated
    template as its reverse rule (the template's arguments after h and ans
    are the helper's)."""
    def decorate(template):
        REGISTRY.lookup(fn).template = template
        return template
    return decorate


# ---- broadcasting and reductions undone ----------------------------------------------------

@transpose_of(rt.unbroadcast)
def unbroadcast_vjp(h, ans, g, x):
    return broadcast_like(h, g), None


@transpose_of(rt.broadcast_like)
def broadcast_like_vjp(k, ans, h, g):
    return unbroadcast(k, h), None


@transpose_of(rt.unreduce)
def unreduce_vjp(h, ans, g, x, axis=None):
    return sum_axis(h, axis), None, None


@transpose_of(rt.sum_axis)
def sum_axis_vjp(h, ans, x, axis=None):
    return unreduce(h, x, axis), None


@transpose_of(rt.keep_axes)
def keep_axes_vjp(h, ans, r, x, axis=None):
    return reshape_like(h, r), None, None


@transpose_of(rt.extremum_grad)
def extremum_grad_vjp(h, ans, g, a, x, axis=None):
    return extremum_tangent(h, a, x, axis), None, None, None


@transpose_of(rt.extremum_tangent)
def extremum_tangent_vjp(h, ans, t, a, x, axis=None):
    return extremum_grad(h, a, x, axis), None, None, None


@transpose_of(rt.reverse_cumsum)
def reverse_cumsum_vjp(h, ans, g, x, axis=None):
    return np.cumsum(h, axis=axis), None, None


# ---- indexing ------------------------------------------------------------------------------

@transpose_of(rt.scatter_sum)
def scatter_sum_vjp(h, ans, values, index, like):
    return h[index], None, None


@transpose_of(rt.scatter_sum_axis)
def scatter_sum_axis_vjp(h, ans, values, index, like, axis):
    return np.take(h, index, axis=axis), None, None, None


# ---- shapes --------------------------------------------------------------------------------

@transpose_of(rt.stack_element)
def stack_element_vjp(h, ans, value, first):
    return h, None


@transpose_of(rt.value_copy)
def value_copy_vjp(h, ans, x):
    return h


@transpose_of(rt.reshape_like)
def reshape_like_vjp(h, ans, g, x):
    return reshape_like(h, g), None


@transpose_of(rt.untranspose)
def untranspose_vjp(h, ans, g, axes):
    return np.transpose(h, axes), None


@transpose_of(rt.unrollaxis)
def unrollaxis_vjp(h, ans, g, axis, start=0):
    return np.rollaxis(h, axis, start), None, None


@transpose_of(rt.concatenate_parts)
def concatenate_parts_vjp(h, ans, g, xs, axis=0):
    return np.concatenate(h, axis), None, None


@transpose_of(rt.stack_parts)
def stack_parts_vjp(h, ans, g, xs, axis=0):
    return np.stack(h, axis), None, None


@transpose_of(rt.unstack_nd)
def unstack_nd_vjp(h, ans, g, xs, how):
    return stack_nd(h, how), None, None


@transpose_of(rt.stack_nd)
def stack_nd_vjp(h, ans, parts, how):
    return unstack_nd(h, parts, how), None


@transpose_of(rt.unsplit)
def unsplit_vjp(h, ans, g, ary, indices_or_sections, axis=0):
    return np.array_split(h, indices_or_sections, axis), None, None, None


@transpose_of(rt.append_head)
def append_head_vjp(h, ans, g, arr, values, axis=None):
    return np.append(h, np.zeros_like(values), axis), None, None, None


@transpose_of(rt.append_tail)
def append_tail_vjp(h, ans, g, arr, values, axis=None):
    return np.append(np.zeros_like(arr), h, axis), None, None, None


@transpose_of(rt.unrepeat)
def unrepeat_vjp(h, ans, g, a, repeats, axis=None):
    return np.repeat(h, repeats, axis=axis), None, None, None


@transpose_of(rt.untile)
def untile_vjp(h, ans, g, a, reps):
    return np.tile(h, reps), None, None


@transpose_of(rt.unpad_of)
def unpad_of_vjp(h, ans, g, array, pad_width, mode="constant"):
    return np.pad(h, pad_width, mode), None, None, None


@transpose_of(rt.unpad)
def unpad_vjp(h, ans, g, array, pad_width, mode="constant"):
    return np.pad(h, pad_width, mode), None, None, None


@transpose_of(rt.undiff)
def undiff_vjp(h, ans, g, a, n=1, axis=-1):
    return np.diff(h, n, axis=axis), None, None, None


@transpose_of(rt.ungradient)
def ungradient_vjp(h, ans, g, f, axis=None):
    return np.gradient(h, axis=axis), None, None


@transpose_of(rt.diag_embed)
def diag_embed_vjp(h, ans, g, v, k=0):
    return np.diag(h, k), None, None


@transpose_of(rt.diagonal_embed)
def diagonal_embed_vjp(h, ans, g, a, offset=0, axis1=0, axis2=1):
    # (np.trace's g has a last axis of 1, spread along the diagonal: summed back)
    return unbroadcast(np.diagonal(h, offset, axis1, axis2), g), None, None, None, None


# sort and partition: the same permutation, one way and the other
@transpose_of(rt.unpermute)
def unpermute_vjp(h, ans, g, a_sorted, a, axis=-1):
    return permute_like(h, a_sorted, a, axis), None, None, None


@transpose_of(rt.permute_like)
def permute_like_vjp(h, ans, t, a_sorted, a, axis=-1):
    return unpermute(h, a_sorted, a, axis), None, None, None


# ---- products: linear in the cotangent and in the other operand ----------------------------

@transpose_of(rt.matmul_grad_left)
def matmul_grad_left_vjp(h, ans, g, x, y):
    return h @ y, None, matmul_grad_right(g, h, y)


@transpose_of(rt.matmul_grad_right)
def matmul_grad_right_vjp(h, ans, g, x, y):
    return x @ h, matmul_grad_left(g, x, h), None


@transpose_of(rt.dot_grad_left)
def dot_grad_left_vjp(h, ans, g, a, b):
    return np.dot(h, b), None, dot_grad_right(g, h, b)


@transpose_of(rt.dot_grad_right)
def dot_grad_right_vjp(h, ans, g, a, b):
    return np.dot(a, h), dot_grad_left(g, a, h), None


@transpose_of(rt.matmul_stack_grad_left)
def matmul_stack_grad_left_vjp(h, ans, g, a, b):
    return np.matmul(h, b), None, matmul_stack_grad_right(g, h, b)


@transpose_of(rt.matmul_stack_grad_right)
def matmul_stack_grad_right_vjp(h, ans, g, a, b):
    return np.matmul(a, h), matmul_stack_grad_left(g, a, h), None


@transpose_of(rt.inner_grad_left)
def inner_grad_left_vjp(h, ans, g, a, b):
    return np.inner(h, b), None, inner_grad_right(g, h, b)


@transpose_of(rt.inner_grad_right)
def inner_grad_right_vjp(h, ans, g, a, b):
    return np.inner(a, h), inner_grad_left(g, a, h), None


@transpose_of(rt.unkron_left)
def unkron_left_vjp(h, ans, g, a, b):
    return np.kron(h, b), None, unkron_right(g, h, b)


@transpose_of(rt.unkron_right)
def unkron_right_vjp(h, ans, g, a, b):
    return np.kron(a, h), unkron_left(g, a, h), None


# (cross_grad_* leave the axes their operand was broadcast along: summed by their callers)
@transpose_of(rt.cross_grad_left)
def cross_grad_left_vjp(h, ans, g, a, b):
    return unbroadcast(np.cross(h, b), g), None, unbroadcast(cross_grad_right(g, h, b), b)


@transpose_of(rt.cross_grad_right)
def cross_grad_right_vjp(h, ans, g, a, b):
    return unbroadcast(np.cross(a, h), g), unbroadcast(cross_grad_left(g, a, h), a), None


@transpose_of(rt.cross_axes_grad_left)
def cross_axes_grad_left_vjp(h, ans, g, a, b, axisa, axisb, axisc, axis):
    return (np.cross(h, b, axisa, axisb, axisc, axis), None,
            cross_axes_grad_right(g, h, b, axisa, axisb, axisc, axis), None, None, None, None)


@transpose_of(rt.cross_axes_grad_right)
def cross_axes_grad_right_vjp(h, ans, g, a, b, axisa, axisb, axisc, axis):
    return (np.cross(a, h, axisa, axisb, axisc, axis),
            cross_axes_grad_left(g, a, h, axisa, axisb, axisc, axis), None, None, None, None, None)


# ---- einsum: one helper per operand count (the subscripts may be computed) -----------------

@transpose_of(rt.einsum_one)
def einsum_one_vjp(h, ans, subscripts, a):
    return None, einsum_grad_one(h, subscripts, a)


@transpose_of(rt.einsum_grad_one)
def einsum_grad_one_vjp(h, ans, g, subscripts, a):
    return einsum_one(subscripts, h), None, None


@transpose_of(rt.einsum_two)
def einsum_two_vjp(h, ans, subscripts, a, b):
    return None, einsum_grad_left(h, subscripts, a, b), einsum_grad_right(h, subscripts, a, b)


@transpose_of(rt.einsum_grad_left)
def einsum_grad_left_vjp(h, ans, g, subscripts, a, b):
    return einsum_two(subscripts, h, b), None, None, einsum_grad_right(g, subscripts, h, b)


@transpose_of(rt.einsum_grad_right)
def einsum_grad_right_vjp(h, ans, g, subscripts, a, b):
    return einsum_two(subscripts, a, h), None, einsum_grad_left(g, subscripts, a, h), None


@transpose_of(rt.einsum_three)
def einsum_three_vjp(h, ans, subscripts, a, b, c):
    return (None, einsum_grad_first(h, subscripts, a, b, c),
            einsum_grad_second(h, subscripts, a, b, c), einsum_grad_third(h, subscripts, a, b, c))


@transpose_of(rt.einsum_grad_first)
def einsum_grad_first_vjp(h, ans, g, subscripts, a, b, c):
    return (einsum_three(subscripts, h, b, c), None, None,
            einsum_grad_second(g, subscripts, h, b, c), einsum_grad_third(g, subscripts, h, b, c))


@transpose_of(rt.einsum_grad_second)
def einsum_grad_second_vjp(h, ans, g, subscripts, a, b, c):
    return (einsum_three(subscripts, a, h, c), None, einsum_grad_first(g, subscripts, a, h, c),
            None, einsum_grad_third(g, subscripts, a, h, c))


@transpose_of(rt.einsum_grad_third)
def einsum_grad_third_vjp(h, ans, g, subscripts, a, b, c):
    return (einsum_three(subscripts, a, b, h), None, einsum_grad_first(g, subscripts, a, b, h),
            einsum_grad_second(g, subscripts, a, b, h), None)
