"""scipy.special as generated code calls it: one helper per function, with
scipy's semantics.

Each helper is scipy itself in Python (jit=False, NUMBA_DISABLE_JIT=1) and,
for numba, the same C function scipy's ufunc loops call: its address comes
from scipy.special.cython_special (numba's `get_cython_function_address`),
is registered with LLVM under a fixed symbol name and called as a numba
`ExternalFunction`, so compiled code refers to the symbol, not to a
process-specific address, and numba's on-disk cache stays valid. (The
numba-scipy package does the same with ctypes pointers, which disables
caching; its last release requires numba < 0.60.)

Functions scipy writes in Python (multigammaln, logsumexp, softmax,
log_softmax, polygamma) are written here from the elementwise ones. The
late pass transforms/emit/numba_forms.py rewrites a call of the scipy function
into its helper (see FORMS at the end)."""
import math

import numpy as np
import scipy.special as _sp
from llvmlite import binding as _llvm
from s2sad.lazy_numba import get_cython_function_address, overload, register_jitable, types

from .base import keep_axes, sum_axis
from .reductions import max_axis

__all__ = ["sp_gammaln", "sp_digamma", "sp_polygamma", "sp_betaln", "sp_erf", "sp_erfc",
           "sp_erfinv", "sp_ndtr", "sp_log_ndtr", "sp_ndtri", "sp_expit", "sp_logit",
           "sp_log_expit", "sp_xlogy", "sp_xlog1py", "sp_i0", "sp_i1", "sp_i0e", "sp_i1e",
           "sp_multigammaln", "sp_multipolygamma", "sp_logsumexp", "sp_softmax",
           "sp_log_softmax"]


def _c_function(capsule, n_args):
    """scipy.special.cython_special's C function `capsule` (double
    arguments; the last, int, parameter is Cython's skip-dispatch flag)."""
    symbol = "s2sad_cython_special_" + capsule
    _llvm.add_symbol(symbol, get_cython_function_address("scipy.special.cython_special",
                                                         capsule))
    return types.ExternalFunction(symbol, types.float64(*[types.float64] * n_args, types.intc))


def _number(t):
    return isinstance(t, (types.Number, types.Boolean))


def _unary_overload(helper, c_fn):
    @overload(helper)
    def _impl(x):
        if _number(x):
            return lambda x: c_fn(float(x), 0)
        if isinstance(x, types.Array):
            def impl(x):
                flat = np.ascontiguousarray(x).reshape(x.size)
                out = np.empty(x.size)
                for k in range(x.size):
                    out[k] = c_fn(float(flat[k]), 0)
                return out.reshape(x.shape)
            return impl
        return None
    return _impl


def _binary_overload(helper, c_fn):
    @overload(helper)
    def _impl(x, y):
        if _number(x) and _number(y):
            return lambda x, y: c_fn(float(x), float(y), 0)
        if not all(_number(t) or isinstance(t, types.Array) for t in (x, y)):
            return None

        def impl(x, y):
            bx, by = np.broadcast_arrays(np.asarray(x), np.asarray(y))
            shape = bx.shape
            out = np.empty(shape)
            fx, fy, fo = bx.ravel(), by.ravel(), out.reshape(out.size)
            for k in range(fo.size):
                fo[k] = c_fn(float(fx[k]), float(fy[k]), 0)
            return out
        return impl
    return _impl


# ---- elementwise functions, scipy's C code ------------------------------------

def sp_gammaln(x):
    """scipy.special.gammaln."""
    return _sp.gammaln(x)


def sp_digamma(x):
    """scipy.special.digamma (psi)."""
    return _sp.digamma(x)


def sp_erf(x):
    """scipy.special.erf."""
    return _sp.erf(x)


def sp_erfc(x):
    """scipy.special.erfc."""
    return _sp.erfc(x)


def sp_erfinv(x):
    """scipy.special.erfinv."""
    return _sp.erfinv(x)


def sp_ndtr(x):
    """scipy.special.ndtr."""
    return _sp.ndtr(x)


def sp_log_ndtr(x):
    """scipy.special.log_ndtr."""
    return _sp.log_ndtr(x)


def sp_ndtri(x):
    """scipy.special.ndtri."""
    return _sp.ndtri(x)


def sp_expit(x):
    """scipy.special.expit."""
    return _sp.expit(x)


def sp_logit(x):
    """scipy.special.logit."""
    return _sp.logit(x)


def sp_log_expit(x):
    """scipy.special.log_expit."""
    return _sp.log_expit(x)


def sp_i0(x):
    """scipy.special.i0."""
    return _sp.i0(x)


def sp_i1(x):
    """scipy.special.i1."""
    return _sp.i1(x)


def sp_i0e(x):
    """scipy.special.i0e."""
    return _sp.i0e(x)


def sp_i1e(x):
    """scipy.special.i1e."""
    return _sp.i1e(x)


def sp_betaln(a, b):
    """scipy.special.betaln."""
    return _sp.betaln(a, b)


def sp_xlogy(x, y):
    """scipy.special.xlogy."""
    return _sp.xlogy(x, y)


def sp_xlog1py(x, y):
    """scipy.special.xlog1py."""
    return _sp.xlog1py(x, y)


for _helper, _capsule in [(sp_gammaln, "gammaln"), (sp_digamma, "__pyx_fuse_1psi"),
                          (sp_erf, "__pyx_fuse_1erf"), (sp_erfc, "__pyx_fuse_1erfc"),
                          (sp_erfinv, "__pyx_fuse_0erfinv"), (sp_ndtr, "__pyx_fuse_1ndtr"),
                          (sp_log_ndtr, "__pyx_fuse_1log_ndtr"), (sp_ndtri, "ndtri"),
                          (sp_expit, "__pyx_fuse_0expit"), (sp_logit, "__pyx_fuse_0logit"),
                          (sp_log_expit, "__pyx_fuse_0log_expit"), (sp_i0, "i0"),
                          (sp_i1, "i1"), (sp_i0e, "i0e"), (sp_i1e, "i1e")]:
    _unary_overload(_helper, _c_function(_capsule, 1))
for _helper, _capsule in [(sp_betaln, "betaln"), (sp_xlogy, "__pyx_fuse_1xlogy"),
                          (sp_xlog1py, "__pyx_fuse_1xlog1py")]:
    _binary_overload(_helper, _c_function(_capsule, 2))

_psi = _c_function("__pyx_fuse_1psi", 1)
_gammaln = _c_function("gammaln", 1)


# ---- polygamma: the Hurwitz zeta function (cython_special does not export it) ----

# Cephes' zeta(x, q): the Euler-Maclaurin summation, as scipy.special.zeta
_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
           7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
           -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18)


@register_jitable
def _hurwitz_zeta(x, q):
    if x == 1.0:
        return math.inf
    if x < 1.0 or math.isnan(q):
        return math.nan
    if q <= 0.0:
        if q == math.floor(q):
            return math.inf
        if x != math.floor(x):
            return math.nan
    if q > 1e8:
        return (1.0 / (x - 1.0) + 1.0 / (2.0 * q)) * q ** (1.0 - x)
    s = q ** -x
    a = q
    i = 0
    b = 0.0
    while i < 9 or a <= 9.0:
        i += 1
        a += 1.0
        b = a ** -x
        s += b
        if abs(b / s) < 1.1102230246251565e-16:
            return s
    w = a
    s += b * w / (x - 1.0)
    s -= 0.5 * b
    a = 1.0
    k = 0.0
    for j in range(12):
        a *= x + k
        b /= w
        t = a * b / _ZETA_A[j]
        s = s + t
        if abs(t / s) < 1.1102230246251565e-16:
            return s
        k += 1.0
        a *= x + k
        b /= w
        k += 1.0
    return s


@register_jitable
def _polygamma_scalar(n, x):
    if n == 0:
        return _psi(x, 0)
    sign = 1.0 if n % 2 == 1 else -1.0
    return sign * math.gamma(n + 1.0) * _hurwitz_zeta(n + 1.0, x)


def sp_polygamma(n, x):
    """scipy.special.polygamma(n, x) for an integer order n >= 0."""
    return _sp.polygamma(n, x)


@overload(sp_polygamma)
def _sp_polygamma(n, x):
    if not isinstance(n, types.Integer):
        return None
    if _number(x):
        return lambda n, x: _polygamma_scalar(n, float(x))
    if isinstance(x, types.Array):
        def impl(n, x):
            flat = np.ascontiguousarray(x).reshape(x.size)
            out = np.empty(x.size)
            for k in range(x.size):
                out[k] = _polygamma_scalar(n, float(flat[k]))
            return out.reshape(x.shape)
        return impl
    return None


# ---- the multivariate gamma function ------------------------------------------------

def sp_multigammaln(a, d):
    """scipy.special.multigammaln(a, d): log of the multivariate gamma
    function, sum_j gammaln(a - j / 2) + d (d - 1) / 4 log(pi)."""
    return _sp.multigammaln(a, d)


def sp_multipolygamma(n, a, d):
    """sum_j polygamma(n, a - j / 2), j < d: the n+1-th derivative of
    multigammaln(a, d) in a."""
    a = np.asarray(a, dtype=float)
    return np.sum([_sp.polygamma(n, a - 0.5 * j) for j in range(d)], axis=0) + 0.0 * a


@register_jitable
def _multigammaln_scalar(a, d):
    if a <= 0.5 * (d - 1):
        raise ValueError("multigammaln: condition a > (d-1)/2 not met")
    s = 0.25 * d * (d - 1) * math.log(math.pi)
    for j in range(d):
        s += _gammaln(a - 0.5 * j, 0)
    return s


@register_jitable
def _multipolygamma_scalar(n, a, d):
    s = 0.0
    for j in range(d):
        s += _polygamma_scalar(n, a - 0.5 * j)
    return s


@overload(sp_multigammaln)
def _sp_multigammaln(a, d):
    if not isinstance(d, types.Integer):
        return None
    if _number(a):
        return lambda a, d: _multigammaln_scalar(float(a), d)
    if isinstance(a, types.Array):
        def impl(a, d):
            flat = np.ascontiguousarray(a).reshape(a.size)
            out = np.empty(a.size)
            for k in range(a.size):
                out[k] = _multigammaln_scalar(float(flat[k]), d)
            return out.reshape(a.shape)
        return impl
    return None


@overload(sp_multipolygamma)
def _sp_multipolygamma(n, a, d):
    if not isinstance(d, types.Integer) or not isinstance(n, types.Integer):
        return None
    if _number(a):
        return lambda n, a, d: _multipolygamma_scalar(n, float(a), d)
    if isinstance(a, types.Array):
        def impl(n, a, d):
            flat = np.ascontiguousarray(a).reshape(a.size)
            out = np.empty(a.size)
            for k in range(a.size):
                out[k] = _multipolygamma_scalar(n, float(flat[k]), d)
            return out.reshape(a.shape)
        return impl
    return None


# ---- logsumexp, softmax, log_softmax over an axis -------------------------------------

def sp_logsumexp(a, axis=None, b=None, keepdims=False):
    """scipy.special.logsumexp(a, axis, b, keepdims) (return_sign is
    refused). A differentiated call's keepdims is lowered to a reshape
    before this is called; a helper's primal copy keeps it as written."""
    return _sp.logsumexp(a, axis=axis, b=b, keepdims=keepdims)


def sp_softmax(x, axis=None):
    """scipy.special.softmax(x, axis)."""
    return _sp.softmax(x, axis=axis)


def sp_log_softmax(x, axis=None):
    """scipy.special.log_softmax(x, axis)."""
    return _sp.log_softmax(x, axis=axis)


def _finite_or_zero(m):
    """The shift of a log-sum-exp: the maximum, or 0 where it is not finite
    (all -inf, or an inf or nan), as scipy."""
    return np.where(np.isfinite(m), m, 0.0)


@overload(_finite_or_zero)
def _finite_or_zero_impl(m):
    if _number(m):
        return lambda m: m if np.isfinite(m) else 0.0
    return lambda m: np.where(np.isfinite(m), m, 0.0)


@overload(sp_logsumexp)
def _sp_logsumexp(a, axis=None, b=None, keepdims=False):
    if not isinstance(a, types.Array):
        return None
    if isinstance(keepdims, types.BooleanLiteral) and keepdims.literal_value:
        def kept(a, axis=None, b=None, keepdims=False):  # the reduced axes as 1s
            return keep_axes(sp_logsumexp(a, axis, b), a, axis)
        return kept
    if not (keepdims is None or isinstance(keepdims, (bool, types.NoneType, types.Omitted,
                                                      types.BooleanLiteral))):
        return None  # known only at run time: the result's rank would depend on it
    if b is None or isinstance(b, (types.NoneType, types.Omitted)):
        def impl(a, axis=None, b=None, keepdims=False):
            m = _finite_or_zero(max_axis(a, axis))
            return np.log(sum_axis(np.exp(a - keep_axes(m, a, axis)), axis)) + m
        return impl

    def weighted(a, axis=None, b=None, keepdims=False):
        m = _finite_or_zero(max_axis(a, axis))
        return np.log(sum_axis(np.exp(a - keep_axes(m, a, axis)) * b, axis)) + m
    return weighted


@overload(sp_softmax)
def _sp_softmax(x, axis=None):
    if not isinstance(x, types.Array):
        return None

    def impl(x, axis=None):
        e = np.exp(x - keep_axes(_finite_or_zero(max_axis(x, axis)), x, axis))
        return e / keep_axes(sum_axis(e, axis), x, axis)
    return impl


@overload(sp_log_softmax)
def _sp_log_softmax(x, axis=None):
    if not isinstance(x, types.Array):
        return None

    def impl(x, axis=None):
        shifted = x - keep_axes(_finite_or_zero(max_axis(x, axis)), x, axis)
        return shifted - keep_axes(np.log(sum_axis(np.exp(shifted), axis)), x, axis)
    return impl
