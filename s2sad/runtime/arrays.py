"""The forms of np.array and np.atleast_1d/2d/3d numba lacks, which
s2sad/forms.py rewrites calls into: np.array of a tuple or list of arrays,
np.array's copy with a dtype, np.atleast_*d of a number.

Like every module of s2sad.runtime, it needs numpy and numba only."""
import numpy as np
from s2sad.lazy_numba import overload, types

from .reductions import _not_given

__all__ = ["array_of", "array_copy", "atleast_1d_of", "atleast_2d_of", "atleast_3d_of"]


# ---- np.array of a tuple or list of arrays ---------------------------------------

def array_of(parts):
    """np.array(parts) of a tuple of equally shaped arrays (or of numbers):
    np.stack, which numba has."""
    return np.array(parts)


@overload(array_of)
def _array_of(parts):
    if isinstance(parts, types.BaseTuple) and len(parts) and \
            all(isinstance(t, types.Array) for t in parts.types):
        return lambda parts: np.stack(parts)
    if isinstance(parts, types.BaseTuple) and \
            all(isinstance(t, (types.Number, types.Boolean)) for t in parts.types):
        return lambda parts: np.array(parts)
    return None


def array_copy(object, dtype=None):
    """np.array(x) of an array (a copy) or a number (a 0-d array); dtype
    None or float64, the ones the gradient rule takes."""
    return np.array(object, dtype=dtype)


@overload(array_copy)
def _array_copy(object, dtype=None):
    if isinstance(object, types.Array):
        if _not_given(dtype):
            return lambda object, dtype=None: object.copy()
        return lambda object, dtype=None: object.astype(np.float64)
    if isinstance(object, (types.Number, types.Boolean)):
        if _not_given(dtype):
            return lambda object, dtype=None: np.array(object)
        return lambda object, dtype=None: np.array(np.float64(object))
    if isinstance(object, types.BaseTuple):  # a tuple variable: as a literal one
        if _not_given(dtype):
            return lambda object, dtype=None: array_of(object)
        return lambda object, dtype=None: array_of(object).astype(np.float64)
    return None


# ---- np.atleast_1d / 2d / 3d of a number (numba's take arrays only) ---------------------

def atleast_1d_of(arys):
    return np.atleast_1d(arys)


def atleast_2d_of(arys):
    return np.atleast_2d(arys)


def atleast_3d_of(arys):
    return np.atleast_3d(arys)


def _at_least(numpy_fn, ones):
    def typer(arys):
        if isinstance(arys, types.Array):
            return lambda arys: numpy_fn(arys)
        if isinstance(arys, (types.Number, types.Boolean)):
            return lambda arys: np.full(ones, arys)
        return None
    return typer


overload(atleast_1d_of)(_at_least(np.atleast_1d, (1,)))
overload(atleast_2d_of)(_at_least(np.atleast_2d, (1, 1)))
overload(atleast_3d_of)(_at_least(np.atleast_3d, (1, 1, 1)))
