"""numpy: elementwise functions, reductions, products and reshaping.
Names like `unreduce` are helpers of `s2sad.runtime` (see there)."""
# flake8: noqa: F821  (runtime helpers are globals of the generated module)
import numpy as np

from ..registry import (adjoint, tangent, bool_like_first, broadcast_args, broadcast_float,
                        created_array, first_arg, float_scalar, int_scalar, like_first,
                        nondifferentiable, reduction, same_as_first, shape_ndim)
from ..transforms import kinds as K


def _unary(*fns):
    return adjoint(*fns, kind=same_as_first, pointwise=True)


def _binary(*fns, kind=broadcast_float):
    return adjoint(*fns, kind=kind, elementwise=True)


# ---- elementwise, one argument ---------------------------------------------

@_unary(np.sin)
def sin(g, ans, x):
    return g * np.cos(x)


@_unary(np.cos)
def cos(g, ans, x):
    return -g * np.sin(x)


@_unary(np.tan)
def tan(g, ans, x):
    return g * (1.0 + ans * ans)


@_unary(np.arcsin)
def arcsin(g, ans, x):
    return g / np.sqrt(1.0 - x * x)


@_unary(np.arccos)
def arccos(g, ans, x):
    return -g / np.sqrt(1.0 - x * x)


@_unary(np.arctan)
def arctan(g, ans, x):
    return g / (1.0 + x * x)


@_unary(np.sinh)
def sinh(g, ans, x):
    return g * np.cosh(x)


@_unary(np.cosh)
def cosh(g, ans, x):
    return g * np.sinh(x)


@_unary(np.tanh)
def tanh(g, ans, x):
    return g * (1.0 - ans * ans)


@_unary(np.arcsinh)
def arcsinh(g, ans, x):
    return g / np.sqrt(x * x + 1.0)


@_unary(np.arccosh)
def arccosh(g, ans, x):
    return g / np.sqrt(x * x - 1.0)


@_unary(np.arctanh)
def arctanh(g, ans, x):
    return g / (1.0 - x * x)


@_unary(np.exp)
def exp(g, ans, x):
    return g * ans


@_unary(np.exp2)
def exp2(g, ans, x):
    return g * ans * np.log(2.0)


@_unary(np.expm1)
def expm1(g, ans, x):
    return g * (ans + 1.0)


@_unary(np.log)
def log(g, ans, x):
    return g / x


@_unary(np.log1p)
def log1p(g, ans, x):
    return g / (1.0 + x)


@_unary(np.log10)
def log10(g, ans, x):
    return g / (x * np.log(10.0))


@_unary(np.log2)
def log2(g, ans, x):
    return g / (x * np.log(2.0))


@_unary(np.sqrt)
def sqrt(g, ans, x):
    return g * 0.5 / ans


@_unary(np.cbrt)
def cbrt(g, ans, x):
    return g / (3.0 * ans * ans)


@_unary(np.square)
def square(g, ans, x):
    return g * 2.0 * x


@_unary(np.reciprocal)
def reciprocal(g, ans, x):
    return -g * ans * ans


@_unary(np.abs, np.absolute, np.fabs)
def absolute(g, ans, x):
    return g * np.sign(x)


@adjoint(np.negative, kind=first_arg, linear=(0,))
def negative(g, ans, x):
    return -g


@adjoint(np.positive, np.copy, np.array, np.asarray, np.ascontiguousarray, kind=like_first,
         diff_argnums=(0,), linear=(0,))
def identity(g, ans, x):
    return g


# ---- elementwise, two or three arguments ---------------------------------------

@_binary(np.add, kind=broadcast_args)
def add(g, ans, x, y):
    return g, g


@_binary(np.subtract, kind=broadcast_args)
def subtract(g, ans, x, y):
    return g, -g


@_binary(np.multiply, kind=broadcast_args)
def multiply(g, ans, x, y):
    return g * y, g * x


@_binary(np.divide, np.true_divide)
def divide(g, ans, x, y):
    return g / y, -g * x / (y * y)


@_binary(np.power, kind=broadcast_args)
def power(g, ans, x, y):
    return g * y * x ** (y - 1), g * np.log(x) * ans


@_binary(np.maximum, kind=broadcast_args)
def maximum(g, ans, x, y):
    return g * (x >= y), g * (x < y)


@_binary(np.minimum, kind=broadcast_args)
def minimum(g, ans, x, y):
    return g * (x <= y), g * (x > y)


@_binary(np.arctan2)
def arctan2(g, ans, y, x):
    return g * x / (x * x + y * y), -g * y / (x * x + y * y)


@_binary(np.hypot)
def hypot(g, ans, x, y):
    return g * x / ans, g * y / ans


@_binary(np.logaddexp)
def logaddexp(g, ans, x, y):
    return g * np.exp(x - ans), g * np.exp(y - ans)


@adjoint(np.where, kind=lambda args, kws: K.broadcast(*args[1:]), elementwise=True,
         diff_argnums=(1, 2))
def where(g, ans, condition, x, y):
    return None, np.where(condition, g, 0.0), np.where(condition, 0.0, g)


@adjoint(np.clip, kind=lambda args, kws: K.broadcast(*args), elementwise=True)
def clip(g, ans, x, lo, hi):
    return g * ((x >= lo) & (x <= hi)), g * (x < lo), g * (x > hi)


# ---- reductions --------------------------------------------------------------

@adjoint(np.sum, kind=reduction, diff_argnums=(0,), linear=(0,))
def sum(g, ans, x, axis=None):
    return unreduce(g, x, axis)


@adjoint(np.mean, kind=reduction, diff_argnums=(0,), linear=(0,))
def mean(g, ans, x, axis=None):
    return unreduce(g, x, axis) / reduced_count(x, axis)


@adjoint(np.prod, kind=reduction, diff_argnums=(0,))
def prod(g, ans, x, axis=None):
    return unreduce(g * ans, x, axis) / x


@adjoint(np.max, np.amax, np.min, np.amin, kind=reduction, diff_argnums=(0,))
def extremum(g, ans, x, axis=None):
    return extremum_grad(g, ans, x, axis)


@adjoint(np.cumsum, kind=lambda args, kws: K.array(1, args[0].dtype) if len(args) == 1
         and "axis" not in kws else args[0], diff_argnums=(0,), linear=(0,))
def cumsum(g, ans, x, axis=None):
    return reshape_like(np.cumsum(g[::-1])[::-1], x)


@adjoint(np.linalg.norm, kind=float_scalar, diff_argnums=(0,))
def norm(g, ans, x):
    return g * x / ans


# ---- products -------------------------------------------------------------

def _dot_kind(args, kws):
    a, b = args
    if a.is_scalar or b.is_scalar:
        return K.broadcast(a, b)
    return K.matmul(a, b)


@adjoint(np.dot, np.matmul, kind=_dot_kind, linear=(0, 1))
def dot(g, ans, x, y):
    return matmul_grad_left(g, x, y), matmul_grad_right(g, x, y)


@adjoint(np.dot, np.matmul, when=lambda x, y: x.ndim == 2 and y.ndim == 2)
def dot_2d(g, ans, x, y):
    return g @ y.T, x.T @ g


@adjoint(np.dot, np.matmul, when=lambda x, y: x.ndim == 1 and y.ndim == 1)
def dot_1d(g, ans, x, y):
    return g * y, g * x


@adjoint(np.outer, kind=lambda args, kws: K.array(2, K.promote(args[0].scalar_dtype,
                                                                args[1].scalar_dtype)),
         linear=(0, 1))
def outer(g, ans, x, y):
    return np.dot(g, y), np.dot(x, g)


@adjoint(np.linalg.det, kind=float_scalar)
def det(g, ans, a):
    return g * ans * np.linalg.inv(a).T


@adjoint(np.linalg.inv, kind=first_arg)
def inv(g, ans, a):
    return -(ans.T @ g @ ans.T)


@adjoint(np.linalg.solve, kind=lambda args, kws: args[1])
def solve(g, ans, a, b):
    gb = np.linalg.solve(a.T, g)
    return -matmul_grad_left(gb, a, ans), gb


# ---- shapes ------------------------------------------------------------------

@adjoint(np.transpose, kind=first_arg, diff_argnums=(0,), linear=(0,))
def transpose(g, ans, x, axes=None):
    return untranspose(g, axes)


@adjoint(np.transpose, when=lambda x: True)
def transpose_plain(g, ans, x):
    return np.transpose(g)


@adjoint(np.reshape, kind=lambda args, kws: K.array(shape_ndim(args[1]), args[0].dtype),
         diff_argnums=(0,), linear=(0,))
def reshape(g, ans, x, shape):
    return reshape_like(g, x)


@adjoint(np.ravel, kind=lambda args, kws: K.array(1, args[0].dtype), linear=(0,))
def ravel(g, ans, x):
    return reshape_like(g, x)


@adjoint(np.expand_dims, kind=lambda args, kws: K.array(args[0].ndim + 1, args[0].dtype),
         diff_argnums=(0,), linear=(0,))
def expand_dims(g, ans, x, axis):
    return reshape_like(g, x)


@adjoint(np.concatenate, kind=lambda args, kws: args[0].items[0], diff_argnums=(0,),
         linear=(0,))
def concatenate(g, ans, xs, axis=0):
    return concatenate_parts(g, xs, axis)


@adjoint(np.stack, kind=lambda args, kws: K.array(args[0].items[0].ndim + 1,
                                                  args[0].items[0].dtype), diff_argnums=(0,),
         linear=(0,))
def stack(g, ans, xs, axis=0):
    return stack_parts(g, xs, axis)


# ---- tangents (forward mode) of the rules that are neither pointwise nor linear ----

@tangent(np.prod)
def prod_tangent(t, ans, x, axis=None):
    return ans * sum_axis(t / x, axis)


@tangent(np.max, np.amax, np.min, np.amin)
def extremum_tangent_rule(t, ans, x, axis=None):
    return extremum_tangent(t, ans, x, axis)


@tangent(np.linalg.norm)
def norm_tangent(t, ans, x):
    return np.sum(x * t) / ans


@tangent(np.linalg.det)
def det_tangent(t, ans, a):
    return ans * np.trace(np.linalg.solve(a, t))


@tangent(np.linalg.inv)
def inv_tangent(t, ans, a):
    return -(ans @ t @ ans)


@tangent(np.linalg.solve)
def solve_tangent(ta, tb, ans, a, b):
    return np.linalg.solve(a, tb - ta @ ans)


# ---- no gradient ---------------------------------------------------------------

nondifferentiable(np.zeros, np.ones, np.empty, kind=created_array)
nondifferentiable(np.full, kind=created_array)
nondifferentiable(np.zeros_like, np.ones_like, np.empty_like, np.full_like,
                  kind=lambda args, kws: K.float_result(args[0]))
nondifferentiable(np.shape, kind=lambda args, kws: K.tuple_of([K.INT] * args[0].ndim))
nondifferentiable(np.size, np.ndim, np.argmax, np.argmin, kind=int_scalar)
nondifferentiable(np.arange, kind=lambda args, kws: K.array(
    1, "i" if all(a.tag == "int" for a in args) else "f"))
nondifferentiable(np.linspace, kind=lambda args, kws: K.array(1, "f"))
nondifferentiable(np.eye, np.identity, kind=lambda args, kws: K.array(2, "f"))
nondifferentiable(np.sign, np.floor, np.ceil, np.round, np.rint, np.trunc, kind=same_as_first)
nondifferentiable(np.isnan, np.isinf, np.isfinite, kind=bool_like_first)
nondifferentiable(np.argsort, kind=lambda args, kws: K.array(args[0].ndim, "i"))
nondifferentiable(np.any, np.all, kind=lambda args, kws: K.BOOL)
