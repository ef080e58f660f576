"""Run-time helpers for a Python list of arrays (or numbers) that a function
grows and reads by index, the tape of a time loop: `np.stack` of it (numba's
takes tuples only), and, for its adjoint, a list of zeros shaped like its
elements and the rows of a stacked cotangent added back into the elements'.

Like s2sad.runtime (which re-exports every name here), this module needs
numpy and numba only: exported derivatives copy it in."""
import numpy as np
from s2sad.lazy_numba import overload, types

__all__ = ["stack_list", "zeros_list", "add_rows"]


def stack_list(items):
    """np.stack(items) of a list: its elements along a new first axis
    (numpy's ValueError for elements of other shapes). An empty list gives
    an empty float array, as np.array([]) does, so that sum(hs), np.mean(hs)
    or np.array(hs) of a list that stayed empty is numpy's (0.0, nan, an
    empty array); compiled, a list of arrays cannot (its stack would have
    another number of dimensions) and raises numpy's ValueError."""
    if len(items) == 0:
        return np.empty(0)
    return np.stack(items)


@overload(stack_list)
def _stack_list(items):
    if not isinstance(items, types.List):
        return None
    from numba.np.numpy_support import as_dtype
    item = items.dtype
    if isinstance(item, types.Array):
        dtype = as_dtype(item.dtype)

        def impl(items):
            n = len(items)
            if n == 0:
                raise ValueError("need at least one array to stack")
            shape = items[0].shape
            out = np.empty((n,) + shape, dtype)
            for k in range(n):
                if items[k].shape != shape:
                    raise ValueError("all input arrays must have the same shape")
                out[k] = items[k]
            return out
        return impl
    if isinstance(item, types.Number):
        dtype = as_dtype(item)

        def impl_numbers(items):
            n = len(items)
            out = np.empty(n, dtype)  # (n == 0: np.array([]))
            for k in range(n):
                out[k] = items[k]
            return out
        return impl_numbers
    return None


def zeros_list(items):
    """A new list of zeros shaped like each element of `items` (the adjoint
    of a list, element by element)."""
    return [np.zeros_like(e) if isinstance(e, np.ndarray) else 0.0 * e for e in items]


@overload(zeros_list)
def _zeros_list(items):
    if not isinstance(items, types.List):
        return None
    if isinstance(items.dtype, types.Array):
        return lambda items: [np.zeros_like(e) for e in items]
    return lambda items: [0.0 * e for e in items]


def add_rows(adjoints, g):
    """adjoints[k] = adjoints[k] + g[k] for every element: the cotangent of
    np.stack of a list, added into its elements' adjoints (new arrays, never
    in place: an adjoint in the list may be another name's array too)."""
    for k in range(len(adjoints)):
        adjoints[k] = adjoints[k] + g[k]


@overload(add_rows)
def _add_rows(adjoints, g):
    if not isinstance(adjoints, types.List):
        return None

    def impl(adjoints, g):
        for k in range(len(adjoints)):
            adjoints[k] = adjoints[k] + g[k]
    return impl
