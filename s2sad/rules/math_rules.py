"""The `math` module: scalar functions."""
import inspect
import math

from ..extend import (K, NOT_ARRAY, NUMBER, adjoint, float_scalar, int_scalar, nondifferentiable)


def _scalar(fn):
    """A rule of a math function: its arguments are numbers (math.sin of an
    array raises TypeError in Python; its gradient is refused, not made
    elementwise)."""
    def rule(template):
        names = list(inspect.signature(template).parameters)[2:]
        return adjoint(fn, kind=float_scalar, pointwise=True,
                       values={n: NOT_ARRAY for n in names})(template)
    return rule


@_scalar(math.sin)
def sin(g, ans, x):
    return g * math.cos(x)


@_scalar(math.cos)
def cos(g, ans, x):
    return -g * math.sin(x)


@_scalar(math.tan)
def tan(g, ans, x):
    return g * (1.0 + ans * ans)


@_scalar(math.asin)
def asin(g, ans, x):
    return g / math.sqrt(1.0 - x * x)


@_scalar(math.acos)
def acos(g, ans, x):
    return -g / math.sqrt(1.0 - x * x)


@_scalar(math.atan)
def atan(g, ans, x):
    return g / (1.0 + x * x)


@_scalar(math.atan2)
def atan2(g, ans, y, x):
    return g * x / (x * x + y * y), -g * y / (x * x + y * y)


@_scalar(math.sinh)
def sinh(g, ans, x):
    return g * math.cosh(x)


@_scalar(math.cosh)
def cosh(g, ans, x):
    return g * math.sinh(x)


@_scalar(math.tanh)
def tanh(g, ans, x):
    return g * (1.0 - ans * ans)


@_scalar(math.asinh)
def asinh(g, ans, x):
    return g / math.sqrt(x * x + 1.0)


@_scalar(math.acosh)
def acosh(g, ans, x):
    return g / math.sqrt(x * x - 1.0)


@_scalar(math.atanh)
def atanh(g, ans, x):
    return g / (1.0 - x * x)


@_scalar(math.exp)
def exp(g, ans, x):
    return g * ans


@_scalar(math.expm1)
def expm1(g, ans, x):
    return g * (ans + 1.0)


@_scalar(math.log)
def log(g, ans, x):
    return g / x


@adjoint(math.log, when=lambda x, base: True, values={"base": NUMBER})
def log_base(g, ans, x, base):
    return g / (x * math.log(base)), -g * ans / (base * math.log(base))


@_scalar(math.log1p)
def log1p(g, ans, x):
    return g / (1.0 + x)


@_scalar(math.log10)
def log10(g, ans, x):
    return g / (x * math.log(10.0))


@_scalar(math.log2)
def log2(g, ans, x):
    return g / (x * math.log(2.0))


@_scalar(math.sqrt)
def sqrt(g, ans, x):
    return g * 0.5 / ans


if hasattr(math, "cbrt"):  # (Python 3.11)
    @_scalar(math.cbrt)
    def cbrt(g, ans, x):
        return g / (3.0 * ans * ans)


@_scalar(math.fmod)
def fmod(g, ans, x, y):
    # x - trunc(x / y) * y, with the jumps of trunc left out
    return g, -g * math.trunc(x / y)


@_scalar(math.pow)
def pow(g, ans, x, y):
    # as operators.pow: 0 ** 0 and x == 0 give 0, not inf or nan
    return g * y * x ** (y - 1 + (y == 0)), g * math.log(x + (x == 0)) * ans


@_scalar(math.fabs)
def fabs(g, ans, x):
    return g * math.copysign(1.0, x)


@_scalar(math.hypot)
def hypot(g, ans, x, y):
    return g * x / ans, g * y / ans


@_scalar(math.lgamma)
def lgamma(g, ans, x):
    return g * digamma(x)  # noqa: F821 (runtime helper)


@_scalar(math.gamma)
def gamma(g, ans, x):
    return g * ans * digamma(x)  # noqa: F821 (runtime helper)


@_scalar(math.erf)
def erf(g, ans, x):
    return g * 2.0 / math.sqrt(math.pi) * math.exp(-x * x)


@_scalar(math.erfc)
def erfc(g, ans, x):
    return -g * 2.0 / math.sqrt(math.pi) * math.exp(-x * x)


@_scalar(math.degrees)
def degrees(g, ans, x):
    return g * (180.0 / math.pi)


@_scalar(math.radians)
def radians(g, ans, x):
    return g * (math.pi / 180.0)


@_scalar(math.copysign)
def copysign(g, ans, x, y):
    return g * math.copysign(1.0, x) * math.copysign(1.0, y), None


nondifferentiable(math.floor, math.ceil, math.trunc, kind=int_scalar)
nondifferentiable(math.isnan, math.isinf, math.isfinite, kind=lambda a, k: K.BOOL)
