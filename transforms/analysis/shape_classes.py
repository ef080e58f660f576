"""Arrays whose shape never changes, so that reading only their shape needs
no recorded value.

Many adjoints read an array only for its shape: `np.zeros_like(v)`,
`unbroadcast(g, v)`, `unreduce(g, v, axis)`, `v.shape`. When every value a
name ever holds has one shape, the reverse sweep may read that shape from
whatever value the name holds, and nothing needs recording for it. In RK4
over arrays

    for step in range(n):
        k1 = -k * y * y
        ...
        y = y + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)

every stage has y's shape, which y keeps: the adjoints of the sums read
only shapes, and of the ~20 arrays a step computes only the operands of
products are recorded.

The shape of a name is followed through its assignments: a parameter, or a
name assigned once outside any loop, is a shape of its own; arithmetic,
numpy ufuncs and copies of values of one shape (and scalars) have that
shape. A name all of whose assignments have the same shape has it; any
other assignment (a slice, a reshape, a call, tuple unpacking, a loop
counter) makes the name's shape unknown. The assignments are checked as an
inductive invariant: assuming every name has its shape, each assignment
keeps it, so every value ever computed has it."""
import gast
import numpy as np

from ..syntax import callee_name, names_loaded, walk

_TOP, _BOTTOM, _SCALAR = "top", "bottom", "scalar"
SHAPE_READS = {"unbroadcast": 1, "unreduce": 1, "np.zeros_like": 0, "np.empty_like": 0,
               "np.ones_like": 0, "np.full_like": 0, "zeros_like": 0, "np.shape": 0,
               "len": 0}


def fixed_shapes(tree, kinds, resolve):
    """Names of arrays that hold values of one shape throughout `tree` (a
    normalised function)."""
    return set(shape_classes(tree, kinds, resolve))


def shape_classes(tree, kinds, resolve):
    """{name: the name whose shape it has} for the arrays of one shape
    throughout `tree`: two names of one class have equal shapes wherever they
    are read. A name bound once outside any loop to a copy, an elementwise
    function or `np.zeros_like` of another takes that one's class."""
    params = {a.id for a in tree.args.args}
    bindings = {}

    def visit(stmts, depth):
        for s in stmts:
            if isinstance(s, gast.Assign):
                t = s.targets[0]
                if isinstance(t, gast.Name) and len(s.targets) == 1:
                    bindings.setdefault(t.id, []).append((s.value, depth))
                else:
                    for n in _names_in_target(t):
                        bindings.setdefault(n, []).append((None, depth))
            elif isinstance(s, gast.AugAssign) and isinstance(s.target, gast.Name):
                op = gast.BinOp(left=gast.Name(id=s.target.id, ctx=gast.Load(), annotation=None,
                                               type_comment=None), op=s.op, right=s.value)
                bindings.setdefault(s.target.id, []).append((op, depth))
            elif isinstance(s, gast.For):
                for n in _names_in_target(s.target):
                    bindings.setdefault(n, []).append((None, depth))
            inner = depth + 1 if isinstance(s, (gast.For, gast.While)) else depth
            for field in ("body", "orelse"):
                visit(getattr(s, field, None) or [], inner)

    visit(tree.body, 0)
    del visit  # (a recursive closure is a reference cycle: it would keep the tree)
    arrays = {v for v in set(bindings) | params if _kind(kinds, v) == "array"}
    shape = {v: _TOP for v in arrays}
    for v in arrays:  # a shape of its own
        own = bindings.get(v, [])
        if v in params and not own or v not in params and len(own) == 1 and own[0][1] == 0:
            shape[v] = v
    changed = True
    while changed:
        changed = False
        for v in arrays:
            if shape[v] == v:
                continue
            got = shape[v] if v not in params else v
            for value, _ in bindings.get(v, []):
                got = _join(got, _of(value, shape, kinds, resolve))
            if got == _SCALAR:
                got = _BOTTOM
            if got != shape[v]:
                changed, shape[v] = True, got
    fixed = {v: shape[v] for v in arrays if shape[v] not in (_TOP, _BOTTOM)}
    # a shape of its own that is another's: `y = np.zeros_like(x)`, `y = x.copy()`
    for _ in range(len(fixed)):
        moved = False
        for v, rep in fixed.items():
            own = bindings.get(v, [])
            if rep != v or v in params or len(own) != 1:
                continue
            other = _of(own[0][0], fixed, kinds, resolve)
            if other in fixed.values() and other != v:
                moved = True
                for u, r in fixed.items():
                    if r == v:
                        fixed[u] = other
        if not moved:
            break
    return fixed


# (one argument: no dtype or shape of their own)
_SHAPE_OF_FIRST = (np.copy, np.zeros_like, np.ones_like, np.empty_like)


def same_region_shapes(region, value, classes, kind_of):
    """Whether writing the array `value` into `region` (`y[i, :] = x[i, :]`,
    `y[:] = x`) is proven to broadcast nothing: both index arrays of one shape
    class, with the same number of index parts, each an int in both or the same
    slice written the same way (`kind_of(node)`: an index's kind). Anything
    else is not a proof."""
    def parts(node):
        if isinstance(node, gast.Name):
            return node.id, []
        if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name):
            items = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
            return node.value.id, list(items)
        return None, None

    (a, pa), (b, pb) = parts(region), parts(value)
    if a is None or b is None or a not in classes or classes.get(b) != classes[a]:
        return False
    if not pb and pa:  # y[:] = x, y[:, :] = x: whole-axis slices only
        pb = [gast.Slice(lower=None, upper=None, step=None) for _ in pa]
    if len(pa) != len(pb):
        return False
    for p, q in zip(pa, pb):
        if isinstance(p, gast.Slice) and isinstance(q, gast.Slice):
            if gast.dump(p) != gast.dump(q):
                return False
        elif not (_int_index(p, kind_of) and _int_index(q, kind_of)):
            return False
    return True


def _int_index(node, kind_of):
    if isinstance(node, gast.Constant):
        return type(node.value) is int
    return not isinstance(node, gast.Slice) and kind_of(node).tag == "int"


def _names_in_target(t):
    if isinstance(t, gast.Name):
        return [t.id]
    if isinstance(t, (gast.Tuple, gast.List)):
        return [n for e in t.elts for n in _names_in_target(e)]
    return []


def _kind(kinds, v):
    k = kinds.get(v)
    if k is None or not k.known:
        return "unknown"
    return "array" if k.is_array else "scalar" if k.is_scalar else "other"


def _join(a, b):
    if a == _SCALAR:
        return b
    if b == _SCALAR:
        return a
    if a == _TOP:
        return b
    if b == _TOP:
        return a
    return a if a == b else _BOTTOM


def _of(value, shape, kinds, resolve):
    """The shape of an expression: a name's, _SCALAR, _TOP (not known yet)
    or _BOTTOM (unknown)."""
    if value is None:
        return _BOTTOM
    if isinstance(value, gast.Constant):
        return _SCALAR if isinstance(value.value, (int, float, bool)) else _BOTTOM
    if isinstance(value, gast.Name):
        kind = _kind(kinds, value.id)
        if kind == "scalar":
            return _SCALAR
        return shape.get(value.id, _BOTTOM)
    if isinstance(value, gast.BinOp):
        if isinstance(value.op, gast.MatMult):
            return _BOTTOM
        return _join(_of(value.left, shape, kinds, resolve),
                     _of(value.right, shape, kinds, resolve))
    if isinstance(value, gast.UnaryOp):
        return _of(value.operand, shape, kinds, resolve)
    if isinstance(value, gast.Call) and not value.keywords:
        if isinstance(value.func, gast.Attribute) and value.func.attr == "copy" \
                and not value.args:
            return _of(value.func.value, shape, kinds, resolve)
        try:
            fn = resolve(value.func)
        except Exception:  # noqa: BLE001 - not resolvable: not known elementwise
            return _BOTTOM
        if isinstance(fn, np.ufunc) and fn.nout == 1 and len(value.args) == fn.nin \
                or any(fn is f for f in _SHAPE_OF_FIRST) and len(value.args) == 1:
            out = _SCALAR
            for a in value.args:
                out = _join(out, _of(a, shape, kinds, resolve))
            return out
        return _BOTTOM
    if isinstance(value, gast.Subscript):
        return _SCALAR if _kind(kinds, getattr(value.value, "id", "")) == "array" and \
            _scalar_subscript(value, kinds) else _BOTTOM
    return _BOTTOM


def _scalar_subscript(value, kinds):
    k = kinds.get(value.value.id)
    parts = value.slice.elts if isinstance(value.slice, gast.Tuple) else [value.slice]
    # (an index array picks an array: x[idx] has idx's shape)
    return len(parts) == k.ndim and all(
        isinstance(p, gast.Constant) or isinstance(p, gast.Name) and _kind(kinds, p.id) == "scalar"
        for p in parts)


def shape_read_nodes(stmt):
    """The Name nodes of `stmt` that are read only for their shape."""
    out = set()
    for node in walk(stmt):
        if isinstance(node, gast.Call):
            pos = SHAPE_READS.get(callee_name(node))
            if pos is not None and len(node.args) > pos and isinstance(node.args[pos], gast.Name):
                out.add(id(node.args[pos]))
        elif isinstance(node, gast.Attribute) and node.attr in ("shape", "size", "ndim") \
                and isinstance(node.value, gast.Name):
            out.add(id(node.value))
    return out


class ShapeOnly(set):
    """Names whose zeros read only a shape (bound once), with `fixed`: the
    arrays of one shape throughout, any of whose shape
    reads reads no value."""

    def __init__(self, names, fixed):
        super().__init__(names)
        self.fixed = fixed
        # id(statement) -> (it, the names whose values it reads), for
        # reverse/value_reads.py's value_reads (a nest's statements are asked once per
        # loop around them, and again in every round of the sweeps)
        self.reads_of = {}


def loads_beyond_shapes(s, fixed):
    """Names `s` reads, less those of `fixed` it reads only the shape of."""
    loaded = names_loaded(s)
    if not loaded & fixed:
        return loaded
    shapes = shape_read_nodes(s)
    return {n.id for n in walk(s) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load)
            and not (n.id in fixed and id(n) in shapes)}
