"""Scatter to gather along the outer loop of a nest (gather.py does it for
a loop with no loop inside).

The adjoint of a 2-D stencil `un[i, j] = u[i, j] + r * (u[i - 1, j] +
u[i + 1, j] + ...)` adds into the rows above and below from iteration i:

    for i in range(1, nx - 1):
        for j in range(1, ny - 1):
            dun2 = dun[i, j]
            ddiff = dun2 * r
            du[i - 1, j] += ddiff
            du[i + 1, j] += ddiff

Grouped by the row that receives them, iteration i adds everything row i
receives: its own additions, and those iterations i - 1 and i + 1 make,
computed again from what they read (the same inner loop, so the rows merge
into one loop that numba vectorises; gather.py then gathers it along j):

    for i in range(2, nx - 2):
        for j in range(1, ny - 1):
            dun2 = dun[i, j]
            ...
            dun2_prev_i = dun[i - 1, j]
            ddiff_prev_i = dun2_prev_i * r
            du[i, j] += ddiff_prev_i

The few rows at either end that only some iterations reach are done in
short loops before and after, each part under the test that its iteration
exists, and are left as scatters (gather.py skips them: `s2sad_peeled`);
the rest of the nest (what does not add into `du`) stays a nest of its own
after them.

It applies to `for i in range(a, b)` (step 1) whose body holds loops `for j
in range(c, d)` (step 1, bounds that the nest does not change), nested to
any depth, and otherwise straight-line assignments calling only numpy,
math and pure builtins, when

* the array added into is the derivative's own (fresh zeros, no other name
  shares its memory), the nest only adds to it, each addition at an index
  with one item `i + c` (c an integer constant) and others that name
  neither `i` nor anything the nest assigns but the counters of the loops
  around the addition, and at least one c is not 0;
* each added value is computed in its iteration from loop-invariant names,
  the counters, names assigned once in the nest before they are read, and
  elements of arrays that the nest does not write, or whose every write
  provably misses the element read (another constant index, a constant
  outside a counter's range) or comes after the read at the same element
  in the same iteration (an index with an item `k + c` for every counter k
  around it) -- so every read sees the value from before the nest, as the
  gathered loops (run before the rest) do; those arrays are the
  derivative's own too. An addition whose value may read what the nest
  changed first stays where it was, in the rest of the nest;
* the counters are not read after their loops.

The gathered loops add the same terms to the same elements (in another
order: sums round as in any reduction a compiler reorders); anything else
is left as it is."""
import gast

from ..emit.unparse import expr_source
from .gather_offsets import (at_iteration, from_the_front, loads_outside, offset, remainder_loop,
                             shift)
from .ordering import _pure_calls
from ..syntax import (base_name, clone, name, names_loaded, rewrite, store, structure,
                      unit_range, walk)


def gather_nest(loop, facts, namer, function):
    """The statements that replace `loop` (a loop with loops inside) with
    its additions into neighbours along its counter gathered, or None."""
    bounds = unit_range(loop.iter)
    if bounds is None or not isinstance(loop.target, gast.Name) or loop.orelse:
        return None
    i = loop.target.id
    nest = _Nest.read(loop, i)
    if nest is None or i in nest.stored or names_loaded(list(bounds)) & nest.stored \
            or not nest.adds_to_neighbours():
        return None
    if any(k not in facts.counters for k in {i} | nest.counters):
        return None  # a counter read after its loop
    for array in sorted(facts.owned & nest.stored):
        plan = nest.plan(array, facts.owned)
        if plan is not None and from_the_front(bounds[0], [(None, c, None, None)
                                                             for c in plan.offsets]):
            return _rewrite(loop, nest, bounds, array, plan, namer, function)
    return None


class _Nest:
    """The statements of a nest's body, each with its path (positions from
    the body down) and the inner loops around it."""

    def __init__(self, loop, i):
        self.loop, self.i = loop, i
        self.sites = []  # (path, statement, (inner loops around it, outermost first))
        self.span = unit_range(loop.iter)
        self.inner = []  # the loops inside

    @classmethod
    def read(cls, loop, i):
        nest = cls(loop, i)
        if not nest._walk(loop.body, (), ()) or not nest.inner:
            return None  # something else than loops and assignments, or no loop inside
        nest.counters = {s.target.id for s in nest.inner}
        nest.stored = {base_name(t) for _, s, _ in nest.sites for t in _targets(s)} \
            | nest.counters
        if names_loaded([s.iter for s in nest.inner]) & (nest.stored | {i}):
            return None  # a range the nest changes
        nest.locals = nest._find_locals()
        return None if nest.locals is None else nest

    def adds_to_neighbours(self):
        """Whether some statement adds into an element at `i + c`, c not 0
        (a quick test before the whole plan)."""
        for _, s, _ in self.sites:
            if isinstance(s, gast.AugAssign) and isinstance(s.target, gast.Subscript):
                index = s.target.slice
                if any(offset(item, self.i) not in (None, 0) for item in
                       (index.elts if isinstance(index, gast.Tuple) else [index])):
                    return True
        return False

    def _walk(self, body, path, loops):
        for k, s in enumerate(body):
            if isinstance(s, gast.For):
                span = unit_range(s.iter)
                if span is None or not isinstance(s.target, gast.Name) or s.orelse \
                        or s.target.id in {self.i} | {t.target.id for t in loops}:
                    return False
                self.inner.append(s)
                if not self._walk(s.body, path + (k,), loops + (s,)):
                    return False
            elif isinstance(s, (gast.Assign, gast.AugAssign)):
                targets = _targets(s)
                if len(targets) != 1 or not _simple_target(targets[0]) or not _pure_calls(s):
                    return False
                self.sites.append((path + (k,), s, loops))
            else:
                return False
        return True

    def _find_locals(self):
        """name -> path of the one statement assigning it, for names assigned
        (`v = e`) once and read only after that in its block or in loops
        after it there; None if a name is assigned otherwise."""
        defs, accumulators = {}, set()
        for path, s, _ in self.sites:
            t = _targets(s)[0]
            if isinstance(t, gast.Name):
                if isinstance(s, gast.AugAssign):
                    accumulators.add(t.id)
                elif t.id in defs:
                    return None
                else:
                    defs[t.id] = path
        if defs.keys() & accumulators:
            return None
        for path, s, _ in self.sites:
            for v in _reads(s) & defs.keys():
                d = defs[v]
                if len(path) < len(d) or path[:len(d) - 1] != d[:-1] \
                        or path[len(d) - 1] <= d[-1]:
                    return None  # read before it is assigned, or after its loop
        return defs

    # ---- the additions into one array ------------------------------------------
    def plan(self, array, owned):
        """The additions into `array` grouped by offset, with the statements
        each group needs, or None if they cannot be gathered."""
        adds, mentions = {}, 0
        for path, s, loops in self.sites:
            mentions += sum(1 for n in walk(s) if isinstance(n, gast.Name) and n.id == array)
            t = _targets(s)[0]
            if base_name(t) != array:
                continue
            if not (isinstance(s, gast.AugAssign) and isinstance(s.op, gast.Add)
                    and isinstance(t, gast.Subscript)):
                return None
            c = self._offset_in(t.slice, loops)
            if c is None:
                return None
            adds.setdefault(c, []).append(path)
        if not adds or mentions != sum(map(len, adds.values())) or set(adds) == {0}:
            return None  # read too, or no neighbour
        writes = {}  # array (other than `array`) -> [(path, index, loops)]
        for path, s, loops in self.sites:
            t = _targets(s)[0]
            if isinstance(t, gast.Subscript) and base_name(t) != array:
                writes.setdefault(base_name(t), []).append((path, t.slice, loops))
        if any(b not in owned for b in writes):
            return None  # memory another name may share
        at = {path: (s, loops) for path, s, loops in self.sites}
        needed = {}
        for c, paths in list(adds.items()):
            group = set()
            for path in list(paths):
                more = self._slice(path, at, writes, array)
                if more is None:  # (an addition that reads what the nest changes first:
                    paths.remove(path)  # it stays where it is, in the rest of the nest)
                else:
                    group |= more | {path}
            if paths:
                needed[c] = group
            else:
                del adds[c]
        if set(adds) <= {0}:
            return None
        return _Plan(sorted(adds, key=lambda c: (abs(c), -c)), adds, needed)

    def _offset_in(self, index, loops):
        """c for an index with one item `i + c` and others naming neither i
        nor what the nest assigns (but the counters around it); else None."""
        items = index.elts if isinstance(index, gast.Tuple) else [index]
        around = {loop.target.id for loop in loops}
        found = None
        for item in items:
            loaded = names_loaded(item)
            if self.i in loaded:
                c = offset(item, self.i)
                if c is None or found is not None:
                    return None
                found = c
            elif loaded & (self.stored - around):
                return None
        return found

    def _slice(self, path, at, writes, array):
        """Paths of the locals the value at `path` needs (recursively), or
        None if it reads anything but invariants, counters around it,
        locals and elements that hold their value from before the nest."""
        needed, todo = set(), [path]
        while todo:
            p = todo.pop()
            s, loops = at[p]
            around = {loop.target.id for loop in loops} | {self.i}
            if not self._reads_from_before(s, p, loops, writes):
                return None
            for v in _reads(s) - {array}:
                if v in around or v not in self.stored or v in writes:
                    continue
                if v not in self.locals:
                    return None  # an accumulator, or a name the nest rebinds otherwise
                d = self.locals[v]
                if d not in needed:
                    needed.add(d)
                    todo.append(d)
        return needed

    def _reads_from_before(self, s, path, loops, writes):
        """Whether every element of a written array that `s` reads holds the
        value it had before the nest when `s` reads it."""
        value = [s.value] + ([s.targets[0].slice] if isinstance(s, gast.Assign)
                             and isinstance(s.targets[0], gast.Subscript) else [])
        if isinstance(s, gast.AugAssign) and isinstance(s.target, gast.Subscript):
            value.append(s.target.slice)
        bases = set()
        for n in (n for v in value for n in walk(v)):
            if isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name) \
                    and n.value.id in writes:
                bases.add(id(n.value))
                for wpath, windex, wloops in writes[n.value.id]:
                    if not (self._before_at_same_element(n.slice, path, loops, windex, wpath,
                                                         wloops)
                            or self._apart(n.slice, loops, windex, wloops)):
                        return False
        # a written array read whole (np.sum(dun)) sees the writes before
        return not any(isinstance(n, gast.Name) and n.id in writes and id(n) not in bases
                       for v in value for n in walk(v))

    def _before_at_same_element(self, index, path, loops, windex, wpath, wloops):
        """The read and the write are in the same block, the read first, at
        an index that names every counter around them (distinct iterations,
        distinct elements)."""
        if structure(index) != structure(windex) or path[:-1] != wpath[:-1] \
                or path[-1] >= wpath[-1]:
            return False
        items = index.elts if isinstance(index, gast.Tuple) else [index]
        for k in [self.i] + [loop.target.id for loop in loops]:
            if not any(offset(item, k) is not None for item in items):
                return False
        return all(not (names_loaded(item) & self.stored)
                   or _counter_of(item, self.counters) is not None for item in items)

    def _apart(self, index, loops, windex, wloops):
        """Whether the two indices name different elements whatever the
        counters: at some position, two invariants that differ by a nonzero
        constant, or an invariant outside the range of the counter at the
        other (`dun[i, ny - 1]` and `dun[i, j]` for j < ny - 1)."""
        items = index.elts if isinstance(index, gast.Tuple) else [index]
        witems = windex.elts if isinstance(windex, gast.Tuple) else [windex]
        if len(items) != len(witems):
            return False
        own = {self.i: self.span, **{loop.target.id: unit_range(loop.iter) for loop in loops}}
        wown = {self.i: self.span, **{loop.target.id: unit_range(loop.iter) for loop in wloops}}
        return any(self._differ(x, own, y) or self._differ(y, wown, x)
                   for x, y in zip(items, witems))

    def _differ(self, x, xs, y):
        """Whether index item x never equals y, an invariant; `xs`: the
        counters around x -> (start, stop)."""
        if names_loaded(y) & (self.stored | {self.i}) or names_loaded(x) & (self.stored - set(xs)):
            return False  # y is not invariant, or x names what changes
        ey, cy = _split(y)
        if not names_loaded(x) & (self.stored | {self.i}):
            ex, cx = _split(x)
            return ex == ey and cx != cy
        k = _counter_of(x, xs)
        if k is None:
            return False
        c = offset(x, k)
        start, stop = xs[k]
        (es, cs), (et, ct) = _split(start), _split(stop)
        return (ey == et and cy - c >= ct) or (ey == es and cy - c < cs)


class _Plan:
    def __init__(self, offsets, adds, needed):
        self.offsets, self.adds, self.needed = offsets, adds, needed


def _counter_of(item, counters):
    """The counter k of an item `k + c`, if it is one of `counters`."""
    for k in counters:
        if offset(item, k) is not None:
            return k
    return None


def _split(expr):
    """(structure of e, c) for `e + c` / `e - c` (c an int constant), with
    e None for a constant."""
    if isinstance(expr, gast.Constant) and type(expr.value) is int:
        return None, expr.value
    if isinstance(expr, gast.BinOp) and isinstance(expr.op, (gast.Add, gast.Sub)) \
            and isinstance(expr.right, gast.Constant) and type(expr.right.value) is int:
        e, c = _split(expr.left)
        return e, c + (expr.right.value if isinstance(expr.op, gast.Add) else -expr.right.value)
    return structure(expr), 0


def _targets(s):
    return s.targets if isinstance(s, gast.Assign) else [s.target]


def _simple_target(t):
    return isinstance(t, gast.Name) or (
        isinstance(t, gast.Subscript) and isinstance(t.value, gast.Name))


def _reads(s):
    """Names a statement reads (an augmented target's array too)."""
    out = names_loaded(s.value)
    for t in _targets(s):
        if isinstance(t, gast.Subscript):
            out |= names_loaded(t.slice)
            if isinstance(s, gast.AugAssign):
                out.add(t.value.id)
        elif isinstance(s, gast.AugAssign):
            out.add(t.id)
    return out


# ---- the rewrite ---------------------------------------------------------------
def _suffix(c, i):
    return f"{'prev' if c > 0 else 'next'}{abs(c) if abs(c) > 1 else ''}_{i}"


def _rewrite(loop, nest, bounds, array, plan, namer, function):
    i = nest.i
    a, b = bounds
    offsets = plan.offsets
    lo, hi = min(offsets), max(offsets)
    renames = {c: {} for c in offsets}
    for c in offsets:
        if c != 0:
            for path in sorted(plan.needed[c]):
                t = _targets(_site(nest, path))[0]
                if isinstance(t, gast.Name) and t.id not in renames[c]:
                    renames[c][t.id] = namer.fresh(f"{t.id}_{_suffix(c, i)}")

    def statement(s, c):
        """`s` as iteration i - c runs it, its locals renamed."""
        names = renames[c]

        def rename(n):
            if isinstance(n, gast.Name) and n.id in names:
                return name(names[n.id], n.ctx)
            return n
        new = clone(s)
        new.value = rewrite(at_iteration(new.value, i, c), rename)
        t = _targets(new)[0]
        if isinstance(t, gast.Subscript):
            t.slice = rewrite(at_iteration(t.slice, i, c), rename)
        else:
            t = rewrite(t, rename)
        if isinstance(new, gast.Assign):
            new.targets = [t]
        else:
            new.target = t
        return new

    def project(body, path, cs):
        """The parts of `body` that offsets `cs` need: between its loops,
        each offset's statements in turn; its loops merged into one."""
        out, run = [], []

        def flush():
            out.extend(statement(s, c) for c in cs for p, s in run if p in plan.needed[c])
            run.clear()
        for k, s in enumerate(body):
            p = path + (k,)
            if not isinstance(s, gast.For):
                run.append((p, s))
                continue
            flush()
            inner = project(s.body, p, cs)
            if inner:
                new = gast.For(target=clone(s.target), iter=clone(s.iter), body=inner,
                               orelse=[], type_comment=None)
                new.__dict__.update({k: v for k, v in s.__dict__.items()
                                     if k.startswith("s2sad_")})
                out.append(new)
        flush()
        return out

    def for_(start, stop, stmts):
        return gast.For(target=store(i), iter=gast.Call(
            func=name("range"), args=[start, stop], keywords=[]), body=stmts, orelse=[],
            type_comment=None)

    def peeled():
        stmts = []
        for c in offsets:
            test = gast.Compare(left=clone(a), ops=[gast.LtE(), gast.Lt()],
                                comparators=[shift(name(i), -c), clone(b)])
            stmts.append(gast.If(test=test, body=project(loop.body, (), [c]), orelse=[]))
        return stmts
    head = for_(shift(a, lo), shift(a, hi), peeled())
    written = ", ".join(dict.fromkeys(expr_source(_targets(_site(nest, p))[0])
                                      for c in offsets for p in plan.adds[c]))
    head.s2sad_comment = (f"the additions into {written} gathered along {i}: each iteration "
                          f"adds what the elements at {i} receive (the ends first and last, "
                          f"as they were)")
    middle = for_(shift(a, hi), shift(b, lo), project(loop.body, (), offsets))
    tail = for_(gast.Call(func=name("max"), args=[shift(b, lo), shift(a, hi)], keywords=[]),
                shift(b, hi), peeled())
    head.s2sad_peeled = tail.s2sad_peeled = True
    rest = [] if (r := _remainder(loop, {p for c in offsets for p in plan.adds[c]},
                                  function)) is None else [r]
    if lo == hi:  # one offset: no ends, the middle is all
        middle.s2sad_comment = head.s2sad_comment.split(" (the ends")[0]
        return [middle] + rest
    return [head, middle, tail] + rest


def _site(nest, path):
    for p, s, _ in nest.sites:
        if p == path:
            return s
    raise KeyError(path)


def _remainder(loop, gathered, function):
    """The nest without the additions gathered (paths), what only they
    needed, and loops left empty; None if nothing is left."""
    outside = loads_outside(function, loop)

    def strip(body, used, drop, path=()):
        out = []
        for k, s in enumerate(body):
            if isinstance(s, gast.For):
                inner = strip(s.body, used, drop, path + (k,))
                if inner:
                    new = gast.For(target=s.target, iter=s.iter, body=inner, orelse=[],
                                   type_comment=None)
                    new.__dict__.update({k: v for k, v in s.__dict__.items()
                                         if k.startswith("s2sad_")})
                    out.append(new)
                continue
            t = _targets(s)[0]
            if path + (k,) in drop:
                continue
            if used is not None and isinstance(s, gast.Assign) and isinstance(t, gast.Name) \
                    and t.id not in used and t.id not in outside:
                continue
            out.append(s)
        return out
    body = strip(loop.body, None, gathered)  # (None: every local used, for now)
    while True:
        used = set()
        for s in _statements(body):
            used |= _reads(s)
        new = strip(body, used, ())
        if _count(new) == _count(body):
            break
        body = new
    return remainder_loop(loop, body)


def _statements(body):
    for s in body:
        if isinstance(s, gast.For):
            yield from _statements(s.body)
        else:
            yield s


def _count(body):
    return sum(1 for _ in _statements(body))
