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
  loop, branches taken);
* a record bound to a name (`s_old = s` in a fused iteration): one value
  at a time, whatever the trip count (nothing for a number).

Everything is written as arithmetic on values known before the loop. Where
the generated code does not say (a trip count read from what the loop
computes, a `while` loop, an array whose size is not known before the loop,
a tape written in a form not listed above), the estimate takes the size of
the largest array the loop reads or writes: elements for a trip count,
bytes for a value. Loops reading values of one iteration back from a list
in the same iteration (fused sweeps) keep one iteration's values at a time,
so their appends are not counted."""
import gast

from ..analysis import kinds as K

from ..syntax import attr, binop, call, const, name, names_loaded, names_stored, plain_copy, walk

# bytes a list tape spends per array beside its data (numba: the array's
# structure in the list, its memory-info header and the allocator's; CPython:
# the ndarray object; measured with numba 0.68: 173 to 181)
ARRAY_HEADER = 176

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
        self.placeholders = set()  # names last bound to an empty array before the loop
        for s in before:
            if isinstance(s, gast.Assign) and len(s.targets) == 1 \
                    and isinstance(s.targets[0], gast.Name):
                v = s.targets[0].id
                if v in self.tapes:
                    self.allocations[v] = s.value
                elif _empty(s.value):
                    self.placeholders.add(v)
                else:
                    self.placeholders.discard(v)
        # names the loop binds exactly once, by a plain assignment: their values
        self.single = _single_assignments(loop)
        self.popped = {n.value.id for n in walk(loop) if isinstance(n, gast.Attribute)
                       and n.attr == "pop" and isinstance(n.value, gast.Name)}

    # ---- what is known before the loop -----------------------------------
    def known(self, expr):
        """Whether `expr` reads only names bound before the loop and not
        rebound in it."""
        return not (names_loaded(expr) - (self.available - self.written) - BUILTINS)

    def before(self, v):
        """A name bound before the loop with the shape `v` has in it, or None."""
        if v in self.available and v not in self.written:
            return v
        rep = self.classes.get(v)
        if rep is None:
            return None
        for other, r in sorted(self.classes.items()):  # (one of its class bound before)
            if r == rep and other in self.available and other not in self.written:
                return other
        return None

    def size_of(self, v):
        """`x.size` of an array with the shape `v` has in the loop, or None;
        an array the loop binds again but holds a value before it (not a
        placeholder): the size of that value."""
        b = self.before(v)
        if b is None and v in self.available and v not in self.placeholders \
                and self.kind(v).is_array:
            b = v
        return None if b is None else attr(name(b), "size")

    def resolved(self, expr, depth=0):
        """`expr` (an int expression in the loop) over names known before
        it, or None: a name the loop binds once is replaced by its value, a
        shape read from an array of fixed shape by the shape of one bound
        before."""
        if depth > 8:
            return None
        if isinstance(expr, gast.Constant):
            return plain_copy(expr)
        if isinstance(expr, gast.Name):
            if expr.id in BUILTINS or expr.id in self.available and expr.id not in self.written:
                return plain_copy(expr)
            value = self.single.get(expr.id)
            return None if value is None else self.resolved(value, depth + 1)
        if isinstance(expr, gast.Attribute) and isinstance(expr.value, gast.Name) \
                and expr.attr in ("shape", "size", "ndim"):
            b = self.before(expr.value.id)
            return None if b is None else attr(name(b), expr.attr)
        if isinstance(expr, gast.Subscript) and isinstance(expr.value, gast.Attribute) \
                and expr.value.attr == "shape" and isinstance(expr.slice, gast.Constant):
            shape = self.resolved(expr.value, depth + 1)
            return None if shape is None else gast.Subscript(value=shape, slice=plain_copy(
                expr.slice), ctx=gast.Load())
        if isinstance(expr, gast.BinOp):
            left, right = self.resolved(expr.left, depth + 1), self.resolved(expr.right, depth + 1)
            return None if left is None or right is None else \
                gast.BinOp(left=left, op=type(expr.op)(), right=right)
        if isinstance(expr, gast.UnaryOp):
            operand = self.resolved(expr.operand, depth + 1)
            return None if operand is None else gast.UnaryOp(op=type(expr.op)(), operand=operand)
        if isinstance(expr, gast.Call) and isinstance(expr.func, gast.Name) \
                and expr.func.id in BUILTINS and not expr.keywords:
            args = [self.resolved(a, depth + 1) for a in expr.args]
            return None if any(a is None for a in args) else call(expr.func.id, *args)
        return None

    def elements(self, expr, depth=0):
        """Elements of the array `expr` computes in the loop, or None."""
        if depth > 8:
            return None
        if isinstance(expr, gast.Name):
            size = self.size_of(expr.id)
            if size is not None:
                return size
            value = self.single.get(expr.id)
            return None if value is None else self.elements(value, depth + 1)
        if isinstance(expr, gast.Subscript) and isinstance(expr.value, gast.Name):
            return self.row(expr)
        if isinstance(expr, gast.BinOp):  # (an operand a number: the other's shape)
            if self.is_number(expr.left):
                return self.elements(expr.right, depth + 1)
            if self.is_number(expr.right):
                return self.elements(expr.left, depth + 1)
            # two arrays: the larger (broadcasting a row against a column,
            # which makes more, goes through a[:, None]: not known, the guess)
            left, right = self.elements(expr.left, depth + 1), self.elements(expr.right, depth + 1)
            if left is None or right is None:
                return None
            return left if gast.dump(left) == gast.dump(right) else call("max", left, right)
        if isinstance(expr, gast.UnaryOp):
            return self.elements(expr.operand, depth + 1)
        if isinstance(expr, gast.Call):
            f = _dotted(expr.func)
            if isinstance(expr.func, gast.Attribute) and expr.func.attr == "copy" \
                    and not expr.args:
                return self.elements(expr.func.value, depth + 1)
            if f in _ELEMENTWISE and len(expr.args) == 1 and not expr.keywords:
                return self.elements(expr.args[0], depth + 1)
        return None

    def is_number(self, e):
        if isinstance(e, gast.Constant):
            return isinstance(e.value, (int, float)) and not isinstance(e.value, bool)
        return isinstance(e, gast.Name) and self.kind(e.id).is_scalar

    def row(self, sub):
        """Elements of `a[i, ...]` with integer indices in its leading axes and
        slices (taken whole) after them."""
        a = sub.value.id
        k = self.kind(a)
        source = self.before(a)
        if not k.is_array or source is None:
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
            return const(1)
        out = attr(name(source), "size")
        for axis in range(whole):
            out = binop(out, "//", call("max", gast.Subscript(
                value=attr(name(source), "shape"), slice=const(axis), ctx=gast.Load()), const(1)))
        return out

    def largest(self):
        """Elements of the largest array whose size is known before the loop
        (1 if none)."""
        sizes, seen = [], set()
        for v in sorted(names_loaded(self.loop) | self.written | self.available):
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
                elif _bound_by(node, tape):
                    # a name holds one value at a time, however often it is
                    # bound (a fused iteration's record): a number takes no
                    # memory to speak of, an array its bytes once
                    if not self.is_number(node.value):
                        whole.append(self.value_bytes(node.value))
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
        for k, inner in enumerate(loops):
            trips = self.trip_bound(inner, loops[:k])
            out = _mul(out, trips)
        return out

    def trip_bound(self, inner, loops):
        """Runs of `inner`'s body per run of the loops around it: its trip
        count over names known before the loop, or with the counters of the
        loops around it at their first and last values (a trip count
        monotone in them: triangular nests), else the guess."""
        if isinstance(inner, gast.For) and _is_range(inner.iter):
            rng = self.resolved(inner.iter)
            if rng is not None:
                return call("max", _trips(rng), const(0))
            for outer in [self.loop] + loops:
                ends = self.counter_ends(outer)
                if ends is None:
                    continue
                at = [self.with_counter(inner.iter, outer.target.id, e) for e in ends]
                if all(r is not None for r in at):
                    return call("max", call("max", _trips(at[0]), _trips(at[1])), const(0))
        return self.largest()  # (a while loop, or a range the loop computes)

    def counter_ends(self, outer):
        """(first, last) values of a counted loop's counter, known before the loop."""
        if not (isinstance(outer, gast.For) and _is_range(outer.iter)
                and isinstance(outer.target, gast.Name)):
            return None
        rng = self.resolved(outer.iter)
        if rng is None:
            return None
        args = rng.args
        start, stop = (const(0), args[0]) if len(args) == 1 else (args[0], args[1])
        step = args[2] if len(args) == 3 else const(1)
        if not (isinstance(step, gast.Constant) and step.value == 1):
            return None
        return start, binop(plain_copy(stop), "-", const(1))

    def with_counter(self, expr, counter, value):
        saved = self.single.get(counter)
        self.single[counter] = value
        self.written.discard(counter)
        try:
            return self.resolved(expr)
        finally:
            self.written.add(counter)
            if saved is None:
                del self.single[counter]
            else:
                self.single[counter] = saved

    def value_bytes(self, value):
        """Bytes one append of `value` keeps."""
        if self.is_number(value) or isinstance(value, gast.Subscript) and isinstance(
                value.value, gast.Name) and self.row(value) is not None \
                and isinstance(self.row(value), gast.Constant):
            return const(8)
        kind = self.kind(value.id) if isinstance(value, gast.Name) else None
        n = self.elements(value)
        if n is None:
            n = self.largest()
        item = _item(kind) if kind is not None and kind.is_array else 8
        return binop(_mul(n, const(item)), "+", const(ARRAY_HEADER))

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


_ELEMENTWISE = {"np." + f for f in (
    "sin", "cos", "tan", "exp", "log", "sqrt", "tanh", "sinh", "cosh", "abs", "negative",
    "square", "log1p", "expm1", "arctan", "arcsin", "arccos", "copy", "sign", "floor",
    "ceil")}


def _empty(value):
    """`np.empty(0)`, `np.empty((0, 0))`: a placeholder (tapes.placeholder)."""
    if not (isinstance(value, gast.Call) and _dotted(value.func) == "np.empty" and value.args):
        return False
    shape = value.args[0]
    dims = shape.elts if isinstance(shape, gast.Tuple) else [shape]
    return all(isinstance(d, gast.Constant) and d.value == 0 for d in dims)


def surely_bound(stmts):
    """Names the top-level assignments of `stmts` bind (not those bound only
    in a branch or a loop, which may not have run): what an estimate placed
    after them may read."""
    out = set()
    for s in stmts:
        if isinstance(s, (gast.Assign, gast.AugAssign)):
            out |= names_stored(s)
    return out


def _single_assignments(loop):
    counts, values = {}, {}
    for n in walk(loop):
        if isinstance(n, (gast.Assign, gast.AugAssign, gast.For)):
            targets = n.targets if isinstance(n, gast.Assign) else [n.target]
            for t in targets:
                for v in walk(t):
                    if isinstance(v, gast.Name) and isinstance(v.ctx, gast.Store):
                        counts[v.id] = counts.get(v.id, 0) + 1
            if isinstance(n, gast.Assign) and len(n.targets) == 1 \
                    and isinstance(n.targets[0], gast.Name):
                values[n.targets[0].id] = n.value
    return {v: e for v, e in values.items() if counts.get(v) == 1}


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


def _bound_by(s, tape):
    """`tape = value`: the record is a name, not a tape indexed by the run."""
    return isinstance(s, gast.Assign) and len(s.targets) == 1 \
        and isinstance(s.targets[0], gast.Name) and s.targets[0].id == tape


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
    return trip_expression(*range_bounds(rng))


def range_bounds(rng):
    """(start, stop, stride) of a range(...) call."""
    a = list(rng.args)
    start, stop = (const(0), a[0]) if len(a) == 1 else (a[0], a[1])
    return start, stop, a[2] if len(a) == 3 else const(1)


def trip_expression(start, stop, stride):
    """The trip count as arithmetic when the stride is a literal (numba
    compiles a call of trip_count in a noticeable fraction of a second); a
    negative count (no steps) is below any budget too."""
    step = stride.value if isinstance(stride, gast.Constant) else None
    if isinstance(stride, gast.UnaryOp) and isinstance(stride.op, gast.USub) \
            and isinstance(stride.operand, gast.Constant) \
            and isinstance(stride.operand.value, int):
        step = -stride.operand.value  # range(n, 0, -1)
    if not isinstance(step, int) or isinstance(step, bool) or step == 0:
        return call("trip_count", plain_copy(start), plain_copy(stop), plain_copy(stride))
    a, b = plain_copy(start), plain_copy(stop)
    zero = isinstance(start, gast.Constant) and start.value == 0 and type(start.value) is int
    span = (b if zero else binop(b, "-", a)) if step > 0 else \
        (gast.UnaryOp(op=gast.USub(), operand=b) if zero else binop(a, "-", b))
    if abs(step) == 1:
        return span
    return binop(binop(span, "+", const(abs(step) - 1)), "//", const(abs(step)))




def _dotted(e):
    if isinstance(e, gast.Name):
        return e.id
    if isinstance(e, gast.Attribute):
        inner = _dotted(e.value)
        return None if inner is None else inner + "." + e.attr
    return None
