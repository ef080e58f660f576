"""The base run-time helpers of generated derivative code: cotangents
summed back over broadcast axes (`unbroadcast`), reductions undone
(`unreduce`, `keep_axes`, `sum_axis`), the extremum, reshape, transpose,
slice, concatenate and stack gradients, and `@`'s.

Like every module of s2sad.runtime (which re-exports it), it needs numpy
and numba only, so exported derivative source runs without s2sad. Each
helper is a plain numpy function (used with `jit=False` and
NUMBA_DISABLE_JIT=1) with a numba overload that generates specialised code
per argument types at compile time: reductions over broadcast axes cost
nothing when shapes already agree.
"""
import math

import numpy as np
from s2sad.lazy_numba import overload, types

__all__ = ["unbroadcast", "unreduce", "reduced_count", "extremum_grad", "reshape_like",
           "untranspose", "slice_axis",
           "index_axis", "sum_axis", "broadcast_like", "extremum_tangent", "concatenate_parts",
           "stack_parts", "scatter_sum", "matmul_grad_left", "matmul_grad_right",
           "keep_axes", "reverse_cumsum", "empty_stack", "stack_element"]

# The helpers whose result may be their first argument, or a view of it (or,
# for the *_parts ones, a tuple of views of it); every other helper returns
# a new array or a scalar.
# The compiler relies on this to add into an adjoint's memory in place.
MAY_RETURN_FIRST_ARGUMENT = ("unbroadcast", "reshape_like", "untranspose", "slice_axis",
                             "index_axis", "concatenate_parts", "stack_parts", "keep_axes",
                             "stack_element")


# ---- sum a broadcast cotangent back to an argument's shape --------------

def unbroadcast(g, x):
    """Sum `g` over the axes along which `x` was broadcast."""
    if np.ndim(x) == 0:
        return float(np.sum(g))
    g = np.asarray(g)
    while g.ndim > x.ndim:
        g = g.sum(axis=0)
    for axis, n in enumerate(x.shape):
        if n == 1 and g.shape[axis] != 1:
            g = g.sum(axis=axis, keepdims=True)
    return g


def _is_array(t):
    return isinstance(t, types.Array)


def _compile(src, name, env=None):
    scope = {"np": np, "math": math}
    scope.update(env or {})
    exec(src, scope)
    return scope[name]


@overload(unbroadcast)
def _unbroadcast(g, x):
    if not _is_array(x):
        if _is_array(g):
            return lambda g, x: np.sum(g)
        return lambda g, x: g
    if not _is_array(g):
        return lambda g, x: np.full(x.shape, g)
    # numba needs a variable to keep its ndim: one name per reduction step
    lines = ["def impl(g, x):", "    r0 = g"]
    k = 0
    for _ in range(g.ndim - x.ndim):
        lines.append(f"    r{k + 1} = r{k}.sum(axis=0)")
        k += 1
    lines.append(f"    r = r{k}")
    # axes of length 1 in x that were stretched: sum them and keep the axis
    for axis in range(x.ndim):
        kept = "np.full(1, r.sum())" if x.ndim == 1 else f"np.expand_dims(r.sum(axis={axis}), {axis})"
        lines += [f"    if x.shape[{axis}] == 1 and r.shape[{axis}] != 1:",
                  f"        r = {kept}"]
    lines.append("    return r")
    return _compile("\n".join(lines), "impl")


# ---- materialised lists ------------------------------------------------------

def empty_stack(n, first):
    """An uninitialised array of `n` elements shaped and typed like `first`:
    a list comprehension's values, as np.array would stack them."""
    first = np.asarray(first)
    return np.empty((n,) + first.shape, dtype=first.dtype)


_UNEVEN = ("s2sad stores this list (built by a comprehension or by appending in a loop) as"
           " one array, and an element's shape differs from the first's: build the list so"
           " its elements have one shape, or keep the arrays in separate variables")


def stack_element(value, first):
    """`value`, an element of a list stored as one array (empty_stack):
    raises when its shape is not the first element's, where writing it into
    the array would broadcast it instead."""
    if np.shape(value) != np.shape(first):
        raise ValueError(f"{_UNEVEN} (shape {np.shape(value)}, the first {np.shape(first)})")
    return value


@overload(stack_element)
def _stack_element(value, first):
    if _is_array(value) and _is_array(first) and value.ndim == first.ndim:
        def checked(value, first):
            if value.shape != first.shape:
                raise ValueError(_UNEVEN)
            return value
        return checked
    ndims = [t.ndim if _is_array(t) else 0 for t in (value, first)]
    if ndims[0] == ndims[1] == 0:  # (a number and a 0-d array)
        return lambda value, first: value
    if _is_array(value) or _is_array(first):
        def uneven(value, first):
            raise ValueError(_UNEVEN)
        return uneven
    return lambda value, first: value


@overload(empty_stack)
def _empty_stack(n, first):
    from numba.np.numpy_support import as_dtype
    if _is_array(first):
        dtype = as_dtype(first.dtype)
        return lambda n, first: np.empty((n,) + first.shape, dtype)
    dtype = as_dtype(first)
    return lambda n, first: np.empty(n, dtype)


# ---- reductions ----------------------------------------------------------

def unreduce(g, x, axis=None):
    """Spread the cotangent of a reduction over `axis` back over `x`."""
    if axis is None:
        return np.full(np.shape(x), g, dtype=np.result_type(g, float))
    return np.broadcast_to(np.expand_dims(g, axis), np.shape(x)).copy()


@overload(unreduce)
def _unreduce(g, x, axis=None):
    if not _is_array(x):
        return lambda g, x, axis=None: g
    if axis is None or isinstance(axis, (types.NoneType, types.Omitted)):
        return lambda g, x, axis=None: np.full(x.shape, g)
    if isinstance(axis, types.BaseTuple):
        def over_axes(g, x, axis=None):
            out = np.empty(x.shape)
            out[...] = keep_axes(g, x, axis)
            return out
        return over_axes
    lines = ["def impl(g, x, axis=None):", "    out = np.empty(x.shape)"]
    for ax in range(x.ndim):
        shape = ", ".join("1" if k == ax else f"x.shape[{k}]" for k in range(x.ndim))
        lines += [f"    if axis == {ax} or axis == {ax - x.ndim}:",
                  f"        out[:] = np.reshape(np.ascontiguousarray(g), ({shape},))",
                  "        return out"]
    lines.append("    return out")
    return _compile("\n".join(lines), "impl")


def reduced_count(x, axis=None):
    """How many elements each result of a reduction over `axis` combines."""
    if axis is None:
        return np.size(x)
    if isinstance(axis, tuple):
        return int(np.prod([np.shape(x)[a] for a in axis]))
    return np.shape(x)[axis]


@overload(reduced_count)
def _reduced_count(x, axis=None):
    if not _is_array(x):
        return lambda x, axis=None: 1
    if axis is None or isinstance(axis, (types.NoneType, types.Omitted)):
        return lambda x, axis=None: x.size
    if isinstance(axis, types.BaseTuple):
        def over_axes(x, axis=None):
            n = 1
            for a in axis:
                n *= x.shape[a]
            return n
        return over_axes
    return lambda x, axis=None: x.shape[axis]


def extremum_grad(g, ans, x, axis=None):
    """Cotangent of max/min: shared equally among the elements that tie."""
    if np.ndim(x) == 0:
        return g
    if axis is None:  # one comparison pass; only the ties are written
        ties = x == ans
        out = np.zeros(np.shape(x), dtype=np.result_type(g, float))
        out[ties] = g / np.count_nonzero(ties)
        return out
    mask = (x == unreduce(ans, x, axis)).astype(float)
    return unreduce(g, x, axis) * mask / unreduce(np.sum(mask, axis=axis), x, axis)


@overload(extremum_grad)
def _extremum_grad(g, ans, x, axis=None):
    if not _is_array(x):
        return lambda g, ans, x, axis=None: g

    if axis is None or isinstance(axis, (types.NoneType, types.Omitted)):
        def whole(g, ans, x, axis=None):
            # two passes: count the ties, then share g among them
            flat = x.ravel()
            ties = 0
            for k in range(flat.size):
                if flat[k] == ans:
                    ties += 1
            out = np.zeros(x.shape)
            flat_out = out.ravel()
            share = g / ties
            for k in range(flat.size):
                if flat[k] == ans:
                    flat_out[k] = share
            return out
        return whole

    def impl(g, ans, x, axis=None):
        mask = (x == unreduce(ans, x, axis)) * 1.0
        return unreduce(g, x, axis) * mask / unreduce(mask.sum(axis=axis), x, axis)
    return impl


def keep_axes(r, x, axis=None):
    """The result `r` of a reduction of `x` over `axis`, with the reduced
    axes kept as axes of length 1 (`keepdims=True`, which numba lacks)."""
    shape = list(np.shape(x))
    axes = range(len(shape)) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    for a in axes:
        shape[a] = 1
    return np.reshape(r, tuple(shape))


@overload(keep_axes)
def _keep_axes(r, x, axis=None):
    nd = x.ndim if _is_array(x) else 0
    if nd == 0:
        return lambda r, x, axis=None: r
    lines = ["def impl(r, x, axis=None):"]
    whole = axis is None or isinstance(axis, (types.NoneType, types.Omitted))
    if not whole:
        lines.append("    axes = (axis,)" if isinstance(axis, types.Integer) else "    axes = axis")
    for k in range(nd):
        if whole:
            lines.append(f"    d{k} = 1")
            continue
        lines += [f"    d{k} = x.shape[{k}]", "    for a in axes:",
                  f"        if a == {k} or a == {k - nd}:", f"            d{k} = 1"]
    shape = "(" + "".join(f"d{k}, " for k in range(nd)) + ")"
    value = f"np.ascontiguousarray(r).reshape({shape})" if _is_array(r) \
        else f"np.full({shape}, r)"
    lines.append(f"    return {value}")
    return _compile("\n".join(lines), "impl")


def reverse_cumsum(g, x, axis=None):
    """The cotangent of np.cumsum(x, axis): sums of `g` from the end."""
    if axis is None:
        return np.reshape(np.cumsum(np.ravel(g)[::-1])[::-1], np.shape(x))
    return np.flip(np.cumsum(np.flip(g, axis), axis), axis)


@overload(reverse_cumsum)
def _reverse_cumsum(g, x, axis=None):
    if not _is_array(x):
        return lambda g, x, axis=None: np.sum(g)
    if axis is None or isinstance(axis, (types.NoneType, types.Omitted)):
        def whole(g, x, axis=None):
            flat = np.ascontiguousarray(g).ravel()
            out = np.empty(flat.size)
            acc = 0.0
            for j in range(flat.size - 1, -1, -1):
                acc += flat[j]
                out[j] = acc
            return out.reshape(x.shape)
        return whole

    def along(g, x, axis=None):
        # as a (before, n, after) block, so one loop serves every ndim
        nd = g.ndim
        ax = axis + nd if axis < 0 else axis
        before, after = 1, 1
        for k in range(ax):
            before *= g.shape[k]
        for k in range(ax + 1, nd):
            after *= g.shape[k]
        n = g.shape[ax]
        src = np.ascontiguousarray(g).reshape((before, n, after))
        out = np.empty((before, n, after))
        for i in range(before):
            for k in range(after):
                acc = 0.0
                for j in range(n - 1, -1, -1):
                    acc += src[i, j, k]
                    out[i, j, k] = acc
        return out.reshape(g.shape)
    return along


def broadcast_like(h, g):
    """`h` broadcast to the shape of `g` (the adjoint of unbroadcast)."""
    if np.ndim(g) == 0:
        return float(np.sum(h))
    return np.broadcast_to(h, np.shape(g)).copy()


@overload(broadcast_like)
def _broadcast_like(h, g):
    if not _is_array(g):
        return (lambda h, g: np.sum(h)) if _is_array(h) else (lambda h, g: h)
    if not _is_array(h):
        return lambda h, g: np.full(g.shape, h)
    return lambda h, g: np.broadcast_to(h, g.shape).copy()


def sum_axis(x, axis=None):
    """np.sum(x, axis), where axis may be None (numba wants it left out)."""
    return np.sum(x, axis=axis)


@overload(sum_axis)
def _sum_axis(x, axis=None):
    if not _is_array(x):
        return lambda x, axis=None: x
    if axis is None or isinstance(axis, (types.NoneType, types.Omitted)):
        return lambda x, axis=None: np.sum(x)
    return lambda x, axis=None: np.sum(x, axis=axis)


def extremum_tangent(t, ans, x, axis=None):
    """Tangent of max/min: the mean of `t` over the elements that tie."""
    if np.ndim(x) == 0:
        return t
    mask = (x == unreduce(ans, x, axis)).astype(float)
    return np.sum(t * mask, axis=axis) / np.sum(mask, axis=axis)


@overload(extremum_tangent)
def _extremum_tangent(t, ans, x, axis=None):
    if not _is_array(x):
        return lambda t, ans, x, axis=None: t

    def impl(t, ans, x, axis=None):
        mask = (x == unreduce(ans, x, axis)) * 1.0
        return sum_axis(t * mask, axis) / sum_axis(mask, axis)
    return impl


# ---- shapes ----------------------------------------------------------------

def reshape_like(g, x):
    return np.reshape(np.ascontiguousarray(g), np.shape(x))


@overload(reshape_like)
def _reshape_like(g, x):
    if not _is_array(x):  # keepdims of a number's reduction: g is a number or a 0-d array
        return (lambda g, x: g.sum()) if _is_array(g) else (lambda g, x: g)
    return lambda g, x: np.ascontiguousarray(g).reshape(x.shape)


def untranspose(g, axes):
    """The cotangent of np.transpose(x, axes) (axes may be negative, or None)."""
    if axes is None:
        return np.transpose(g)
    return np.transpose(g, np.argsort([a % np.ndim(g) for a in axes]))


@overload(untranspose)
def _untranspose(g, axes):
    if axes is None or isinstance(axes, (types.NoneType, types.Omitted)):
        return lambda g, axes: np.transpose(g)
    n = len(axes)
    inverse = ", ".join(f"inv[{k}]" for k in range(n))
    src = (f"def impl(g, axes):\n    order = np.argsort(np.array(axes) % {n})\n"
           "    inv = (" + ", ".join(f"order[{k}]" for k in range(n)) + ",)\n"
           f"    return np.transpose(g, ({inverse},))\n")
    return _compile(src, "impl")


def slice_axis(g, start, stop, axis):
    """g[start:stop] along `axis` (the cotangent of one concatenated part)."""
    index = [slice(None)] * np.ndim(g)
    index[axis] = slice(start, stop)
    return g[tuple(index)]


@overload(slice_axis)
def _slice_axis(g, start, stop, axis):
    lines = ["def impl(g, start, stop, axis):"]
    for ax in range(g.ndim):
        index = ", ".join("start:stop" if k == ax else ":" for k in range(g.ndim))
        lines += [f"    if axis == {ax} or axis == {ax - g.ndim}:", f"        return g[{index}]"]
    lines.append("    return g")
    return _compile("\n".join(lines), "impl")


def index_axis(g, k, axis):
    """g[k] along `axis` (the cotangent of one stacked part)."""
    return np.take(g, k, axis=axis)


@overload(index_axis)
def _index_axis(g, k, axis):
    if g.ndim == 1:
        return lambda g, k, axis: g[k]
    lines = ["def impl(g, k, axis):"]
    for ax in range(g.ndim):
        index = ", ".join("k" if j == ax else ":" for j in range(g.ndim))
        lines += [f"    if axis == {ax} or axis == {ax - g.ndim}:",
                  f"        return np.ascontiguousarray(g[{index}])"]
    first = ", ".join("k" if j == 0 else ":" for j in range(g.ndim))
    lines.append(f"    return np.ascontiguousarray(g[{first}])")
    return _compile("\n".join(lines), "impl")


def concatenate_parts(g, xs, axis=0):
    """The cotangent of each array in np.concatenate(xs, axis)."""
    bounds = np.cumsum([0] + [np.shape(x)[axis] for x in xs])
    return tuple(slice_axis(g, bounds[k], bounds[k + 1], axis) for k in range(len(xs)))


@overload(concatenate_parts)
def _concatenate_parts(g, xs, axis=0):
    n = len(xs)
    lines = ["def impl(g, xs, axis=0):", "    start = 0", "    parts = ("]
    body = []
    for k in range(n):
        body += [f"    stop{k} = start + xs[{k}].shape[axis]",
                 f"    part{k} = slice_axis(g, start, stop{k}, axis)",
                 f"    start = stop{k}"]
    src = "\n".join(lines[:2] + body + ["    return (" + ", ".join(f"part{k}" for k in range(n)) + ",)"])
    return _compile(src, "impl", {"slice_axis": slice_axis})


def stack_parts(g, xs, axis=0):
    """The cotangent of each array in np.stack(xs, axis)."""
    return tuple(index_axis(g, k, axis) for k in range(len(xs)))


@overload(stack_parts)
def _stack_parts(g, xs, axis=0):
    n = len(xs)
    src = ("def impl(g, xs, axis=0):\n    return ("
           + ", ".join(f"index_axis(g, {k}, axis)" for k in range(n)) + ",)\n")
    return _compile(src, "impl", {"index_axis": index_axis})


def scatter_sum(values, index, like):
    """Zeros shaped like `like`, with values[k] added at index[k] along the
    first axis, repeated indices adding up: the cotangent of `like[index]`
    for an integer index array (`out[index] += values` keeps one repeat)."""
    out = np.zeros(np.shape(like), dtype=np.result_type(values, float))
    np.add.at(out, index, values)
    return out


@overload(scatter_sum)
def _scatter_sum(values, index, like):
    # an index array of several axes (x[np.array([[0, 2], [1, 1]])]) is read as its flat
    # list of indices: values[k] for a row of indices would be a fancy write, which keeps
    # one of its repeats
    nd = index.ndim
    if isinstance(index.dtype, types.Boolean):
        # a mask (of the first axis) names each position once, in order
        def impl(values, index, like):
            out = np.zeros(like.shape)
            rows = np.ascontiguousarray(values).reshape((-1,) + like.shape[1:])
            k = 0
            for j in range(index.shape[0]):
                if index[j]:
                    out[j] += rows[k if rows.shape[0] > 1 else 0]
                    k += 1
            return out
        return impl if nd == 1 else None
    if _is_array(values):
        def impl(values, index, like):
            out = np.zeros(like.shape)
            flat = index.ravel()
            rows = np.ascontiguousarray(values).reshape((flat.shape[0],) + values.shape[nd:])
            for k in range(flat.shape[0]):
                out[flat[k]] += rows[k]
            return out
    else:
        def impl(values, index, like):
            out = np.zeros(like.shape)
            flat = index.ravel()
            for k in range(flat.shape[0]):
                out[flat[k]] += values
            return out
    return impl


# ---- matrix products ----------------------------------------------------

def matmul_grad_left(g, x, y):
    """Cotangent of x in x @ y."""
    if np.ndim(y) == 1:
        return np.outer(g, y) if np.ndim(x) == 2 else g * y
    return g @ y.T if np.ndim(x) == 2 else y @ g


def matmul_grad_right(g, x, y):
    """Cotangent of y in x @ y."""
    if np.ndim(x) == 1:
        return np.outer(x, g) if np.ndim(y) == 2 else g * x
    return x.T @ g if np.ndim(y) == 2 else g @ x


@overload(matmul_grad_left)
def _matmul_grad_left(g, x, y):
    if y.ndim == 1:
        return (lambda g, x, y: np.outer(g, y)) if x.ndim == 2 else (lambda g, x, y: g * y)
    if x.ndim == 2:
        return lambda g, x, y: np.dot(g, np.ascontiguousarray(y.T))
    return lambda g, x, y: np.dot(y, g)


@overload(matmul_grad_right)
def _matmul_grad_right(g, x, y):
    if x.ndim == 1:
        return (lambda g, x, y: np.outer(x, g)) if y.ndim == 2 else (lambda g, x, y: g * x)
    if y.ndim == 2:
        return lambda g, x, y: np.dot(np.ascontiguousarray(x.T), g)
    return lambda g, x, y: np.dot(g, x)
