"""scipy.special: the gamma family, error functions, the normal
distribution's functions, logistic functions, xlogy, Bessel functions and
the log-sum-exp family. Names like `sp_digamma` are helpers of
`s2sad.runtime.special` (scipy's C functions, compiled by numba); each
helper takes the rule of the scipy function it stands for, so generated
derivatives can be differentiated again. Registered once the user's code
imported scipy.special (s2sad/libraries.py), or at a lookup of a helper
whose rule is here (s2sad.runtime.digamma's, of math.lgamma's derivative)."""
# flake8: noqa: F821  (runtime helpers are globals of the generated module)
import numpy as np
import scipy.special as sp

from .. import runtime
from ..extend import (K, AXIS, INT, KEEPDIMS, REGISTRY, adjoint, broadcast_float,
                      give_helpers_their_rules, numba_form, reduction, same_as_first, tangent,
                      Values)
from ..runtime import special as runtime_special

def _unary(*fns):
    return adjoint(*fns, kind=same_as_first, pointwise=True)


def _binary(*fns):
    return adjoint(*fns, kind=broadcast_float, elementwise=True)


# ---- the gamma family --------------------------------------------------------------

@_unary(sp.gammaln)
def gammaln(g, ans, x):
    return g * sp_digamma(x)


@_unary(sp.digamma, runtime.digamma)
def digamma(g, ans, x):
    return g * sp_polygamma(1, x)


@adjoint(sp.polygamma, kind=lambda args, kws: K.float_result(args[1]), pointwise=True,
         diff_argnums=(1,), values={"n": INT})
def polygamma(g, ans, n, x):
    return None, g * sp_polygamma(n + 1, x)


@adjoint(sp.multigammaln, kind=same_as_first, pointwise=True, diff_argnums=(0,),
         values={"d": INT})
def multigammaln(g, ans, a, d):
    return g * sp_multipolygamma(0, a, d), None


@adjoint(runtime_special.sp_multipolygamma, kind=lambda args, kws: K.float_result(args[1]),
         pointwise=True, diff_argnums=(1,), values={"n": INT, "d": INT})
def multipolygamma(g, ans, n, a, d):
    return None, g * sp_multipolygamma(n + 1, a, d), None


@_binary(sp.betaln)
def betaln(g, ans, a, b):
    return g * (sp_digamma(a) - sp_digamma(a + b)), g * (sp_digamma(b) - sp_digamma(a + b))


# ---- error functions and the normal distribution --------------------------------------

@_unary(sp.erf)
def erf(g, ans, x):
    return g * 2.0 / np.sqrt(np.pi) * np.exp(-x * x)


@_unary(sp.erfc)
def erfc(g, ans, x):
    return -g * 2.0 / np.sqrt(np.pi) * np.exp(-x * x)


@_unary(sp.erfinv)
def erfinv(g, ans, x):
    return g * 0.5 * np.sqrt(np.pi) * np.exp(ans * ans)


@_unary(sp.ndtr)
def ndtr(g, ans, x):
    return g * np.exp(-0.5 * x * x) / np.sqrt(2.0 * np.pi)


@_unary(sp.log_ndtr)
def log_ndtr(g, ans, x):
    # the normal density over ndtr(x), as one exponential (finite far into the left tail)
    return g * np.exp(-0.5 * x * x - ans) / np.sqrt(2.0 * np.pi)


@_unary(sp.ndtri)
def ndtri(g, ans, x):
    return g * np.sqrt(2.0 * np.pi) * np.exp(0.5 * ans * ans)


# ---- logistic functions ------------------------------------------------------------------

@_unary(sp.expit)
def expit(g, ans, x):
    return g * ans * (1.0 - ans)


@_unary(sp.logit)
def logit(g, ans, x):
    return g / (x * (1.0 - x))


@_unary(sp.log_expit)
def log_expit(g, ans, x):
    return g * sp_expit(-x)


# ---- x log y -------------------------------------------------------------------------------

@_binary(sp.xlogy)
def xlogy(g, ans, x, y):
    # where x == 0 the value is 0 whatever y is: no gradient to y (as JAX)
    return g * np.log(y), g * x / (y + (x == 0.0))


@_binary(sp.xlog1py)
def xlog1py(g, ans, x, y):
    return g * np.log1p(y), g * x / (1.0 + y + (x == 0.0))


# ---- modified Bessel functions -------------------------------------------------------------

@_unary(sp.i0)
def i0(g, ans, x):
    return g * sp_i1(x)


@_unary(sp.i1)
def i1(g, ans, x):
    # i0(x) - i1(x) / x; i1(x) / x is 1/2 at 0, with derivative 0 (its arguments
    # there are made safe, so the branch np.where drops gives no nan)
    return g * (sp_i0(x) - np.where(x == 0.0, 0.5, sp_i1(x + (x == 0.0)) / (x + (x == 0.0))))


@_unary(sp.i0e)
def i0e(g, ans, x):
    # i0e(x) = exp(-|x|) i0(x)
    return g * (sp_i1e(x) - np.sign(x) * ans)


@_unary(sp.i1e)
def i1e(g, ans, x):
    return g * (sp_i0e(x) - np.where(x == 0.0, 0.5, sp_i1e(x + (x == 0.0)) / (x + (x == 0.0)))
                - np.sign(x) * ans)


# ---- log-sum-exp, softmax and log-softmax over an axis --------------------------------------

def _weights(node, kind, bound):
    a = bound.get("a")
    return kind.tag == "none" or kind.is_scalar or (
        kind.is_array and a is not None and a.is_array and kind.ndim <= a.ndim)


# b weights the terms; it is a constant (a b that needs a gradient is refused)
_WEIGHTS = Values("None, a number or an array that broadcasts to a's shape (a constant)",
                  _weights)


@adjoint(sp.logsumexp, kind=reduction, diff_argnums=(0,),
         values={"axis": AXIS, "b": _WEIGHTS, "keepdims": KEEPDIMS})
def logsumexp(g, ans, a, axis=None, b=None, keepdims=False):
    return unreduce(g, a, axis) * b * np.exp(a - keep_axes(ans, a, axis))


@adjoint(sp.logsumexp, when=lambda a, axis=K.NONE: True)
def logsumexp_unweighted(g, ans, a, axis=None):
    return unreduce(g, a, axis) * np.exp(a - keep_axes(ans, a, axis))


@tangent(sp.logsumexp)
def logsumexp_tangent(t, ans, a, axis=None, b=None, keepdims=False):
    return sum_axis(b * np.exp(a - keep_axes(ans, a, axis)) * t, axis)


@tangent(sp.logsumexp, when=lambda a, axis=K.NONE, b=K.NONE: b.tag == "none")
def logsumexp_unweighted_tangent(t, ans, a, axis=None, b=None, keepdims=False):
    return sum_axis(np.exp(a - keep_axes(ans, a, axis)) * t, axis)


@adjoint(sp.softmax, kind=same_as_first, diff_argnums=(0,), values={"axis": AXIS})
def softmax(g, ans, x, axis=None):
    return ans * (g - keep_axes(sum_axis(g * ans, axis), x, axis))


@tangent(sp.softmax)
def softmax_tangent(t, ans, x, axis=None):
    return ans * (t - keep_axes(sum_axis(t * ans, axis), x, axis))


@adjoint(sp.log_softmax, kind=same_as_first, diff_argnums=(0,), values={"axis": AXIS})
def log_softmax(g, ans, x, axis=None):
    return g - np.exp(ans) * keep_axes(sum_axis(g, axis), x, axis)


@tangent(sp.log_softmax)
def log_softmax_tangent(t, ans, x, axis=None):
    return t - keep_axes(sum_axis(np.exp(ans) * t, axis), x, axis)


# ---- every call of a function is a call of its helper, which takes the function's rule ----
# (s2sad/forms.py; scipy's sp.psi is the object sp.digamma, not a function of its own)

for _fn, _helper in [
        (sp.gammaln, "sp_gammaln"), (sp.digamma, "sp_digamma"),
        (sp.polygamma, "sp_polygamma"), (sp.betaln, "sp_betaln"), (sp.erf, "sp_erf"),
        (sp.erfc, "sp_erfc"), (sp.erfinv, "sp_erfinv"), (sp.ndtr, "sp_ndtr"),
        (sp.log_ndtr, "sp_log_ndtr"), (sp.ndtri, "sp_ndtri"), (sp.expit, "sp_expit"),
        (sp.logit, "sp_logit"), (sp.log_expit, "sp_log_expit"), (sp.xlogy, "sp_xlogy"),
        (sp.xlog1py, "sp_xlog1py"), (sp.i0, "sp_i0"), (sp.i1, "sp_i1"), (sp.i0e, "sp_i0e"),
        (sp.i1e, "sp_i1e"), (sp.multigammaln, "sp_multigammaln"),
        (sp.logsumexp, "sp_logsumexp"), (sp.softmax, "sp_softmax"),
        (sp.log_softmax, "sp_log_softmax")]:
    numba_form(_fn, getattr(runtime_special, _helper))
give_helpers_their_rules(REGISTRY)
