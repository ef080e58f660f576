"""numpy elementwise forms s2sad differentiates through definitions in
terms of functions that have rules: np.polyval (Horner), np.interp, and
the ufunc methods `np.add.accumulate`, `np.multiply.accumulate`,
`np.maximum.accumulate`, `np.minimum.accumulate`, np.bincount, and `np.add.at` /
`np.subtract.at` as values (transforms/frontend/effects.py spells the
statement `np.add.at(u, i, v)` as `u[...] = np.add.at(u, i, v)`, whose
call is `add_at` below).

Each follows numpy's semantics for what it takes; the gradient at a tie is
that of the functions it is written with (np.maximum / np.minimum share
it equally, as JAX does)."""
import numpy as np

from .registry import chooses, chosen, const, define

# np.add.accumulate's dtype= and out=
_ACCUMULATE_REFUSED = {
    "dtype": ((None,), "Leave out dtype= (cast the array first: x.astype(np.float64))"),
    "out": ((None,), "Leave out out= (assign the result instead)")}


def _outer(a, b):
    """a as a column and b as a row: every pair of their elements (the
    result is reshaped to a.shape + b.shape)."""
    return np.reshape(a, (np.size(a), 1)), np.reshape(b, (1, np.size(b)))


@define(np.add.outer, table="definition (every a[i...] + b[j...]): a; b")
def add_outer(a, b):
    """np.add.outer: every sum a[i...] + b[j...], of shape a.shape + b.shape."""
    left, right = _outer(a, b)
    return np.reshape(left + right, np.shape(a) + np.shape(b))


@define(np.subtract.outer, table="definition (every a[i...] - b[j...]): a; b")
def subtract_outer(a, b):
    """np.subtract.outer: every difference a[i...] - b[j...] (pairwise
    differences of positions)."""
    left, right = _outer(a, b)
    return np.reshape(left - right, np.shape(a) + np.shape(b))


@define(np.multiply.outer, table="definition (every a[i...] * b[j...]): a; b")
def multiply_outer(a, b):
    """np.multiply.outer: every product (np.outer's, but of shape a.shape +
    b.shape)."""
    left, right = _outer(a, b)
    return np.reshape(left * right, np.shape(a) + np.shape(b))


@define(np.polyval, table="definition (Horner): p; x")
def polyval(p, x):
    """np.polyval: Horner's scheme, highest power first (p and x both
    differentiated)."""
    y = p[0] + 0.0 * x
    for i in range(1, len(p)):
        y = y * x + p[i]
    return y


@define(np.interp, refuses={
    "period": ((None,), "Leave out period (periodic interpolation is not implemented): wrap x "
                        "into one period with np.mod")},
    table="definition: x; xp (increasing, differentiated); fp; left; right (period refused)")
def interp(x, xp, fp, left=None, right=None, period=None):
    """np.interp: piecewise linear through (xp, fp), xp increasing; fp[0]
    (or left) below xp[0], fp[-1] (or right) above xp[-1]. x, xp and fp are
    all differentiated (xp through the slope of the piece x falls in); at a
    knot, the derivative of the piece to its right, where numpy evaluates."""
    if isinstance(x, (int, float)):
        return _interp_point(x, xp, fp, left, right)
    n = fp.shape[0]  # (numpy requires len(xp) == len(fp))
    if n < 2:
        raise ValueError("s2sad differentiates np.interp with at least 2 points")
    i = np.minimum(np.maximum(np.searchsorted(xp, x, side="right") - 1, 0), n - 2)
    lo = xp[i]
    flo = fp[i]
    y = flo + (x - lo) / (xp[i + 1] - lo) * (fp[i + 1] - flo)
    y = np.where(x >= xp[n - 1], fp[n - 1], y)
    if right is not None:
        y = np.where(x > xp[n - 1], right, y)
    if left is None:
        y = np.where(x < xp[0], fp[0], y)
    else:
        y = np.where(x < xp[0], left, y)
    return y


def _interp_point(x, xp, fp, left, right):
    """np.interp at one point (a number)."""
    n = xp.shape[0]
    if n < 2:
        raise ValueError("s2sad differentiates np.interp with at least 2 points")
    if x < xp[0]:
        if left is None:
            return fp[0]
        return left * 1.0
    if x > xp[n - 1]:
        if right is None:
            return fp[n - 1]
        return right * 1.0
    if x == xp[n - 1]:
        return fp[n - 1]
    i = np.searchsorted(xp, x, side="right") - 1
    return fp[i] + (x - xp[i]) / (xp[i + 1] - xp[i]) * (fp[i + 1] - fp[i])


def _one_axis(array, axis):
    """`array` with the axis a ufunc's accumulate runs along moved first
    (axis None: a 1-d array; numpy refuses it for others)."""
    if axis is None:
        if array.ndim != 1:
            raise ValueError("accumulate does not allow multiple axes")
        return array
    return np.moveaxis(array, axis, 0)


@define(np.add.accumulate, refuses=_ACCUMULATE_REFUSED,
        table="definition (np.cumsum along axis): array; axis: an int (0 by default) or None "
              "for a 1-d array (dtype=, out= refused)")
def add_accumulate(array, axis=0, dtype=None, out=None):
    """np.add.accumulate: np.cumsum along `axis` (0 by default, as for
    every ufunc's accumulate, not flattened)."""
    if axis is None:
        return np.cumsum(_one_axis(array, axis))
    return np.cumsum(array, axis=axis)


@define(np.multiply.accumulate, refuses=_ACCUMULATE_REFUSED,
        table="definition (a running product along axis): array; axis: as np.add.accumulate")
def multiply_accumulate(array, axis=0, dtype=None, out=None):
    """np.multiply.accumulate: the running product along `axis` (0 by
    default), as a loop of products (numba's np.cumprod takes no axis; a
    zero entry gets the gradient its products give)."""
    moved = _one_axis(array, axis)
    running = moved * 1.0
    for i in range(1, moved.shape[0]):
        running[i] = running[i - 1] * moved[i]
    if axis is None:
        return running
    return np.moveaxis(running, 0, axis)


@define(np.maximum.accumulate, refuses=_ACCUMULATE_REFUSED,
        table="definition (a running np.maximum): array; axis: as np.add.accumulate; a tie: "
              "shared, as np.maximum's")
def maximum_accumulate(array, axis=0, dtype=None, out=None):
    """np.maximum.accumulate: out[i] = np.maximum(out[i - 1], a[i]) along
    `axis`, as numpy defines accumulate; each output's gradient goes to the
    element that is the running maximum there (at a tie, np.maximum's rule
    shares it between the running maximum and the new element)."""
    moved = _one_axis(array, axis)
    running = moved * 1.0  # (an empty array: empty, as numpy's)
    for i in range(1, moved.shape[0]):
        running[i] = np.maximum(running[i - 1], moved[i])
    if axis is None:
        return running
    return np.moveaxis(running, 0, axis)


@define(np.minimum.accumulate, refuses=_ACCUMULATE_REFUSED,
        table="definition (a running np.minimum): array; axis: as np.add.accumulate; a tie: "
              "shared, as np.maximum's")
def minimum_accumulate(array, axis=0, dtype=None, out=None):
    """np.minimum.accumulate: the running minimum along `axis` (a tie:
    shared, as np.minimum's)."""
    moved = _one_axis(array, axis)
    running = moved * 1.0  # (an empty array: empty, as numpy's)
    for i in range(1, moved.shape[0]):
        running[i] = np.minimum(running[i - 1], moved[i])
    if axis is None:
        return running
    return np.moveaxis(running, 0, axis)


def _index_list(indices):
    """np.add.at's indices as a 1-d array of ints."""
    picked = np.asarray(indices)
    if picked.ndim != 1:
        raise ValueError("s2sad differentiates np.add.at / np.subtract.at with a Python int or a "
                         "1-d array (or list) of indices into the first axis: index several "
                         "axes with a loop (u[i[k], j[k]] += v[k])")
    return picked


@define(np.add.at, table="definition (the statement np.add.at(u, indices, b) as u[...] = "
                       "...): a; indices: an int or a 1-d array of ints (no gradient); b "
                       "(broadcast)")
def add_at(a, indices, b):
    """np.add.at(a, indices, b) as a value: a copy of `a` with b (broadcast
    to a[indices]'s shape) added at the indices, unbuffered: a repeated
    index adds each of its values. Both a and b are differentiated."""
    if isinstance(indices, int):
        one = a * 1.0
        one[indices] += b
        return one
    picked = _index_list(indices)
    values = b + np.zeros_like(a[picked])  # (b broadcast, as numpy does)
    out = a * 1.0
    for k in range(picked.shape[0]):
        out[picked[k]] += values[k]
    return out


@define(np.subtract.at, table="definition: as np.add.at")
def subtract_at(a, indices, b):
    """np.subtract.at(a, indices, b) as a value: add_at of -b (a - b and
    a + -b are the same floating-point numbers)."""
    return add_at(a, indices, -b)



@chooses(np.bincount, table="definition with weights (a segment sum: the weights "
                            "differentiated; x: non-negative ints); without, the counts (no "
                            "gradient)")
def _bincount(given):
    """With weights, the segment sum below; without, the counts: the rule
    (no gradient, rules/shapes.py)."""
    if "weights" not in given or const(given["weights"]) is None:
        return None
    return bincount_weighted


@chosen(decided=())
def bincount_weighted(x, weights, minlength=0):
    """np.bincount(x, weights): the sum of the weights of each value of the
    non-negative ints x, in max(x) + 1 bins, at least minlength."""
    n = minlength
    if x.shape[0] > 0:
        if np.min(x) < 0:
            raise ValueError("'list' argument must have no negative elements")
        n = max(np.max(x) + 1, minlength)
    out = np.zeros(n)
    for k in range(x.shape[0]):
        out[x[k]] += weights[k]
    return out
