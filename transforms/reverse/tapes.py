"""Where the forward sweep records values the reverse sweep needs.

The reverse sweep undoes the forward one: before a statement overwrites a
value that some adjoint reads, the old value is saved, and the reverse of
that statement restores it. Storage depends on where the statement is:

* outside loops: one variable, `y_old = y`;
* inside counted `for` loops whose trip counts are known before the
  outermost loop starts: a preallocated array indexed by the loop counters,
  `x_tape[i] = x` ... `x = x_tape[i]`;
* inside counted loops whose inner trip counts depend on the outer
  counters (triangular nests): a preallocated array as long as the inner
  body runs in all, indexed by the number of the run (counted_tapes.py);
* elsewhere (while loops, ranges that change inside the loop, arrays): a
  list used as a stack, `x_stack.append(x)` ... `x = x_stack.pop()`.
"""
import gast

from .counted_tapes import CountedTapes, countable
from ..emit.unparse import stmt_source
from ..syntax import (assign, base_name, binop, call, clone, const, dotted, name,
                     names_loaded, names_stored, plain_copy, walk)

VALUE_COPY = "value_copy"  # the runtime helper copying an array, passing a number through


unparse = stmt_source  # an expression's source


class LoopFrame:
    """A loop enclosing a recorded statement. For counted loops `index` is
    this loop's position in a preallocated tape and `trip` its length."""

    def __init__(self, loop, index=None, trip=None):
        self.loop, self.index, self.trip = loop, index, trip

    @property
    def counted(self):
        return self.index is not None


def frame_for(loop):
    """LoopFrame of a `for i in range(...)` or `while` statement."""
    if isinstance(loop, gast.While):
        return LoopFrame(loop)
    i = loop.target.id
    args = loop.iter.args
    if i in names_stored(loop.body):
        return LoopFrame(loop)
    start = args[0] if len(args) > 1 else const(0)
    stop = args[1] if len(args) > 1 else args[0]
    step = args[2] if len(args) == 3 else const(1)
    if not (isinstance(step, gast.Constant) and isinstance(step.value, int) and step.value > 0):
        return LoopFrame(loop)
    zero_start = isinstance(start, gast.Constant) and start.value == 0
    s = step.value
    offset = name(i) if zero_start else binop(name(i), "-", plain_copy(start))
    if s == 1:
        index = offset
        trip = clone(stop) if zero_start else binop(plain_copy(stop), "-", plain_copy(start))
        if not _non_negative(trip):
            trip = call("max", trip, const(0))
    else:
        index = binop(offset, "//", const(s))
        trip = call("len", clone(loop.iter))
    from ..templates import fold
    return LoopFrame(loop, index=fold(index), trip=fold(trip))


def _non_negative(expr):
    """Trip counts that cannot be negative: constants, shapes, len()."""
    if isinstance(expr, gast.Constant):
        return isinstance(expr.value, int) and expr.value >= 0
    if isinstance(expr, gast.Subscript) and isinstance(expr.value, gast.Attribute):
        return expr.value.attr == "shape"
    if isinstance(expr, gast.Attribute):
        return expr.attr in ("size", "ndim")
    return isinstance(expr, gast.Call) and getattr(expr.func, "id", None) == "len"


_DTYPES = {"f": None, "i": "np.int64", "b": "np.bool_", "c": "np.complex128"}


def placeholder(kind, transposed=False):
    """A value of `kind` to give a variable before its first definition, so
    that saving it on a loop's first iteration is well typed. `transposed`:
    the variable only holds transposes (`T = L.T`), F-ordered: so is its
    placeholder (numba would type a name holding both orders as of any layout)."""
    if kind.tag == "list" and kind.items[0].known:  # an empty list of its elements' type
        return gast.Subscript(value=gast.List(elts=[placeholder(kind.items[0])], ctx=gast.Load()),
                              slice=gast.Slice(lower=None, upper=const(0), step=None),
                              ctx=gast.Load())
    if kind.is_array:
        shape = const(0) if kind.ndim == 1 else \
            gast.Tuple(elts=[const(0) for _ in range(kind.ndim)], ctx=gast.Load())
        dt = _DTYPES[kind.dtype]
        value = call("np.empty", shape, keywords=[("dtype", dotted(dt))] if dt else [])
        if transposed and kind.ndim >= 2:
            return gast.Attribute(value=value, attr="T", ctx=gast.Load())
        return value
    if kind.tag == "tuple" and kind.items is not None and all(i.known for i in kind.items):
        # (a tuple a loop runs over, `for c in (0.5, 2.0)`: a tuple of its items' placeholders)
        return gast.Tuple(elts=[placeholder(i) for i in kind.items], ctx=gast.Load())
    return const({"float": 0.0, "int": 0, "bool": False, "complex": 0j, "str": ""}[kind.tag])


def only_transposes(tree):
    """Names every binding of which in the function `tree` is a transpose `x.T`
    (not a parameter, a loop's target or a tuple's part)."""
    oks = {a.id: [False] for a in tree.args.args}
    for s in walk(tree):
        if isinstance(s, gast.For):
            for n in walk(s.target):
                oks.setdefault(getattr(n, "id", None), []).append(False)
        elif isinstance(s, (gast.Assign, gast.AugAssign)):
            single = isinstance(s, gast.Assign) and len(s.targets) == 1 and \
                isinstance(s.targets[0], gast.Name)
            transpose = single and isinstance(s.value, gast.Attribute) and s.value.attr == "T"
            for t in (s.targets if isinstance(s, gast.Assign) else [s.target]):
                for n in walk(t):
                    if isinstance(n, gast.Name):
                        oks.setdefault(n.id, []).append(transpose)
    return {v for v, found in oks.items() if v and all(found)}


def _copy(load, kind):
    """A copy of an array to record: of a matrix or more, `np.copy`, which keeps its memory
    order (numba types a copy of a transposed, F-ordered, array F-ordered too, where `.copy()`
    is C-ordered: a name holding both would be typed as of any layout, and its products
    copied to contiguous memory at every use, with a NumbaPerformanceWarning); of a value
    of unknown kind, `value_copy` (a number has no `.copy()`)."""
    if not kind.known:
        return call(VALUE_COPY, load)
    if kind.is_array and kind.ndim >= 2:
        return call("np.copy", load)
    return call(gast.Attribute(value=load, attr="copy", ctx=gast.Load()))


class Tapes:
    """Creates the storage for recorded values and the code to use it."""

    def __init__(self, namer, written_in_place=frozenset()):
        self.namer = namer
        self.written_in_place = written_in_place  # arrays a tape must copy
        self.setup = []          # list tapes, created at the top of the function
        self.allocations = {}    # id(outermost loop) -> preallocation statements
        self.names = set()       # every name this class made
        self._stored = {}        # id(loop) -> (loop, names it stores)
        self.counted = CountedTapes(self)

    def _fresh(self, base):
        n = self.namer.fresh(base)
        self.names.add(n)
        return n

    def record(self, target, kind, frames, label):
        """(forward statements, reverse statements) that save `target` (a
        Name or Subscript expression, about to be overwritten) and restore
        it. `label` names the storage."""
        load = clone(target)
        for n in walk(load):
            if hasattr(n, "ctx"):
                n.ctx = gast.Load()
        is_array_value = kind.is_array or not kind.known
        if not frames:
            saved = self._fresh(label + "_old")
            value = load
            if is_array_value and isinstance(target, gast.Subscript) or \
                    kind.is_array and label in self.written_in_place:
                value = _copy(load, kind)
            return [assign(saved, value)], [assign(clone(target), name(saved))]
        if kind.is_scalar and all(f.counted for f in frames) and self._invariant(frames):
            return self._preallocated(target, load, kind, frames, label)
        if kind.is_scalar and all(f.counted for f in frames) \
                and countable(frames, self._written(frames[0].loop)):
            return self.counted.record(target, load, _DTYPES[kind.scalar_dtype], frames, label)
        stack = self._fresh(label + "_stack")
        self.setup.append(assign(stack, gast.List(elts=[], ctx=gast.Load())))
        value = load
        if is_array_value and isinstance(target, gast.Subscript) or \
                kind.is_array and label in self.written_in_place:
            value = _copy(load, kind)
        push = gast.Expr(value=call(gast.Attribute(value=name(stack), attr="append",
                                                   ctx=gast.Load()), value))
        pop = assign(clone(target), call(gast.Attribute(value=name(stack), attr="pop",
                                                        ctx=gast.Load())))
        return [push], [pop]

    def _written(self, outer):
        if id(outer) not in self._stored:  # (the user's loops do not change during a sweep)
            self._stored[id(outer)] = (outer, names_stored([outer]))
        return self._stored[id(outer)][1]

    def _invariant(self, frames):
        written = self._written(frames[0].loop) | {f.loop.target.id for f in frames}
        return all(not (names_loaded(f.trip) & written) for f in frames)

    def _preallocated(self, target, load, kind, frames, label):
        tape = self._fresh(label + "_tape")
        trips = [clone(f.trip) for f in frames]
        shape = trips[0] if len(trips) == 1 else gast.Tuple(elts=trips, ctx=gast.Load())
        dt = _DTYPES[kind.scalar_dtype]
        kws = [("dtype", dotted(dt))] if dt else []
        alloc = assign(tape, call("np.empty", shape, keywords=kws))
        alloc.s2sad_allocation = True
        self.allocations.setdefault(id(frames[0].loop), []).append(alloc)
        index = [clone(f.index) for f in frames]
        slot = gast.Subscript(value=name(tape),
                              slice=index[0] if len(index) == 1 else gast.Tuple(elts=index, ctx=gast.Load()),
                              ctx=gast.Load())
        store_slot = clone(slot)
        store_slot.ctx = gast.Store()
        return [assign(store_slot, load)], [assign(clone(target), slot)]


def names_written_in_place(tree):
    """Names whose array may be written in place somewhere in `tree`,
    through the name itself or another name bound to the same array
    (`u, w = w, u` swaps two buffers; `row = A[i]` may be a view). A tape
    holding such an array must hold a copy: a reference would show the
    later writes when the reverse sweep reads it back."""
    parent = {}

    def find(a):
        while parent.setdefault(a, a) != a:
            a = parent[a]
        return a

    def union(a, b):
        parent[find(a)] = find(b)

    written = set()
    for node in walk(tree):
        if isinstance(node, (gast.Assign, gast.AugAssign)):
            targets = node.targets if isinstance(node, gast.Assign) else [node.target]
            for t in targets:
                for sub in walk(t):
                    if isinstance(sub, gast.Subscript) and isinstance(sub.ctx, gast.Store):
                        written.add(base_name(sub))
            if isinstance(node, gast.AugAssign) or getattr(node, "s2sad_inplace", False):
                written |= {base_name(t) for t in targets}
            if isinstance(node, gast.Assign):
                for t, v in _paired(targets[0], node.value):
                    source = base_name(v) if isinstance(
                        v, (gast.Name, gast.Subscript, gast.Attribute)) else None
                    if isinstance(t, gast.Name) and source is not None:
                        union(t.id, source)
    written.discard(None)
    dirty = {find(w) for w in written}
    return {n for n in parent if find(n) in dirty} | written


def _paired(target, value):
    if isinstance(target, (gast.Tuple, gast.List)) and isinstance(value, (gast.Tuple, gast.List)) \
            and len(target.elts) == len(value.elts):
        return [p for t, v in zip(target.elts, value.elts) for p in _paired(t, v)]
    return [(target, value)]
