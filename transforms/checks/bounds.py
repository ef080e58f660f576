"""Index checks that the generated code makes itself, so that numba can
compile it without checking every access.

numba's `boundscheck` is all or nothing per function: with it, every `a[i]`
tests its index and the loops around it do not vectorise (GMM's gradient
runs ~30% slower); without it, an index past the end reads or writes memory
that is not the array's. This pass accounts for every index of a generated
function:

* proven: `x[i]` in `for i in range(n)` after `n = x.shape[0]`; `u[i + 1]`
  in `for i in range(1, N - 1)` with `u = np.empty(N)`; a tape indexed by
  its loop's counter; an index a check before it already covered;
* checked before a loop nest: an index whose range over the nest is known
  but not provably inside the array (`q[c, j]` for c < k, j < d when q is an
  argument) gets one `if k > q.shape[0] or d > q.shape[1]: raise
  IndexError(...)` before the nest, guarded so that a nest that does not
  run raises nothing. The nest may be triangular, and the index a counter
  of the runs of the nest's body (`l[c, t]` after `t = 0`, with `t += 1`:
  nests.py);
* checked in place: any other integer index (`x[idx[i]]`);
* covered: the reverse sweep's `dl[c, t]` repeats an access of the forward
  sweep with the same index values (they are recorded or recomputed), on
  the same array or its adjoint, so the check of the first covers it. The
  normaliser marks every user subscript (`s2sad_access`) to tell them.

When every index is accounted for, the checks are added and the function is
compiled without numba's; otherwise (an index array, a while loop's test
that indexes, a base that is not a variable) nothing changes and numba
checks every access."""
import os

import gast

from ..analysis import kinds as K
from .affine import Affine, obviously_non_negative, provable
from .index_check_code import in_place, merged
from ..emit.unparse import expr_source
from .nests import (Loop, extremes, find_counter, nonempty, product_form, product_symbol,
                    trip_count)
from .array_shapes import ArrayShapes
from .function_survey import Setup
from .bounds_syntax import Span, root, subscripts
from .chunks import whole_range
from ..syntax import callee_name, const, names_bound_by, structure, walk_stmts



def undo_unproven_promotions(fdef, kinds, shadows):
    """promote.py keeps an element a loop adds to in a scalar, loaded before
    the loop and stored after it, which touches the element even where the
    loop does not run or does not reach the add: where its index is not
    proven in range before the loop, the adds go back into the array (so
    the derivative touches what the function does, with checks or not)."""
    if any(hasattr(s, "s2sad_promotion") for s in walk_stmts(fdef.body)):
        survey = _Pass(fdef, kinds, shadows, None, survey=True)
        survey.run()
        if not survey.undone:  # the function as it was: add_index_checks may start from it
            return survey.setup
    return None


def _holding_promotions(stmts, out):
    """Add to `out` the ids of the statements in `stmts` (any depth) whose
    blocks hold a promoted load; whether `stmts` hold one."""
    found = False
    for s in stmts:
        inner = False
        for field in ("body", "orelse"):
            block = getattr(s, field, None)
            if isinstance(block, list) and _holding_promotions(block, out):
                inner = True
        if inner:
            out.add(id(s))
        found = found or inner or hasattr(s, "s2sad_promotion")
    return found


class _Unaccountable(Exception):
    """An index this pass cannot prove or check: leave the function to numba."""


def add_index_checks(fdef, kinds, shadows, location, setup=None):
    """Make `fdef` check its own indices (adds statements); True if every
    index is accounted for, False (and `fdef` unchanged) otherwise.
    `shadows` maps a variable to its adjoint or tangent and back. `setup`:
    what undo_unproven_promotions returned for this `fdef`, if anything."""
    try:
        checks = _Pass(fdef, kinds, shadows, location, setup=setup).run()
    except _Unaccountable:
        return False
    for block, stmt, new in reversed(checks):
        block[block.index(stmt):block.index(stmt)] = new
    return True


class _Pass(ArrayShapes):
    def __init__(self, fdef, kinds, shadows, location, survey=False, setup=None):
        self.fdef, self.kinds, self.shadows, self.location = fdef, kinds, shadows, location
        self.survey = survey  # only undo promotions (undo_unproven_promotions)
        self.undone = False   # whether the survey undid a promotion
        self.setup = setup = setup or Setup(fdef, kinds)
        self.bindings, self.top = setup.bindings, setup.top
        self.arrays, self.lists, self._inside = setup.arrays, setup.lists, setup.inside
        self._shapes = {}
        self.loops = []       # the loops around the statement being read
        self.path = []        # (statement, field) from the function down to it
        self.facts = []       # (guards, conclusion): what top-level checks established
        self.guards = []      # forms >= 0 that the tests of the ifs around establish
        self.covered = {}     # access mark -> variables its index values are checked for
        self.checks = []      # (block, statement, [checks before it]): see place()
        self._known = {}      # (facts recorded, facts of the loops around) -> what holds
        self._loop_facts = {}  # ids of the loops around -> (them, their facts)
        self._proved = {}     # (goal, what it depends on) -> (loops, whether it holds)
        # (a survey looks only at promotions: the statements holding none
        # are passed by, as what it learns on the way is only loop ranges)
        self._holding = set()
        if survey:
            _holding_promotions(fdef.body, self._holding)

    def form(self, node, proof):
        """`node` as an affine form; `proof` forms name only loop counters
        and values fixed for the whole function (in their definitions'
        terms), shown forms name what the expression names."""
        if isinstance(node, gast.Constant):
            v = node.value
            return Affine({}, v) if isinstance(v, int) and not isinstance(v, bool) else None
        if isinstance(node, gast.Name):
            var = node.id
            if any(loop.var == var for loop in self.loops):
                return Affine.symbol(var)
            if not proof:
                return Affine.symbol(var) if self.is_int(var) else None
            if not (self.invariant(var) and self.is_int(var)):
                return None
            s = self.bindings[var][0]
            if s is not None and isinstance(s, gast.Assign):
                defined = self.form(s.value, proof=True)
                if defined is not None:
                    return defined
            return Affine.symbol(var)
        if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Attribute) \
                and node.value.attr == "shape" and isinstance(node.value.value, gast.Name) \
                and isinstance(node.slice, gast.Constant) and isinstance(node.slice.value, int):
            array, axis = node.value.value.id, node.slice.value
            if not proof:
                return Affine.extent(array, axis)
            found = self.extent(array, axis)
            return found[0] if found is not None and found[1] else None
        if isinstance(node, gast.Call) and callee_name(node) == "len" and len(node.args) == 1 \
                and isinstance(node.args[0], gast.Name) and node.args[0].id in self.arrays:
            return self.form(gast.Subscript(value=gast.Attribute(
                value=node.args[0], attr="shape", ctx=gast.Load()), slice=const(0),
                ctx=gast.Load()), proof)
        if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub, gast.Mult)):
            left, right = self.form(node.left, proof), self.form(node.right, proof)
            if left is None or right is None:
                return None
            if isinstance(node.op, gast.Add):
                return left + right
            if isinstance(node.op, gast.Sub):
                return left - right
            if not left.terms:
                return right.scale(left.const)
            return left.scale(right.const) if not right.terms else None
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, (gast.USub, gast.UAdd)):
            inner = self.form(node.operand, proof)
            if inner is None:
                return None
            return inner.scale(-1) if isinstance(node.op, gast.USub) else inner
        return None

    # ---- the walk ---------------------------------------------------------
    def run(self):
        self.block(self.fdef.body)
        return [(block, stmt, merged(checks)) for block, stmt, checks in self.checks]

    def block(self, stmts):
        for s in list(stmts):
            self.statement(s, stmts)

    def statement(self, s, block):
        promotion = getattr(s, "s2sad_promotion", None)
        if self.survey and promotion is not None and not self.in_range(s.value, s):
            promotion.undo(block)
            self.undone = True
            return
        if self.survey and id(s) not in self._holding:
            return
        if getattr(s, "s2sad_undone", False):
            return
        if isinstance(s, gast.For):
            self.accesses(s.iter, s, block)
            self.path.append((s, "body"))
            self.loops.append(self.loop(s))
            self.block(s.body)
            self.loops.pop()
            self.path.pop()
        elif isinstance(s, gast.If):
            self.accesses(s.test, s, block)
            for field in ("body", "orelse"):
                guards = self.guard_facts(s) if field == "body" else []
                self.guards += guards
                self.path.append((s, field))
                self.block(getattr(s, field))
                self.path.pop()
                del self.guards[len(self.guards) - len(guards):]
        elif isinstance(s, gast.While):
            self.accesses(s.test, s, block, repeated=True)
            self.path.append((s, "body"))
            self.block(s.body)
            self.path.pop()
        else:
            self.accesses(s, s, block)

    def loop(self, s):
        rebound, exits = self._inside[id(s)]
        stored = rebound | set(names_bound_by(s))
        args = s.iter.args if callee_name(s.iter) in ("range", "prange") \
            and not s.iter.keywords else None
        if not isinstance(s.target, gast.Name) or args is None or not 1 <= len(args) <= 3 \
                or s.target.id in rebound:
            return Loop(s, stored=stored)
        start, stop = (args[0], args[1]) if len(args) >= 2 else (const(0), args[0])
        # (a parallel loop's chunk: its values lie in the range it was cut from)
        start, stop = whole_range(s.iter, self.loops, self.form) or (start, stop)
        step = self.form(args[2], proof=False) if len(args) == 3 else Affine({}, 1)
        if step is None or step.terms or step.const == 0:
            return Loop(s, stored=stored)
        forms = [(self.form(start, p), self.form(stop, p)) for p in (True, False)]
        (a, b), (sa, sb) = forms
        up = step.const > 0
        # with a step of 2 or more, the counter may not reach the stop's end
        # of its range: a bound, not the last value (proofs hold, checks
        # made from it would not), unless the loop takes a constant number
        # of steps (`range(0, 5, 2)`: its last value is 4)
        last = None
        if abs(step.const) != 1 and a is not None and b is not None and not (b - a).terms:
            steps = -(-(b - a).const // step.const)  # (a ceiling division)
            last = (steps - 1) * step.const if steps > 0 else None

        def bounds(a, b):  # (lo, hi) of the counter, from start a and stop b
            if a is None or b is None:
                return None, None
            if last is not None:
                return (a, a.plus(last)) if up else (a.plus(last), a)
            return (a, b.plus(-1)) if up else (b.plus(1), a)
        lo, hi = bounds(a, b)
        shown_lo, shown_hi = bounds(sa, sb)
        loop = Loop(s, lo, hi, shown_lo, shown_hi, stored)
        loop.exits = exits
        loop.strided = abs(step.const) != 1 and last is None
        if lo is not None:
            loop.facts.append(self.at_most(hi - lo))
        return loop

    # ---- proofs -------------------------------------------------------------
    def eliminate(self, form, minimise):
        """The least (or greatest) value of `form` over the counters of the
        loops around; None if a counter needed has no known bound."""
        for loop in reversed(self.loops):
            c = form.terms.get(loop.var, 0)
            if not c:
                continue
            bound = loop.lo if (c > 0) == minimise else loop.hi
            if bound is None:
                return None
            form = form.substitute(loop.var, bound)
        return form

    def at_most(self, form):
        eliminated = self.eliminate(form, minimise=False)
        return eliminated if eliminated is not None else Affine({}, 0)

    def known(self):
        """What holds here: the loops around run, and what the checks before
        established (if their guards hold)."""
        around = tuple(map(id, self.loops))
        held = self._loop_facts.get(around)
        if held is None:  # (the loops are held with their facts: their ids stay theirs)
            held = self._loop_facts[around] = (tuple(self.loops), tuple(dict.fromkeys(
                f for loop in self.loops for f in loop.facts)))
        facts = held[1]
        key = (len(self.facts), facts)  # (what it depends on: sibling nests share it)
        if key not in self._known:
            out = list(facts)
            for guards, conclusion in self.facts:
                if conclusion not in out and all(provable(g, out) for g in guards):
                    out.append(conclusion)
            self._known[key] = out
        return self._known[key]

    def proves(self, goal):
        # (what it depends on: a nest's statements ask the same of their indices)
        key = (goal, tuple(map(id, self.loops)), len(self.facts), tuple(self.guards))
        held = self._proved.get(key)
        if held is None:  # (held with the loops: their ids stay theirs)
            held = self._proved[key] = (tuple(self.loops), self._proves(goal))
        return held[1]

    def _proves(self, goal):
        least = self.eliminate(goal, minimise=True)
        if least is not None and provable(least, self.known()):
            return True
        return bool(self.guards) and provable(goal, self.known() + self.guards)

    def guard_facts(self, s):
        """Proof forms >= 0 that hold in the body of `if a <= x < b:` (a
        gathered loop's test that an iteration exists: gather.py), when
        the body rebinds none of their names."""
        test = s.test
        if not isinstance(test, gast.Compare) or \
                not all(isinstance(op, (gast.Lt, gast.LtE)) for op in test.ops):
            return []
        forms = [self.form(e, proof=True) for e in [test.left] + test.comparators]
        if any(f is None for f in forms):
            return []
        rebound = set()
        for st in walk_stmts(s.body):
            rebound.update(names_bound_by(st))
        for loop in self.loops:  # a counter the loop's body rebinds is not its own
            if loop.var in self._inside[id(loop.node)][0]:
                rebound.add(loop.var)
        facts = []
        for left, op, right in zip(forms, test.ops, forms[1:]):
            fact = right - left if isinstance(op, gast.LtE) else (right - left).plus(-1)
            if not {root(n) for n in fact.terms} & rebound:
                facts.append(fact)
        return facts

    # ---- accesses ---------------------------------------------------------
    def accesses(self, node, stmt, block, repeated=False):
        if self.survey:
            return  # (only promotions are looked at: access() would return at once)
        for sub, conditional in subscripts(node):
            self.access(sub, stmt, block, repeated or conditional)

    def in_range(self, sub, stmt):
        """Whether every index of `sub` is proven inside its array here."""
        items = sub.slice.elts if isinstance(sub.slice, gast.Tuple) else [sub.slice]
        for axis, index in enumerate(items):
            if isinstance(index, gast.Slice):
                continue
            found, span = self.extent(sub.value.id, axis), self.span(index, stmt)
            if found is None or span.high is None or span.low is None \
                    or not self.proves(found[0].plus(-1) - span.high) \
                    or not (self.proves(span.low) or self.proves(span.low + found[0])):
                return False
        return True

    def access(self, sub, stmt, block, unplaceable):
        if isinstance(sub.value, gast.Attribute) and sub.value.attr == "shape":
            return  # a shape tuple's item: numba checks a constant index when it compiles
        if not isinstance(sub.value, gast.Name):
            raise _Unaccountable
        base = sub.value.id
        mark = getattr(sub.slice, "s2sad_access", None)
        if mark is not None and (base in self.covered.get(mark, ())
                                 or self.copy_of(base) in self.covered.get(mark, ())):
            return
        items = sub.slice.elts if isinstance(sub.slice, gast.Tuple) else [sub.slice]
        kind = self.kinds.get(base)
        if base in self.lists or getattr(sub, "s2sad_in_bounds", False):
            return  # numba checks list indices; a run-indexed tape is in bounds by construction
        if kind is not None and kind.tag == "tuple":
            if all(isinstance(i, gast.Constant) for i in items):
                return
            raise _Unaccountable
        if base not in self.arrays:
            raise _Unaccountable
        for axis, index in enumerate(items):
            if not isinstance(index, gast.Slice):  # (numba clips slices)
                self.index_checks(sub, base, axis, index, stmt, block, unplaceable)
        if mark is not None:
            family = {base} | set(self.shadows.get(base, ()))
            self.covered.setdefault(mark, set()).update(family)

    def index_checks(self, sub, base, axis, index, stmt, block, unplaceable):
        found = self.extent(base, axis)
        span = self.span(index, stmt)
        upper = lower = False
        if found is not None:
            extent = found[0]
            upper = span.high is not None and self.proves(extent.plus(-1) - span.high)
            lower = span.low is not None and (self.proves(span.low)
                                              or self.proves(span.low + extent))
        if upper and lower:
            return
        if unplaceable or not self.is_int_index(index):
            raise _Unaccountable
        what = self.describe(sub, stmt)
        if self.hoist(base, axis, span, upper, lower, what):
            return
        check = in_place(base, axis, index, upper, lower, what, self.form(index, proof=False))
        self.place(stmt, block, check)
        proof = span.high if span.high is span.low else None  # (an affine index: one form)
        if not self.loops and proof is not None and found is not None and found[1] \
                and not self.path:
            self.facts.append(([], found[0].plus(-1) - proof))
            self.facts.append(([], proof + found[0]))

    def span(self, index, stmt):
        """The values `index` takes here: an affine form of the loop
        counters, or the range of a variable that counts a nest's runs."""
        proof = self.form(index, proof=True)
        if proof is None and isinstance(index, gast.Name) and self.is_int(index.id):
            counted = self.counter_span(index.id, stmt)
            if counted is not None:
                return counted
        shown = self.form(index, proof=False)
        return Span(proof, proof, shown, shown, set(shown.terms) if shown is not None else ())

    def counter_span(self, var, stmt):
        """The range of `t` at `l[t]` in `for row in range(col + 1, d)` in
        `for col in range(d - 1)` after `t = 0`, with `t += 1` in the inner
        body: 0 .. (d - 1) * d // 2 - 1. None if `var` is not such a counter
        or its range is not known."""
        if not self.loops or self.path[-1][0] is not self.loops[-1].node \
                or any(loop.var == var for loop in self.loops):
            return None
        counter = find_counter(var, self.loops, self.path, self.fdef.body, stmt)
        if counter is None:
            return None
        nest = counter.loops
        counters = {lp.var for lp in self.loops}
        init = self.form(counter.init, proof=False)
        init_proof = self.form(counter.init, proof=True)
        if init is None or {lp.var for lp in nest} & set(init.terms) \
                or any(lp.exits or lp.strided or lp.lo is None or lp.shown_lo is None
                       for lp in nest) \
                or any(set(names_bound_by(s)) & {root(n) for n in init.terms}
                       for b in counter.between for s in walk_stmts([b])) \
                or not all(self.proves((lp.hi - lp.lo).plus(1)) for lp in nest[1:]):
            return None
        shown, proof = trip_count(nest, "shown_lo", "shown_hi"), trip_count(nest, "lo", "hi")
        if shown is None or proof is None:
            return None
        trips = product_form(*shown)
        if trips is None:  # a product is written out, so its names must not be counters
            if any(set(f.terms) & counters for f in shown[0]):
                return None
            trips = product_symbol(*shown)
        low = init.plus(counter.offset)
        proof_trips = product_form(*proof)
        proof_low = init_proof.plus(counter.offset) if init_proof is not None else None
        proof_high = proof_low + proof_trips.plus(-1) \
            if proof_low is not None and proof_trips is not None else None
        return Span(proof_high, proof_low, low + trips.plus(-1), low,
                    {root(n) for n in init.terms}, nest[0])

    def is_int_index(self, index):
        if self.form(index, proof=False) is not None:
            return True
        inference = K.KindInference(lambda *a: K.UNKNOWN)
        inference.env = dict(self.kinds)
        inference.env.update({loop.var: K.INT for loop in self.loops})
        try:
            kind = inference.expr(index)
        except Exception:  # noqa: BLE001 - an expression kinds cannot type
            return False
        return kind.tag in ("int", "bool")

    def hoist(self, base, axis, span, upper, lower, what):
        """Place checks before the outermost loop around the access over
        which its index's range is known; False if there is none."""
        nest = self.hoistable(span, base)
        if not nest or (span.within is not None and span.within not in nest):
            return False
        high = extremes(span.shown_high, nest, "shown_lo", "shown_hi")[0]
        low = extremes(span.shown_low, nest, "shown_lo", "shown_hi")[1]
        extent = Affine.extent(base, axis)
        violations = []  # forms >= 0 exactly when the index leaves the array
        if not upper:
            violations.append(high - extent)
        if not lower:
            violations.append(Affine({}, -1) - (low + extent))
        checks = []
        runs = nonempty(nest, "shown_lo", "shown_hi")
        for v in violations:
            if obviously_non_negative(Affine({}, -1) - v):
                continue  # (`x.shape[0] < 0`: never)
            # a nest that does not run indexes nothing; a guard that the
            # violation implies (k > 0 when k > q.shape[0]) goes without saying
            guards = [(k, g) for k, g in enumerate(runs)
                      if not obviously_non_negative(g) and not obviously_non_negative(g - v)]
            checks.append((what, guards, v))
        top = nest[0]
        depth = next(k for k, (s, _) in enumerate(self.path) if s is top.node)
        block = self.fdef.body if depth == 0 else getattr(*self.path[depth - 1])
        for check in checks:
            self.place(top.node, block, check)
        if depth == 0:
            self.record_facts(nest, base, axis, span)
        return True

    def hoistable(self, span, base):
        """The loops (outermost first) over which the access's index range
        is known and the access runs on every iteration: for-range loops,
        each directly in the body of the one around it, without a return,
        whose bounds and the index's other names none of them rebinds. The
        counters the index names range over a box no other loop's range
        depends on, so that its extremes are taken; the other loops may
        depend on each other (a triangular nest) as long as whether they run
        at all is a list of forms."""
        if span.shown_high is None or not self.loops or not self.path \
                or self.path[-1][0] is not self.loops[-1].node:
            return []
        nest = []
        names = set(span.names) | (set() if self.swapped(base) else {base})
        named = set(span.shown_high.terms) | set(span.shown_low.terms)
        for k in range(len(self.loops) - 1, -1, -1):
            loop = self.loops[k]
            if loop.shown_lo is None or loop.exits:
                break
            if nest and self.parent(nest[0].node) is not loop.node:
                break
            inner = [loop] + nest
            counters = {lp.var for lp in inner}
            ranges = {lp.var: {*lp.shown_lo.terms, *lp.shown_hi.terms} for lp in inner}
            bounds = set().union(*ranges.values())
            indexing = counters & named
            if loop.strided and (loop.var in named or any(
                    loop.var in ranges[lp.var] for lp in nest)):
                break  # (its extreme is not a value it takes)
            if bounds & indexing or any(ranges[v] & counters for v in indexing) \
                    or nonempty(inner, "shown_lo", "shown_hi") is None \
                    or ({root(s) for s in names | bounds} - counters) & loop.stored:
                break
            nest.insert(0, loop)
        return nest

    def parent(self, node):
        """The statement whose body holds `node` directly (None: the function)."""
        for k, (s, _) in enumerate(self.path):
            if s is node:
                return self.path[k - 1][0] if k else None
        return None

    def record_facts(self, nest, base, axis, span):
        """What a top-level check establishes for the code after it, in proof
        forms: if the nest runs, its index stays inside the array."""
        found = self.extent(base, axis)
        if found is None or not found[1] or span.high is None or span.low is None \
                or any(lp.lo is None for lp in nest):
            return
        guards = nonempty(nest, "lo", "hi")
        high = extremes(span.high, nest, "lo", "hi")[0]
        low = extremes(span.low, nest, "lo", "hi")[1]
        if guards is None or {lp.var for lp in nest} & (set(high.terms) | set(low.terms)):
            return
        self.facts.append((guards, found[0].plus(-1) - high))
        self.facts.append((guards, low + found[0]))

    def place(self, stmt, block, check):
        """Have `check` made before `stmt`: a check's source, or a hoisted
        check as (what, guards, violation), forms with each guard's position
        in the nest; equal checks before a statement are made once."""
        for entry in self.checks:
            if entry[0] is block and entry[1] is stmt:
                key = structure(check) if isinstance(check, gast.AST) else check
                if all(key != (structure(c) if isinstance(c, gast.AST) else c)
                       for c in entry[2]):
                    entry[2].append(check)
                return
        self.checks.append((block, stmt, [check]))

    def describe(self, sub, stmt):
        text = expr_source(sub)
        line = None
        if self.location is not None:  # generated nodes may keep only a part's line
            around = [s for s, _ in reversed(self.path)]  # (or only the loop's around them)
            line = next((self.location.line_of(n) for n in [sub, sub.slice, sub.value, stmt]
                         + around if getattr(n, "lineno", None) is not None), None)
        if line is None:
            return f"{text}: index out of range"
        return f"{text}: index out of range ({os.path.basename(self.location.filename)}:{line})"
