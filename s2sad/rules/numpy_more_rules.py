"""numpy: variance and standard deviation, elementwise functions beyond
numpy_rules.py (fmax/fmin, mod/remainder/fmod, sinc, nan_to_num, degrees,
logaddexp2, real/imag), np.gradient and np.linalg.slogdet. Names like
`unreduce` are helpers of `s2sad.runtime` (see there)."""
# flake8: noqa: F821  (runtime helpers are globals of the generated module)
import numpy as np

from ..extend import (K, AXIS, AXIS_INT, GRADIENT_OF, KEEPDIMS, MATRICES, NUMBER, REAL, adjoint,
                      broadcast_float, reduction, same_as_first, tangent)


# ---- variance and standard deviation --------------------------------------------------

# the deviations from the mean over `axis`, with the reduced axes kept (numba lacks keepdims)
_STAT = {"axis": AXIS, "ddof": NUMBER, "keepdims": KEEPDIMS}


@adjoint(np.var, kind=reduction, diff_argnums=(0,), values=_STAT)
def var(g, ans, a, axis=None, ddof=0, keepdims=False):
    n = reduced_count(a, axis)
    return 2.0 * unreduce(g, a, axis) * (a - keep_axes(sum_axis(a, axis) / n, a, axis)) / (n - ddof)


@adjoint(np.std, kind=reduction, diff_argnums=(0,), values=_STAT)
def std(g, ans, a, axis=None, ddof=0, keepdims=False):
    # where the deviation is 0 (one element, or all equal) the gradient is 0, as np.linalg.norm's
    n = reduced_count(a, axis)
    return (unreduce(g / (ans + (ans == 0)), a, axis)
            * (a - keep_axes(sum_axis(a, axis) / n, a, axis)) / (n - ddof))


@tangent(np.var)
def var_tangent(t, ans, a, axis=None, ddof=0, keepdims=False):
    return 2.0 * sum_axis((a - keep_axes(sum_axis(a, axis) / reduced_count(a, axis), a, axis))
                          * t, axis) / (reduced_count(a, axis) - ddof)


@tangent(np.std)
def std_tangent(t, ans, a, axis=None, ddof=0, keepdims=False):
    return sum_axis((a - keep_axes(sum_axis(a, axis) / reduced_count(a, axis), a, axis))
                    * t, axis) / ((reduced_count(a, axis) - ddof) * (ans + (ans == 0)))


# ---- elementwise -------------------------------------------------------------------------

def _unary(*fns, **options):
    return adjoint(*fns, kind=same_as_first, pointwise=True, **options)


def _binary(*fns):
    return adjoint(*fns, kind=broadcast_float, elementwise=True)


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


# ---- np.gradient (unit spacing, first-order edges) -------------------------------------

@adjoint(np.gradient, kind=lambda args, kws: K.array(args[0].ndim, "f"), diff_argnums=(0,),
         linear=(0,), values={"f": GRADIENT_OF, "axis": AXIS_INT})
def gradient(g, ans, f, axis=None):
    return ungradient(g, f, axis)


# ---- np.linalg.slogdet: (sign, log|det|); the sign is locally constant --------------------

@adjoint(np.linalg.slogdet, kind=lambda args, kws: K.tuple_of(
    [K.array(args[0].ndim - 2, "f")] * 2), values={"a": MATRICES})
def slogdet(g, ans, a):
    return g[1] * np.linalg.inv(a).T


@tangent(np.linalg.slogdet)
def slogdet_tangent_rule(t, ans, a):
    # (0.0, trace(solve(a, t))): one expression, as tangent templates are
    return slogdet_tangent(t, a)
