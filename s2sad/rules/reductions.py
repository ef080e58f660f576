"""numpy's reductions: sums, means, products, extrema, np.cumsum, np.linalg.norm,
variance and standard deviation (their tangents too), np.any / np.all, and
the forms over axes numba lacks (s2sad/forms.py). Names like `unreduce`
are helpers of `s2sad.runtime` (see there)."""
# flake8: noqa: F821  (runtime helpers are globals of the generated module)
import numpy as np

from .. import runtime as rt
from ..extend import (AXIS, AXIS_INT_OR_NONE, K, KEEPDIMS, NORM_ORD, NUMBER, adjoint, any_of,
                      frobenius, given, nondifferentiable, norm_kind, numba_form, reduction,
                      tangent)


# ---- sums, means, products, extrema, norms --------------------------------------------------

# keepdims=True is taken off before a rule sees the call (transforms/frontend/bind.py)
_REDUCTION = {"axis": AXIS, "keepdims": KEEPDIMS}


@adjoint(np.sum, kind=reduction, diff_argnums=(0,), linear=(0,), values=_REDUCTION)
def sum(g, ans, a, axis=None, keepdims=False):
    return unreduce(g, a, axis)


@adjoint(np.mean, kind=reduction, diff_argnums=(0,), linear=(0,), values=_REDUCTION)
def mean(g, ans, a, axis=None, keepdims=False):
    return unreduce(g, a, axis) / reduced_count(a, axis)


# over every element of an array (the kinds say so): numpy itself, which numba compiles
# faster than the generic helpers, and reads as a person would write it
def _whole(a, axis=K.NONE, keepdims=K.NONE):
    return a.is_array and a.sequence is None and axis.tag == "none"


@adjoint(np.sum, when=_whole)
def sum_whole(g, ans, a, axis=None, keepdims=False):
    return np.full(a.shape, g)


@adjoint(np.mean, when=_whole)
def mean_whole(g, ans, a, axis=None, keepdims=False):
    return np.full(a.shape, g) / a.size  # (g / a.size: a float64 number for float32 g)


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


# ---- variance and standard deviation --------------------------------------------------------

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


# ---- tangents (forward mode) of the rules that are neither pointwise nor linear -------------

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


# ---- no gradient ----------------------------------------------------------------------------

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


# ---- the forms numba lacks (s2sad/forms.py): reductions over axes, with keepdims ------------

numba_form(np.sum, rt.sum_kept, when=given("keepdims"))
numba_form(np.mean, rt.mean_axis, when=given("axis", "keepdims"))
numba_form(np.max, rt.max_axis, when=given("axis", "keepdims"))
numba_form(np.amax, rt.max_axis, when=given("axis", "keepdims"), takes_rule=False)
numba_form(np.min, rt.min_axis, when=given("axis", "keepdims"))
numba_form(np.amin, rt.min_axis, when=given("axis", "keepdims"), takes_rule=False)
numba_form(np.prod, rt.prod_axis, when=given("axis", "keepdims"))
numba_form(np.cumsum, rt.cumsum_axis, when=given("axis"))
numba_form(np.var, rt.var_axis, when=given("axis", "ddof", "keepdims"))
numba_form(np.std, rt.std_axis, when=given("axis", "ddof", "keepdims"))
numba_form(np.linalg.norm, rt.norm_axis, when=any_of(given("axis"), frobenius, given("keepdims")))
