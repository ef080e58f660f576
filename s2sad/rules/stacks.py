"""numpy's linear algebra beyond single matrices: np.dot and np.matmul / @ of
N-d operands, np.cross along any axes, and np.linalg's functions of stacks
of matrices (..., n, n), which numpy broadcasts over the leading axes.
These are variants of the rules in operators.py, contractions.py and
linalg.py, chosen by the arguments' ranks. Names like `dot_subscripts` are
helpers of `s2sad.runtime.stacks`."""
# flake8: noqa: F821  (runtime helpers are globals of the generated module)
import operator

import numpy as np

from ..extend import (K, REGISTRY, adjoint, by_definition, nondifferentiable, numba_form, Rule,
                      tangent)
from ..runtime import stack_overloads as rs_loops
from ..runtime import stacks as rs


# ---- products: numpy's N-d dot, and matmul of a vector with a stack -----------------------

@adjoint(np.dot, when=lambda a, b: a.ndim > 2 or b.ndim > 2)
def dot_nd(g, ans, a, b):
    # a's last axis summed with b's second-to-last (its only one when 1-d)
    return dot_grad_left(g, a, b), dot_grad_right(g, a, b)


@adjoint(np.matmul, when=lambda a, b: min(a.ndim, b.ndim) == 1 and max(a.ndim, b.ndim) > 2)
def matmul_vector_stack(g, ans, a, b):
    # the vector as a row (left) or a column (right); summed over the stack it broadcast along
    return matmul_stack_grad_left(g, a, b), matmul_stack_grad_right(g, a, b)


@adjoint(operator.matmul, when=lambda x, y: min(x.ndim, y.ndim) == 1 and max(x.ndim, y.ndim) > 2)
def matmul_op_vector_stack(g, ans, x, y):
    return matmul_stack_grad_left(g, x, y), matmul_stack_grad_right(g, x, y)


nondifferentiable(rs.dot_subscripts, rs.matmul_subscripts, kind=lambda args, kws: K.UNKNOWN)


# ---- np.cross along any axes ----------------------------------------------------------------

@adjoint(np.cross, when=lambda a, b: True)
def cross_last_axes(g, ans, a, b):
    # vectors along the last axes (numpy's default): the helpers numba compiles, summed over
    # the axes each argument broadcast along
    return unbroadcast(cross_grad_left(g, a, b), a), unbroadcast(cross_grad_right(g, a, b), b)


# ---- np.linalg of stacks of matrices ----------------------------------------------------

@adjoint(np.linalg.slogdet, when=lambda a: a.ndim > 2)
def slogdet_stacked(g, ans, a):
    return g[1][..., None, None] * np.swapaxes(np.linalg.inv(a), -1, -2)


@tangent(np.linalg.slogdet, when=lambda a: a.ndim > 2)
def slogdet_stacked_tangent(t, ans, a):
    # (a helper: a tangent template is one expression, not a tuple of them)
    return slogdet_stack_tangent(t, a)


# numpy's solve: b is a vector when 1-d, else a (stack of) matrices; a's and b's leading axes
# broadcast, and each cotangent is summed over the axes its argument broadcast along

@adjoint(np.linalg.solve, when=lambda a, b: b.ndim == 1 and a.ndim > 2)
def solve_stacked_vector(g, ans, a, b):
    # (a vector only when 1-d: g's stack is solved as columns)
    gb = np.linalg.solve(np.swapaxes(a, -1, -2), g[..., None])[..., 0]
    return unbroadcast(-(gb[..., :, None] * ans[..., None, :]), a), unbroadcast(gb, b)


@adjoint(np.linalg.solve, when=lambda a, b: a.ndim > 2 or b.ndim > 2)
def solve_stacked(g, ans, a, b):
    gb = np.linalg.solve(np.swapaxes(a, -1, -2), g)
    return unbroadcast(-(gb @ np.swapaxes(ans, -1, -2)), a), unbroadcast(gb, b)


@tangent(np.linalg.solve, when=lambda a, b: b.ndim == 1 and a.ndim > 2)
def solve_stacked_vector_tangent(ta, tb, ans, a, b):
    return np.linalg.solve(a, (tb - (ta @ ans[..., None])[..., 0])[..., None])[..., 0]


@tangent(np.linalg.solve, when=lambda a, b: a.ndim > 2 or b.ndim > 2)
def solve_stacked_tangent(ta, tb, ans, a, b):
    return np.linalg.solve(a, tb - ta @ ans)


@adjoint(np.linalg.cholesky, when=lambda a, upper=K.NONE: a.ndim > 2)
def cholesky_stacked(g, ans, a, upper=False):
    return cholesky_stack_grad(g, ans, upper)


@tangent(np.linalg.cholesky, when=lambda a, upper=K.NONE: a.ndim > 2)
def cholesky_stacked_tangent(t, ans, a, upper=False):
    return cholesky_stack_tangent(t, ans, upper)


# (their derivatives: through their definitions, s2sad/definitions/)
by_definition(rs.slogdet_stack_tangent, kind=lambda args, kws: K.tuple_of(
    [K.array(args[1].ndim - 2, "f")] * 2))
by_definition(rs.cholesky_stack_grad, rs.cholesky_stack_tangent, rs.eigh_uplo_grad,
              kind=lambda args, kws: K.UNKNOWN)
by_definition(rs.eigh_uplo_tangent, kind=lambda args, kws: K.tuple_of(
    [K.array(args[1].ndim - 1, "f"), K.array(args[1].ndim, "f")]))


def _linear(fn, kind, positions):
    """A runtime helper linear in the arguments at `positions` (the cotangent
    and the other operand): its own tangent map, so it can be differentiated
    again."""
    REGISTRY.register(fn, Rule(None, kind, linear=positions, name=fn.__name__))


_linear(rs.inner_grad_left, lambda args, kws: args[1], positions=(0, 2))
_linear(rs.inner_grad_right, lambda args, kws: args[2], positions=(0, 1))
_linear(rs.cross_axes_grad_left, lambda args, kws: args[1], positions=(0, 2))
_linear(rs.cross_axes_grad_right, lambda args, kws: args[2], positions=(0, 1))
_linear(rs_loops.dot_grad_left, lambda args, kws: args[1], positions=(0, 2))
_linear(rs_loops.dot_grad_right, lambda args, kws: args[2], positions=(0, 1))
_linear(rs_loops.matmul_stack_grad_left, lambda args, kws: args[1], positions=(0, 2))
_linear(rs_loops.matmul_stack_grad_right, lambda args, kws: args[2], positions=(0, 1))


# ---- the forms numba lacks (s2sad/forms.py): np.matmul (numba has `@`), np.inner ---------

numba_form(np.matmul, rs.matmul_of)
numba_form(np.inner, rs.inner_of)
