"""numpy reductions s2sad differentiates through definitions in terms of
functions that have rules, as jax.numpy defines them: np.average (with
weights, returned=, keepdims=), np.nansum, np.nanmean, np.nanmax, np.nanmin, np.cumprod,
np.trapezoid, np.median, np.quantile, np.percentile and np.ptp.

A call is read as a call of the definition, differentiated and compiled
like a user's helper (so every argument, weights too, gets its gradient).
Each follows numpy's documented semantics for the parameters it takes; a
parameter it does not take is refused when the call is bound, as for any
helper. The gradient at a tie is that of the functions it is written with
(np.max / np.min share it equally, as JAX does)."""
import numpy as np

from .registry import NotImplementedArgument, chosen, chooses, const, define, refuse_given


@define(np.average, table="definition: a; axis: None or an int; weights: None, of a's shape or "
                         "1-d along axis (differentiated); returned, keepdims: constants")
@chosen(decided=("returned", "keepdims"))
def average(a, axis=None, weights=None):
    """np.average: the mean, or sum(a * w) / sum(w), with w of a's shape or
    1-D along an int axis."""
    if weights is None:
        return np.mean(a, axis=axis)
    if axis is None:  # weights of a's shape (numpy raises otherwise)
        return np.sum(a * weights) / np.sum(weights * np.ones_like(a))
    if weights.ndim == a.ndim:
        return np.sum(a * weights, axis=axis) / np.sum(weights * np.ones_like(a), axis=axis)
    # 1-D weights along `axis`: that axis last, where they broadcast
    return np.sum(np.moveaxis(a, axis, -1) * weights, axis=-1) / np.sum(weights)


def _weighted(a, axis, weights):
    """(sum of a * weights, sum of weights) over `axis`, weights of a's shape
    or 1-D along an int axis (as np.average takes them; numpy raises otherwise)."""
    if weights is None:
        return np.sum(a, axis=axis), np.sum(np.ones_like(a), axis=axis)
    if axis is None or weights.ndim == a.ndim:
        return np.sum(a * weights, axis=axis), np.sum(weights * np.ones_like(a), axis=axis)
    moved = np.moveaxis(a, axis, -1)
    return np.sum(moved * weights, axis=-1), np.sum(weights) + np.sum(
        np.zeros_like(moved), axis=-1)


@chosen(decided=("returned", "keepdims"))
def average_returned(a, axis=None, weights=None):
    """np.average(a, axis, weights, returned=True): (the average, the sum of
    the weights broadcast to its shape), both differentiated."""
    total, scale = _weighted(a, axis, weights)
    return total / scale, scale


def _kept_axes(value, a, axis):
    """A reduction's result with the reduced axes kept (length 1)."""
    if axis is None:
        return np.reshape(value, np.shape(np.sum(a, axis=axis, keepdims=True)))
    return np.expand_dims(value, axis)


@chosen(decided=("returned", "keepdims"))
def average_kept(a, axis=None, weights=None):
    """np.average(..., keepdims=True)."""
    total, scale = _weighted(a, axis, weights)
    return _kept_axes(total / scale, a, axis)


@chosen(decided=("returned", "keepdims"))
def average_returned_kept(a, axis=None, weights=None):
    """np.average(..., returned=True, keepdims=True)."""
    total, scale = _weighted(a, axis, weights)
    return _kept_axes(total / scale, a, axis), _kept_axes(scale, a, axis)


@chooses(np.average)
def _average(given):
    """np.average with returned= or keepdims= (constants)."""
    flags = []
    for name in ("returned", "keepdims"):
        value = const(given[name]) if name in given else False
        if value not in (True, False):
            raise NotImplementedArgument(f"s2sad's definition of np.average takes {name} "
                                         f"written as True or False")
        flags.append(value is True)
    return {(False, False): average, (True, False): average_returned,
            (False, True): average_kept, (True, True): average_returned_kept}[tuple(flags)]


@define(np.trapezoid, table="definition: y; x: None, 1-d along axis or of y's shape "
                             "(differentiated); dx; axis: an int")
def trapezoid(y, x=None, dx=1.0, axis=-1):
    """np.trapezoid: the trapezoidal rule along `axis`, with sample points
    `x` (1-D along the axis, or of y's shape) or a spacing `dx`."""
    ys = np.moveaxis(y, axis, -1)
    mid = (ys[..., 1:] + ys[..., :-1]) * 0.5
    if x is None:
        return np.sum(mid, axis=-1) * dx
    if x.ndim == 1:
        return np.sum(mid * (x[1:] - x[:-1]), axis=-1)
    xs = np.moveaxis(x, axis, -1)
    return np.sum(mid * (xs[..., 1:] - xs[..., :-1]), axis=-1)


@define(np.nansum, table="definition: a; axis (NaNs: gradient 0); initial=, where=, keepdims=")
def nansum(a, axis=None):
    """np.nansum: NaNs count as zero (and get a zero gradient)."""
    return np.sum(np.where(np.isnan(a), 0.0, a), axis=axis)


@define(np.nanmean, table="definition: a; axis (NaNs: gradient 0)")
def nanmean(a, axis=None):
    """np.nanmean: the mean of the entries that are not NaN."""
    kept = ~np.isnan(a)
    return np.sum(np.where(kept, a, 0.0), axis=axis) / np.sum(kept, axis=axis)


@define(np.nanmax, table="definition: a; axis (NaNs: gradient 0; an all-NaN slice gives -inf, "
                         "where numpy gives nan)")
def nanmax(a, axis=None):
    """np.nanmax: the maximum of the entries that are not NaN (ties share the
    gradient, as np.max's)."""
    return np.max(np.where(np.isnan(a), -np.inf, a), axis=axis)


@define(np.nanmin, table="definition: a; axis (as np.nanmax; an all-NaN slice gives inf)")
def nanmin(a, axis=None):
    """np.nanmin: the minimum of the entries that are not NaN."""
    return np.min(np.where(np.isnan(a), np.inf, a), axis=axis)


@define(np.cumprod, table="definition: a; axis: None or an int")
def cumprod(a, axis=None):
    """np.cumprod: a running product (so a zero entry has the gradient its
    products give), of the flattened array (axis None) or along an axis."""
    if axis is not None and a.ndim > 1:
        return _cumprod_along(a, axis)
    flat = np.ravel(a)
    out = np.empty(flat.shape[0])
    total = 1.0
    for i in range(flat.shape[0]):
        total = total * flat[i]
        out[i] = total
    return out


def _cumprod_along(a, axis):
    """np.cumprod along `axis` of an array of 2 or more dimensions: running
    products of its slices along the axis."""
    moved = np.moveaxis(a, axis, 0)
    out = np.empty(moved.shape)
    total = np.ones_like(moved[0])
    for i in range(moved.shape[0]):
        total = total * moved[i]
        out[i] = total
    return np.moveaxis(out, 0, axis)


@define(np.median)
def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """np.median of the flattened array: the middle of its sorted values, or
    the mean of the two middle ones for an even count (the gradient goes
    through the sort's permutation). Only the defaults of the other
    parameters are implemented (numpy_definitions refuses the rest)."""
    s = np.sort(np.ravel(a))
    n = s.shape[0]
    return 0.5 * (s[(n - 1) // 2] + s[n // 2])


def _middle(a, axis):
    """The middle of the values of `a` sorted along `axis` (the mean of the
    two middle ones for an even count), the axis moved last so one index
    reads every slice's middle."""
    s = np.moveaxis(np.sort(a, axis=axis), axis, -1)
    n = s.shape[-1]
    return 0.5 * (s[..., (n - 1) // 2] + s[..., n // 2])


def median_axis(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """np.median along an int axis."""
    return _middle(a, axis)


def median_axis_kept(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """np.median along an int axis with keepdims=True: the axis stays, of length 1."""
    return np.expand_dims(_middle(a, axis), axis)


@chooses(np.median)
def _median(given):
    """np.median of the flattened array, or along an int axis (keepdims
    written as a constant)."""
    refuse_given(np.median, given, {
        "out": ((None,), "Leave out out="),
        "overwrite_input": ((False,), "Leave out overwrite_input")})
    keep = const(given["keepdims"]) if "keepdims" in given else False
    if keep not in (True, False):
        raise NotImplementedArgument("s2sad's definition of np.median takes keepdims written "
                                     "as True or False")
    axis = given.get("axis")
    if axis is None or const(axis) is None:
        if keep:
            raise NotImplementedArgument(
                "s2sad's definition of np.median does not implement keepdims=True without an "
                "axis: reshape the median instead")
        return median
    if type(axis).__name__ in ("Tuple", "List"):
        raise NotImplementedArgument(
            "s2sad's definition of np.median takes one int axis (not a tuple): move the axes "
            "together and reshape them into one first")
    return median_axis_kept if keep else median_axis


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False):
    """np.quantile of the flattened array at one q, numpy's default "linear"
    method: q * (n - 1) places it between two neighbours of the sorted values,
    which it interpolates (the gradient goes to those two through the sort's
    permutation, and to q by their difference)."""
    if not 0.0 <= q <= 1.0:
        raise ValueError("Quantiles must be in the range [0, 1]")
    s = np.sort(np.ravel(a))
    n = s.shape[0]
    place = q * (n - 1)
    lo = min(int(np.floor(place)), n - 1)
    hi = min(lo + 1, n - 1)
    return s[lo] + (place - lo) * (s[hi] - s[lo])


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False):
    """np.percentile: np.quantile at q / 100."""
    if not 0.0 <= q <= 100.0:
        raise ValueError("Percentiles must be in the range [0, 100]")
    # (written out: a call of quantile(a, q / 100.0) leaves its defaulted
    # parameters to its compiled vjp, which numba then cannot bind)
    s = np.sort(np.ravel(a))
    n = s.shape[0]
    place = q / 100.0 * (n - 1)
    lo = min(int(np.floor(place)), n - 1)
    hi = min(lo + 1, n - 1)
    return s[lo] + (place - lo) * (s[hi] - s[lo])


def _one_quantile(fn, definition):
    def choose(given):
        refuse_given(fn, given, {
            "out": ((None,), "Leave out out="),
            "overwrite_input": ((False,), "Leave out overwrite_input"),
            "method": (("linear",), "Leave out method= (s2sad's definition is numpy's default "
                                    "linear interpolation)"),
            "keepdims": ((False,), "Leave out keepdims= (reshape the result instead)")})
        if given.get("axis") is not None and const(given["axis"]) is not None:
            raise NotImplementedArgument(
                f"s2sad's definition of np.{fn.__name__} takes the flattened array (no axis): "
                f"apply it to each slice in a loop instead")
        q = given.get("q")
        if type(q).__name__ in ("List", "Tuple"):
            raise NotImplementedArgument(
                f"s2sad's definition of np.{fn.__name__} takes one q (a number): call it "
                f"once per q")
        return definition
    choose.__name__ = "_" + fn.__name__
    choose.__doc__ = f"np.{fn.__name__} of the flattened array at one q (linear method)."
    return choose


_TABLE = ("definition: a (flattened); q: one number (differentiated); axis, out, "
          "overwrite_input, method, keepdims: the defaults (numpy's linear method)")
chooses(np.quantile, table=_TABLE)(_one_quantile(np.quantile, quantile))
chooses(np.percentile, table=_TABLE)(_one_quantile(np.percentile, percentile))


def ptp(a, axis=None, keepdims=False):
    """np.ptp: the maximum minus the minimum (ties share the gradient, as
    np.max's; a constant slice has ptp 0 and gradient 0)."""
    return np.max(a, axis=axis) - np.min(a, axis=axis)


def ptp_kept(a, axis=None, keepdims=True):
    """np.ptp(a, axis, keepdims=True)."""
    return np.max(a, axis=axis, keepdims=True) - np.min(a, axis=axis, keepdims=True)


@chooses(np.ptp, table="definition: a; axis: None, an int or a tuple of ints; keepdims: True or "
                        "False, written as a constant (np.max - np.min: ties share the gradient)")
def _ptp(given):
    """np.ptp: the definition keepdims (a constant) chooses; out= refused."""
    refuse_given(np.ptp, given, {"out": ((None,), "Leave out out= (assign the result instead)")})
    if "keepdims" not in given:
        return ptp
    keep = const(given["keepdims"])
    if keep not in (True, False):
        raise NotImplementedArgument("s2sad differentiates np.ptp with keepdims written as the "
                                     "constant True or False")
    return ptp_kept if keep else ptp
