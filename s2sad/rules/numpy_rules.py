"""numpy: elementwise functions, reductions, products and reshaping.
Names like `unreduce` are helpers of `s2sad.runtime` (see there)."""
# flake8: noqa: F821  (runtime helpers are globals of the generated module)
import numpy as np

from .. import runtime as rt
from ..extend import (K, ARRAY, AXES, AXIS, AXIS_INT, AXIS_INT_OR_NONE, BOOL, DOT_OPERAND,
                      FLOAT_DTYPE, INT, KEEPDIMS, MATMUL_OPERAND, MATRICES, NORM_ORD, NOT_NONE,
                      SCALAR, SHAPE_ONLY, adjoint, any_of, bool_like_first, broadcast_args,
                      broadcast_float, created_array, first_arg, float_scalar, frobenius, given,
                      int_scalar, like_first, nondifferentiable, norm_kind, numba_form, reduction,
                      refused, same_as_first, shape_ndim, tangent)


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


@adjoint(np.positive, np.copy, kind=like_first, linear=(0,))
def identity(g, ans, a):
    return g


@adjoint(np.asarray, np.ascontiguousarray, kind=like_first, linear=(0,),
         values={"dtype": FLOAT_DTYPE})
def as_array(g, ans, a, dtype=None):
    return g


@adjoint(np.array, kind=like_first, linear=(0,), values={"dtype": FLOAT_DTYPE})
def array(g, ans, object, dtype=None):
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
    # at 0 ** 0 the first is 0 (x ** (y - 1) would be inf), at x == 0 the second
    # (log(0) * 0 would be nan): as JAX and autograd
    return g * y * x ** (y - 1 + (y == 0)), g * np.log(x + (x == 0)) * ans


@_binary(np.float_power, kind=broadcast_args)
def float_power(g, ans, x, y):
    # np.power computed in float64 (as power's)
    return g * y * x ** (y - 1 + (y == 0)), g * np.log(x + (x == 0)) * ans


@adjoint(np.power, when=lambda x, y: y.tag == "int")
def power_int(g, ans, x, y):
    return g * y * x ** (y - 1 + (y == 0)), None


# At a tie the two arguments share the cotangent equally, as in JAX, autograd
# and PyTorch (and as max/min reductions share it among their ties).
@_binary(np.maximum, kind=broadcast_args)
def maximum(g, ans, x, y):
    return g * ((x > y) + 0.5 * (x == y)), g * ((x < y) + 0.5 * (x == y))


@_binary(np.minimum, kind=broadcast_args)
def minimum(g, ans, x, y):
    return g * ((x < y) + 0.5 * (x == y)), g * ((x > y) + 0.5 * (x == y))


@_binary(np.arctan2)
def arctan2(g, ans, y, x):
    return g * x / (x * x + y * y), -g * y / (x * x + y * y)


@_binary(np.hypot)
def hypot(g, ans, x, y):
    return g * x / ans, g * y / ans


@_binary(np.logaddexp)
def logaddexp(g, ans, x, y):
    return g * np.exp(x - ans), g * np.exp(y - ans)


def _chosen_kind(args, kws):
    """np.where(condition, x, y): the dtype of x and y, the shape of all three;
    np.where(condition): np.nonzero(condition)."""
    if len(args) == 1 and not kws:
        return K.tuple_of([K.array(1, "i")] * args[0].ndim) if args[0].is_array else K.UNKNOWN
    values = K.broadcast(*args[1:])
    return K.broadcast(*args, dtype=values.scalar_dtype) if values.known else values


@adjoint(np.where, kind=_chosen_kind, elementwise=True,
         diff_argnums=(1, 2))
def where(g, ans, condition, x, y):
    return None, np.where(condition, g, 0.0), np.where(condition, 0.0, g)


@adjoint(np.clip, kind=lambda args, kws: K.broadcast(*args), elementwise=True,
         values={"a_min": NOT_NONE, "a_max": NOT_NONE})
def clip(g, ans, a, a_min, a_max):
    # np.clip is np.minimum(np.maximum(a, a_min), a_max), and its gradient that
    # composition's (as JAX's): where a_min > a_max, a_max wins; at a bound the
    # tie is shared
    return (g * ((np.maximum(a, a_min) < a_max) + 0.5 * (np.maximum(a, a_min) == a_max))
            * ((a > a_min) + 0.5 * (a == a_min)),
            g * ((np.maximum(a, a_min) < a_max) + 0.5 * (np.maximum(a, a_min) == a_max))
            * ((a < a_min) + 0.5 * (a == a_min)),
            g * ((np.maximum(a, a_min) > a_max) + 0.5 * (np.maximum(a, a_min) == a_max)))


# ---- reductions --------------------------------------------------------------

# keepdims=True is taken off before a rule sees the call (transforms/frontend/bind.py)
_REDUCTION = {"axis": AXIS, "keepdims": KEEPDIMS}


@adjoint(np.sum, kind=reduction, diff_argnums=(0,), linear=(0,), values=_REDUCTION)
def sum(g, ans, a, axis=None, keepdims=False):
    return unreduce(g, a, axis)


@adjoint(np.mean, kind=reduction, diff_argnums=(0,), linear=(0,), values=_REDUCTION)
def mean(g, ans, a, axis=None, keepdims=False):
    return unreduce(g, a, axis) / reduced_count(a, axis)


@adjoint(np.prod, kind=reduction, diff_argnums=(0,), values=_REDUCTION)
def prod(g, ans, a, axis=None, keepdims=False):
    return unreduce(g, a, axis) * prod_others(a, axis)


@adjoint(np.max, np.amax, np.min, np.amin, kind=reduction, diff_argnums=(0,),
         values=_REDUCTION)
def extremum(g, ans, a, axis=None, keepdims=False):
    return extremum_grad(g, ans, a, axis)


@adjoint(np.cumsum, kind=lambda args, kws: K.array(1, args[0].dtype)
         if kws.get("axis", K.NONE).tag == "none" else args[0], diff_argnums=(0,), linear=(0,),
         values={"axis": AXIS_INT_OR_NONE})
def cumsum(g, ans, a, axis=None):
    return reverse_cumsum(g, a, axis)


@adjoint(np.linalg.norm, kind=norm_kind, diff_argnums=(0,),
         values={"ord": NORM_ORD, "axis": AXIS, "keepdims": KEEPDIMS})
def norm(g, ans, x, ord=None, axis=None, keepdims=False):
    # at the zero vector: 0, a subgradient (as PyTorch), not 0 / 0
    return unreduce(g / (ans + (ans == 0)) ** (ord - 1), x, axis) * np.sign(x) * np.abs(x) ** (
        ord - 1)


@adjoint(np.linalg.norm, when=lambda x, ord=K.NONE, axis=K.NONE: ord.tag not in ("int", "float"))
def norm_2(g, ans, x, ord=None, axis=None, keepdims=False):
    return unreduce(g / (ans + (ans == 0)), x, axis) * x


# ---- products -------------------------------------------------------------

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


@adjoint(np.linalg.det, kind=lambda args, kws: K.array(args[0].ndim - 2, "f"),
         values={"a": MATRICES})
def det(g, ans, a):
    return g * ans * np.linalg.inv(a).T


@adjoint(np.linalg.inv, kind=first_arg, values={"a": MATRICES})
def inv(g, ans, a):
    return -(ans.T @ g @ ans.T)


@adjoint(np.linalg.det, when=lambda a: a.ndim > 2)
def det_stacked(g, ans, a):
    return (g * ans)[..., None, None] * np.swapaxes(np.linalg.inv(a), -1, -2)


@adjoint(np.linalg.inv, when=lambda a: a.ndim > 2)
def inv_stacked(g, ans, a):
    return -(np.swapaxes(ans, -1, -2) @ g @ np.swapaxes(ans, -1, -2))


def _solve_kind(args, kws):
    """numpy's solve: b is a vector when 1-d, else a (stack of) matrices."""
    a, b = args
    if b.ndim == 1:
        return K.array(a.ndim - 1, "f")
    return K.array(max(a.ndim, b.ndim), "f")


@adjoint(np.linalg.solve, kind=_solve_kind, values={"a": MATRICES, "b": ARRAY})
def solve(g, ans, a, b):
    gb = np.linalg.solve(a.T, g)
    return -matmul_grad_left(gb, a, ans), gb


# ---- shapes ------------------------------------------------------------------

@adjoint(np.transpose, kind=first_arg, diff_argnums=(0,), linear=(0,), values={"axes": AXES})
def transpose(g, ans, a, axes=None):
    return untranspose(g, axes)


@adjoint(np.transpose, when=lambda a: True)
def transpose_plain(g, ans, a):
    return np.transpose(g)


@adjoint(np.reshape, kind=lambda args, kws: K.array(shape_ndim(args[1]), args[0].dtype),
         diff_argnums=(0,), linear=(0,))
def reshape(g, ans, a, shape):
    return reshape_like(g, a)


@adjoint(np.ravel, kind=lambda args, kws: K.array(1, args[0].dtype), linear=(0,))
def ravel(g, ans, a):
    return reshape_like(g, a)


@adjoint(np.expand_dims, kind=lambda args, kws: K.array(
    args[0].ndim + (len(args[1].items) if args[1].tag == "tuple" else 1), args[0].dtype),
         diff_argnums=(0,), linear=(0,))
def expand_dims(g, ans, a, axis):
    return reshape_like(g, a)


@adjoint(np.concatenate, kind=lambda args, kws: args[0].items[0], diff_argnums=(0,),
         linear=(0,), values={"axis": AXIS_INT})
def concatenate(g, ans, arrays, axis=0):
    return concatenate_parts(g, arrays, axis)


@adjoint(np.stack, kind=lambda args, kws: K.array(args[0].items[0].ndim + 1,
                                                  args[0].items[0].dtype), diff_argnums=(0,),
         linear=(0,), values={"axis": AXIS_INT})
def stack(g, ans, arrays, axis=0):
    return stack_parts(g, arrays, axis)


@adjoint(np.linspace, kind=lambda args, kws: K.array(1, "f"), diff_argnums=(0, 1),
         values={"start": SCALAR, "stop": SCALAR, "num": INT, "endpoint": BOOL})
def linspace(g, ans, start, stop, num=50, endpoint=True):
    t = np.arange(num) / (max(num - 1, 1) if endpoint else num)
    return np.sum(g * (1.0 - t)), np.sum(g * t)


@adjoint(np.full, kind=created_array, diff_argnums=(1,), linear=(1,),
         values={"fill_value": SCALAR})
def full(g, ans, shape, fill_value):
    return None, np.sum(g)


@adjoint(np.full_like, kind=lambda args, kws: K.float_result(args[0]), diff_argnums=(1,),
         linear=(1,), values={"a": SHAPE_ONLY, "fill_value": SCALAR})
def full_like(g, ans, a, fill_value):
    return None, np.sum(g)


# ---- tangents (forward mode) of the rules that are neither pointwise nor linear ----

@tangent(np.linspace)
def linspace_tangent(tstart, tstop, ans, start, stop, num=50, endpoint=True):
    return tstart + (tstop - tstart) * (np.arange(num) / (max(num - 1, 1) if endpoint else num))


@tangent(np.prod)
def prod_tangent(t, ans, a, axis=None, keepdims=False):
    return sum_axis(t * prod_others(a, axis), axis)


@tangent(np.max, np.amax, np.min, np.amin)
def extremum_tangent_rule(t, ans, a, axis=None, keepdims=False):
    return extremum_tangent(t, ans, a, axis)


@tangent(np.linalg.norm)
def norm_tangent(t, ans, x, ord=None, axis=None, keepdims=False):
    return sum_axis(np.sign(x) * np.abs(x) ** (ord - 1) * t, axis) / (ans + (ans == 0)) ** (
        ord - 1)


@tangent(np.linalg.norm, when=lambda x, ord=K.NONE, axis=K.NONE: ord.tag not in ("int", "float"))
def norm_2_tangent(t, ans, x, ord=None, axis=None, keepdims=False):
    return sum_axis(x * t, axis) / (ans + (ans == 0))


@tangent(np.linalg.det)
def det_tangent(t, ans, a):
    return ans * np.trace(np.linalg.solve(a, t))


@tangent(np.linalg.det, when=lambda a: a.ndim > 2)
def det_stacked_tangent(t, ans, a):
    # det times the tangent of log|det|, trace(a^-1 t) per matrix (a helper numba compiles)
    return ans * slogdet_stack_tangent(t, a)[1]


@tangent(np.linalg.inv)
def inv_tangent(t, ans, a):
    return -(ans @ t @ ans)


@tangent(np.linalg.solve)
def solve_tangent(ta, tb, ans, a, b):
    return np.linalg.solve(a, tb - ta @ ans)


# ---- no gradient ---------------------------------------------------------------

nondifferentiable(np.zeros, np.ones, np.empty, kind=created_array)
nondifferentiable(np.zeros_like, np.ones_like, np.empty_like,
                  kind=lambda args, kws: K.float_result(args[0]))
nondifferentiable(np.shape, kind=lambda args, kws: K.tuple_of([K.INT] * args[0].ndim))
nondifferentiable(np.size, np.ndim, np.argmax, np.argmin, kind=int_scalar)
refused(np.arange, kind=lambda args, kws: K.array(
    1, "i" if all(a.tag == "int" for a in args) else "f"),
    reason="its values depend on start and step; write start + step * np.arange(n)")
nondifferentiable(np.eye, np.identity, kind=lambda args, kws: K.array(2, "f"))
nondifferentiable(np.sign, np.floor, np.ceil, np.round, np.rint, np.trunc, kind=same_as_first)
nondifferentiable(np.isnan, np.isinf, np.isfinite, kind=bool_like_first)
nondifferentiable(np.argsort, kind=lambda args, kws: K.array(args[0].ndim, "i"))


def _positions(ndim):
    """The kind of a function of an array giving positions in it (np.nonzero's)."""
    return lambda args, kws: ndim(args[0]) if args[0].is_array else K.UNKNOWN


nondifferentiable(np.nonzero, kind=_positions(lambda a: K.tuple_of([K.array(1, "i")] * a.ndim)))
nondifferentiable(np.flatnonzero, kind=_positions(lambda a: K.array(1, "i")))
nondifferentiable(np.argwhere, kind=_positions(lambda a: K.array(2, "i")))
nondifferentiable(np.digitize, kind=lambda args, kws: K.array(args[0].ndim, "i")
                  if args[0].known else K.UNKNOWN)
def _truth_reduction(args, kws):
    """np.any / np.all: a bool, or a bool array over an axis (a mask)."""
    axis = kws.get("axis", args[1] if len(args) > 1 else K.NONE)
    if not args[0].is_array or axis.tag == "none":
        return K.BOOL
    if "keepdims" in kws or len(args) > 3:
        return K.UNKNOWN
    removed = len(axis.items) if axis.tag == "tuple" else 1
    return K.array(args[0].ndim - removed, "b")


nondifferentiable(np.any, np.all, kind=_truth_reduction)


# ---- the forms numba lacks (s2sad/forms.py): reductions over axes, with keepdims ----------

numba_form(np.sum, rt.sum_kept, when=given("keepdims"))
numba_form(np.mean, rt.mean_axis, when=given("axis", "keepdims"))
numba_form(np.max, rt.max_axis, when=given("axis", "keepdims"))
numba_form(np.amax, rt.max_axis, when=given("axis", "keepdims"), takes_rule=False)
numba_form(np.min, rt.min_axis, when=given("axis", "keepdims"))
numba_form(np.amin, rt.min_axis, when=given("axis", "keepdims"), takes_rule=False)
numba_form(np.prod, rt.prod_axis, when=given("axis", "keepdims"))
numba_form(np.var, rt.var_axis, when=given("axis", "ddof", "keepdims"))
numba_form(np.std, rt.std_axis, when=given("axis", "ddof", "keepdims"))
numba_form(np.linalg.norm, rt.norm_axis, when=any_of(given("axis"), frobenius, given("keepdims")))
