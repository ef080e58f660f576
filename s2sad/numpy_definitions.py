"""numpy (and scipy.stats) functions s2sad differentiates through a definition in terms of
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


def norm_logpdf(x, loc=0.0, scale=1.0):
    """scipy.stats.norm.logpdf: the normal log-density, loc and scale
    differentiated too."""
    z = (x - loc) / scale
    return -0.5 * z * z - np.log(scale) - 0.5 * np.log(2.0 * np.pi)


def multivariate_normal_logpdf(x, mean=None, cov=None, allow_singular=False):
    """scipy.stats.multivariate_normal.logpdf of one point (x 1-D) or of
    each row of x, for a covariance matrix (positive definite)."""
    if allow_singular:
        raise ValueError("s2sad differentiates multivariate_normal.logpdf with "
                         "allow_singular=False only")
    if cov is None:
        raise ValueError("s2sad differentiates multivariate_normal.logpdf with a covariance "
                         "matrix given (cov=...)")
    if mean is None:
        d = x
    else:
        d = x - mean
    k = cov.shape[0]
    quad = np.sum(d * np.linalg.solve(cov, d.T).T, axis=-1)
    return -0.5 * quad - 0.5 * np.linalg.slogdet(cov)[1] - 0.5 * k * np.log(2.0 * np.pi)


_DEFINITIONS = {np.average: average, np.nansum: nansum, np.nanmean: nanmean,
                np.cumprod: cumprod, np.take: take}
try:  # (bound methods of scipy's distribution objects compare equal across lookups)
    import scipy.stats as _stats
    _DEFINITIONS[_stats.norm.logpdf] = norm_logpdf
    _DEFINITIONS[_stats.multivariate_normal.logpdf] = multivariate_normal_logpdf
except ImportError:  # pragma: no cover - scipy is a dependency
    pass


def numpy_definition(obj):
    """The definition s2sad differentiates a call of `obj` through, or None."""
    try:
        return _DEFINITIONS.get(obj)
    except TypeError:  # unhashable
        return None
