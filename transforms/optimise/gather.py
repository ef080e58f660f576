"""Scatter to gather: a reverse loop that adds into neighbouring elements.

The adjoint of a stencil `un[i] = u[i] + r * (u[i - 1] - 2 * u[i] +
u[i + 1])` adds into `du[i - 1]`, `du[i]` and `du[i + 1]` from iteration
`i`. Consecutive iterations then write the same elements, which numba
cannot vectorise. The same sums, grouped by the element that receives
them, are a gather: iteration `i` adds everything `du[i]` receives (what
iterations i + 1, i and i - 1 computed), as the primal's loop reads:

    for i in range(2, N - 2):
        dtotal_next = dun[i + 1] * r
        ...
        du[i] += dun[i] + dprod3 * 2.0 + dtotal_next + dtotal_prev

The few elements at either end that only some iterations reach are done in
short loops before and after, each contribution under the test that its
iteration exists (`if 1 <= i + 1 < N - 1:`); the rest of the loop body
(what does not add into `du`) stays in a loop of its own after them.

It applies to `for i in range(a, b)` (step 1) whose body is straight-line
assignments with calls only to numpy, math and pure builtins, when

* the array added into is the derivative's own (fresh zeros, only ever
  indexed: no other name shares its memory), the loop only adds to it
  (`du[i + c] += e`, c an integer constant; or `du[k, i + c] += e` along
  rows k that the loop does not change, the counter in the last axis
  only) and at least one offset is not 0;
* each added value is computed in the iteration from loop-invariant
  names, the counter, locals assigned once (`v = e`) before they are read,
  and elements of arrays that the loop does not write, or that it writes
  only at the element it reads, after reading it (so every iteration sees
  the values from before the loop: `dun[i]` read, then zeroed), those
  arrays being the derivative's own too. A name the loop also adds to
  (`dd = de * prod` then `dd += dprod * k`, the adjoint of a value used
  twice) is no local: the gathered loops would recompute only its first
  part;
* the counter is not read after the loop;
* the loop starts at a constant from which no offset reaches below 0 (an
  index that counts from the end, `dx[i - 1]` at i = 0, is left alone).

The gathered loops then read exactly the values the original iterations
read, and add the same terms to the same elements (in another order: sums
round as in any reduction a compiler reorders). Anything else is left as
it is."""
import gast

from ..emit.unparse import expr_source
from .promote import owned_arrays as _owned_arrays
from .ordering import _pure_calls
from ..syntax import (base_name, clone, const, name, names_loaded, rewrite, store,
                     structure, unit_range, walk, walk_stmts)
from ..templates import fold


def _nests():  # (gather_nests.py imports this module's helpers)
    from .gather_nests import gather_nest
    return gather_nest


def gather_scatters(body, namer, owned=None):
    """Rewrite the scattering loops of `body` (a function's statements);
    `owned`, if given, is `promote.owned_arrays(body)`."""
    facts = _Facts(body)
    facts._owned = owned
    _block(body, facts, namer, body)


class _Facts:
    """What the function's loops are checked against, found when first
    needed (most functions have no loop the gather could apply to)."""

    def __init__(self, body):
        self.body = body
        self._owned = self._counters = None

    @property
    def owned(self):
        if self._owned is None:
            self._owned = _owned_arrays(self.body)
        return self._owned

    @property
    def counters(self):
        if self._counters is None:
            self._counters = _counters_only(self.body)
        return self._counters


def _block(stmts, facts, namer, function):
    k = 0
    while k < len(stmts):
        s = stmts[k]
        if getattr(s, "s2sad_peeled", False):
            k += 1  # the few ends of a gathered nest: left as scatters
            continue
        if isinstance(s, gast.For) and any(isinstance(t, gast.For) for t in walk_stmts(s.body)):
            new = _nests()(s, facts, namer, function)  # along an outer counter first
            if new is not None:
                stmts[k:k + 1] = new
                continue  # (then along the inner ones, in the loops it made)
        for field in ("body", "orelse"):
            if isinstance(getattr(s, field, None), list):
                _block(getattr(s, field), facts, namer, function)
        new = _gather(s, facts, namer, function) if isinstance(s, gast.For) else None
        if new is None:
            k += 1
            continue
        stmts[k:k + 1] = new
        # the loop of what is left (last) may add into another array: look again
        k += len(new) - 1 if getattr(new[-1], "s2sad_remainder", False) else len(new)


# ---- when it applies ---------------------------------------------------------
def _element(index, counter, stored):
    """(row, c) for an index `counter + c` (c an int constant), or a tuple
    of them whose last item is that and whose others (the row) name neither
    the counter nor anything in `stored`: successive iterations, successive
    elements of one row. None otherwise (a stride, an offset that is not a
    constant, the counter in another axis)."""
    items = index.elts if isinstance(index, gast.Tuple) else [index]
    c = _offset(items[-1], counter)
    row = tuple(items[:-1])
    if c is None or any(names_loaded(r) & (stored | {counter}) for r in row):
        return None
    return row, c


def _offset(index, counter):
    """c for an index `counter`, `counter + c` or `counter - c` (c an int
    constant), else None."""
    if isinstance(index, gast.Name) and index.id == counter:
        return 0
    if isinstance(index, gast.BinOp) and isinstance(index.op, (gast.Add, gast.Sub)) \
            and isinstance(index.left, gast.Name) and index.left.id == counter \
            and isinstance(index.right, gast.Constant) and type(index.right.value) is int:
        return index.right.value if isinstance(index.op, gast.Add) else -index.right.value
    return None


def _gather(loop, facts, namer, function):
    bounds = unit_range(loop.iter)
    if bounds is None or not isinstance(loop.target, gast.Name) or loop.orelse:
        return None
    i = loop.target.id
    body = loop.body
    for s in body:
        if isinstance(s, gast.Assign):
            if len(s.targets) != 1 or not _simple_target(s.targets[0]):
                return None
        elif isinstance(s, gast.AugAssign):
            if not _simple_target(s.target):
                return None
        else:
            return None  # nested loops, ifs, calls for their effect
        if not _pure_calls(s):
            return None
    stored = {base_name(t) for s in body for t in _targets(s)}
    if i in stored or names_loaded(list(bounds)) & stored or not any(
            isinstance(s, gast.AugAssign) and isinstance(s.target, gast.Subscript)
            and (_element(s.target.slice, i, stored) or (None, 0))[1] != 0 for s in body):
        return None  # nothing added into a neighbour (what _plan needs)
    if i not in facts.counters:
        return None
    owned = facts.owned
    for array in sorted(owned & stored):
        plan = _plan(loop, i, array, owned, stored)
        if plan is not None and _from_the_front(bounds[0], plan):
            return _rewrite(loop, i, bounds, array, plan, namer, function)
    return None


def _from_the_front(start, plan):
    """Whether no element added into can be a negative index (one that
    counts from the end, as `dx[i - 1]` at i = 0 does): the loop starts at
    a constant at least as large as the largest offset below the counter."""
    lowest = min(c for _, c, _, _ in plan)
    return isinstance(start, gast.Constant) and type(start.value) is int \
        and start.value + lowest >= 0


def _simple_target(t):
    return isinstance(t, gast.Name) or (
        isinstance(t, gast.Subscript) and isinstance(t.value, gast.Name))


def _targets(s):
    return s.targets if isinstance(s, gast.Assign) else [s.target]


def _plan(loop, i, array, owned, stored):
    """[(row, offset, statement position, value)] of the loop's additions
    into `array`, with what each needs, or None if the loop cannot gather
    them."""
    body = loop.body
    adds = []
    for k, s in enumerate(body):
        for t in _targets(s):
            if base_name(t) == array:
                if not (isinstance(s, gast.AugAssign) and isinstance(s.op, gast.Add)
                        and isinstance(t, gast.Subscript)):
                    return None
                found = _element(t.slice, i, stored)
                if found is None:
                    return None
                adds.append((found[0], found[1], k))
    mentions = sum(1 for n in walk(gast.Module(body=body, type_ignores=[]))
                   if isinstance(n, gast.Name) and n.id == array)
    if len(adds) != mentions or all(c == 0 for _, c, _ in adds):
        return None  # read too, or no neighbour
    locals_ = _locals(body)
    if locals_ is None:
        return None
    written = {}  # array (other than `array`) -> (index structure, first statement writing it)
    for k, s in enumerate(body):
        for t in _targets(s):
            b = base_name(t)
            if isinstance(t, gast.Subscript) and b != array:
                index = structure(t.slice)
                if written.setdefault(b, (index, k))[0] != index:
                    return None  # written at two elements per iteration
    for b in written:
        if b not in owned:
            return None  # memory another name may share
    plan = []
    for row, c, k in adds:
        needed = _slice(body, k, body[k].value, i, locals_, stored, written)
        if needed is None:
            return None
        plan.append((row, c, k, needed))
    return plan


def _locals(body):
    """Names assigned (`v = e`) once in the body, before any read of them in
    it; None if a name is assigned otherwise."""
    assigned, seen, accumulators = {}, set(), set()
    for k, s in enumerate(body):
        seen |= names_loaded(s.value)
        for t in _targets(s):
            if isinstance(t, gast.Subscript):
                seen |= names_loaded(t.slice) | ({t.value.id} if isinstance(s, gast.AugAssign)
                                                 else set())
        for t in _targets(s):
            if isinstance(t, gast.Name):
                if isinstance(s, gast.AugAssign):
                    accumulators.add(t.id)  # (`dr += e`): not a local
                    continue
                if t.id in assigned or t.id in seen:
                    return None
                assigned[t.id] = k
    if assigned.keys() & accumulators:
        return None  # `dd = a` then `dd += b`: a value built in two statements
    return assigned


def _slice(body, k, value, i, locals_, stored, written):
    """Positions of the statements that compute `value` (used at statement
    k), or None if it needs anything but the counter, invariants, earlier
    locals, and elements each iteration reads before it writes them."""
    needed, todo = set(), [(value, k)]
    while todo:
        expr, at = todo.pop()
        for n in walk(expr):
            if isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name) \
                    and n.value.id in written:
                index, first = written[n.value.id]
                if structure(n.slice) != index or _element(n.slice, i, stored) is None \
                        or at >= first:
                    return None
        for v in names_loaded(expr):
            if v == i or (v not in stored and v not in locals_):
                continue
            if v in locals_:
                d = locals_[v]
                if d >= at:
                    return None
                if d not in needed:
                    needed.add(d)
                    todo.append((body[d].value, d))
            elif v not in written:
                return None  # an accumulator or a name the loop rebinds otherwise
    return sorted(needed)


def _counters_only(body):
    """Names read only inside loops that bind them as their counter (so no
    loop's final counter value is ever read)."""
    bad, counters = set(), set()

    def visit(stmts, bound):
        for s in stmts:
            if isinstance(s, gast.For):
                bad.update(names_loaded(s.iter) - bound)
                if isinstance(s.target, gast.Name):
                    t = s.target.id
                    if t in bound:
                        bad.add(t)  # a loop inside a loop with the same counter
                    counters.add(t)
                    visit(s.body, bound | {t})
                else:
                    bad.update(names_loaded(s.target))
                    visit(s.body, bound)
                visit(s.orelse, bound)
            elif isinstance(s, (gast.If, gast.While)):
                bad.update(names_loaded(s.test) - bound)
                visit(s.body, bound)
                visit(s.orelse, bound)
            else:
                bad.update(names_loaded(s) - bound)
    visit(body, frozenset())
    return counters - bad


# ---- the rewrite ---------------------------------------------------------------
def _shift(expr, c):
    """`expr + c`, folded (`N - 1 + -1` reads `N - 2`)."""
    if c == 0:
        return clone(expr)
    op = gast.Add() if c > 0 else gast.Sub()
    return fold(gast.BinOp(left=clone(expr), op=op, right=const(abs(c))))


def _at(expr, i, c):
    """`expr` as iteration i - c computes it."""
    if c == 0:
        return clone(expr)

    def replace(n):
        if isinstance(n, gast.Name) and n.id == i and isinstance(n.ctx, gast.Load):
            return _shift(name(i), -c)
        return n
    return fold(rewrite(clone(expr), lambda n: fold(replace(n))))


def _suffix(c):
    word = "prev" if c > 0 else "next"
    return word if abs(c) == 1 else f"{word}{abs(c)}"


def _contributions(loop, i, plan, c, namer, renames):
    """(statements, {row: value}) that add iteration i - c's terms at
    element i of each row."""
    body = loop.body
    needed = sorted({d for _, oc, _, ds in plan if oc == c for d in ds})
    if c not in renames:
        renames[c] = {}
        if c != 0:
            for d in needed:
                v = body[d].targets[0].id
                renames[c][v] = namer.fresh(f"{v}_{_suffix(c)}")
    names = renames[c]

    def rename(n):
        if isinstance(n, gast.Name) and n.id in names:
            return name(names[n.id], n.ctx)
        return n
    out = []
    for d in needed:
        s = clone(body[d])
        s.value = rewrite(_at(s.value, i, c), rename)
        s.targets = [rewrite(t, rename) for t in s.targets]
        out.append(s)
    totals = {}
    for row, oc, k, _ in plan:
        if oc == c:
            term = rewrite(_at(clone(body[k].value), i, c), rename)
            key = structure(list(row))
            totals[key] = term if key not in totals else \
                gast.BinOp(left=totals[key], op=gast.Add(), right=term)
    return out, totals


def _rewrite(loop, i, bounds, array, plan, namer, function):
    a, b = bounds
    offsets = sorted({c for _, c, _, _ in plan}, key=lambda c: (abs(c), -c))
    lo, hi = min(offsets), max(offsets)
    rows = {}
    for row, _, _, _ in plan:
        rows.setdefault(structure(list(row)), row)

    def element(key):
        index = list(clone(list(rows[key]))) + [name(i)]
        return gast.Subscript(value=name(array), ctx=gast.Store(), slice=index[0]
                              if len(index) == 1 else gast.Tuple(elts=index, ctx=gast.Load()))
    renames = {}

    def gathered(guarded):
        stmts, terms = [], {}
        for c in offsets:
            compute, totals = _contributions(loop, i, plan, c, namer, renames)
            if guarded:  # only where iteration i - c exists
                test = gast.Compare(left=clone(a), ops=[gast.LtE(), gast.Lt()],
                                    comparators=[_shift(name(i), -c), clone(b)])
                stmts.append(gast.If(test=test, body=compute + [
                    gast.AugAssign(target=element(key), op=gast.Add(), value=total)
                    for key, total in totals.items()], orelse=[]))
            else:
                stmts += compute
                for key, total in totals.items():
                    terms[key] = total if key not in terms else \
                        gast.BinOp(left=terms[key], op=gast.Add(), right=total)
        stmts += [gast.AugAssign(target=element(key), op=gast.Add(), value=total)
                  for key, total in terms.items()]
        return stmts

    def for_(start, stop, stmts):
        return gast.For(target=store(i), iter=gast.Call(
            func=name("range"), args=[start, stop], keywords=[]), body=stmts, orelse=[],
            type_comment=None)
    head = for_(_shift(a, lo), _shift(a, hi), gathered(True))
    written = ", ".join(dict.fromkeys(expr_source(loop.body[k].target) for _, _, k, _ in plan))
    head.s2sad_comment = (f"the additions into {written} gathered: each iteration adds what "
                          f"element {i} receives (the ends first and last)")
    middle = _from_zero(for_(_shift(a, hi), _shift(b, lo), gathered(False)), namer)
    tail = for_(gast.Call(func=name("max"), args=[_shift(b, lo), _shift(a, hi)], keywords=[]),
                _shift(b, hi), gathered(True))
    rest = _remainder(loop, array, function)
    if lo == hi:  # one offset: no ends, the middle is all
        said = head.s2sad_comment.replace(" (the ends first and last)", "")
        counted = getattr(middle, "s2sad_comment", None)
        middle.s2sad_comment = f"{said}; {counted}" if counted else said
        return [middle] + ([rest] if rest is not None else [])
    return [head, middle, tail] + ([rest] if rest is not None else [])


def _from_zero(loop, namer):
    """`for i in range(a, b)` (a a constant) as `for k in range(b - a)` with
    `i` read as `k + a`: with a counter from 0, LLVM sees that `k + a - 1`
    is never negative (numba's negative-index wrap-around of `du[i - 1]`
    folds away), so the loop vectorises even when it cannot tell the arrays
    apart at compile time (buffers swapped every step, see copy_fold.py)."""
    start, stop = loop.iter.args
    if not isinstance(start, gast.Constant) or start.value == 0:
        return loop
    i, c = loop.target.id, start.value
    k = namer.fresh("k")

    def replace(n):
        if isinstance(n, gast.Name) and n.id == i:
            return _shift(name(k), c)
        return n
    loop.body = [fold(rewrite(s, lambda n: fold(replace(n)))) for s in loop.body]
    loop.iter.args = [_shift(stop, -c)]
    loop.target = store(k)
    loop.s2sad_comment = f"(counted from 0: element {i} is {k} + {c})"
    return loop


def _index_text(i, c):
    return i if c == 0 else f"{i} + {c}" if c > 0 else f"{i} - {-c}"


def _remainder(loop, array, function):
    """The loop without its additions into `array` and what only they
    needed; None if nothing is left."""
    body = [s for s in loop.body if base_name(_targets(s)[0]) != array]
    outside = _loads_outside(function, loop)
    changed = True
    while changed:
        changed = False
        used = names_loaded(body)
        for s in list(body):
            t = _targets(s)[0]
            if isinstance(s, gast.Assign) and isinstance(t, gast.Name) \
                    and t.id not in used and t.id not in outside:
                body.remove(s)
                changed = True
    return remainder_loop(loop, body)


def remainder_loop(loop, body):
    """`loop` over `body`, what a gather left of it (None if nothing), with
    the loop's marks."""
    if not body:
        return None
    rest = gast.For(target=loop.target, iter=loop.iter, body=body, orelse=[],
                    type_comment=None)
    rest.__dict__.update({k: v for k, v in loop.__dict__.items() if k.startswith("s2sad_")})
    rest.s2sad_remainder = True
    return rest


def _loads_outside(function, loop):
    """Names read outside `loop` (its iterations' values may be read there);
    not those read only in other loops that assign them first (each such
    loop computes its own)."""
    inside = {id(t) for t in walk_stmts(loop.body)}
    private = {}
    for s in walk_stmts(function):
        if isinstance(s, gast.For) and s is not loop and id(s) not in inside \
                and not any(t is loop for t in walk_stmts(s.body)):
            own = _assigned_first(s.body)
            for t in walk_stmts(s.body):
                private.setdefault(id(t), set()).update(own)
    out = set()
    for s in walk_stmts(function):
        if s is loop or id(s) in inside:
            continue
        if isinstance(s, gast.For):
            loaded = names_loaded(s.iter)
        elif isinstance(s, (gast.If, gast.While)):
            loaded = names_loaded(s.test)
        else:
            loaded = names_loaded(s)
        out |= loaded - private.get(id(s), set())
    return out


def _assigned_first(body):
    """Names a loop body assigns (`v = e`, at its top level) before any
    statement in it reads them."""
    seen, own = set(), set()
    for s in body:
        if isinstance(s, gast.Assign) and len(s.targets) == 1 \
                and isinstance(s.targets[0], gast.Name):
            seen |= names_loaded(s.value)
            if s.targets[0].id not in seen:
                own.add(s.targets[0].id)
        else:
            for t in walk_stmts([s]):
                if isinstance(t, gast.For):
                    seen |= names_loaded(t.iter)
                elif isinstance(t, (gast.If, gast.While)):
                    seen |= names_loaded(t.test)
                else:
                    seen |= names_loaded(t)
    return own
