"""numpy products s2sad differentiates through definitions in terms of
functions that have rules: np.vdot, and np.convolve in its three modes
(a constant mode chooses the definition)."""
import numpy as np

from .registry import NotImplementedArgument, chosen, chooses, const, define


@define(np.vdot)
def vdot(a, b):
    """np.vdot of real arrays: the sum of the products of the flattened
    arrays (complex ones, which it conjugates, are refused upstream)."""
    return np.sum(np.ravel(a) * np.ravel(b))


def _full_convolution(a, v):
    """sum_j a[i - j] v[j] for every i: one shifted copy of a per element of v."""
    if a.ndim != 1 or v.ndim != 1:
        raise ValueError("np.convolve takes 1-d arrays")
    n = a.shape[0]
    m = v.shape[0]
    if n == 0 or m == 0:
        raise ValueError("np.convolve: a and v must not be empty")
    full = np.zeros(n + m - 1)
    for j in range(m):
        full[j:j + n] = full[j:j + n] + a * v[j]
    return full


@chosen(decided="mode")
def convolve_full(a, v):
    """np.convolve(a, v) (mode 'full')."""
    return _full_convolution(a, v)


@chosen(decided="mode")
def convolve_same(a, v):
    """np.convolve(a, v, 'same'): max(len(a), len(v)) values, centred as numpy centres them."""
    full = _full_convolution(a, v)
    start = (min(a.shape[0], v.shape[0]) - 1) // 2
    return full[start:start + max(a.shape[0], v.shape[0])]


@chosen(decided="mode")
def convolve_valid(a, v):
    """np.convolve(a, v, 'valid'): where the shorter array lies wholly inside the longer."""
    full = _full_convolution(a, v)
    return full[min(a.shape[0], v.shape[0]) - 1:max(a.shape[0], v.shape[0])]


@chooses(np.convolve, table="definition: a: 1-d; v: 1-d; mode: 'full', 'same' or 'valid' (a "
                             "constant)")
def _convolve(given):
    mode = const(given["mode"]) if "mode" in given else "full"
    chosen_mode = {"full": convolve_full, "same": convolve_same,
                   "valid": convolve_valid}.get(mode) if isinstance(mode, str) else None
    if chosen_mode is None:
        raise NotImplementedArgument("s2sad differentiates np.convolve with mode 'full', "
                                     "'same' or 'valid', written as a constant")
    return chosen_mode
