"""numpy shape and selection functions s2sad differentiates through
definitions in terms of functions that have rules: np.take, np.select,
np.meshgrid, np.reshape with order='F' and np.diff with prepend= /
append=."""
import numpy as np

from .registry import NotImplementedArgument, chosen, chooses, const, define


@define(np.take, table="definition: a; indices (no gradient); axis: None, or an int with 1-d "
                     "indices")
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


@define(np.select, table="definition: condlist (no gradient); choicelist (of one shape); "
                         "default")
def select(condlist, choicelist, default=0):
    """np.select of conditions and choices of one shape (each given as a
    list, stacked): the first choice whose condition holds, else default."""
    out = default + 0.0 * choicelist[0] + np.zeros(np.shape(condlist[0]))
    for k in range(len(condlist) - 1, -1, -1):
        out = np.where(condlist[k] != 0, choicelist[k], out)  # (a bool: no gradient)
    return out


@define(np.meshgrid, table="definition: x; y (two arrays); indexing: 'xy' or 'ij' (sparse, "
                             "copy refused)")
def meshgrid(x, y, indexing="xy"):
    """np.meshgrid of two arrays (flattened, as numpy does): the grids whose
    rows repeat x and whose columns repeat y ('xy'), or the transposes of
    those ('ij')."""
    xs, ys = np.ravel(x), np.ravel(y)
    if indexing == "xy":
        return np.outer(np.ones(ys.size), xs), np.outer(ys, np.ones(xs.size))
    if indexing == "ij":
        return np.outer(xs, np.ones(ys.size)), np.outer(np.ones(xs.size), ys)
    raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")


@chosen(decided="order")
def reshape_fortran(a, shape):
    """np.reshape(a, shape, order="F"): the C-order reshape of the reversed
    axes, reversed back."""
    if isinstance(shape, int):
        return np.ravel(np.transpose(a))
    # (numba reshapes contiguous arrays only)
    return np.transpose(np.reshape(np.ascontiguousarray(np.transpose(a)), shape[::-1]))


@chooses(np.reshape, table="definition with order='F' (order 'A' refused)")
def _reshape(given):
    if "order" not in given:
        return None
    order = const(given["order"])
    if order == "C":
        return None  # numpy's default: the rule
    if order == "F":
        return reshape_fortran
    raise NotImplementedArgument("s2sad differentiates np.reshape with order 'C' or 'F', "
                                 "written as a constant (order 'A' depends on the memory "
                                 "layout of the array)")


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


@chooses(np.diff, table="definition with prepend= / append= (a number or an array, "
                         "differentiated)")
def _diff(given):
    """np.diff with prepend= or append=."""
    if "prepend" not in given and "append" not in given:
        return None
    return diff_padded
