"""Assignments through an index array that may name a position twice.

numpy keeps the last write: after `y[[0, 0, 1]] = v`, y[0] is v[1] and v[0]
is lost. Only the last writer of each position may receive that position's
cotangent, so the reverse sweep multiplies `dy[index]` by `last_writes(index,
n)` (1.0 at each position's last writer, 0.0 elsewhere; s2sad.runtime.writes).
`y[index] += v` is `y[index] = y[index] + v` and keeps the last write too.
A constant index with distinct entries of one sign needs no mask."""
import gast

from ..analysis import kinds as K
from ..errors import UnsupportedSyntaxError
from ..syntax import call, clone, const, subscript


def last_writer_mask(target, kind_of, location, stmt, distinct=lambda index: False,
                     distinct_points=lambda arrays: False):
    """For the target `x[index]` of an assignment: None when no position can
    be written twice, else a function taking the cotangent `dx[index]` (an
    expression) to the masked one. Refuses the forms it cannot mask.
    `distinct(index)`: whether an index array (or a tuple of them, one per
    axis) is proved to name each position once, `distinct_points(arrays)`
    whether index arrays on several axes are (analysis/distinct_indices.py)."""
    parts = list(target.slice.elts) if isinstance(target.slice, gast.Tuple) else [target.slice]
    arrays = [p for p, part in enumerate(parts) if _integer_array(part, kind_of)]
    if not arrays or all(_distinct_constants(parts[p]) or distinct(parts[p]) for p in arrays) \
            or (len(arrays) > 1 and distinct_points([parts[p] for p in arrays])):
        return None
    g_ndim = kind_of(gast.Subscript(value=target.value, slice=target.slice,
                                    ctx=gast.Load())).ndim
    position = arrays[0]
    index = parts[position]
    if len(arrays) > 1 or _index_ndim(index, kind_of) != 1 or any(
            isinstance(p, gast.Constant) and (p.value is None or p.value is Ellipsis)
            for p in parts):
        raise UnsupportedSyntaxError(
            "an assignment through several index arrays, or a multi-dimensional one, that may "
            "name a position twice (numpy keeps the last write)", location, stmt,
            "Assign through one 1-d index array, or write the assignment as a loop")
    if isinstance(parts[position], gast.Call):
        # (an index array made in place, `np.array([0, 2, 0])`, is not typed as one by the
        # subscript's kind: the one 1-d index array keeps one axis)
        g_ndim = kind_of(target.value).ndim - sum(
            not isinstance(p, gast.Slice) for p in parts) + 1
    axis = _result_axis(parts, position, kind_of)
    if isinstance(index, gast.List):
        index = call("np.array", clone(index))
    n = subscript(gast.Attribute(value=clone(target.value), attr="shape", ctx=gast.Load()),
                  const(position))
    mask = call("last_writes", clone(index), n)
    if axis < g_ndim - 1:  # put the mask's axis where the index's axis is in dx[index]
        mask = subscript(mask, gast.Tuple(
            elts=[gast.Slice(lower=None, upper=None, step=None)]
            + [const(None)] * (g_ndim - 1 - axis), ctx=gast.Load()))
    return lambda g: gast.BinOp(left=g, op=gast.Mult(), right=mask)


def _literal(part):
    """The list of an index written as a literal: `[0, 2]`, or the array
    `np.array([0, 2, 0])` (kept in place as `array_of((0, 2, 0))`); else None."""
    if isinstance(part, gast.List):
        return part
    if isinstance(part, gast.Call) and len(part.args) == 1 and not part.keywords \
            and isinstance(part.args[0], (gast.List, gast.Tuple)):
        return gast.List(elts=part.args[0].elts, ctx=gast.Load())
    return None


def _integer_array(part, kind_of):
    if isinstance(part, gast.Slice):
        return False
    if _literal(part) is not None:
        return K._sequence_index_kind(_literal(part)).dtype == "i"
    kind = kind_of(part)
    if isinstance(part, gast.Call) and not kind.known:
        return True  # an index array made in place: masked (or refused), never assumed distinct
    if kind.tag == "tuple":  # one index array per axis (np.triu_indices(n)): several
        return bool(kind.items) and all(k.is_array and k.dtype != "b" for k in kind.items)
    return kind.is_array and kind.dtype != "b"  # (not a mask: an index array, whatever its dtype)


def _index_ndim(part, kind_of):
    if _literal(part) is not None:
        return K._sequence_index_kind(_literal(part)).ndim
    kind = kind_of(part)
    return None if kind.tag == "tuple" else kind.ndim  # (a tuple: several arrays)


def _distinct_constants(part):
    """A literal list of ints, all distinct and of one sign (so distinct
    positions whatever the axis' length)."""
    part = _literal(part)
    if part is None:
        return False
    values = [e.value if isinstance(e, gast.Constant) else None for e in part.elts]
    if not all(type(v) is int for v in values):
        return False
    one_sign = all(v >= 0 for v in values) or all(v < 0 for v in values)
    return one_sign and len(set(values)) == len(values)


def _result_axis(parts, position, kind_of):
    """The axis of `x[parts]` that the index array at `position` gives:
    numpy puts the indexed axes where the first of them was when the
    integer and array indices are adjacent, else first."""
    advanced = [p for p, part in enumerate(parts)
                if not isinstance(part, gast.Slice) and (p == position or kind_of(part).is_scalar
                                                         or isinstance(part, gast.Constant))]
    if advanced != list(range(advanced[0], advanced[-1] + 1)):
        return 0
    return sum(isinstance(p, gast.Slice) for p in parts[:advanced[0]])
