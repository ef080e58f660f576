"""numpy functions s2sad differentiates through a definition in terms of
functions that have rules, as jax.numpy defines them: a call of
`np.average(x, axis=0, weights=w)` is a call of `average` below, read as
source, differentiated and compiled like a user's helper (so every
argument, weights too, gets its gradient). Each definition follows numpy's
documented semantics for the parameters it takes; a parameter it does not
take is refused when the call is bound, as for any helper."""
import numpy as np


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


def nansum(a, axis=None):
    """np.nansum: NaNs count as zero (and get a zero gradient)."""
    return np.sum(np.where(np.isnan(a), 0.0, a), axis=axis)


def nanmean(a, axis=None):
    """np.nanmean: the mean of the entries that are not NaN."""
    kept = ~np.isnan(a)
    return np.sum(np.where(kept, a, 0.0), axis=axis) / np.sum(kept, axis=axis)


def cumprod(a, axis=None):
    """np.cumprod of the flattened array (axis None) or of a 1-D array: a
    running product, so a zero entry has the gradient its products give."""
    if axis is not None and a.ndim != 1:
        raise ValueError("s2sad differentiates np.cumprod along an axis of a 1-D array only")
    flat = np.ravel(a)
    out = np.empty(flat.shape[0])
    total = 1.0
    for i in range(flat.shape[0]):
        total = total * flat[i]
        out[i] = total
    return out


def take(a, indices, axis=None):
    """np.take: elements of the flattened array (axis None) or, along an
    axis, at a 1-D array (or list) of indices."""
    if axis is None:
        return np.ravel(a)[indices]
    picked = np.asarray(indices)
    if picked.ndim != 1:
        raise ValueError("s2sad differentiates np.take along an axis with a 1-D array of "
                         "indices only (index the axis instead: A[:, i])")
    return np.moveaxis(np.moveaxis(a, axis, 0)[picked], 0, axis)


_DEFINITIONS = {np.average: average, np.nansum: nansum, np.nanmean: nanmean,
                np.cumprod: cumprod, np.take: take}


def numpy_definition(obj):
    """The definition s2sad differentiates a call of `obj` through, or None."""
    try:
        return _DEFINITIONS.get(obj)
    except TypeError:  # unhashable
        return None
