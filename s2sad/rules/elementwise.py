"""numpy's elementwise functions: one argument (sin ... abs), two or three
(add ... clip), the ones beyond (fmax/fmin, mod/remainder/fmod, sinc,
nan_to_num, degrees, logaddexp2, real/imag), and those with no gradient
(sign, floor, ..., isnan). `g` is the cotangent of the result `ans`; names
like `unbroadcast` are helpers of `s2sad.runtime` (see there)."""
# flake8: noqa: F821  (runtime helpers are globals of the generated module)
import numpy as np

from ..extend import (K, NOT_NONE, REAL, adjoint, bool_like_first, broadcast_args, broadcast_float,
                      first_arg, nondifferentiable, same_as_first)


def _unary(*fns, **options):
    return adjoint(*fns, kind=same_as_first, pointwise=True, **options)


def _binary(*fns, kind=broadcast_float):
    return adjoint(*fns, kind=kind, elementwise=True)


# ---- one argument ---------------------------------------------------------------------------

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


# ---- two or three arguments -----------------------------------------------------------------

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


# ---- more: fmax/fmin, mod, sinc, nan_to_num, degrees, logaddexp2, real/imag -----------------

@_binary(np.fmax)
def fmax(g, ans, x1, x2):
    # x1 takes a tie (fmax returns it); a NaN loses (fmax returns the other)
    return (g * ((x1 >= x2) | (np.isnan(x2) & (x1 == x1))),
            g * ((x1 < x2) | np.isnan(x1)))


@_binary(np.fmin)
def fmin(g, ans, x1, x2):
    return (g * ((x1 <= x2) | (np.isnan(x2) & (x1 == x1))),
            g * ((x1 > x2) | np.isnan(x1)))


@_binary(np.mod, np.remainder)
def mod(g, ans, x1, x2):
    # x1 - floor(x1 / x2) * x2, with the jumps of floor left out
    return g, -g * np.floor(x1 / x2)


@_binary(np.fmod)
def fmod(g, ans, x1, x2):
    # x1 - trunc(x1 / x2) * x2
    return g, -g * np.trunc(x1 / x2)


@_binary(np.logaddexp2)
def logaddexp2(g, ans, x1, x2):
    return g * np.exp2(x1 - ans), g * np.exp2(x2 - ans)


@_unary(np.sinc)
def sinc(g, ans, x):
    # (cos(pi x) - sinc(x)) / x; near 0 its series, exact to second order at 0
    return g * np.where(np.abs(x) < 1e-3, x * np.pi ** 2 * (np.pi ** 2 * x * x / 30.0 - 1.0 / 3.0),
                        (np.cos(np.pi * x) - ans) / (x + (x == 0.0)))


@_unary(np.nan_to_num)
def nan_to_num(g, ans, x):
    # 1 where x is finite, 0 where nan or inf was replaced by a constant
    return g * np.isfinite(x)


@_unary(np.rad2deg, np.degrees)
def rad2deg(g, ans, x):
    return g * (180.0 / np.pi)


@_unary(np.deg2rad, np.radians)
def deg2rad(g, ans, x):
    return g * (np.pi / 180.0)


@_unary(np.real, values={"val": REAL})
def real(g, ans, val):
    return g


@_unary(np.conjugate, values={"x": REAL})
def conjugate(g, ans, x):
    # the conjugate of a real number is itself
    return g


@_unary(np.imag, values={"val": REAL})
def imag(g, ans, val):
    # the imaginary part of a real number is 0 whatever it is
    return g * 0.0


# ---- no gradient ----------------------------------------------------------------------------

nondifferentiable(np.sign, np.floor, np.ceil, np.round, np.rint, np.trunc, kind=same_as_first)
nondifferentiable(np.isnan, np.isinf, np.isfinite, kind=bool_like_first)
