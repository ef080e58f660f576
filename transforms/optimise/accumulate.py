"""How generated code accumulates adjoints, tidied after clean-up:

* an array adjoint is updated in place (`dv += e`) only where its memory is
  its own; adjoints may share buffers after copy propagation, and then
  `dv = dv + e` makes a new one;
* a scalar's update reads `s += e`;
* the cotangent of a whole-array reduction, a scalar spread over the array
  (`dexp = np.full(exp.shape, dsum)`), is not materialised when it only
  meets that array elementwise: `dexp * exp` is `dsum * exp`, with one
  array of the size of the input fewer to allocate and fill."""
import gast

from ..analysis import kinds as K
from ..syntax import (assign, base_name, binding_counts, callee_name, clone, name, structure, walk,
                      walk_stmts)
from .cleanup import own_expressions


def out_of_place(stmts, rev, ownership):
    """`dv += e` on a whole array adjoint becomes `dv = dv + e` unless dv's
    memory is its own there (`ownership`, an aliases.Ownership): adjoints
    may share buffers after zero propagation (subscript updates go to
    arrays the function owns)."""
    for k, s in enumerate(stmts):
        for field in ("body", "orelse"):
            if isinstance(getattr(s, field, None), list):
                out_of_place(getattr(s, field), rev, ownership)
        if isinstance(s, gast.AugAssign) and isinstance(s.target, gast.Name):
            var = next((v for v, d in rev.adjoints.items() if d == s.target.id), None)
            if var is None:
                continue  # not an adjoint (e.g. a tape cursor)
            kind = rev.kinds.get(var, K.UNKNOWN)
            if kind.is_scalar or ownership.may_add_in_place(s, s.target.id):
                continue
            new = assign(s.target.id, gast.BinOp(left=name(s.target.id), op=gast.Add(),
                                                 right=s.value))
            new.__dict__.update({a: b for a, b in s.__dict__.items() if a.startswith("s2sad_")})
            gast.copy_location(new, s)
            stmts[k] = new


_AUGMENTABLE = (gast.Add, gast.Sub, gast.Mult, gast.Div)


def _same_place(target, expr):
    """`s` and `s`, or `x[i]` and `x[i]` (an element: `+=` on it is the same)."""
    if isinstance(target, gast.Name):
        return isinstance(expr, gast.Name) and expr.id == target.id
    if isinstance(target, gast.Subscript) and isinstance(expr, gast.Subscript):
        load = gast.Subscript(value=target.value, slice=target.slice, ctx=gast.Load())
        return structure(load) == structure(expr)
    return False


def _may_overlap(target, value):
    """`y[1:] = y[1:] - y[:-1]`: a slice written from a value that reads the
    same array. numba's `y[1:] -= y[:-1]` works element by element through
    the overlapping memory (numpy's buffers the right side), so such an
    update keeps its plain form, which makes the right side first."""
    if not isinstance(target, gast.Subscript):
        return False
    if not any(isinstance(n, gast.Slice) for n in walk(target.slice)):
        return False
    base = target.value
    while isinstance(base, (gast.Subscript, gast.Attribute)):
        base = base.value
    return isinstance(base, gast.Name) and any(
        isinstance(n, gast.Name) and n.id == base.id for n in walk(value))


def augment_scalar_updates(stmts, scalars, lists=frozenset()):
    """`s = s + e` reads `s += e` (for scalars only: on arrays `+=` would
    write in place; so it would into an array held in one of the `lists`,
    `dhs[i] = dhs[i] + e`, which may be another name's array too)."""
    for k, s in enumerate(stmts):
        for field in ("body", "orelse"):
            if isinstance(getattr(s, field, None), list):
                augment_scalar_updates(getattr(s, field), scalars, lists)
        if (isinstance(s, gast.Assign) and isinstance(s.value, gast.BinOp)
                and isinstance(s.value.op, _AUGMENTABLE) and _same_place(s.targets[0], s.value.left)
                and (not isinstance(s.targets[0], gast.Name) or s.targets[0].id in scalars)
                and base_name(s.targets[0]) not in lists
                and not _may_overlap(s.targets[0], s.value.right)):
            new = gast.AugAssign(target=s.targets[0], op=s.value.op, value=s.value.right)
            new.__dict__.update({a: b for a, b in s.__dict__.items() if a.startswith("s2sad_")})
            gast.copy_location(new, s)
            stmts[k] = new


_ELEMENTWISE = (gast.Add, gast.Sub, gast.Mult, gast.Div)


def broadcast_scalar_cotangents(stmts, scalars, changed=lambda statements: None):
    """Where `dv = unreduce(g, ref, None)` with `g` a scalar, and every read
    of `dv` is an operand of `+ - * /` whose other operand is `ref` itself,
    those read `g` instead (broadcasting gives the same values), and the
    assignment is left for dead-store elimination. `dv`, `g` and `ref` must
    each be bound once, so the values are the same wherever they are read.
    `changed` is told of the statements it rewrites."""
    spreads = [spread for spread in (_spread_scalar(s, scalars) for s in walk_stmts(stmts))
               if spread is not None]
    if not spreads:
        return  # (most functions: no walk of the whole function)
    counts = binding_counts(stmts)
    # `dv += e` after the spread changes dv's values too: not bound once
    for s in walk_stmts(stmts):
        if isinstance(s, gast.AugAssign) and isinstance(s.target, gast.Name):
            counts[s.target.id] = counts.get(s.target.id, 0) + 1
    tree = gast.Module(body=stmts, type_ignores=[])
    operands = {}  # name -> list of (binop, side) where it is read as an operand
    loads = {}
    for n in walk(tree):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
            loads[n.id] = loads.get(n.id, 0) + 1
        if isinstance(n, gast.BinOp) and isinstance(n.op, _ELEMENTWISE):
            for side, other in (("left", n.right), ("right", n.left)):
                operand = getattr(n, side)
                if isinstance(operand, gast.Name) and isinstance(other, gast.Name):
                    operands.setdefault(operand.id, []).append((n, side, other.id))
    rewritten = set()
    for v, g, ref in spreads:
        uses = operands.get(v, [])
        if any(counts.get(x, 0) != 1 for x in (v, ref)) or \
                (isinstance(g, gast.Name) and counts.get(g.id, 0) != 1):
            continue
        if not uses or len(uses) != loads.get(v, 0) or any(o != ref for _, _, o in uses):
            continue
        for binop, side, _ in uses:
            setattr(binop, side, clone(g))
            rewritten.add(id(binop))
    if rewritten:
        changed([s for s in walk_stmts(stmts)
                 if any(id(n) in rewritten for part in own_expressions(s) for n in walk(part))])


def _spread_scalar(s, scalars):
    """(dv, g, ref) for `dv = np.full(ref.shape, g)` (np.sum's adjoint over
    a whole array), `dv = unreduce(g, ref)` or `unreduce(g, ref, None)`,
    with `g` a scalar name or number, else None."""
    if not (isinstance(s, gast.Assign) and len(s.targets) == 1
            and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Call)):
        return None
    call = s.value
    spread = _full_of_shape(call) or _unreduce_whole(call)
    if spread is None:
        return None
    g, ref = spread
    scalar = (isinstance(g, gast.Name) and g.id in scalars) or (
        isinstance(g, gast.Constant) and isinstance(g.value, float))
    return (s.targets[0].id, g, ref) if scalar else None


def _full_of_shape(call):
    """(g, ref) of `np.full(ref.shape, g)`."""
    if callee_name(call) != "np.full" or call.keywords or len(call.args) != 2:
        return None
    shape = call.args[0]
    if not (isinstance(shape, gast.Attribute) and shape.attr == "shape"
            and isinstance(shape.value, gast.Name)):
        return None
    return call.args[1], shape.value.id


def _unreduce_whole(call):
    """(g, ref) of `unreduce(g, ref)` or `unreduce(g, ref, None)`."""
    if not (isinstance(call.func, gast.Name) and call.func.id == "unreduce") or call.keywords:
        return None
    args = call.args
    if len(args) not in (2, 3) or not isinstance(args[1], gast.Name):
        return None
    if len(args) == 3 and not (isinstance(args[2], gast.Constant) and args[2].value is None):
        return None
    return args[0], args[1].id
