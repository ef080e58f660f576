"""Run-time helpers of numpy's shape, stacking and sorting functions: the
pieces of their gradients (the forms numba lacks of np.array and
np.atleast_*d: arrays.py).

Like every module of s2sad.runtime (which re-exports it, so generated code
imports them from there), it needs numpy and numba only: exported
derivatives copy it in. Each helper is plain numpy; the ones whose primal
numba compiles also have a numba overload. The others (np.pad, np.einsum,
np.tile, ... are not numba functions) run only in derivatives that fall
back to Python anyway.
"""
import numpy as np
from s2sad.lazy_numba import overload, register_jitable, types

__all__ = ["diag_embed", "diagonal_embed", "unrepeat", "undiff", "unpermute", "permute_like", "unpad", "untile",
           "unrollaxis", "append_head", "append_tail", "unstack_nd", "stack_nd", "cross_grad",
           "cross_grad_left", "cross_grad_right", "unsplit", "slogdet_tangent"]
# (the helpers returning their first argument, or a view of it)
MAY_RETURN_FIRST_ARGUMENT = ("unstack_nd",)


def _array(t):
    return isinstance(t, types.Array)


def _omitted(t):
    return t is None or isinstance(t, (types.NoneType, types.Omitted))


def _shape_blocks(shape, axis):
    """(before, n, after) of an array of `shape` along `axis` (None: all)."""
    if axis is None:
        return 1, int(np.prod(shape)), 1
    axis = axis % len(shape)
    return int(np.prod(shape[:axis])), shape[axis], int(np.prod(shape[axis + 1:]))


@register_jitable
def _blocks_of(shape, axis):
    nd = len(shape)
    ax = axis + nd if axis < 0 else axis
    before, after = 1, 1
    for k in range(ax):
        before *= shape[k]
    for k in range(ax + 1, nd):
        after *= shape[k]
    return before, shape[ax], after


# ---- np.diag of a matrix -------------------------------------------------------

def diag_embed(g, v, k=0):
    """Zeros shaped like the matrix `v`, with `g` on its k-th diagonal (the
    cotangent of np.diag(v, k) and np.diagonal(v, k) of a matrix)."""
    out = np.zeros(np.shape(v), dtype=np.result_type(g, float))
    n = np.size(g)
    rows = np.arange(n) + max(-k, 0)
    out[rows, rows + k] = g
    return out


@overload(diag_embed)
def _diag_embed(g, v, k=0):
    def impl(g, v, k=0):
        out = np.zeros(v.shape)
        r0 = -k if k < 0 else 0
        for j in range(g.shape[0]):
            out[r0 + j, r0 + j + k] = g[j]
        return out
    return impl


def diagonal_embed(g, a, offset=0, axis1=0, axis2=1):
    """Zeros shaped like `a`, with `g` on the offset diagonal of axes axis1
    and axis2 (the cotangent of np.diagonal(a, offset, axis1, axis2), whose
    diagonal is g's last axis; np.trace's cotangent, g with a last axis of
    size 1, is g along the whole diagonal). Runs as Python: numba has no
    np.moveaxis."""
    out = np.zeros(np.shape(a), dtype=np.result_type(g, float))
    view = np.moveaxis(out, (axis1, axis2), (-2, -1))  # a view: writing it writes out
    n = max(0, min(view.shape[-2] + min(offset, 0), view.shape[-1] - max(offset, 0)))
    rows = np.arange(n) + max(-offset, 0)
    view[..., rows, rows + offset] = g
    return out


# ---- np.repeat with an int count, np.diff ------------------------------------------

def unrepeat(g, a, repeats, axis=None):
    """The cotangent of np.repeat(a, repeats, axis), repeats an int: the sum
    of each element's copies."""
    before, n, after = _shape_blocks(np.shape(a), axis)
    blocks = np.reshape(g, (before, n, repeats, after))
    return np.reshape(blocks.sum(axis=2), np.shape(a))


@overload(unrepeat)
def _unrepeat(g, a, repeats, axis=None):
    whole = _omitted(axis)
    if not _array(a):
        return lambda g, a, repeats, axis=None: np.sum(g)

    def impl(g, a, repeats, axis=None):
        if whole:
            before, n, after = 1, a.size, 1
        else:
            before, n, after = _blocks_of(a.shape, axis)
        src = np.ascontiguousarray(g).reshape((before, n * repeats, after))
        out = np.zeros((before, n, after))
        for i in range(before):
            for j in range(n * repeats):
                for m in range(after):
                    out[i, j // repeats, m] += src[i, j, m]
        return out.reshape(a.shape)
    return impl


def undiff(g, a, n=1, axis=-1):
    """The cotangent of np.diff(a, n, axis): n times the adjoint of one
    difference, which is -g[j] at j and g[j] at j + 1."""
    g = np.moveaxis(np.asarray(g, dtype=float), axis, -1)
    for _ in range(n):
        pad = np.zeros(g.shape[:-1] + (1,))
        g = np.concatenate((pad, g), axis=-1) - np.concatenate((g, pad), axis=-1)
    return np.moveaxis(g, -1, axis).copy()


@overload(undiff)
def _undiff(g, a, n=1, axis=-1):
    def impl(g, a, n=1, axis=-1):
        before, m, after = _blocks_of(a.shape, axis)
        cur = np.ascontiguousarray(g).reshape((before, m - n, after)).copy()
        for step in range(n):
            size = m - n + step  # the length of cur along the axis
            nxt = np.zeros((before, size + 1, after))
            for i in range(before):
                for j in range(size):
                    for k in range(after):
                        nxt[i, j, k] -= cur[i, j, k]
                        nxt[i, j + 1, k] += cur[i, j, k]
            cur = nxt
        return cur.reshape(a.shape)
    return impl


# ---- sort and partition: through the permutation -------------------------------------

def _matching(ans_row, a_row):
    """Positions p with ans_row == a_row[p]: the k-th smallest of each matched
    to the k-th smallest of the other (stably, so ties keep numpy's order)."""
    p = np.empty(a_row.shape[0], dtype=np.int64)
    p[np.argsort(ans_row, kind="mergesort")] = np.argsort(a_row, kind="mergesort")
    return p


_matching_jit = register_jitable(_matching)


def unpermute(g, ans, a, axis=-1):
    """The cotangent of a permutation of `a` along `axis` (None: of its
    elements) whose result is `ans` (np.sort, np.partition): g sent back to
    where each element came from."""
    before, n, after = _shape_blocks(np.shape(a), axis)
    src = np.reshape(g, (before, n, after))
    av, ansv = np.reshape(a, (before, n, after)), np.reshape(ans, (before, n, after))
    out = np.zeros((before, n, after))
    for i in range(before):
        for k in range(after):
            out[i, _matching(ansv[i, :, k], av[i, :, k]), k] = src[i, :, k]
    return out.reshape(np.shape(a))


def permute_like(t, ans, a, axis=-1):
    """The tangent of a permutation of `a` along `axis` whose result is `ans`."""
    before, n, after = _shape_blocks(np.shape(a), axis)
    src = np.reshape(t, (before, n, after))
    av, ansv = np.reshape(a, (before, n, after)), np.reshape(ans, (before, n, after))
    out = np.zeros((before, n, after))
    for i in range(before):
        for k in range(after):
            out[i, :, k] = src[i, _matching(ansv[i, :, k], av[i, :, k]), k]
    return out.reshape(np.shape(ans))


def _permutation_impl(forward):
    def make(g, ans, a, axis=-1):
        whole = _omitted(axis)

        def impl(g, ans, a, axis=-1):
            if whole:
                before, n, after = 1, a.size, 1
            else:
                before, n, after = _blocks_of(a.shape, axis)
            src = np.ascontiguousarray(g).reshape((before, n, after))
            av = np.ascontiguousarray(a).reshape((before, n, after))
            ansv = np.ascontiguousarray(ans).reshape((before, n, after))
            out = np.zeros((before, n, after))
            for i in range(before):
                for k in range(after):
                    p = _matching_jit(ansv[i, :, k].copy(), av[i, :, k].copy())
                    for j in range(n):
                        if forward:
                            out[i, j, k] = src[i, p[j], k]
                        else:
                            out[i, p[j], k] = src[i, j, k]
            return out.reshape(ans.shape if forward else a.shape)
        return impl
    return make


overload(unpermute)(_permutation_impl(False))
overload(permute_like)(_permutation_impl(True))


# ---- np.pad, np.tile, np.rollaxis (Python: numba has not these primals) -------

def unpad(g, array, pad_width, mode="constant"):
    """The cotangent of np.pad(array, pad_width, mode) for the modes
    "constant" (the padding is a constant: dropped) and "edge" (each padded
    element is a copy of the edge element: added to it)."""
    g = np.asarray(g, dtype=float)
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (g.ndim, 2))
    for axis in range(g.ndim):
        before, after = int(widths[axis, 0]), int(widths[axis, 1])
        n = g.shape[axis] - before - after
        core = np.take(g, np.arange(before, before + n), axis=axis)
        if mode == "edge":
            first = [slice(None)] * g.ndim
            last = [slice(None)] * g.ndim
            first[axis], last[axis] = slice(0, 1), slice(n - 1, n)
            core[tuple(first)] += np.sum(np.take(g, np.arange(before), axis=axis), axis=axis,
                                         keepdims=True)
            core[tuple(last)] += np.sum(np.take(g, np.arange(before + n, g.shape[axis]),
                                                axis=axis), axis=axis, keepdims=True)
        g = core
    return g.reshape(np.shape(array))


def untile(g, a, reps):
    """The cotangent of np.tile(a, reps): the sum of the copies."""
    reps = (reps,) if np.ndim(reps) == 0 else tuple(reps)
    g = np.asarray(g, dtype=float)
    shape = (1,) * (g.ndim - np.ndim(a)) + np.shape(a)
    reps = (1,) * (g.ndim - len(reps)) + reps
    split = [d for r, s in zip(reps, shape) for d in (r, s)]
    summed = g.reshape(split).sum(axis=tuple(range(0, 2 * g.ndim, 2)))
    return summed.reshape(np.shape(a))


def unrollaxis(g, axis, start=0):
    """The cotangent of np.rollaxis(x, axis, start), x of g's ndim."""
    nd = np.ndim(g)
    axis = axis % nd
    start = start + nd if start < 0 else start
    destination = start - 1 if axis < start else start
    return np.moveaxis(g, destination, axis).copy()


# ---- np.append, np.hstack / vstack / dstack / column_stack --------------------------

def append_head(g, arr, values, axis=None):
    """The cotangent of arr in np.append(arr, values, axis) (values' shape
    makes its reverse rule: s2sad/rules/transposes.py)."""
    if axis is None:
        return np.reshape(np.ravel(g)[:np.size(arr)], np.shape(arr)).copy()
    return np.take(g, np.arange(np.shape(arr)[axis]), axis=axis)


def append_tail(g, arr, values, axis=None):
    """The cotangent of values in np.append(arr, values, axis)."""
    if axis is None:
        if np.ndim(values) == 0:  # np.append(a, 4.0): a number's gradient is a number
            return np.ravel(g)[np.size(arr)]
        return np.reshape(np.ravel(g)[np.size(arr):], np.shape(values)).copy()
    return np.take(g, np.arange(np.shape(arr)[axis], np.shape(g)[axis]), axis=axis)


def range_along(g, start, stop, axis):
    """g[start:stop] along `axis`, a copy."""
    index = [slice(None)] * np.ndim(g)
    index[axis] = slice(start, stop)
    return g[tuple(index)].copy()


@overload(range_along)
def _range_along(g, start, stop, axis):
    lines = ["def impl(g, start, stop, axis):"]
    for ax in range(g.ndim):
        index = ", ".join("start:stop" if k == ax else ":" for k in range(g.ndim))
        lines += [f"    if axis == {ax} or axis == {ax - g.ndim}:",
                  f"        return g[{index}].copy()"]
    lines.append("    return g.copy()")
    scope = {}
    exec("\n".join(lines), scope)
    return scope["impl"]


@overload(append_head)
def _append_head(g, arr, values, axis=None):
    if not _omitted(axis):
        def along(g, arr, values, axis=None):
            return range_along(g, 0, arr.shape[axis], axis)
        return along
    return lambda g, arr, values, axis=None: np.ascontiguousarray(g).ravel()[:arr.size].reshape(
        arr.shape).copy()


@overload(append_tail)
def _append_tail(g, arr, values, axis=None):
    if not _omitted(axis):
        def along(g, arr, values, axis=None):
            return range_along(g, arr.shape[axis], g.shape[axis], axis)
        return along
    if isinstance(values, types.Number):
        return lambda g, arr, values, axis=None: np.ascontiguousarray(g).ravel()[arr.size]
    return lambda g, arr, values, axis=None: np.ascontiguousarray(g).ravel()[arr.size:].reshape(
        values.shape).copy()


def _nd_shape(shape, how):
    """The shape np.hstack ("h"), vstack ("v"), dstack ("d") or column_stack
    ("c") joins for an array of `shape`, and the axis it joins along."""
    nd = len(shape)
    if how == "h":
        return (tuple(shape) if nd else (1,)), (0 if nd <= 1 else 1)
    if how == "v":
        return ((1,) * (2 - nd) + tuple(shape) if nd < 2 else tuple(shape)), 0
    if how == "c":
        return ((shape[0] if nd else 1, 1) if nd < 2 else tuple(shape)), 1
    full = {0: (1, 1, 1), 1: (1,) + tuple(shape) + (1,), 2: tuple(shape) + (1,)}
    return full.get(nd, tuple(shape)), 2


def unstack_nd(g, xs, how):
    """The cotangents of the arrays joined by np.hstack, vstack, dstack or
    column_stack (`how`: "h", "v", "d", "c"); of one array, whose rows
    numpy joins, an array of its shape."""
    out, start = [], 0
    for x in xs:
        shape, axis = _nd_shape(np.shape(x), how)
        stop = start + shape[axis]
        part = np.take(g, np.arange(start, stop), axis=axis)
        out.append(np.reshape(part, np.shape(x)) if np.ndim(x) else float(np.sum(part)))
        start = stop
    if isinstance(xs, np.ndarray):
        return np.array(out, dtype=g.dtype).reshape(xs.shape)
    return tuple(out)


@overload(unstack_nd)
def _unstack_nd(g, xs, how):
    how_value = getattr(how, "literal_value", None)
    if how_value is None:
        return None
    if _array(xs):  # the rows of an array joined (a list built in a loop)
        return _unstack_rows(xs, how_value)
    lines = ["def impl(g, xs, how):", "    start = 0"]
    names = []
    for k, x in enumerate(xs):
        nd = x.ndim if _array(x) else 0
        _, axis = _nd_shape((2,) * nd, how_value)
        width = {("h", 1): "x.shape[0]", ("v", 1): "1", ("c", 1): "1", ("d", 1): "1",
                 ("d", 2): "1"}.get((how_value, nd), f"x.shape[{axis}]") if nd else "1"
        index = ", ".join(f"start:start + {width.replace('x', f'xs[{k}]')}" if j == axis else ":"
                          for j in range(g.ndim))
        part = f"np.ascontiguousarray(g[{index}])"
        value = f"{part}.reshape(xs[{k}].shape)" if nd else f"{part}.sum()"
        lines += [f"    part{k} = {value}",
                  f"    start += {width.replace('x', f'xs[{k}]')}"]
        names.append(f"part{k}")
    lines.append("    return (" + ", ".join(names) + ",)")
    scope = {"np": np}
    exec("\n".join(lines), scope)
    return scope["impl"]


def _unstack_rows(xs, how):
    """unstack_nd's implementation for `xs` an array whose rows were joined:
    the cotangent of each row, as an array of xs's shape."""
    if xs.ndim == 2 and how == "c":  # rows as columns
        return lambda g, xs, how: np.ascontiguousarray(g.T)
    if (xs.ndim == 2 and how in "hv") or (xs.ndim == 3 and how == "v"):
        return lambda g, xs, how: np.ascontiguousarray(g).reshape(xs.shape).copy()
    if xs.ndim == 3 and how in "hc":
        def impl(g, xs, how):  # 2-d rows side by side
            n, p = xs.shape[0], xs.shape[2]
            out = np.empty(xs.shape, g.dtype)
            for k in range(n):
                out[k] = g[:, k * p:(k + 1) * p]
            return out
        return impl
    return None


_JOINS = {"h": np.hstack, "v": np.vstack, "d": np.dstack, "c": np.column_stack}


def stack_nd(parts, how):
    """np.hstack, vstack, dstack or column_stack (`how`: "h", "v", "d", "c")
    of `parts`: the transpose of unstack_nd."""
    return _JOINS[how](parts)


@overload(stack_nd)
def _stack_nd(parts, how):
    how_value = getattr(how, "literal_value", None)
    if how_value == "h":
        return lambda parts, how: np.hstack(parts)
    if how_value == "v":
        return lambda parts, how: np.vstack(parts)
    if how_value == "d":
        return lambda parts, how: np.dstack(parts)
    if how_value == "c":
        return lambda parts, how: np.column_stack(parts)
    return None


# ---- np.cross ---------------------------------------------------------------------

def _as_3_vectors(x):
    """2-vectors as 3-vectors with z = 0 (as np.cross takes them)."""
    if np.shape(x)[-1] == 3:
        return np.asarray(x, dtype=float)
    return np.concatenate((x, np.zeros(np.shape(x)[:-1] + (1,))), axis=-1)


def cross_grad(g, a, b, k):
    """The cotangent of a (k = 0) or b (k = 1) in np.cross(a, b) (vectors along
    the last axis, of 3 or 2 elements; the product of two 2-vectors is the z
    component of theirs as 3-vectors), before summing broadcast axes."""
    a3, b3 = _as_3_vectors(a), _as_3_vectors(b)
    if np.shape(a)[-1] == 2 and np.shape(b)[-1] == 2:  # g is the z component
        g = np.stack((np.zeros(np.shape(g)), np.zeros(np.shape(g)), g), axis=-1)
    if k == 0:
        return np.cross(b3, g)[..., :np.shape(a)[-1]]
    return np.cross(g, a3)[..., :np.shape(b)[-1]]


def cross_grad_left(g, a, b):
    """The cotangent of a in np.cross(a, b) (linear in g and b)."""
    return cross_grad(g, a, b, 0)


def cross_grad_right(g, a, b):
    """The cotangent of b in np.cross(a, b) (linear in g and a)."""
    return cross_grad(g, a, b, 1)


@overload(cross_grad_left)
def _cross_grad_left(g, a, b):
    return lambda g, a, b: cross_grad(g, a, b, 0)


@overload(cross_grad_right)
def _cross_grad_right(g, a, b):
    return lambda g, a, b: cross_grad(g, a, b, 1)


@overload(cross_grad)
def _cross_grad(g, a, b, k):
    z_only = (g.ndim if _array(g) else 0) < max(a.ndim, b.ndim)

    def impl(g, a, b, k):
        if a.shape[-1] == 3:
            a3 = np.asarray(a) * 1.0
        else:
            a3 = np.concatenate((a, np.zeros(a.shape[:-1] + (1,))), axis=-1)
        if b.shape[-1] == 3:
            b3 = np.asarray(b) * 1.0
        else:
            b3 = np.concatenate((b, np.zeros(b.shape[:-1] + (1,))), axis=-1)
        if z_only:
            zero = np.zeros(np.shape(g))
            g3 = np.stack((zero, zero, zero + g), axis=-1)
        else:
            g3 = g
        if k == 0:
            return np.ascontiguousarray(np.cross(b3, g3)[..., :a.shape[-1]])
        return np.ascontiguousarray(np.cross(g3, a3)[..., :b.shape[-1]])
    return impl


def unsplit(g, ary, indices_or_sections, axis=0):
    """The cotangent of np.split / np.array_split(ary, indices_or_sections,
    axis) from the parts' cotangents (a part nobody used has a 0.0)."""
    n = np.shape(ary)[axis]
    positions = np.array_split(np.arange(n), indices_or_sections)
    out = np.zeros(np.shape(ary))
    moved = np.moveaxis(out, axis, 0)  # a view: writes land in out
    for part, index in zip(g, positions):
        if np.ndim(part) == 0:
            moved[index] += part
        else:
            moved[index] += np.moveaxis(part, axis, 0)
    return out



@overload(unsplit)
def _unsplit(g, ary, indices_or_sections, axis=0):
    n_parts = len(g)
    parts = list(g.types) if hasattr(g, "types") else [g.dtype] * n_parts
    nd = ary.ndim
    lines = ["def impl(g, ary, indices_or_sections, axis=0):",
             "    out = np.zeros(ary.shape)", "    ax = axis + ary.ndim if axis < 0 else axis",
             "    n = ary.shape[ax]"]
    if isinstance(indices_or_sections, types.Integer):  # as np.array_split cuts
        lines += ["    each = n // indices_or_sections", "    extra = n % indices_or_sections"]
        bounds = [(f"{k} * each + min({k}, extra)", f"{k + 1} * each + min({k + 1}, extra)")
                  for k in range(n_parts)]
    else:  # indices, as slices take them (negative from the end)
        cuts = ["0"] + [f"indices_or_sections[{k}]" for k in range(n_parts - 1)] + ["n"]
        bounds = list(zip(cuts[:-1], cuts[1:]))
    for k, (start, stop) in enumerate(bounds):
        if not _array(parts[k]):
            continue  # a part nobody used: its cotangent is 0.0
        lines += [f"    start, stop = {start}, {stop}"]
        for a in range(nd):
            index = ", ".join("start:stop" if j == a else ":" for j in range(nd))
            lines += [f"    if ax == {a}:", f"        out[{index}] += g[{k}]"]
    lines.append("    return out")
    scope = {"np": np}
    exec("\n".join(lines), scope)
    return scope["impl"]


def slogdet_tangent(t, a):
    """The tangent of np.linalg.slogdet(a) along t: the sign's (0) and
    log|det|'s, trace(a^-1 t)."""
    return 0.0, float(np.trace(np.linalg.solve(a, t)))


@overload(slogdet_tangent)
def _slogdet_tangent(t, a):
    return lambda t, a: (0.0, np.trace(np.linalg.solve(a, t)))
