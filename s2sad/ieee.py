"""Plain-Python runs of generated code with the floating-point rules of the
compiled code.

numba compiles with error_model="numpy": `1.0 / 0.0` is inf, `math.log(0.0)`
-inf, `math.sin(inf)` nan. Python raises ZeroDivisionError, ValueError or
OverflowError for the same operations, so without this module a derivative
that gives inf/nan compiled would raise with jit=False or in the fallback.
Floats are passed as np.float64 (whose arithmetic follows IEEE) and `math`
is replaced by the functions below in the generated module's globals;
`np.errstate` silences numpy's warnings as numba is silent."""
import math
import types

import numpy as np

_f = np.float64


def _ieee(x):
    """x as a numpy float: a float32 stays float32, as compiled code keeps it
    (a float64 result would promote the float32 values it meets)."""
    return x if isinstance(x, np.float32) else _f(x)


def _unary(ufunc):
    def fn(x):
        return ufunc(_ieee(x))
    fn.__name__ = ufunc.__name__
    return fn


def _binary(ufunc):
    def fn(x, y):
        return ufunc(_ieee(x), _ieee(y))
    fn.__name__ = ufunc.__name__
    return fn


def _log(x, base=None):
    return np.log(_ieee(x)) if base is None else np.log(_ieee(x)) / np.log(_ieee(base))


def _lgamma(x):
    try:
        return _f(math.lgamma(x))
    except (ValueError, OverflowError):  # poles 0, -1, -2, ...: C's lgamma gives inf
        return _f(math.nan) if math.isnan(x) else _f(math.inf)


def _gamma(x):
    try:
        return _f(math.gamma(x))
    except OverflowError:
        return _f(math.inf)
    except ValueError:  # C's tgamma: +-inf at zero, nan at negative integers and -inf
        return _f(math.copysign(math.inf, x)) if x == 0.0 else _f(math.nan)


_OVERRIDES = {
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
    "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh,
    "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh, "exp": np.exp,
    "expm1": np.expm1, "exp2": np.exp2, "log1p": np.log1p, "log10": np.log10,
    "log2": np.log2, "sqrt": np.sqrt, "cbrt": np.cbrt, "fabs": np.fabs,
    "degrees": np.degrees, "radians": np.radians,
}
_BINARY = {"pow": np.power, "atan2": np.arctan2, "hypot": np.hypot,
           "copysign": np.copysign, "fmod": np.fmod}

math_module = types.ModuleType("math", "math with IEEE results instead of exceptions")
math_module.__dict__.update({k: v for k, v in vars(math).items() if not k.startswith("__")})
math_module.__dict__.update({k: _unary(u) for k, u in _OVERRIDES.items()})
math_module.__dict__.update({k: _binary(u) for k, u in _BINARY.items()})
math_module.__dict__.update(log=_log, lgamma=_lgamma, gamma=_gamma)


def ieee_module(module):
    """Give a generated module (its `math`) the IEEE functions; in place."""
    if "math" in module.__dict__:
        module.math = math_module
    return module


def call(fn, args):
    """`fn(*args)` with floats as np.float64, without numpy's warnings, and
    np.float64 results as floats (as numba returns them)."""
    args = [_f(a) if type(a) is float else a for a in args]
    with np.errstate(all="ignore"):
        return _plain(fn(*args))


def _plain(value):
    if type(value) is np.float64:
        return float(value)
    if type(value) is tuple:
        return tuple(_plain(v) for v in value)
    return value
