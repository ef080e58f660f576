"""Run-time helpers of numpy's reductions.

The forms numba lacks, with numpy's semantics (s2sad/forms.py rewrites a
call into them): np.sum with keepdims, np.mean, max, min, prod, var and std
over an axis or a tuple of axes, np.linalg.norm over an axis and the
Frobenius norm. Each is plain numpy (jit=False, NUMBA_DISABLE_JIT=1) with
a numba overload that generates code per argument types; an axis written
as a constant is a literal type, so the code is specialised to it.

np.prod's gradients: for each element, the product of the others along an
axis (and its derivative, for second derivatives), as exclusive running
products, exact where elements are 0.

Like every module of s2sad.runtime (which re-exports it), it needs numpy
and numba only, so exported derivatives copy it in."""
import itertools

import numpy as np
from s2sad.lazy_numba import as_dtype, numba, overload, register_jitable, types

__all__ = ["sum_kept", "mean_axis", "max_axis", "min_axis", "prod_axis", "var_axis", "std_axis",
           "norm_axis", "prod_others", "prod_others_tangent"]


# ---- reductions over an axis or a tuple of axes -------------------------------

def sum_kept(a, axis=None, keepdims=False):
    """np.sum(a, axis, keepdims=...) (numba's np.sum has no keepdims)."""
    return np.sum(a, axis=axis, keepdims=keepdims)


def mean_axis(a, axis=None, keepdims=False):
    """np.mean(a, axis)."""
    return np.mean(a, axis=axis, keepdims=keepdims)


def max_axis(a, axis=None, keepdims=False):
    """np.max(a, axis) (and np.amax)."""
    return np.max(a, axis=axis, keepdims=keepdims)


def min_axis(a, axis=None, keepdims=False):
    """np.min(a, axis) (and np.amin)."""
    return np.min(a, axis=axis, keepdims=keepdims)


def prod_axis(a, axis=None, keepdims=False):
    """np.prod(a, axis)."""
    return np.prod(a, axis=axis, keepdims=keepdims)


def var_axis(a, axis=None, ddof=0, keepdims=False):
    """np.var(a, axis, ddof=ddof)."""
    return np.var(a, axis=axis, ddof=ddof, keepdims=keepdims)


def std_axis(a, axis=None, ddof=0, keepdims=False):
    """np.std(a, axis, ddof=ddof)."""
    return np.std(a, axis=axis, ddof=ddof, keepdims=keepdims)


def _not_given(t):
    return t is None or isinstance(t, (types.NoneType, types.Omitted))


def _literal_axes(axis, nd):
    """The axes (normalised, sorted) of a literal int or tuple of literal
    ints; None when they are known only at run time."""
    items = axis.types if isinstance(axis, types.BaseTuple) else (axis,)
    if not all(isinstance(t, types.IntegerLiteral) for t in items):
        return None
    axes = sorted(t.literal_value % nd for t in items)
    if len(set(axes)) != len(axes) or any(not -nd <= t.literal_value < nd for t in items):
        raise numba.core.errors.TypingError("axis out of range or repeated")
    return tuple(axes)


def _axis_choices(axis, nd):
    """[(run-time test, axes)]: one entry without a test for a literal axis,
    else one per possible value (every order and sign of a tuple's axes).
    No axis: all of them."""
    if _not_given(axis):
        return [(None, tuple(range(nd)))]
    known = _literal_axes(axis, nd)
    if known is not None:
        return [(None, known)]
    if isinstance(axis, types.Integer):
        return [(f"axis == {k} or axis == {k - nd}", (k,)) for k in range(nd)]
    if isinstance(axis, types.UniTuple) and isinstance(axis.dtype, types.Integer):
        n = len(axis)
        choices = []
        for perm in itertools.permutations(range(nd), n):
            test = " and ".join(f"(axis[{j}] == {k} or axis[{j}] == {k - nd})"
                                for j, k in enumerate(perm))
            choices.append((test, tuple(sorted(perm))))
        return choices
    raise numba.core.errors.TypingError(f"axis of type {axis}")


def _result_dtype(numpy_fn, dtype, **kws):
    """The dtype numpy gives a reduction of an array of `dtype`."""
    return np.asarray(numpy_fn(np.ones((2, 2), dtype=dtype), axis=0, **kws)).dtype


def _keeps(keepdims):
    """Whether a reduction keeps its reduced axes: keepdims written as a
    constant (a literal), or left out. One known only at run time would
    decide the result's rank, which numba must know when it compiles."""
    if keepdims is None or isinstance(keepdims, bool):  # left out: the default
        return bool(keepdims)
    if isinstance(keepdims, types.Omitted):
        return bool(keepdims.value)
    if isinstance(keepdims, types.NoneType):
        return False
    if isinstance(keepdims, types.BooleanLiteral):
        return keepdims.literal_value
    raise numba.core.errors.TypingError("keepdims known only at run time (the result's rank depends on it)")


def _reduce_impl(a, axis, row, dtype, params="a, axis=None, keepdims=False", env=None,
                 array="a", keep=False):
    """The overload of a reduction of `a` over `axis`: the reduced axes are
    moved last and flattened, `row` (an expression of the 1-D `r`) reduces
    each row; the rows' results take the kept axes' shape (with `keep`,
    keepdims=True: the array's shape, 1 along the reduced axes)."""
    nd = a.ndim
    lines = [f"def impl({params}):"]
    for test, axes in _axis_choices(axis, nd):
        kept = [k for k in range(nd) if k not in axes]
        pad = "    "
        if test is not None:
            lines.append(f"    if {test}:")
            pad = "        "
        order = tuple(kept) + axes
        moved = array if order == tuple(range(nd)) else f"np.transpose({array}, {order})"
        outer = " * ".join(f"{array}.shape[{k}]" for k in kept) or "1"
        inner = " * ".join(f"{array}.shape[{k}]" for k in axes) or "1"  # axis=(): each alone
        lines += [f"{pad}rows = np.ascontiguousarray({moved}).reshape(({outer}, {inner}))",
                  f"{pad}out = np.empty(rows.shape[0], dtype)",
                  f"{pad}for i in range(rows.shape[0]):",
                  f"{pad}    r = rows[i]",
                  f"{pad}    out[i] = {row}"]
        if keep:
            shape = "".join(f"{array}.shape[{k}], " if k in kept else "1, " for k in range(nd))
            lines.append(f"{pad}return out.reshape(({shape}))")
        elif kept:
            shape = "".join(f"{array}.shape[{k}], " for k in kept)
            lines.append(f"{pad}return out.reshape(({shape}))")
        else:
            lines.append(f"{pad}return out[0]")
    if test is not None:
        lines.append("    raise ValueError('axis out of range')")
    scope = {"np": np, "dtype": np.dtype(dtype).type}
    scope.update(env or {})
    exec("\n".join(lines), scope)
    return scope["impl"]


def _reduction(helper, numpy_fn, row):
    @overload(helper, prefer_literal=True)
    def _overload(a, axis=None, keepdims=False):
        if isinstance(a, (types.Number, types.Boolean)):  # a number is its own reduction
            dtype = np.asarray(numpy_fn(np.ones((), as_dtype(a)))).dtype.type
            return lambda a, axis=None, keepdims=False: dtype(a)
        if not isinstance(a, types.Array) or a.ndim == 0:
            return None
        keep = _keeps(keepdims)
        if _not_given(axis) and not keep:
            return lambda a, axis=None, keepdims=False: numpy_fn(a)
        return _reduce_impl(a, axis, row, _result_dtype(numpy_fn, as_dtype(a.dtype)),
                            keep=keep)
    return _overload


_reduction(sum_kept, np.sum, "np.sum(r)")
_reduction(mean_axis, np.mean, "np.mean(r)")
_reduction(max_axis, np.max, "np.max(r)")
_reduction(min_axis, np.min, "np.min(r)")
_reduction(prod_axis, np.prod, "np.prod(r)")


def _spread(r, ddof):
    """The variance of the row `r`, numpy's two-pass formula."""
    m = np.mean(r)
    return np.sum((r - m) * (r - m)) / (r.size - ddof)


def _statistic(helper, numpy_fn, row):
    @overload(helper, prefer_literal=True)
    def _overload(a, axis=None, ddof=0, keepdims=False):
        if isinstance(a, (types.Number, types.Boolean)):
            return lambda a, axis=None, ddof=0, keepdims=False: 0.0 / (1 - ddof) \
                if ddof != 1 else np.nan
        if not isinstance(a, types.Array) or a.ndim == 0:
            return None
        from numba import njit
        env = {"spread": njit(_spread)}
        params = "a, axis=None, ddof=0, keepdims=False"
        dtype = _result_dtype(numpy_fn, as_dtype(a.dtype))
        keep = _keeps(keepdims)
        if _not_given(axis) and not keep:
            src = f"def impl({params}):\n    r = np.ravel(a)\n    return dtype({row})"
            scope = {"np": np, "dtype": dtype.type, **env}
            exec(src, scope)
            return scope["impl"]
        return _reduce_impl(a, axis, row, dtype, params=params, env=env, keep=keep)
    return _overload


_statistic(var_axis, np.var, "spread(r, ddof)")
_statistic(std_axis, np.std, "np.sqrt(spread(r, ddof))")


# ---- np.linalg.norm over an axis, and the Frobenius norm --------------------------

def norm_axis(x, ord=None, axis=None, keepdims=False):
    """np.linalg.norm(x, ord, axis): vector p-norms (p a number >= 1, or
    None) over an int axis, the 2-norm of all elements for ord None or
    "fro" over all axes or a pair of them."""
    return np.linalg.norm(x, ord=ord, axis=axis, keepdims=keepdims)


def _p_norm(r, p):
    if p == np.inf:
        return np.max(np.abs(r))
    if p == 1.0:
        return np.sum(np.abs(r))
    if p == 2.0:
        return np.sqrt(np.sum(r * r))
    return np.sum(np.abs(r) ** p) ** (1.0 / p)


@overload(norm_axis, prefer_literal=True)
def _norm_axis(x, ord=None, axis=None, keepdims=False):
    if not isinstance(x, types.Array):
        return None
    from numba import njit
    two = _not_given(ord) or isinstance(ord, (types.UnicodeType, types.StringLiteral))
    if isinstance(ord, (types.UnicodeType, types.StringLiteral)) and \
            getattr(ord, "literal_value", "fro") != "fro":
        raise numba.core.errors.TypingError(f"norm order {ord}")
    row = "np.sqrt(np.sum(r * r))" if two else "p_norm(r, float(ord))"
    keep = _keeps(keepdims)
    if _not_given(axis) and not keep:
        src = ("def impl(x, ord=None, axis=None, keepdims=False):\n"
               f"    r = np.ravel(x)\n    return {row}")
        scope = {"np": np, "p_norm": njit(_p_norm)}
        exec(src, scope)
        return scope["impl"]
    return _reduce_impl(x, axis, row, np.dtype(np.float64), array="x",
                        params="x, ord=None, axis=None, keepdims=False",
                        env={"p_norm": njit(_p_norm)}, keep=keep)


# ---- np.prod's gradients --------------------------------------------------------------


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
