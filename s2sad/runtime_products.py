"""Run-time helpers for the gradients of np.prod: for each element, the
product of the others along an axis (and its derivative, for second
derivatives), as exclusive running products, exact where elements are 0.

Re-exported by s2sad.runtime (generated code imports them from there);
needs numpy and numba only, so exported derivatives copy it in."""
import numpy as np
from numba.core import types
from numba.extending import overload, register_jitable

__all__ = ["prod_others", "prod_others_tangent"]


def _is_array(t):
    return isinstance(t, types.Array)


def _as_blocks(x, axis):
    """x as (before, n, after) blocks along `axis` (None: all of x as one
    row), and the transposition that undoes a tuple axis (or None)."""
    x = np.asarray(x, dtype=float)
    if axis is None:
        return x.reshape(1, -1, 1), None
    axes = tuple(a % x.ndim for a in (axis if isinstance(axis, tuple) else (axis,)))
    if len(axes) == 1:
        a = axes[0]
        return x.reshape(int(np.prod(x.shape[:a])), x.shape[a], -1), None
    order = [k for k in range(x.ndim) if k not in axes] + list(axes)
    moved = np.transpose(x, order)
    return moved.reshape(-1, int(np.prod([x.shape[a] for a in axes])), 1), order


def _from_blocks(blocks, x, order):
    if order is None:
        return blocks.reshape(np.shape(x))
    return np.transpose(blocks.reshape([np.shape(x)[k] for k in order]), np.argsort(order))


def _others(a, t):
    """Along axis 1 of the blocks: the product of the other elements, and
    (for t) its derivative along t, as exclusive running products from the
    left and the right: exact where elements are 0 (np.prod's rule divided
    by them)."""
    n = a.shape[1]
    left, right = np.ones_like(a), np.ones_like(a)
    dleft, dright = np.zeros_like(a), np.zeros_like(a)
    for j in range(1, n):
        left[:, j] = left[:, j - 1] * a[:, j - 1]
        dleft[:, j] = dleft[:, j - 1] * a[:, j - 1] + left[:, j - 1] * t[:, j - 1]
        k = n - 1 - j
        right[:, k] = right[:, k + 1] * a[:, k + 1]
        dright[:, k] = dright[:, k + 1] * a[:, k + 1] + right[:, k + 1] * t[:, k + 1]
    return left * right, dleft * right + left * dright


def prod_others(x, axis=None):
    """For each element of x, the product of the others along `axis` (all of
    x for None): the partial derivatives of np.prod(x, axis)."""
    if np.ndim(x) == 0:
        return 1.0
    blocks, order = _as_blocks(x, axis)
    return _from_blocks(_others(blocks, np.zeros_like(blocks))[0], x, order)


def prod_others_tangent(x, t, axis=None):
    """The derivative of prod_others(x, axis) along t (second derivatives
    of np.prod)."""
    if np.ndim(x) == 0:
        return 0.0
    blocks, order = _as_blocks(x, axis)
    return _from_blocks(_others(blocks, _as_blocks(t, axis)[0])[1], x, order)


def _axis_blocks(x, axis):
    """The (before, n, after) view of _as_blocks, for an int axis (numba)."""
    ax = axis + x.ndim if axis < 0 else axis
    before = 1
    for k in range(ax):
        before *= x.shape[k]
    n = x.shape[ax]
    return np.ascontiguousarray(x).reshape((before, n, x.size // max(before * n, 1)))


def _whole_blocks(x, axis):
    return np.ascontiguousarray(x).reshape((1, x.size, 1))


_others_jit = register_jitable(_others)


def _blocks_for(axis):
    whole = axis is None or isinstance(axis, (types.NoneType, types.Omitted))
    return register_jitable(_whole_blocks if whole else _axis_blocks)


@overload(prod_others)
def _prod_others(x, axis=None):
    if not _is_array(x):
        return lambda x, axis=None: 1.0
    blocks = _blocks_for(axis)

    def impl(x, axis=None):
        a = blocks(x, axis)
        return _others_jit(a, np.zeros_like(a))[0].reshape(x.shape)
    return impl


@overload(prod_others_tangent)
def _prod_others_tangent(x, t, axis=None):
    if not _is_array(x):
        return lambda x, t, axis=None: 0.0
    blocks = _blocks_for(axis)

    def impl(x, t, axis=None):
        return _others_jit(blocks(x, axis), blocks(t, axis))[1].reshape(x.shape)
    return impl
