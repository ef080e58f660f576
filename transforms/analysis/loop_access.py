"""How the iterations of a loop read and write: upward-exposed reads,
names and elements stored, calls that may write their arguments. What
fusion.py decides a loop's fusion from (UpwardExposure) and parallel.py
its independence (Exposure), and the marks a user's prange carries to the
loops of the derivative made from it (parallel_marks)."""
import gast

from ..syntax import names_loaded, names_stored, structure, walk
from ..reverse.tapes import unparse


# numpy functions that return new values and write none of their arguments
PURE_NUMPY = {
    "abs", "absolute", "arccos", "arcsin", "arctan", "arctan2", "cos", "cosh", "exp", "expm1",
    "log", "log10", "log1p", "log2", "sin", "sinh", "sqrt", "square", "tan", "tanh", "sign",
    "maximum", "minimum", "fmax", "fmin", "where", "clip", "power", "hypot", "floor", "ceil",
    "empty", "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like", "full_like",
    "copy", "sum", "prod", "dot", "outer", "max", "min", "amax", "amin", "mean", "isnan",
    "isinf", "isfinite", "logaddexp", "float64", "float32", "int64", "argmax", "argmin",
}
PURE_BUILTINS = {"range", "len", "min", "max", "abs", "float", "int", "bool"}
ALLOCATIONS = {"empty", "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like",
               "full_like", "copy"}


def is_range(it):
    """Whether `it` is a call of range."""
    return isinstance(it, gast.Call) and isinstance(it.func, gast.Name) and it.func.id == "range"


class UpwardExposure:
    """Names an iteration may read before it writes them (upward-exposed
    reads), for scalars and for 1-D arrays that a loop `for j in range(n):
    a[j] = ...` overwrites whole."""

    def __init__(self, lengths):
        self.lengths = lengths

    def exposed(self, stmts, defined):
        """The names `stmts` read before writing them, given `defined`."""
        self.reads = set()
        self.block(stmts, defined)
        return self.reads

    def block(self, stmts, defined):
        defined = set(defined)
        for s in stmts:
            self.statement(s, defined)
        return defined

    def read(self, node, defined):
        self.reads |= names_loaded(node) - defined

    def statement(self, s, defined):
        if isinstance(s, gast.Assign):
            self.read(s.value, defined)
            targets = s.targets[0].elts if isinstance(s.targets[0], gast.Tuple) else s.targets
            for t in targets:
                if isinstance(t, gast.Name):
                    defined.add(t.id)
                else:  # a partial write: the other elements are still the old ones
                    self.read(t.slice, defined)
        elif isinstance(s, gast.If):
            self.read(s.test, defined)
            defined |= self.block(s.body, defined) & self.block(s.orelse, defined)
        elif isinstance(s, gast.For):
            self.read(s.iter, defined)
            self.block(s.body, defined | {s.target.id})  # it may run no iteration
            defined |= self._overwritten(s)
        elif isinstance(s, gast.While):
            self.read(s.test, defined)
            self.block(s.body, defined)
        else:
            self.read(s, defined)

    def _overwritten(self, loop):
        """Arrays `a` that `for j in range(n): ... a[j] = e ...` writes whole
        (a made with length n), reading no element before writing it."""
        if not (is_range(loop.iter) and len(loop.iter.args) == 1):
            return set()
        n, j = structure(loop.iter.args[0]), loop.target.id
        out = set()
        for k, s in enumerate(loop.body):
            if not (isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Subscript)):
                continue
            t = s.targets[0]
            a = t.value.id if isinstance(t.value, gast.Name) else None
            if a is None or self.lengths.get(a) != n or not _is_name(t.slice, j):
                continue
            if j in names_stored(loop.body) or a in names_loaded(loop.body[:k]) \
                    or a in names_loaded(s.value):
                continue
            later = [n_ for n_ in walk(gast.Module(body=loop.body[k + 1:], type_ignores=[]))
                     if isinstance(n_, gast.Subscript) and _is_name(n_.value, a)]
            if all(_is_name(n_.slice, j) for n_ in later):
                out.add(a)
        return out


def _is_name(node, id_):
    return isinstance(node, gast.Name) and node.id == id_


def parallel_marks(new, old):
    """Carry a user's prange marks from the loop `old` to `new`, a loop of
    the derivative made from it."""
    new.s2sad_parallel = getattr(old, "s2sad_parallel", False)
    new.s2sad_private = getattr(old, "s2sad_private", frozenset())


class Exposure(UpwardExposure):
    """Upward-exposed reads, with `v += e` reading v and `a[k] += e` reading
    a. A derivative splits `if t: v = ...` into the forward `if t:` and the
    reverse `if t:` reading v: a name bound in the body of `if t:` is
    defined in a later `if t:` while nothing the test reads is rebound or
    written into (the test, a comparison, then has the same value)."""

    def exposed(self, stmts, defined):
        self.guarded = {}  # test -> (names it reads, names its body binds)
        return super().exposed(stmts, defined)

    def statement(self, s, defined):
        if isinstance(s, gast.If):
            self.read(s.test, defined)
            key = unparse(s.test)
            reads, bound = self.guarded.get(key, (names_loaded(s.test), set()))
            body = self.block(s.body, defined | bound)
            orelse = self.block(s.orelse, defined)
            self._forget(stores_anywhere(s))
            calls = any(isinstance(n, gast.Call) for n in walk(s.test))
            if not reads & stores_anywhere(s) and not calls:  # (a call may answer otherwise)
                self.guarded[key] = (reads, bound | (body - defined))
            defined |= body & orelse
            return
        if isinstance(s, (gast.For, gast.While)):
            self._forget(stores_anywhere(s))
        self._statement(s, defined)
        self._forget(stores_anywhere(s))

    def _forget(self, stored):
        self.guarded = {k: v for k, v in self.guarded.items() if not v[0] & stored}

    def _statement(self, s, defined):
        if isinstance(s, gast.AugAssign):
            self.read(s.value, defined)
            t = s.target
            if isinstance(t, gast.Name):
                if t.id not in defined:
                    self.reads.add(t.id)
            else:
                self.read(t.slice, defined)
                base = t.value.id if isinstance(t.value, gast.Name) else None
                if base is not None and base not in defined:
                    self.reads.add(base)
            return
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Subscript):
            # a write into an element reads the array (its other elements stay)
            t = s.targets[0]
            if isinstance(t.value, gast.Name) and t.value.id not in defined:
                self.reads.add(t.value.id)
        super().statement(s, defined)


def values_read(expr):
    """Names `expr` reads other than for their shape (which writing into
    an array's elements does not change)."""
    shapes = {id(n.value) for n in walk(expr) if isinstance(n, gast.Attribute)
              and n.attr in ("shape", "ndim", "size") and isinstance(n.value, gast.Name)}
    return {n.id for n in walk(expr) if isinstance(n, gast.Name) and id(n) not in shapes
            and isinstance(n.ctx, gast.Load)}


def stores_anywhere(s):
    names, elements = stores([s])
    return names | set(elements)


def statements(stmts):
    for s in stmts:
        yield s
        for field in ("body", "orelse"):
            yield from statements(getattr(s, field, []) or [])


def target_names(t):
    if isinstance(t, gast.Name):
        return {t.id}
    if isinstance(t, gast.Tuple):
        return set().union(*(target_names(e) for e in t.elts))
    return set()


def stores(body):
    """(names bound in `body`, array -> [(element target, is +=)] written)."""
    names, elements = set(), {}
    for s in statements(body):
        targets = []
        if isinstance(s, gast.Assign):
            targets = [(t, False) for t in (s.targets[0].elts if isinstance(
                s.targets[0], gast.Tuple) else s.targets)]
        elif isinstance(s, gast.AugAssign):
            targets = [(s.target, True)]
        elif isinstance(s, gast.For):
            names.add(s.target.id)
        for t, aug in targets:
            if isinstance(t, gast.Name):
                names.add(t.id)
            elif isinstance(t, gast.Subscript):
                base = t.value
                while isinstance(base, gast.Subscript):
                    base = base.value
                if isinstance(base, gast.Name):
                    elements.setdefault(base.id, []).append((t, aug))
                else:
                    names.add("<element of an expression>")
    return names, elements


def bindings(body, a):
    return [s.value for s in statements(body)
            if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)
            and s.targets[0].id == a]


def is_allocation(value):
    if not isinstance(value, gast.Call):
        return False
    f = value.func
    if isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name) and f.value.id == "np":
        return f.attr in ALLOCATIONS
    return isinstance(f, gast.Attribute) and f.attr == "copy"


def index_elements(sub):
    s = sub.slice
    return s.elts if isinstance(s, gast.Tuple) else [s]


def first_index_is(target, i):
    if not isinstance(target.value, gast.Name):
        return False
    first = index_elements(target)[0]
    return isinstance(first, gast.Name) and first.id == i


def reads_own_rows(body, a, i):
    """Every read of `a` in `body` is `a[i, ...]` or of its shape."""
    for node in walk(gast.Module(body=body, type_ignores=[])):
        for child in children_using(node, a):
            if isinstance(child, gast.Subscript):
                if not first_index_is(child, i):
                    return False
            elif not (isinstance(child, gast.Attribute) and child.attr in
                      ("shape", "size", "ndim", "dtype")):
                return False
    return True


def children_using(node, a):
    """The nodes directly containing a load of the name `a` under `node`
    (`a` None: (node, name) for every name loaded)."""
    out = []
    for field in getattr(node, "_fields", ()):
        value = getattr(node, field, None)
        for child in value if isinstance(value, list) else [value]:
            if isinstance(child, gast.Name) and isinstance(child.ctx, gast.Load) \
                    and (a is None or child.id == a):
                out.append(node if a is not None else (node, child.id))
    return out


def loaded_elsewhere(body, a, targets):
    """`a` is read in `body` other than as one of the element `targets`
    (or its shape)."""
    skip = {id(t) for t in targets}
    for node in walk(gast.Module(body=body, type_ignores=[])):
        if id(node) in skip:
            continue
        for child in children_using(node, a):
            if id(child) in skip:
                continue
            if isinstance(child, gast.Attribute) and child.attr in ("shape", "size", "ndim",
                                                                    "dtype"):
                continue
            return True
    return False


def loaded_outside_updates(s, v):
    if isinstance(s, (gast.If, gast.While)):
        return names_loaded(s.test)
    if isinstance(s, gast.For):
        return names_loaded(s.iter)
    if isinstance(s, gast.AugAssign):
        return names_loaded(s.value) | names_loaded(s.target)
    return names_loaded(s)


def is_pure(func, stacks=()):
    if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) \
            and func.value.id in stacks:
        return func.attr in ("append", "pop")  # an iteration's own tape
    if isinstance(func, gast.Name):
        return func.id in PURE_BUILTINS
    if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name):
        if func.value.id == "math":
            return True
        if func.value.id == "np":
            return func.attr in PURE_NUMPY
        return func.attr == "copy"
    return False


def loops_with_following_reads(stmts, outer_reads):
    """(loop, names read after it before being written: in the rest of its
    block, of the enclosing blocks and of enclosing loops' next iterations)
    for every for loop in `stmts`."""
    for k, s in enumerate(stmts):
        rest = Exposure({}).exposed(stmts[k + 1:], set()) | set(outer_reads)
        if isinstance(s, gast.For):
            yield s, rest
            again = Exposure({}).exposed(s.body, set())  # the next iteration
            yield from loops_with_following_reads(s.body, rest | again)
        elif isinstance(s, gast.While):
            again = Exposure({}).exposed([s], set())
            yield from loops_with_following_reads(s.body, rest | again)
        elif isinstance(s, gast.If):
            yield from loops_with_following_reads(s.body, rest)
            yield from loops_with_following_reads(s.orelse, rest)
