"""numpy call forms numba lacks, as helpers with numpy's semantics.

Generated code (the user's primal in the forward sweep, and the adjoint
templates) calls numpy as the user wrote it; where numba has no
implementation of a form (`np.mean(x, axis=0)`, `np.max(x, axis=(0, 2))`,
`np.linalg.norm(x, axis=1)`, `np.array((a, b))` of arrays, ...), the late
pass transforms/emit/numba_forms.py rewrites the call into one of these helpers
by the table FORMS below: `np.mean(x, axis=0)` reads `mean_axis(x, axis=0)`.

Like s2sad.runtime (which re-exports every name here), this module needs
numpy and numba only; s2sad.export copies it into exported derivatives.
Each helper is plain numpy (jit=False, NUMBA_DISABLE_JIT=1) with a numba
overload that generates code per argument types; an axis written as a
constant is a literal type, so the code is specialised to it.
"""
import itertools

import numpy as np
from numba.core import types
from numba.core.errors import TypingError
from numba.extending import overload
from numba.np.numpy_support import as_dtype

__all__ = ["sum_kept", "mean_axis", "max_axis", "min_axis", "prod_axis", "var_axis", "std_axis",
           "norm_axis", "array_of", "array_copy", "matmul_of", "atleast_1d_of", "atleast_2d_of",
           "atleast_3d_of"]


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
        raise TypingError("axis out of range or repeated")
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
    raise TypingError(f"axis of type {axis}")


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
    raise TypingError("keepdims known only at run time (the result's rank depends on it)")


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
        raise TypingError(f"norm order {ord}")
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


# ---- np.matmul of vectors and matrices ---------------------------------------------

def matmul_of(a, b):
    """np.matmul(a, b) (numba has `@`, not the function; of stacks: s2sad.runtime_stack_loops)."""
    return np.matmul(a, b)


@overload(matmul_of)
def _matmul_of(a, b):
    if isinstance(a, types.Array) and isinstance(b, types.Array) and a.ndim <= 2 \
            and b.ndim <= 2:
        return lambda a, b: np.dot(a, b)
    if isinstance(a, types.Array) and isinstance(b, types.Array):
        return lambda a, b: a @ b  # stacks (s2sad.runtime_stack_loops)
    return None


# ---- the table the late pass (transforms/emit/numba_forms.py) reads ---------------------

def _given(name):
    """The call passes parameter `name` (numba lacks even `axis=None`)."""
    def test(call):
        return any(k.arg == name for k in call.keywords)
    return test


def _fro(call):
    return any(k.arg == "ord" and getattr(k.value, "value", None) == "fro" for k in call.keywords)


def _copied(call):
    """np.array(x) of a name (an array or a number): a copy."""
    return len(call.args) == 1 and type(call.args[0]).__name__ == "Name"


def _one_argument(call):
    return len(call.args) == 1 and not call.keywords


def _any(*tests):
    return lambda call: any(t(call) for t in tests)


def _parts_literal(call):
    """np.array((a, b)) / np.array([a, 2 * b]) of arrays or numbers (not nested), no dtype."""
    if len(call.args) != 1 or call.keywords:
        return False
    arg = call.args[0]
    return type(arg).__name__ in ("Tuple", "List") and arg.elts and \
        not any(type(e).__name__ in ("Tuple", "List", "Starred") for e in arg.elts)


# (numpy function, test on the bound call node, helper, how to pass the arguments)
# (keepdims reaches a helper only in a helper's primal copy, which is not bound:
# a differentiated call's keepdims is a reshape, bind.py)
# "same": the call's own arguments; "tuple": the literal's elements as a tuple.
FORMS = [
    (np.sum, _given("keepdims"), "sum_kept", "same"),
    (np.mean, _any(_given("axis"), _given("keepdims")), "mean_axis", "same"),
    (np.max, _any(_given("axis"), _given("keepdims")), "max_axis", "same"),
    (np.amax, _any(_given("axis"), _given("keepdims")), "max_axis", "same"),
    (np.min, _any(_given("axis"), _given("keepdims")), "min_axis", "same"),
    (np.amin, _any(_given("axis"), _given("keepdims")), "min_axis", "same"),
    (np.prod, _any(_given("axis"), _given("keepdims")), "prod_axis", "same"),
    (np.var, _any(_given("axis"), _given("ddof"), _given("keepdims")), "var_axis", "same"),
    (np.std, _any(_given("axis"), _given("ddof"), _given("keepdims")), "std_axis", "same"),
    (np.linalg.norm, _any(_given("axis"), _fro, _given("keepdims")), "norm_axis", "same"),
    (np.array, _parts_literal, "array_of", "tuple"),
    (np.asarray, _parts_literal, "array_of", "tuple"),  # (a list given to a definition)
    (np.array, _copied, "array_copy", "same"),
    (np.matmul, lambda call: True, "matmul_of", "same"),
    (np.atleast_1d, _one_argument, "atleast_1d_of", "same"),
    (np.atleast_2d, _one_argument, "atleast_2d_of", "same"),
    (np.atleast_3d, _one_argument, "atleast_3d_of", "same"),
]
# the numpy function each helper stands for (its gradient rule is that one's)
STANDS_FOR = {"sum_kept": np.sum, "mean_axis": np.mean, "max_axis": np.max,
              "min_axis": np.min, "prod_axis": np.prod, "var_axis": np.var, "std_axis": np.std,
              "norm_axis": np.linalg.norm, "array_of": np.array, "array_copy": np.array,
              "matmul_of": np.matmul, "atleast_1d_of": np.atleast_1d,
              "atleast_2d_of": np.atleast_2d, "atleast_3d_of": np.atleast_3d}
