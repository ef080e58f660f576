"""numpy's shape functions: copies and casts, reshapes, transposes, joining,
array creation, repeating and padding, axes, flips and rolls, diagonals
and triangles, differences, sorting, positions (no gradient) and
splitting, and the forms numba lacks (s2sad/forms.py). Names like
`unstack_nd` are helpers of `s2sad.runtime` (see there)."""
# flake8: noqa: F821  (runtime helpers are globals of the generated module)
import numpy as np

from .. import runtime as rt
from ..extend import (AT_LEAST_2D, AXES, AXIS, AXIS_INT, AXIS_INT_OR_NONE, AXIS_OF_SHAPE, BOOL,
                      FLOAT_DTYPE, GRADIENT_OF, INT, INT_OR_INTS, K, PAD_MODE, PAD_WIDTH,
                      PAIR_OF_AXES, SCALAR, SHAPE_ONLY, SORT_KIND, VECTOR_OR_MATRIX, adjoint,
                      copied, created_array, first_arg, given, int_scalar, like_first,
                      nondifferentiable, numba_form, one_argument, one_name, parts_literal, refused,
                      shape_ndim, tangent)


# ---- copies and casts -----------------------------------------------------------------------

@adjoint(np.positive, np.copy, kind=like_first, linear=(0,))
def identity(g, ans, a):
    return g


@adjoint(np.asarray, np.ascontiguousarray, kind=like_first, linear=(0,),
         values={"dtype": FLOAT_DTYPE})
def as_array(g, ans, a, dtype=None):
    return g


@adjoint(np.array, kind=like_first, linear=(0,), values={"dtype": FLOAT_DTYPE})
def array(g, ans, object, dtype=None):
    return g


def _ndim(k):
    return k.ndim if k.is_array else 0


def _with_ndim(nd):
    return lambda args, kws: K.array(nd(args, kws), args[0].dtype if args[0].is_array
                                     else args[0].scalar_dtype)


def _at_least(n):
    return _with_ndim(lambda args, kws: max(_ndim(args[0]), n))


def _joined(n):
    """np.hstack (n=1), vstack (2), dstack (3): the tuple's items at least n-d."""
    def kind(args, kws):
        items = args[0].items
        return K.array(max([n] + [_ndim(i) for i in items]),
                       K.promote(*(i.scalar_dtype for i in items)))
    return kind


def _squeezed(args, kws):
    axis = kws.get("axis", K.NONE)
    if axis.tag == "none":
        return K.UNKNOWN  # as many axes as have length 1
    return K.array(_ndim(args[0]) - (len(axis.items) if axis.tag == "tuple" else 1),
                   args[0].dtype)


def _cast(args, kws):
    """x.astype(dtype): x's shape, the dtype's kind (an integer cast of floats is
    an index array, whose repeated entries add up; a float kind when unknown)."""
    dtype = K.dtype_of(args[1] if len(args) > 1 else kws.get("dtype", K.UNKNOWN))
    if dtype is None or not args[0].known:
        return K.float_result(args[0])
    return K.array(args[0].ndim, dtype.text)


@adjoint(np.astype, kind=_cast, diff_argnums=(0,), linear=(0,),
         values={"dtype": FLOAT_DTYPE})
def astype(g, ans, x, dtype):
    return g


@adjoint(np.squeeze, kind=_squeezed, diff_argnums=(0,), linear=(0,),
         values={"axis": AXIS_OF_SHAPE})
def squeeze(g, ans, a, axis=None):
    return reshape_like(g, a)


@adjoint(np.atleast_1d, kind=_at_least(1), linear=(0,))
def atleast_1d(g, ans, arys):
    return reshape_like(g, arys)


@adjoint(np.atleast_2d, kind=_at_least(2), linear=(0,))
def atleast_2d(g, ans, arys):
    return reshape_like(g, arys)


@adjoint(np.atleast_3d, kind=_at_least(3), linear=(0,))
def atleast_3d(g, ans, arys):
    return reshape_like(g, arys)


# ---- transposes, reshapes, joining ----------------------------------------------------------

@adjoint(np.transpose, kind=first_arg, diff_argnums=(0,), linear=(0,), values={"axes": AXES})
def transpose(g, ans, a, axes=None):
    return untranspose(g, axes)


@adjoint(np.transpose, when=lambda a: True)
def transpose_plain(g, ans, a):
    return np.transpose(g)


@adjoint(np.reshape, kind=lambda args, kws: K.array(shape_ndim(args[1]), args[0].dtype),
         diff_argnums=(0,), linear=(0,))
def reshape(g, ans, a, shape):
    return reshape_like(g, a)


@adjoint(np.ravel, kind=lambda args, kws: K.array(1, args[0].dtype), linear=(0,))
def ravel(g, ans, a):
    return reshape_like(g, a)


@adjoint(np.expand_dims, kind=lambda args, kws: K.array(
    args[0].ndim + (len(args[1].items) if args[1].tag == "tuple" else 1), args[0].dtype),
         diff_argnums=(0,), linear=(0,))
def expand_dims(g, ans, a, axis):
    return reshape_like(g, a)


@adjoint(np.concatenate, kind=lambda args, kws: args[0].items[0], diff_argnums=(0,),
         linear=(0,), values={"axis": AXIS_INT})
def concatenate(g, ans, arrays, axis=0):
    return concatenate_parts(g, arrays, axis)


@adjoint(np.stack, kind=lambda args, kws: K.array(args[0].items[0].ndim + 1,
                                                  args[0].items[0].dtype), diff_argnums=(0,),
         linear=(0,), values={"axis": AXIS_INT})
def stack(g, ans, arrays, axis=0):
    return stack_parts(g, arrays, axis)


@adjoint(np.hstack, kind=_joined(1), diff_argnums=(0,), linear=(0,))
def hstack(g, ans, tup):
    return unstack_nd(g, tup, "h")


@adjoint(np.vstack, kind=_joined(2), diff_argnums=(0,), linear=(0,))
def vstack(g, ans, tup):
    return unstack_nd(g, tup, "v")


@adjoint(np.dstack, kind=_joined(3), diff_argnums=(0,), linear=(0,))
def dstack(g, ans, tup):
    return unstack_nd(g, tup, "d")


@adjoint(np.column_stack, kind=_joined(2), diff_argnums=(0,), linear=(0,))
def column_stack(g, ans, tup):
    return unstack_nd(g, tup, "c")


@adjoint(np.append, kind=lambda args, kws: K.array(
    1 if kws.get("axis", K.NONE).tag == "none" else _ndim(args[0]),
    K.promote(args[0].scalar_dtype, args[1].scalar_dtype)), values={"axis": AXIS_INT_OR_NONE})
def append(g, ans, arr, values, axis=None):
    return append_head(g, arr, values, axis), append_tail(g, arr, values, axis)


@tangent(np.append)
def append_tangent(tarr, tvalues, ans, arr, values, axis=None):
    # linear in (arr, values) together
    return np.append(tarr, tvalues, axis)


# ---- creating arrays ------------------------------------------------------------------------

@adjoint(np.linspace, kind=lambda args, kws: K.array(1, "f"), diff_argnums=(0, 1),
         values={"start": SCALAR, "stop": SCALAR, "num": INT, "endpoint": BOOL})
def linspace(g, ans, start, stop, num=50, endpoint=True):
    t = np.arange(num) / (max(num - 1, 1) if endpoint else num)
    return np.sum(g * (1.0 - t)), np.sum(g * t)


@adjoint(np.full, kind=created_array, diff_argnums=(1,), linear=(1,),
         values={"fill_value": SCALAR})
def full(g, ans, shape, fill_value):
    return None, np.sum(g)


@adjoint(np.full_like, kind=lambda args, kws: K.float_result(args[0]), diff_argnums=(1,),
         linear=(1,), values={"a": SHAPE_ONLY, "fill_value": SCALAR})
def full_like(g, ans, a, fill_value):
    return None, np.sum(g)


@tangent(np.linspace)
def linspace_tangent(tstart, tstop, ans, start, stop, num=50, endpoint=True):
    return tstart + (tstop - tstart) * (np.arange(num) / (max(num - 1, 1) if endpoint else num))


nondifferentiable(np.zeros, np.ones, np.empty, kind=created_array)
nondifferentiable(np.zeros_like, np.ones_like, np.empty_like,
                  kind=lambda args, kws: K.float_result(args[0]))
nondifferentiable(np.shape, kind=lambda args, kws: K.tuple_of([K.INT] * args[0].ndim))
nondifferentiable(np.size, np.ndim, kind=int_scalar)


def _arg_extremum(args, kws):
    """np.argmax / np.argmin: an index, or over an axis an index array
    (nearest centres: `k = np.argmin(d, axis=1)`, then `c[k]` gathers)."""
    axis = kws.get("axis", args[1] if len(args) > 1 else K.NONE)
    if not args[0].is_array or axis.tag == "none":
        return K.INT
    if "keepdims" in kws or "out" in kws or len(args) > 2:
        return K.UNKNOWN
    return K.array(args[0].ndim - 1, "i") if args[0].ndim > 1 else K.INT


nondifferentiable(np.argmax, np.argmin, kind=_arg_extremum)
# (the counts; with weights, a definition: s2sad/definitions/elementwise.py)
nondifferentiable(np.bincount, kind=lambda args, kws: K.array(1, "i"))
refused(np.arange, kind=lambda args, kws: K.array(
    1, "i" if all(a.tag == "int" for a in args) else "f"),
    reason="its values depend on start and step; write start + step * np.arange(n)")
nondifferentiable(np.eye, np.identity, kind=lambda args, kws: K.array(2, "f"))


# ---- repeating, padding, axes, flips, diagonals, differences, sorting -----------------------

@adjoint(np.repeat, kind=lambda args, kws: K.array(
    1 if kws.get("axis", K.NONE).tag == "none" else _ndim(args[0]), args[0].dtype),
         diff_argnums=(0,), linear=(0,), values={"repeats": INT, "axis": AXIS_INT_OR_NONE})
def repeat(g, ans, a, repeats, axis=None):
    return unrepeat(g, a, repeats, axis)


@adjoint(np.tile, kind=lambda args, kws: K.array(max(
    _ndim(args[0]), len(args[1].items) if args[1].tag == "tuple" else 1), args[0].dtype),
         diff_argnums=(0,), linear=(0,), values={"reps": INT_OR_INTS})
def tile(g, ans, A, reps):
    return untile(g, A, reps)


@adjoint(np.pad, kind=first_arg, diff_argnums=(0,), linear=(0,),
         values={"pad_width": PAD_WIDTH, "mode": PAD_MODE})
def pad(g, ans, array, pad_width, mode="constant"):
    return unpad_of(g, array, pad_width, mode)


@adjoint(np.moveaxis, kind=first_arg, diff_argnums=(0,), linear=(0,),
         values={"source": INT_OR_INTS, "destination": INT_OR_INTS})
def moveaxis(g, ans, a, source, destination):
    return np.moveaxis(g, destination, source)


@adjoint(np.swapaxes, kind=first_arg, diff_argnums=(0,), linear=(0,),
         values={"axis1": INT, "axis2": INT})
def swapaxes(g, ans, a, axis1, axis2):
    return np.swapaxes(g, axis1, axis2)


@adjoint(np.rollaxis, kind=first_arg, diff_argnums=(0,), linear=(0,),
         values={"axis": INT, "start": INT})
def rollaxis(g, ans, a, axis, start=0):
    return unrollaxis(g, axis, start)


@adjoint(np.flip, kind=first_arg, diff_argnums=(0,), linear=(0,), values={"axis": AXIS})
def flip(g, ans, m, axis=None):
    return np.flip(g, axis)


@adjoint(np.flip, when=lambda m: True)
def flip_all(g, ans, m):
    return np.flip(g)  # (numba's np.flip takes no axis)


@adjoint(np.fliplr, kind=first_arg, linear=(0,))
def fliplr(g, ans, m):
    return np.fliplr(g)


@adjoint(np.flipud, kind=first_arg, linear=(0,))
def flipud(g, ans, m):
    return np.flipud(g)


@adjoint(np.rot90, kind=first_arg, diff_argnums=(0,), linear=(0,),
         values={"k": INT, "axes": PAIR_OF_AXES})
def rot90(g, ans, m, k=1, axes=(0, 1)):
    return np.rot90(g, -k, axes)


@adjoint(np.roll, kind=first_arg, diff_argnums=(0,), linear=(0,),
         values={"shift": INT, "axis": AXIS})
def roll(g, ans, a, shift, axis=None):
    return np.roll(g, -shift, axis)


@adjoint(np.rot90, when=lambda m, k=K.INT: True)
def rot90_first_axes(g, ans, m, k=1):
    return np.rot90(g, -k)


@adjoint(np.roll, when=lambda a, shift: True)
def roll_flat(g, ans, a, shift):
    return np.roll(g, -shift)


@adjoint(np.diag, kind=lambda args, kws: K.array(3 - args[0].ndim, args[0].dtype),
         diff_argnums=(0,), linear=(0,), values={"v": VECTOR_OR_MATRIX, "k": INT})
def diag(g, ans, v, k=0):
    return np.diag(g, k)


@adjoint(np.diag, when=lambda v, k=K.INT: v.ndim == 2)
def diag_of_matrix(g, ans, v, k=0):
    return diag_embed(g, v, k)


@adjoint(np.diagonal, kind=lambda args, kws: K.array(args[0].ndim - 1, args[0].dtype),
         diff_argnums=(0,), linear=(0,),
         values={"a": AT_LEAST_2D, "offset": INT, "axis1": INT, "axis2": INT})
def diagonal(g, ans, a, offset=0, axis1=0, axis2=1):
    return diagonal_embed(g, a, offset, axis1, axis2)


@adjoint(np.diagonal, when=lambda a, offset=K.INT: a.ndim == 2)
def diagonal_of_matrix(g, ans, a, offset=0):
    return diag_embed(g, a, offset)


@adjoint(np.trace, kind=lambda args, kws: K.scalar(args[0].dtype) if args[0].ndim == 2 else
         K.array(args[0].ndim - 2, args[0].dtype), diff_argnums=(0,), linear=(0,),
         values={"a": AT_LEAST_2D, "offset": INT, "axis1": INT, "axis2": INT})
def trace(g, ans, a, offset=0, axis1=0, axis2=1):
    return diagonal_embed(np.expand_dims(g, -1), a, offset, axis1, axis2)


@adjoint(np.trace, when=lambda a, offset=K.INT: a.ndim == 2)
def trace_of_matrix(g, ans, a, offset=0):
    return g * np.eye(a.shape[0], a.shape[1], offset)


@adjoint(np.triu, kind=first_arg, diff_argnums=(0,), linear=(0,), values={"k": INT})
def triu(g, ans, m, k=0):
    return np.triu(g, k)


@adjoint(np.tril, kind=first_arg, diff_argnums=(0,), linear=(0,), values={"k": INT})
def tril(g, ans, m, k=0):
    return np.tril(g, k)


@adjoint(np.diff, kind=first_arg, diff_argnums=(0,), linear=(0,),
         values={"n": INT, "axis": AXIS_INT})
def diff(g, ans, a, n=1, axis=-1):
    return undiff(g, a, n, axis)


@adjoint(np.sort, kind=lambda args, kws: K.array(
    1 if kws.get("axis", K.INT).tag == "none" else _ndim(args[0]), args[0].dtype),
         diff_argnums=(0,), values={"axis": AXIS_INT_OR_NONE, "kind": SORT_KIND})
def sort(g, ans, a, axis=-1, kind=None):
    return unpermute(g, ans, a, axis)


@adjoint(np.partition, kind=lambda args, kws: K.array(
    1 if kws.get("axis", K.INT).tag == "none" else _ndim(args[0]), args[0].dtype),
         diff_argnums=(0,), values={"kth": INT_OR_INTS, "axis": AXIS_INT_OR_NONE})
def partition(g, ans, a, kth, axis=-1):
    return unpermute(g, ans, a, axis)


@tangent(np.sort)
def sort_tangent(t, ans, a, axis=-1, kind=None):
    return permute_like(t, ans, a, axis)


@tangent(np.partition)
def partition_tangent(t, ans, a, kth, axis=-1):
    return permute_like(t, ans, a, axis)


@adjoint(np.gradient, kind=lambda args, kws: K.array(args[0].ndim, "f"), diff_argnums=(0,),
         linear=(0,), values={"f": GRADIENT_OF, "axis": AXIS_INT_OR_NONE})
def gradient(g, ans, f, axis=None):
    return ungradient(g, f, axis)


# ---- positions: no gradient -----------------------------------------------------------------

nondifferentiable(np.argsort, kind=lambda args, kws: K.array(args[0].ndim, "i"))


def _literal_int(kind, default):
    """An int literal's value (`np.diag_indices(n, 3)`), the default without one."""
    if kind is None:
        return default
    return kind.value if isinstance(kind.value, int) else None


def _positions(ndim):
    """The kind of a function of an array giving positions in it (np.nonzero's)."""
    return lambda args, kws: ndim(args[0]) if args[0].is_array else K.UNKNOWN


nondifferentiable(np.nonzero, kind=_positions(lambda a: K.tuple_of([K.array(1, "i")] * a.ndim)))
nondifferentiable(np.flatnonzero, kind=_positions(lambda a: K.array(1, "i")))
nondifferentiable(np.argwhere, kind=_positions(lambda a: K.array(2, "i")))
# the positions of a triangle or the diagonal: one index array per axis
nondifferentiable(np.triu_indices, np.tril_indices, np.triu_indices_from, np.tril_indices_from,
                  kind=lambda args, kws: K.tuple_of([K.array(1, "i")] * 2))
nondifferentiable(np.diag_indices, kind=lambda args, kws: K.tuple_of(
    [K.array(1, "i")] * _literal_int(args[1] if len(args) > 1 else kws.get("ndim"), 2)))
nondifferentiable(np.diag_indices_from, kind=_positions(
    lambda a: K.tuple_of([K.array(1, "i")] * a.ndim)))
numba_form(np.diag_indices, rt.diag_indices_of)
numba_form(np.diag_indices_from, rt.diag_indices_from_of)
numba_form(np.diagonal, rt.diagonal_of)
nondifferentiable(np.digitize, kind=lambda args, kws: K.array(args[0].ndim, "i")
                  if args[0].known else K.UNKNOWN)
nondifferentiable(np.searchsorted, kind=lambda args, kws: K.INT if args[1].is_scalar
                  else K.array(args[1].ndim, "i"))


# ---- splitting: the parts' cotangents put back in place -------------------------------------

def _split_kind(args, kws):
    """As many parts as indices + 1, or as the number of sections when it is
    written as a literal (`np.split(x, 2)`); otherwise not known from the
    kinds (the parts are then typed where they are unpacked)."""
    if args[1].tag == "tuple":
        return K.tuple_of([args[0]] * (len(args[1].items) + 1))
    if args[1].tag == "int" and args[1].value is not None and args[1].value > 0:
        return K.tuple_of([args[0]] * args[1].value)
    return K.UNKNOWN


@adjoint(np.split, np.array_split, kind=_split_kind, diff_argnums=(0,), linear=(0,),
         values={"indices_or_sections": INT_OR_INTS, "axis": AXIS_INT})
def split(g, ans, ary, indices_or_sections, axis=0):
    return unsplit(g, ary, indices_or_sections, axis)


@adjoint(np.hsplit, kind=_split_kind, diff_argnums=(0,), linear=(0,),
         values={"indices_or_sections": INT_OR_INTS})
def hsplit(g, ans, ary, indices_or_sections):
    # along axis 1 (axis 0 of a 1-d array)
    return unsplit(g, ary, indices_or_sections, min(1, ary.ndim - 1))


@adjoint(np.vsplit, kind=_split_kind, diff_argnums=(0,), linear=(0,),
         values={"indices_or_sections": INT_OR_INTS})
def vsplit(g, ans, ary, indices_or_sections):
    return unsplit(g, ary, indices_or_sections, 0)


@adjoint(np.dsplit, kind=_split_kind, diff_argnums=(0,), linear=(0,),
         values={"indices_or_sections": INT_OR_INTS})
def dsplit(g, ans, ary, indices_or_sections):
    return unsplit(g, ary, indices_or_sections, 2)


# ---- the forms numba lacks (s2sad/forms.py) -------------------------------------------------

numba_form(np.array, rt.array_of, when=parts_literal, passing="tuple")
numba_form(np.asarray, rt.array_of, when=parts_literal, passing="tuple",
           takes_rule=False)  # (a list given to a definition)
numba_form(np.array, rt.array_copy, when=copied)
numba_form(np.atleast_1d, rt.atleast_1d_of, when=one_argument)
numba_form(np.atleast_2d, rt.atleast_2d_of, when=one_argument)
numba_form(np.atleast_3d, rt.atleast_3d_of, when=one_argument)


# along an axis, or with a dtype (numba has only x.astype(), the method)
numba_form(getattr(np, "astype", None), rt.astype_of)
# (numba reshapes contiguous arrays only: a slice's reshape would not compile)
numba_form(np.reshape, rt.reshape_of,
           when=lambda call: len(call.args) == 2 and not call.keywords)


numba_form(np.squeeze, rt.squeeze_axis, when=given("axis"))
numba_form(np.diff, rt.diff_axis, when=given("axis"))
numba_form(np.repeat, rt.repeat_axis, when=given("axis"))
numba_form(np.roll, rt.roll_axis)
# (np.flip(g, axis) by position in the rules' templates)
numba_form(np.flip, rt.flip_axis, when=lambda call: given("axis")(call) or len(call.args) > 1)
numba_form(np.sort, rt.sort_axis)
numba_form(np.pad, rt.pad_of)
# of an array (a list of arrays built in a loop), whose rows numpy joins
numba_form(np.hstack, rt.hstack_of, when=one_name)
numba_form(np.vstack, rt.vstack_of, when=one_name)
numba_form(np.column_stack, rt.column_stack_of, when=one_name)
