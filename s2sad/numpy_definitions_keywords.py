"""numpy reductions with `where=`, `initial=` or `keepdims=` beside them, and
np.diff with `prepend=` / `append=`, np.average with `returned=` /
`keepdims=`: definitions in terms of functions that have rules (see
numpy_definitions.py, which chooses them by what a call gives).

A `where` mask carries no gradient (it is a boolean); the entries it leaves
out are replaced by the reduction's identity before reducing, so they get a
zero gradient, and `initial` (numpy's start value) is a value like any
other, differentiated when it depends on the inputs. The mask must
broadcast to the array's shape, as numpy requires."""
import numpy as np


def _kept(a, where, fill):
    """`a` where the mask holds, `fill` elsewhere (a itself without a mask)."""
    if where is None:
        return a
    kept = np.where(where, a, fill)
    if kept.shape != a.shape:
        raise ValueError("where= must broadcast to the shape of the array it masks "
                         "(numpy raises for a larger mask)")
    return kept


def _count(shape, axis, where):
    """How many entries each result combines (the mask's True entries), for
    an array of `shape` (a shape: nothing here needs a gradient)."""
    return np.sum(_kept(np.ones(shape), where, 0.0), axis=axis)


def _count_kept(shape, axis, where):
    return np.sum(_kept(np.ones(shape), where, 0.0), axis=axis, keepdims=True)


# ---- one definition per reduction, and one with keepdims=True (a constant) ---------

def sum_masked(a, axis=None, initial=None, where=None):
    """np.sum(a, axis, initial=, where=): the sum of the kept entries, plus initial."""
    total = np.sum(_kept(a, where, 0.0), axis=axis)
    if initial is None:
        return total
    return total + initial


def sum_masked_kept(a, axis=None, initial=None, where=None):
    total = np.sum(_kept(a, where, 0.0), axis=axis, keepdims=True)
    if initial is None:
        return total
    return total + initial


def prod_masked(a, axis=None, initial=None, where=None):
    """np.prod(a, axis, initial=, where=): the product of the kept entries, times initial."""
    total = np.prod(_kept(a, where, 1.0), axis=axis)
    if initial is None:
        return total
    return total * initial


def prod_masked_kept(a, axis=None, initial=None, where=None):
    total = np.prod(_kept(a, where, 1.0), axis=axis, keepdims=True)
    if initial is None:
        return total
    return total * initial


def max_masked(a, axis=None, initial=None, where=None):
    """np.max(a, axis, initial=, where=): the larger of initial and the kept
    entries' maximum (a tie goes to the array, as np.maximum gives it)."""
    return np.maximum(np.max(_kept(a, where, -np.inf), axis=axis), initial)


def max_masked_kept(a, axis=None, initial=None, where=None):
    return np.maximum(np.max(_kept(a, where, -np.inf), axis=axis, keepdims=True), initial)


def min_masked(a, axis=None, initial=None, where=None):
    """np.min(a, axis, initial=, where=)."""
    return np.minimum(np.min(_kept(a, where, np.inf), axis=axis), initial)


def min_masked_kept(a, axis=None, initial=None, where=None):
    return np.minimum(np.min(_kept(a, where, np.inf), axis=axis, keepdims=True), initial)


def mean_masked(a, axis=None, where=None):
    """np.mean(a, axis, where=): the sum of the kept entries over their count
    (nan where none is kept, as numpy gives)."""
    return np.sum(_kept(a, where, 0.0), axis=axis) / _count(np.shape(a), axis, where)


def mean_masked_kept(a, axis=None, where=None):
    total = np.sum(_kept(a, where, 0.0), axis=axis, keepdims=True)
    return total / _count_kept(np.shape(a), axis, where)


def _deviations(a, axis, where):
    """The kept entries' deviations from their mean (0 where not kept)."""
    total = np.sum(_kept(a, where, 0.0), axis=axis, keepdims=True)
    mean = total / _count_kept(np.shape(a), axis, where)
    return _kept(a - mean, where, 0.0)


def var_masked(a, axis=None, ddof=0, where=None):
    """np.var(a, axis, ddof=, where=): numpy's sum of squared deviations of
    the kept entries over max(count - ddof, 0)."""
    d = _deviations(a, axis, where)
    return np.sum(d * d, axis=axis) / np.maximum(_count(np.shape(a), axis, where) - ddof, 0.0)


def var_masked_kept(a, axis=None, ddof=0, where=None):
    d = _deviations(a, axis, where)
    return np.sum(d * d, axis=axis, keepdims=True) / np.maximum(
        _count_kept(np.shape(a), axis, where) - ddof, 0.0)


def std_masked(a, axis=None, ddof=0, where=None):
    """np.std(a, axis, ddof=, where=): the square root of var_masked, as the
    norm of the deviations (so where they are all 0 the gradient is 0, as
    np.std's rule gives)."""
    d = _deviations(a, axis, where)
    count = _count(np.shape(a), axis, where)
    return np.linalg.norm(d, axis=axis) / np.sqrt(np.maximum(count - ddof, 0.0))


def std_masked_kept(a, axis=None, ddof=0, where=None):
    d = _deviations(a, axis, where)
    return np.linalg.norm(d, axis=axis, keepdims=True) / np.sqrt(
        np.maximum(_count_kept(np.shape(a), axis, where) - ddof, 0.0))


def nansum_masked(a, axis=None, initial=None, where=None):
    """np.nansum(a, axis, initial=, where=): NaNs count as zero (and get a zero gradient)."""
    return sum_masked(np.where(np.isnan(a), 0.0, a), axis, initial, where)


def nansum_masked_kept(a, axis=None, initial=None, where=None):
    return sum_masked_kept(np.where(np.isnan(a), 0.0, a), axis, initial, where)


# ---- np.diff with prepend= / append= ----------------------------------------------------

def _edge(value, a, axis):
    """numpy's prepend/append value as an array to join along `axis`: a
    number is broadcast to a's shape with that axis of length 1."""
    if isinstance(value, np.ndarray):
        return value
    first = np.moveaxis(a, axis, 0)[0:1]
    return np.moveaxis(np.zeros_like(first) + value, 0, axis)


def diff_padded(a, n=1, axis=-1, prepend=None, append=None):
    """np.diff(a, n, axis, prepend=, append=): the differences of a with the
    values joined before and after it along the axis (both differentiated)."""
    joined = a
    if prepend is not None:
        joined = np.concatenate((_edge(prepend, a, axis), joined), axis=axis)
    if append is not None:
        joined = np.concatenate((joined, _edge(append, a, axis)), axis=axis)
    return np.diff(joined, n=n, axis=axis)


# ---- np.average with returned= / keepdims= ------------------------------------------------

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


def average_kept(a, axis=None, weights=None):
    """np.average(..., keepdims=True)."""
    total, scale = _weighted(a, axis, weights)
    return _kept_axes(total / scale, a, axis)


def average_returned_kept(a, axis=None, weights=None):
    """np.average(..., returned=True, keepdims=True)."""
    total, scale = _weighted(a, axis, weights)
    return _kept_axes(total / scale, a, axis), _kept_axes(scale, a, axis)
