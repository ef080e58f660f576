"""numpy forms s2sad differentiates through definitions (registered by
numpy_definitions.py, as the others there): `np.ptp`, the ufunc methods
`np.add.accumulate`, `np.multiply.accumulate`, `np.maximum.accumulate`,
`np.minimum.accumulate`, and `np.add.at` / `np.subtract.at` as values
(transforms/frontend/effects/hidden_writes.py spells the statement `np.add.at(u, i, v)` as
`u[...] = np.add.at(u, i, v)`, whose call is `add_at` below).

Each follows numpy's semantics for what it takes; the gradient at a tie is
that of the functions it is written with (np.max / np.min share it equally,
as JAX does, and so do np.maximum / np.minimum)."""
import numpy as np


def ptp(a, axis=None, keepdims=False):
    """np.ptp: the maximum minus the minimum (ties share the gradient, as
    np.max's; a constant slice has ptp 0 and gradient 0)."""
    return np.max(a, axis=axis) - np.min(a, axis=axis)


def ptp_kept(a, axis=None, keepdims=True):
    """np.ptp(a, axis, keepdims=True)."""
    return np.max(a, axis=axis, keepdims=True) - np.min(a, axis=axis, keepdims=True)


def _one_axis(array, axis):
    """`array` with the axis a ufunc's accumulate runs along moved first
    (axis None: a 1-d array; numpy refuses it for others)."""
    if axis is None:
        if array.ndim != 1:
            raise ValueError("accumulate does not allow multiple axes")
        return array
    return np.moveaxis(array, axis, 0)


def add_accumulate(array, axis=0, dtype=None, out=None):
    """np.add.accumulate: np.cumsum along `axis` (0 by default, as for
    every ufunc's accumulate, not flattened)."""
    if axis is None:
        return np.cumsum(_one_axis(array, axis))
    return np.cumsum(array, axis=axis)


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


def subtract_at(a, indices, b):
    """np.subtract.at(a, indices, b) as a value: add_at of -b (a - b and
    a + -b are the same floating-point numbers)."""
    return add_at(a, indices, -b)


def _keepdims(given, const, not_constant, refuse):
    """np.ptp: the definition keepdims (a constant) chooses; out= refused."""
    refuse(np.ptp, given, {"out": ((None,), "Leave out out= (assign the result instead)")})
    if "keepdims" not in given:
        return ptp
    keep = const(given["keepdims"], not_constant)
    if keep not in (True, False):
        from .transforms.errors import NotImplementedArgument
        raise NotImplementedArgument("s2sad differentiates np.ptp with keepdims written as the "
                                     "constant True or False")
    return ptp_kept if keep else ptp


DEFINITIONS = {np.add.accumulate: add_accumulate, np.multiply.accumulate: multiply_accumulate,
               np.maximum.accumulate: maximum_accumulate,
               np.minimum.accumulate: minimum_accumulate,
               np.add.at: add_at, np.subtract.at: subtract_at}

# np.add.accumulate's dtype= and out= (numpy_definitions._NOT_IMPLEMENTED)
_ACCUMULATE_REFUSED = {
    "dtype": ((None,), "Leave out dtype= (cast the array first: x.astype(np.float64))"),
    "out": ((None,), "Leave out out= (assign the result instead)")}
NOT_IMPLEMENTED = {np.add.accumulate: _ACCUMULATE_REFUSED,
                   np.multiply.accumulate: _ACCUMULATE_REFUSED,
                   np.maximum.accumulate: _ACCUMULATE_REFUSED,
                   np.minimum.accumulate: _ACCUMULATE_REFUSED}

TABLE = [
    (np.ptp, "definition: a; axis: None, an int or a tuple of ints; keepdims: True or False, "
             "written as a constant (np.max - np.min: ties share the gradient)"),
    (np.add.accumulate, "definition (np.cumsum along axis): array; axis: an int (0 by default) "
                        "or None for a 1-d array (dtype=, out= refused)"),
    (np.multiply.accumulate, "definition (a running product along axis): array; axis: as "
                             "np.add.accumulate"),
    (np.maximum.accumulate, "definition (a running np.maximum): array; axis: as "
                            "np.add.accumulate; a tie: shared, as np.maximum's"),
    (np.minimum.accumulate, "definition (a running np.minimum): array; axis: as "
                            "np.add.accumulate; a tie: shared, as np.maximum's"),
    (np.add.at, "definition (the statement np.add.at(u, indices, b) as u[...] = ...): a; "
                "indices: an int or a 1-d array of ints (no gradient); b (broadcast)"),
    (np.subtract.at, "definition: as np.add.at"),
]
