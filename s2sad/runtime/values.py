"""Run-time helpers for values: zeros and ones shaped like a value (a
number, an array, a tuple of them), digamma (lgamma's derivative, which
numba lacks) and x.item().

Like s2sad.runtime (which re-exports every name here), this module needs
numpy and numba only: exported derivatives copy it in. Also `a ** b` as
Python computes it (`python_power`, for exponents that may be negative),
and an element of a range stored in a name (`range_item`: numba indexes
no range), and a copy of a value the compiler could not tell an array or a
number (`value_copy`: a tape's record of it; numbers have no `.copy()`).
"""
import math

import numpy as np
from s2sad.lazy_numba import overload, types

__all__ = ["zeros_like", "ones_like", "digamma", "item_of", "python_power", "range_item",
           "value_copy"]


def _is_array(t):
    return isinstance(t, types.Array)


def zeros_like(x):
    """Zeros shaped like x; for a tuple or list (the parts of np.split(x, n),
    a helper's tuple parameter) a list of them, which the adjoint adds into."""
    if isinstance(x, (list, tuple)):
        return [zeros_like(v) for v in x]
    return np.zeros_like(x) if isinstance(x, np.ndarray) else 0.0 * x


@overload(zeros_like)
def _zeros_like(x):
    if _is_array(x):
        return lambda x: np.zeros_like(x)
    if isinstance(x, types.UniTuple) and isinstance(x.dtype, types.Number):
        return lambda x: np.zeros(len(x))  # (numba's lists of numbers: an array does)
    if isinstance(x, types.UniTuple) and _is_array(x.dtype):
        return lambda x: [np.zeros_like(x[k]) for k in range(len(x))]
    return lambda x: 0.0 * x


def ones_like(x):
    return np.ones_like(x) if isinstance(x, np.ndarray) else 1.0 + 0.0 * x


@overload(ones_like)
def _ones_like(x):
    if _is_array(x):
        return lambda x: np.ones_like(x)
    return lambda x: 1.0 + 0.0 * x


def digamma(x):
    """The derivative of lgamma (scipy's digamma is not available in numba)."""
    if isinstance(x, np.ndarray):
        return np.vectorize(_digamma_scalar)(x)
    return _digamma_scalar(x)


def _digamma_scalar(x):
    if x <= 0.0 and (math.isinf(x) or math.floor(x) == x):  # poles (floor(-inf) raises)
        return math.nan
    result = 0.0
    if x < 0.0:  # reflection: digamma(x) = digamma(1 - x) - pi / tan(pi x)
        result = -math.pi / math.tan(math.pi * x)
        x = 1.0 - x
    while x < 6.0:  # recurrence up to where the asymptotic series is accurate
        result -= 1.0 / x
        x += 1.0
    f = 1.0 / (x * x)
    series = f * (-1.0 / 12 + f * (1.0 / 120 + f * (-1.0 / 252 + f * (1.0 / 240 + f * (-1.0 / 132)))))
    return result + math.log(x) - 0.5 / x + series


@overload(digamma)
def _digamma(x):
    from numba import njit
    scalar = njit(_digamma_scalar)
    if _is_array(x):
        def impl(x):
            out = np.empty(x.shape)
            flat_out = out.ravel()
            flat_x = np.ascontiguousarray(x).ravel()
            for k in range(flat_x.size):
                flat_out[k] = scalar(flat_x[k])
            return out
        return impl
    return lambda x: scalar(x)


def item_of(x):
    """x.item() with no arguments: the one element of a size-1 array (or
    the number itself) as a scalar."""
    if isinstance(x, np.ndarray):
        if x.size != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        return x.reshape(-1)[0]
    return x


@overload(item_of)
def _item_of(x):
    if _is_array(x):
        def impl(x):
            if x.size != 1:
                raise ValueError("can only convert an array of size 1 to a Python scalar")
            return x.ravel()[0]
        return impl
    return lambda x: x


def python_power(a, b):
    """a ** b, written for an exponent that may be a negative integer
    (emit/numba_forms.py). Python gives a float for an integer to a negative
    integer power (2 ** -1 == 0.5) where numba gives an integer (0): compiled,
    that raises instead of computing a wrong value."""
    return a ** b


@overload(python_power)
def _power(a, b):
    ints = isinstance(b, types.Integer) and (isinstance(a, types.Integer) or (
        _is_array(a) and isinstance(a.dtype, types.Integer)))
    if not ints:
        return lambda a, b: a ** b

    def impl(a, b):
        if b < 0:
            raise ValueError("an integer to a negative integer power: Python gives a float "
                             "(2 ** -1 is 0.5), compiled code an integer (0); write the "
                             "base as a float (2.0 ** -k) or run with jit=False")
        return a ** b
    return impl


def range_item(start, stop, step, k):
    """range(start, stop, step)[k]: an int index, negative too, and
    Python's IndexError out of range."""
    return range(start, stop, step)[k]


@overload(range_item)
def _range_item(start, stop, step, k):
    def impl(start, stop, step, k):
        n = len(range(start, stop, step))
        if k < 0:
            k += n
        if k < 0 or k >= n:
            raise IndexError("range object index out of range")
        return start + k * step
    return impl


def value_copy(x):
    """A copy of x if it is an array, else x itself (a number)."""
    return x.copy() if isinstance(x, np.ndarray) else x


@overload(value_copy)
def _value_copy(x):
    if _is_array(x):
        return lambda x: x.copy()
    return lambda x: x
