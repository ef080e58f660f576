"""numpy call forms numba lacks, along an axis or with a dtype: `x.astype(dtype)`,
np.squeeze with an axis, np.diff / np.repeat / np.roll / np.sort along an
axis, np.pad ('constant' and 'edge'), the gradient of np.pad, and
np.hstack / vstack / column_stack of an array's rows (a list of arrays
built in a loop is an array in generated code; numba's take tuples). The late
pass (transforms/emit/numba_forms.py) rewrites a call into one of these by
the table of s2sad/forms.py.

Each helper is plain numpy (jit=False, NUMBA_DISABLE_JIT=1) with a numba
overload that generates code for the argument types: an array along an
axis is read as (before, n, after) blocks, so one loop serves every rank.
np.squeeze without an axis is not here: its result's rank depends on the
shape, which numba must know when it compiles."""
import numpy as np
from s2sad.lazy_numba import as_dtype, overload, register_jitable, types

__all__ = ["reshape_of", "astype_of", "squeeze_axis", "diff_axis", "repeat_axis", "cumsum_axis", "roll_axis",
           "sort_axis", "flip_axis", "pad_of", "unpad_of", "scatter_sum_axis", "hstack_of", "vstack_of",
           "column_stack_of", "diag_indices_of", "diag_indices_from_of", "diagonal_of"]


def _array(t):
    return isinstance(t, types.Array)


def _omitted(t):
    return t is None or isinstance(t, (types.NoneType, types.Omitted))


def _compiled_axes(src, name, env=None):
    scope = {"np": np, "_blocks": _blocks, "_axis_of": _axis_of}
    scope.update(env or {})
    exec(src, scope)
    return scope[name]


@register_jitable
def _axis_of(axis, ndim):
    """numpy's axis (negative from the end), checked."""
    ax = axis + ndim if axis < 0 else axis
    if ax < 0 or ax >= ndim:
        raise ValueError("axis out of bounds")
    return ax


@register_jitable
def _blocks(shape, ax):
    """(before, n, after): the sizes of the axes before `ax`, of `ax`, after it."""
    before, after = 1, 1
    for i in range(len(shape)):
        if i < ax:
            before *= shape[i]
        elif i > ax:
            after *= shape[i]
    return before, shape[ax], after


def _shape_with(nd, length):
    """Source of the shape `a.shape` with axis `ax` of length `length`."""
    return "(" + "".join(f"{length} if ax == {i} else a.shape[{i}], " for i in range(nd)) + ")"


# ---- np.reshape(x, shape), x.reshape(shape) ---------------------------------------

def reshape_of(a, shape):
    """np.reshape(a, shape); compiled, also of an array that is not
    contiguous (a slice: numba's reshape takes contiguous arrays only),
    which is copied first, as numpy copies it."""
    return np.reshape(a, shape)


@overload(reshape_of)
def _reshape_of(a, shape):
    if not _array(a):
        return lambda a, shape: np.reshape(np.asarray(a), shape)
    if a.layout == "C":
        return lambda a, shape: a.reshape(shape)
    # (a contiguous array at run time is not copied)
    return lambda a, shape: np.ascontiguousarray(a).reshape(shape)


# ---- x.astype(dtype) --------------------------------------------------------------

def astype_of(x, dtype):
    return np.asarray(x).astype(dtype) if np.ndim(x) else np.dtype(dtype).type(x)


@overload(astype_of)
def _astype_of(x, dtype):
    if isinstance(dtype, types.NumberClass):
        target = as_dtype(dtype.instance_type)
    elif isinstance(dtype, types.DType):
        target = as_dtype(dtype.dtype)
    elif isinstance(dtype, (types.StringLiteral, types.Literal)):
        target = np.dtype(dtype.literal_value)
    elif isinstance(dtype, types.Function) and dtype.typing_key in (float, int, bool):
        target = np.dtype(dtype.typing_key)
    else:
        return None
    scalar = target.type
    if _array(x):
        return lambda x, dtype: x.astype(scalar)
    return lambda x, dtype: scalar(x)


# ---- np.squeeze(a, axis) of an int axis or a tuple of them -----------------------------

def squeeze_axis(a, axis=None):
    return np.squeeze(a, axis=axis)


@overload(squeeze_axis)
def _squeeze_axis(a, axis=None):
    if not _array(a) or _omitted(axis):
        return None
    k = len(axis) if isinstance(axis, types.BaseTuple) else 1
    nd = a.ndim
    axes = "axis" if isinstance(axis, types.BaseTuple) else "(axis,)"
    lines = ["def impl(a, axis=None):",
             f"    drop = np.zeros({nd}, dtype=np.bool_)",
             f"    for ax in {axes}:",
             f"        i = _axis_of(ax, {nd})",
             "        if a.shape[i] != 1:",
             "            raise ValueError('cannot select an axis to squeeze out which has size "
             "not equal to one')",
             "        drop[i] = True",
             f"    keep = np.empty({nd - k}, dtype=np.int64)",
             "    j = 0",
             f"    for i in range({nd}):",
             "        if not drop[i]:",
             "            keep[j] = i",
             "            j += 1",
             "    shape = (" + "".join(f"a.shape[keep[{i}]], " for i in range(nd - k)) + ")",
             "    return np.ascontiguousarray(a).reshape(shape)"]
    return _compiled_axes("\n".join(lines), "impl")


# ---- np.diff, np.repeat, np.roll, np.sort along an axis -----------------------------------

def diff_axis(a, n=1, axis=-1):
    return np.diff(a, n, axis)


@overload(diff_axis)
def _diff_axis(a, n=1, axis=-1):
    if not _array(a):
        return None
    nd = a.ndim
    src = f"""def impl(a, n=1, axis=-1):
    ax = _axis_of(axis, {nd})
    before, m, after = _blocks(a.shape, ax)
    cur = np.ascontiguousarray(a).reshape((before, m, after)) * 1.0
    for step in range(n):
        size = m - step - 1
        nxt = np.empty((before, max(size, 0), after))
        for i in range(before):
            for j in range(size):
                for k in range(after):
                    nxt[i, j, k] = cur[i, j + 1, k] - cur[i, j, k]
        cur = nxt
    return cur.reshape({_shape_with(nd, "max(m - n, 0)")})
"""
    return _compiled_axes(src, "impl")


def repeat_axis(a, repeats, axis=None):
    return np.repeat(a, repeats, axis)


@overload(repeat_axis)
def _repeat_axis(a, repeats, axis=None):
    if not _array(a) or not isinstance(repeats, types.Integer):
        return None
    if _omitted(axis):
        return lambda a, repeats, axis=None: np.repeat(a, repeats)
    nd = a.ndim
    src = f"""def impl(a, repeats, axis=None):
    ax = _axis_of(axis, {nd})
    before, m, after = _blocks(a.shape, ax)
    src = np.ascontiguousarray(a).reshape((before, m, after))
    out = np.empty((before, m * repeats, after), dtype=a.dtype)
    for i in range(before):
        for j in range(m * repeats):
            for k in range(after):
                out[i, j, k] = src[i, j // repeats, k]
    return out.reshape({_shape_with(nd, "m * repeats")})
"""
    return _compiled_axes(src, "impl")


def cumsum_axis(a, axis=None):
    return np.cumsum(a, axis=axis)


@overload(cumsum_axis)
def _cumsum_axis(a, axis=None):
    if not _array(a):
        return None
    if _omitted(axis):
        return lambda a, axis=None: np.cumsum(a)
    nd = a.ndim
    src = f"""def impl(a, axis=None):
    ax = _axis_of(axis, {nd})
    before, m, after = _blocks(a.shape, ax)
    src = np.ascontiguousarray(a).reshape((before, m, after))
    out = np.empty((before, m, after), dtype=a.dtype)
    for i in range(before):
        for k in range(after):
            for j in range(m):
                out[i, j, k] = src[i, j, k] if j == 0 else out[i, j - 1, k] + src[i, j, k]
    return out.reshape(a.shape)
"""
    return _compiled_axes(src, "impl")


def roll_axis(a, shift, axis=None):
    return np.roll(a, shift, axis)


@register_jitable
def _roll_one(a, shift, ax):
    before, m, after = _blocks(a.shape, ax)
    src = np.ascontiguousarray(a).reshape((before, m, after))
    out = np.empty((before, m, after), dtype=a.dtype)
    s = shift % m if m else 0
    for i in range(before):
        for j in range(m):
            for k in range(after):
                out[i, (j + s) % m, k] = src[i, j, k]
    return out.reshape(a.shape)


@overload(roll_axis)
def _roll_axis(a, shift, axis=None):
    if not _array(a) or not isinstance(shift, types.Integer):
        return None
    if _omitted(axis):  # (numba's np.roll takes 1-d arrays only)
        return lambda a, shift, axis=None: _roll_one(a.ravel(), shift, 0).reshape(a.shape)
    nd = a.ndim
    if isinstance(axis, types.BaseTuple):
        def over_axes(a, shift, axis=None):
            out = a.copy()
            for ax in axis:
                out = _roll_one(out, shift, _axis_of(ax, nd))
            return out
        return over_axes
    return lambda a, shift, axis=None: _roll_one(a, shift, _axis_of(axis, nd))


def flip_axis(m, axis=None):
    return np.flip(m, axis)


@register_jitable
def _flip_one(a, ax):
    before, n, after = _blocks(a.shape, ax)
    src = np.ascontiguousarray(a).reshape((before, n, after))
    out = np.empty((before, n, after), dtype=a.dtype)
    for i in range(before):
        for j in range(n):
            for k in range(after):
                out[i, n - 1 - j, k] = src[i, j, k]
    return out.reshape(a.shape)


@overload(flip_axis)
def _flip_axis(m, axis=None):
    """np.flip(m, axis) (numba's np.flip takes no axis): a copy."""
    if not _array(m):
        return None
    nd = m.ndim
    if _omitted(axis):
        return lambda m, axis=None: np.flip(m).copy()
    if isinstance(axis, types.BaseTuple):
        def over_axes(m, axis=None):
            out = m.copy()
            for ax in axis:
                out = _flip_one(out, _axis_of(ax, nd))
            return out
        return over_axes
    if isinstance(axis, types.Integer):
        return lambda m, axis=None: _flip_one(m, _axis_of(axis, nd))
    return None


def sort_axis(a, axis=-1, kind=None):
    return np.sort(a, axis=axis, kind=kind)


@overload(sort_axis)
def _sort_axis(a, axis=-1, kind=None):
    if not _array(a):
        return None
    if isinstance(axis, types.NoneType):  # (an omitted axis is numpy's -1)
        return lambda a, axis=-1, kind=None: np.sort(a.ravel())
    nd = a.ndim

    def impl(a, axis=-1, kind=None):
        ax = _axis_of(axis, nd)
        before, m, after = _blocks(a.shape, ax)
        src = np.ascontiguousarray(a).reshape((before, m, after))
        out = np.empty((before, m, after), dtype=a.dtype)
        for i in range(before):
            for k in range(after):
                out[i, :, k] = np.sort(src[i, :, k].copy())
        return out.reshape(a.shape)
    return impl


# ---- np.pad: 'constant' (zeros) and 'edge' ---------------------------------------------

def pad_of(array, pad_width, mode="constant"):
    return np.pad(array, pad_width, mode=mode)


def unpad_of(g, array, pad_width, mode="constant"):
    """The cotangent of np.pad(array, pad_width, mode) for the modes
    'constant' (the padding is a constant: dropped) and 'edge' (each padded
    element is a copy of an edge element: added to it)."""
    cur = np.array(g, dtype=float)
    w = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (cur.ndim, 2))
    for i in reversed(range(cur.ndim)) if mode == "edge" else ():
        moved = np.moveaxis(cur, i, 0)  # a view: the writes land in cur
        last = w[i, 0] + np.shape(array)[i] - 1
        moved[w[i, 0]] += moved[:w[i, 0]].sum(axis=0)
        moved[last] += moved[last + 1:].sum(axis=0)
    core = tuple(slice(w[i, 0], w[i, 0] + np.shape(array)[i]) for i in range(cur.ndim))
    return cur[core].copy()


def _widths_source(pad_width, nd):
    """Source of an (nd, 2) array of numpy's pad widths from pad_width's type:
    an int, (n,), (before, after), or one pair (or (n,)) per axis."""
    if isinstance(pad_width, types.Integer):
        return f"    w = np.full(({nd}, 2), pad_width, dtype=np.int64)"
    if not isinstance(pad_width, types.BaseTuple):
        return None
    items = list(pad_width.types)
    if all(isinstance(t, types.Integer) for t in items) and len(items) in (1, 2):
        last = 0 if len(items) == 1 else 1
        return (f"    w = np.empty(({nd}, 2), dtype=np.int64)\n    w[:, 0] = pad_width[0]\n"
                f"    w[:, 1] = pad_width[{last}]")
    if all(isinstance(t, types.BaseTuple) and len(t) in (1, 2) for t in items) and \
            len(items) in (1, nd):
        lines = [f"    w = np.empty(({nd}, 2), dtype=np.int64)"]
        for i in range(nd):
            row = 0 if len(items) == 1 else i
            last = 0 if len(items[row]) == 1 else 1
            lines += [f"    w[{i}, 0] = pad_width[{row}][0]",
                      f"    w[{i}, 1] = pad_width[{row}][{last}]"]
        return "\n".join(lines)
    return None


def _mode_is_edge(mode):
    if isinstance(mode, str):  # the default, when the call leaves it out
        value = mode
    elif isinstance(mode, types.Omitted):
        value = mode.value
    else:
        value = getattr(mode, "literal_value", None)
    if value not in ("constant", "edge"):
        return None
    return value == "edge"


def _core(nd):
    return ", ".join(f"w[{i}, 0]:w[{i}, 0] + array.shape[{i}]" for i in range(nd))


@overload(pad_of, prefer_literal=True)
def _pad_of(array, pad_width, mode="constant"):
    edge = _mode_is_edge(mode)
    widths = _widths_source(pad_width, array.ndim) if _array(array) else None
    if edge is None or widths is None:
        return None
    nd = array.ndim
    shape = "(" + "".join(f"array.shape[{i}] + w[{i}, 0] + w[{i}, 1], " for i in range(nd)) + ")"
    lines = ["def impl(array, pad_width, mode='constant'):", widths,
             f"    out = np.zeros({shape}, dtype=array.dtype)",
             f"    out[{_core(nd)}] = array"]
    if edge:  # axis by axis, copies of the first and the last slice
        for i in range(nd):
            at = ", ".join([":"] * i + ["{}"])
            lines += [f"    for j in range(w[{i}, 0]):",
                      f"        out[{at.format('j')}] = out[{at.format(f'w[{i}, 0]')}]",
                      f"    last = w[{i}, 0] + array.shape[{i}] - 1",
                      f"    for j in range(last + 1, out.shape[{i}]):",
                      f"        out[{at.format('j')}] = out[{at.format('last')}]"]
    lines.append("    return out")
    return _compiled_axes("\n".join(lines), "impl")


@overload(unpad_of, prefer_literal=True)
def _unpad_of(g, array, pad_width, mode="constant"):
    edge = _mode_is_edge(mode)
    widths = _widths_source(pad_width, array.ndim) if _array(array) else None
    if edge is None or widths is None or not _array(g):
        return None
    nd = array.ndim
    lines = ["def impl(g, array, pad_width, mode='constant'):", widths,
             "    cur = g.copy()"]
    if edge:  # axis by axis, last first: the padded slices added to the edge slices
        for i in reversed(range(nd)):
            at = ", ".join([":"] * i + ["{}"])
            lines += [f"    last = w[{i}, 0] + array.shape[{i}] - 1",
                      f"    for j in range(w[{i}, 0]):",
                      f"        cur[{at.format(f'w[{i}, 0]')}] += cur[{at.format('j')}]",
                      f"    for j in range(last + 1, cur.shape[{i}]):",
                      f"        cur[{at.format('last')}] += cur[{at.format('j')}]"]
    core = ", ".join(f"w[{i}, 0]:w[{i}, 0] + array.shape[{i}]" for i in range(nd))
    lines.append(f"    return cur[{core}].copy()")
    return _compiled_axes("\n".join(lines), "impl")


# ---- the cotangent of x[1:, idx]: an index array after slices -----------------------------

def scatter_sum_axis(values, index, like, axis):
    """Zeros shaped like `like`, with the slices of `values` along `axis`
    (as many as `index` has entries, in its shape) added at `index` along that
    axis, repeated indices adding up: the cotangent of `like[:, ..., index]`
    with `axis` slices before the index array."""
    out = np.zeros(np.shape(like), dtype=np.result_type(values, float))
    np.add.at(out, (slice(None),) * axis + (index,), values)
    return out


@overload(scatter_sum_axis)
def _scatter_sum_axis(values, index, like, axis):
    if not (_array(values) and _array(index) and index.ndim == 1) \
            or isinstance(index.dtype, types.Boolean):
        return None  # (numba's reads take a 1-d index array after slices; a mask is no index)

    def impl(values, index, like, axis):
        before, n, after = _blocks(like.shape, axis)
        m = index.shape[0]
        out = np.zeros((before, n, after))
        v = np.ascontiguousarray(values).reshape((before, m, after))
        for i in range(before):
            for k in range(m):
                j = index[k] + n if index[k] < 0 else index[k]
                for q in range(after):
                    out[i, j, q] += v[i, k, q]
        return out.reshape(like.shape)
    return impl


# ---- np.hstack / vstack / column_stack of the rows of an array ----------------------------

def hstack_of(tup):
    return np.hstack(tup)


def vstack_of(tup):
    return np.vstack(tup)


def column_stack_of(tup):
    return np.column_stack(tup)


def _rows_joined(numpy_fn, how):
    """The overload of a join of `tup`: numba's own for a tuple; for an
    array, its rows (items of ndim - 1) joined as numpy joins a sequence."""
    def typer(tup):
        if isinstance(tup, types.BaseTuple):
            return lambda tup: numpy_fn(tup)
        if not _array(tup) or tup.ndim not in (2, 3):
            return None
        if how == "v" and tup.ndim == 2:  # 1-d rows: the rows of a matrix
            return lambda tup: tup.copy()
        if how == "v":  # 2-d rows, one under the other
            return lambda tup: tup.copy().reshape((tup.shape[0] * tup.shape[1], tup.shape[2]))
        if how == "h" and tup.ndim == 2:  # 1-d rows, end to end
            return lambda tup: tup.copy().reshape(tup.size)
        if how == "c" and tup.ndim == 2:  # 1-d rows as columns
            return lambda tup: np.ascontiguousarray(tup.T)

        def impl(tup):  # 2-d rows side by side (hstack, column_stack)
            n, m, p = tup.shape
            out = np.empty((m, n * p), tup.dtype)
            for k in range(n):
                out[:, k * p:(k + 1) * p] = tup[k]
            return out
        return impl
    return typer


overload(hstack_of)(_rows_joined(np.hstack, "h"))
overload(vstack_of)(_rows_joined(np.vstack, "v"))
overload(column_stack_of)(_rows_joined(np.column_stack, "c"))


# ---- np.diag_indices (numba has none) ---------------------------------------------------

def diag_indices_of(n, ndim=2):
    return np.diag_indices(n, ndim)


def diag_indices_from_of(arr):
    return np.diag_indices_from(arr)


@overload(diag_indices_of)
def _diag_indices_of(n, ndim=2):
    count = ndim if isinstance(ndim, int) else getattr(ndim, "literal_value",
                                                       2 if _omitted(ndim) else None)
    if count is None:
        return None
    src = ("def impl(n, ndim=2):\n    i = np.arange(n)\n    return ("
           + "".join("i, " for _ in range(count)) + ")\n")
    return _compiled_axes(src, "impl")


@overload(diag_indices_from_of)
def _diag_indices_from_of(arr):
    if not _array(arr):
        return None
    src = ("def impl(arr):\n    i = np.arange(arr.shape[0])\n    return ("
           + "".join("i, " for _ in range(arr.ndim)) + ")\n")
    return _compiled_axes(src, "impl")


# ---- np.diagonal (numba has np.diag, of a matrix) ----------------------------------------

def diagonal_of(a, offset=0, axis1=0, axis2=1):
    return np.diagonal(a, offset, axis1, axis2)


@overload(diagonal_of)
def _diagonal_of(a, offset=0, axis1=0, axis2=1):
    if not _array(a) or a.ndim != 2:
        return None  # (more axes: no numba form, the derivative falls back with numba's reason)

    def impl(a, offset=0, axis1=0, axis2=1):
        first, second = axis1 % 2, axis2 % 2
        if first == second:
            raise ValueError("axis1 and axis2 cannot be the same")
        return np.diag(a.T if first == 1 else a, offset)  # (a new array, as numba makes it)
    return impl
