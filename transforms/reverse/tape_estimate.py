"""The bytes a loop's forward sweep records, read from the generated forward
sweep itself (the default budget's `check_memory` line, checkpoint_loops.py).

The estimate is the sum of what the statements recording values for the
reverse sweep (tapes.py, counted_tapes.py) keep once the loop has run:

* a preallocated tape written in the loop (`t_tape[i] = t`), allocated
  before it by `t_tape = np.empty(shape, dtype=...)`: the product of its
  shape times its item size, from the allocation's own shape expressions;
* a list tape appended to in the loop and not popped in it
  (`u_stack.append(u.copy())`): per append, the value's bytes (8 for a
  number, `a.nbytes` for an array `a`, for `a[i]` the bytes of the row
  `a.nbytes // a.shape[0]`, plus a header per array), times the number of
  times the append runs (the trip counts of the loops around it within the
  loop, branches taken).

Everything is written as arithmetic on values known before the loop. Where
the generated code does not say (a trip count read from what the loop
computes, a `while` loop, an array whose size is not known before the loop,
a tape written in a form not listed above), the estimate takes the size of
the largest array the loop reads or writes: elements for a trip count,
bytes for a value. Loops reading values of one iteration back from a list
in the same iteration (fused sweeps) keep one iteration's values at a time,
so their appends are not counted."""
import gast

from ..syntax import attr, binop, call, const, name, names_loaded, names_stored, plain_copy, walk

# bytes a list tape spends per array beside its data (numba: the array's
# structure in the list, its memory-info header and the allocator's; CPython:
# the ndarray object)
ARRAY_HEADER = 128

BUILTINS = {"max", "min", "len", "range", "abs", "int"}  # (what trip counts call)

_ITEM_BYTES = {None: 8, "np.float64": 8, "np.int64": 8, "np.bool_": 1, "np.complex128": 16,
               "np.float32": 4}


def tape_bytes(loop, before, available, tape_names, kinds, shape_classes):
    """An expression of the bytes the top-level forward `loop` records, from
    names in `available` only (bound before it); `before`: the statements of
    the forward sweep before it; `tape_names`: the names the tapes were
    given; `kinds`: the variables' kinds; `shape_classes`: {name: a name of
    the same shape throughout}."""
    est = _Estimate(loop, before, available, tape_names, kinds, shape_classes)
    return est.total()


class _Estimate:
    def __init__(self, loop, before, available, tape_names, kinds, shape_classes):
        self.loop, self.kinds, self.classes = loop, kinds, shape_classes
        self.tapes = set(tape_names)
        self.written = names_stored([loop])
        self.available = set(available) - self.tapes
        self.allocations = {}  # tape name -> its allocation before the loop
        for s in before:
            if isinstance(s, gast.Assign) and len(s.targets) == 1 \
                    and isinstance(s.targets[0], gast.Name) and s.targets[0].id in self.tapes:
                self.allocations[s.targets[0].id] = s.value
        self.popped = {n.value.id for n in walk(loop) if isinstance(n, gast.Attribute)
                       and n.attr == "pop" and isinstance(n.value, gast.Name)}

    # ---- what is known before the loop -----------------------------------
    def known(self, expr):
        """Whether `expr` reads only names bound before the loop and not
        rebound in it."""
        return not (names_loaded(expr) - (self.available - self.written) - BUILTINS)

    def size_of(self, v):
        """`x.size` of an array with the shape `v` has in the loop, or None."""
        if v in self.available and v not in self.written:
            return attr(name(v), "size")
        rep = self.classes.get(v)
        if rep is None:
            return None
        for other, r in self.classes.items():  # a name of its class bound before the loop
            if r == rep and other in self.available and other not in self.written:
                return attr(name(other), "size")
        return None

    def largest(self):
        """Elements of the largest array the loop reads or writes whose size
        is known before it (1 if none)."""
        sizes, seen = [], set()
        for v in sorted(names_loaded(self.loop) | self.written):
            size = self.size_of(v) if self.kind(v).is_array else None
            if size is not None and size.value.id not in seen:
                seen.add(size.value.id)
                sizes.append(size)
        if not sizes:
            return const(1)
        out = sizes[0]
        for s in sizes[1:]:
            out = call("max", out, s)
        return out

    def kind(self, v):
        from ..analysis import kinds as K
        return self.kinds.get(v, K.UNKNOWN)

    # ---- the terms ------------------------------------------------------------
    def total(self):
        """bytes of the tapes allocated for the loop + trip count x bytes
        appended per iteration."""
        whole, per_step = [], []
        counted = set()
        for node, loops in _statements(self.loop.body, []):
            push = _append(node, self.tapes)
            if push is not None:
                if push[0] not in self.popped:
                    runs, size = self.runs(loops), self.value_bytes(push[1])
                    per_step.append(_mul(runs, size))
                continue
            for tape in sorted(names_stored(node) & self.tapes - counted):
                counted.add(tape)
                alloc = self.allocations.get(tape)
                term = self.allocation_bytes(alloc) if alloc is not None else None
                if term is not None:
                    whole.append(term)
                elif not _is_counter(node, tape):
                    per_step.append(self.guess())  # (a form this module does not know)
        out = _sum(whole)
        if per_step:
            steps = _mul(_trips(self.loop.iter), _sum(per_step))
            out = steps if out is None else binop(out, "+", steps)
        return out if out is not None else const(0)

    def guess(self):
        return _mul(self.largest(), const(8))

    def allocation_bytes(self, value):
        """Bytes of `np.empty(shape, dtype=...)` from its shape expression."""
        if not (isinstance(value, gast.Call) and _dotted(value.func) in (
                "np.empty", "np.zeros") and value.args and self.known(value.args[0])):
            return None
        dtype = next((_dotted(k.value) for k in value.keywords if k.arg == "dtype"), None)
        if dtype not in _ITEM_BYTES:
            return None
        shape = value.args[0]
        dims = shape.elts if isinstance(shape, gast.Tuple) else [shape]
        out = const(_ITEM_BYTES[dtype])
        for d in dims:
            out = _mul(plain_copy(d), out)
        return out

    def runs(self, loops):
        """How many times a statement inside `loops` (inner loops of the
        loop, outermost first) runs per iteration of the loop."""
        out = const(1)
        for inner in loops:
            trips = self.trip_bound(inner)
            out = _mul(out, trips)
        return out

    def trip_bound(self, inner):
        if isinstance(inner, gast.For) and _is_range(inner.iter) and self.known(inner.iter):
            return call("max", _trips(inner.iter), const(0))
        return self.largest()  # (a while loop, or a range the loop computes)

    def value_bytes(self, value):
        """Bytes one append of `value` keeps."""
        if isinstance(value, gast.Call) and not value.args and isinstance(value.func, gast.Attribute) \
                and value.func.attr == "copy":
            value = value.func.value
        elif isinstance(value, gast.Call) and _dotted(value.func) == "np.copy" \
                and len(value.args) == 1:
            value = value.args[0]
        if isinstance(value, gast.Name):
            k = self.kind(value.id)
            if k.is_scalar:
                return const(8)
            if k.is_array:
                size = self.size_of(value.id)
                if size is not None:
                    return binop(binop(size, "*", const(_item(k))), "+", const(ARRAY_HEADER))
        elif isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name):
            rows = self.rows(value)
            if rows is not None:
                return rows
        elif isinstance(value, gast.Constant):
            return const(8)
        return binop(self.guess(), "+", const(ARRAY_HEADER))

    def rows(self, sub):
        """Bytes of `a[i, ...]` with integer indices in its leading axes and
        slices (taken whole) after them."""
        a = sub.value.id
        k = self.kind(a)
        size = self.size_of(a)
        if not k.is_array or size is None:
            return None
        index = sub.slice.elts if isinstance(sub.slice, gast.Tuple) else [sub.slice]
        whole = 0  # leading integer indices
        for e in index:
            if isinstance(e, gast.Slice):
                break
            if not self.is_int(e):
                return None
            whole += 1
        if any(not isinstance(e, gast.Slice) for e in index[whole:]) or whole > k.ndim:
            return None
        if whole == k.ndim:
            return const(8)
        source = size.value.id  # (the name whose size it is)
        out = binop(attr(name(source), "size"), "*", const(_item(k)))
        for axis in range(whole):
            out = binop(out, "//", call("max", gast.Subscript(
                value=attr(name(source), "shape"), slice=const(axis), ctx=gast.Load()), const(1)))
        return binop(out, "+", const(ARRAY_HEADER))

    def is_int(self, e):
        if isinstance(e, gast.Constant):
            return isinstance(e.value, int) and not isinstance(e.value, bool)
        if isinstance(e, gast.Name):
            return self.kind(e.id).tag == "int"
        if isinstance(e, gast.BinOp):
            return self.is_int(e.left) and self.is_int(e.right)
        if isinstance(e, gast.UnaryOp):
            return self.is_int(e.operand)
        return False


def _item(kind):
    return {"b": 1, "c": 16}.get(kind.dtype, 8)


def _mul(a, b):
    """a * b, with the ones and constants folded."""
    if isinstance(a, gast.Constant) and isinstance(b, gast.Constant):
        return const(a.value * b.value)
    if _is_one(a):
        return b
    if _is_one(b):
        return a
    return binop(a, "*", b)


def _sum(terms):
    out = None
    for t in terms:
        out = t if out is None else binop(out, "+", t)
    return out


def _is_counter(s, tape):
    """`j_run += 1`: a counted tape's run index (counted_tapes.py), no record."""
    return isinstance(s, gast.AugAssign) and isinstance(s.target, gast.Name) \
        and s.target.id == tape and isinstance(s.value, gast.Constant)


def _is_one(e):
    return isinstance(e, gast.Constant) and e.value == 1


def _statements(stmts, loops):
    """(statement, the loops around it within the top loop) of the simple
    statements under `stmts`, branches included."""
    for s in stmts:
        if isinstance(s, (gast.For, gast.While)):
            yield from _statements(s.body, loops + [s])
        elif isinstance(s, gast.If):
            yield from _statements(s.body, loops)
            yield from _statements(s.orelse, loops)
        elif isinstance(s, (gast.With, gast.Try)):
            yield from _statements(s.body, loops)
        else:
            yield s, loops


def _append(s, tapes):
    """(list, value) of `tape.append(value)`."""
    if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) \
            and isinstance(s.value.func, gast.Attribute) and s.value.func.attr == "append" \
            and isinstance(s.value.func.value, gast.Name) and s.value.func.value.id in tapes \
            and len(s.value.args) == 1:
        return s.value.func.value.id, s.value.args[0]
    return None


def _is_range(e):
    return isinstance(e, gast.Call) and isinstance(e.func, gast.Name) \
        and e.func.id in ("range", "prange") and not e.keywords and 1 <= len(e.args) <= 3


def _trips(rng):
    """The trip count of a range(...) call as arithmetic (negative: none)."""
    from .checkpoint_loops import _bounds, _steps
    return _steps(*_bounds(rng))


def _dotted(e):
    if isinstance(e, gast.Name):
        return e.id
    if isinstance(e, gast.Attribute):
        inner = _dotted(e.value)
        return None if inner is None else inner + "." + e.attr
    return None
