"""Fused sweeps for a loop whose iterations only add to totals.

A log-likelihood, a loss over a batch or a sum over data points is a loop

    total = 0.0
    for i in range(n):
        ...                  # scratch values of point i
        total += loss_i
    return a * total + b

whose iterations share nothing but the totals they add to. The adjoint of
each total is known before the loop runs backwards (`a * dreturn` above,
since everything after the loop is linear in the totals), so each
iteration's adjoint can run right after its forward computation, from
values still in cache, as a person writes such a gradient:

    dtotal = a * dreturn
    for i in range(n):
        ...                  # forward of iteration i, recording only within it
        ...                  # its adjoint
    result = a * total + b

Nothing of the loop is recorded across iterations: memory is one
iteration's worth, not n times it.

`plan` decides whether a function's top-level loop qualifies (and, the
same way, whether a loop in a fused loop's body that only adds to the same
totals is fused in turn: `_fused_loop`):

* every variable the loop writes is either a *total* (a float scalar the
  loop only updates as `v = v + e` or `v = v - e`, read nowhere else in the
  loop or before it) or *scratch* (each iteration writes it before reading
  it, and nothing after the loop reads it);
* the statements after the loop that read a total are linear in it (`+`,
  `-`, unary minus, a copy, `*` by or `/` by a value that neither depends on
  the loop nor is differentiated), assign names bound once in the loop's
  block: their reverse
  needs no values of the loop, so it can run first;
* the other statements after the loop neither read nor write what the loop
  reads, nor what an earlier linear statement reads: they run before the
  fused loop, their adjoints after it.

The loop may sit in the branch of an `if` that ends its block (the rest of
a function after guard clauses, `if n == 1: return x[0]`, which the front
end turns into `if not returned: ...`): the sweeps are fused in that
branch, and the `if`s around it keep their tests. An iteration may also
read a float an earlier iteration left (`sign = -sign`) when no gradient
flows through it (not an integer counter: see `_carried_scalar`): the value it has after an iteration's forward
computation is saved there and put back after the iteration's adjoint,
which restores what the computation overwrote.
"""
import gast

from ..analysis.loop_access import UpwardExposure, is_range, parallel_marks
from ..analysis.objects import effect_of
from ..syntax import (assign, binding_counts, clone, name, names_loaded, names_stored, structure,
                      walk, walk_stmts)


class FusionPlan:
    """The top-level statements split around the fused loop."""

    def __init__(self, before, loop, independent, linear, totals, carried=frozenset()):
        self.before = before            # statements before the loop
        self.loop = loop                # the loop whose sweeps are fused
        self.independent = independent  # later statements not reading the loop's values
        self.linear = linear            # later statements linear in the totals
        self.totals = totals            # names the loop adds to
        self.carried = carried          # inactive scalars an iteration leaves the next
        # the `if`s the loop's block is a branch of, outermost first: (the
        # statements before the `if` in its block, the `if`, "body" or "orelse")
        self.around = []

    def linear_targets(self):
        return {s.targets[0].id for s in self.linear}


def plan(tree, kinds, active, counts, resolve):
    """The FusionPlan for the function `tree` (normalised), or None.
    `counts`: binding_counts(tree.body); `resolve(node)`: the object a
    callee denotes."""
    body, ret = tree.body[:-1], tree.body[-1]
    if any(getattr(s, "s2sad_reset", False) for s in walk_stmts(body)):
        return None  # reset_recording() ends the reverse sweep where it stands
    plans = list(_plans_in(body, ret, kinds, active, counts, resolve, []))
    # one loop is fused: the one with the most work (statements, nested ones included)
    return max(plans, key=lambda p: sum(1 for _ in walk_stmts([p.loop])), default=None)


def _plans_in(body, ret, kinds, active, counts, resolve, around):
    """The plans for the loops of `body`, and (descending) of the branches
    of an `if` that is its last statement; `around`: the `if`s it is in."""
    loads = {}  # what each statement reads, found once (every later loop asks)
    outer_reads = set()
    for before, _, _ in around:
        outer_reads |= names_loaded(before)
    for k, s in enumerate(body):
        if isinstance(s, gast.For) and is_range(s.iter):
            p = _try(body, k, ret, kinds, active, counts, resolve, loads)
            if p is not None and not (around and outer_reads & p.totals):
                p.around = list(around)
                yield p
    last = body[-1] if body else None
    if isinstance(last, gast.If):
        for branch in ("body", "orelse"):
            yield from _plans_in(getattr(last, branch), ret, kinds, active, counts, resolve,
                                 around + [(body[:-1], last, branch)])


# list methods that change the list: a loop pushing or popping a stack has
# iterations whose adjoints must run in reverse order (they pop and push the
# stack's adjoint), so its sweeps are not fused
_LIST_UPDATES = {"append", "pop", "extend", "insert", "remove", "clear", "reverse", "sort"}


def _try(body, k, ret, kinds, active, counts, resolve, loads=None):
    loop, before, after = body[k], body[:k], body[k + 1:]
    if any(isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute)
           and n.func.attr in _LIST_UPDATES and isinstance(n.func.value, gast.Name)
           for n in walk(loop)):
        return None
    written = names_stored([loop])
    totals = _totals(loop, written, kinds)
    if not totals & active:
        return None
    scratch = written - totals
    exposure = UpwardExposure(_array_lengths(before, counts))
    inputs = exposure.exposed(loop.body, {loop.target.id}) | names_loaded(loop.iter)
    carried = inputs & scratch
    if any(v in active or not _carried_scalar(kinds.get(v)) for v in carried):
        return None  # an iteration reads a value an earlier one left, and differentiates it
    if carried & names_loaded(loop.iter):
        return None
    loads = {} if loads is None else loads
    if any(_loads(body, j, loads) & totals for j in range(k)):
        return None
    depends, linear, independent, linear_reads = set(written), [], [], set()
    # (a linear statement's target bound once in this block: in a branch,
    # the other branches may bind it too; reverse_mode.py refuses the plan
    # if the reverse sweep reads its value)
    in_block = binding_counts(body)
    for s in after:
        reads, writes = exposure.exposed([s], set()), names_stored([s])
        if reads & depends:
            if reads & scratch or not _is_linear(s, depends, kinds, in_block, active):
                return None
            linear.append(s)
            depends |= writes
            linear_reads |= reads
        elif writes & (inputs | linear_reads | totals):
            return None  # moving it before the loop would change what they read
        elif effect_of(s, kinds, resolve) and effect_of(loop, kinds, resolve):
            return None  # (a print, a draw: moved before the loop's, a change of order)
        else:
            independent.append(s)
    if names_loaded(ret) & scratch:
        return None
    return FusionPlan(before, loop, independent, linear, totals, frozenset(carried))


def _carried_scalar(kind):
    """A scalar an iteration may leave the next: not an integer, which
    counts (`t += 1` indexing a packed array): a counter's index checks are
    proved once before its nest (checks/nests.py) only in a loop that is
    not fused."""
    return kind is not None and kind.is_scalar and kind.tag != "int"


def _loads(body, j, loads):
    if j not in loads:
        loads[j] = names_loaded(body[j])
    return loads[j]


def _totals(loop, written, kinds):
    """Float scalars the loop only updates as `v = v +/- e`."""
    updates, other_reads, stored_otherwise = set(), set(), set()
    for s in walk_stmts(loop.body):
        v = _total_update(s)
        if v is not None:
            updates.add(v)
            other_reads |= names_loaded(s.value.right)
        elif isinstance(s, (gast.Assign, gast.Expr)):
            other_reads |= names_loaded(s)
            stored_otherwise |= names_stored(s.targets) if isinstance(s, gast.Assign) else set()
        elif isinstance(s, gast.For):
            other_reads |= names_loaded(s.iter)
            stored_otherwise.add(s.target.id)
        elif isinstance(s, (gast.If, gast.While)):
            other_reads |= names_loaded(s.test)
        else:  # pass, return, ...
            other_reads |= names_loaded(s)
    return {v for v in updates
            if v in written and v not in other_reads and v not in stored_otherwise
            and getattr(kinds.get(v), "tag", None) == "float"}


def _total_update(s):
    """`v` if `s` is `v = v + e` or `v = v - e` (e not reading v)."""
    if not (isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)):
        return None
    v, value = s.targets[0].id, s.value
    if (isinstance(value, gast.BinOp) and isinstance(value.op, (gast.Add, gast.Sub))
            and isinstance(value.left, gast.Name) and value.left.id == v
            and v not in names_loaded(value.right)):
        return v
    return None


def _is_linear(s, depends, kinds, counts, active):
    """`z = a + b`, `a - b`, `-a`, `a`, `a * c`, `c * a` or `a / c`, with c
    neither depending on the loop nor differentiated (c's adjoint would read
    a): its reverse reads no value of the loop."""
    if not (isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)):
        return False
    z = s.targets[0].id
    if counts.get(z, 0) != 1 or getattr(kinds.get(z), "tag", None) != "float":
        return False
    value = s.value

    def dep(atom):
        return bool(names_loaded(atom) & depends)

    def constant(atom):
        return not dep(atom) and not names_loaded(atom) & active

    if isinstance(value, gast.Name):
        return True
    if isinstance(value, gast.UnaryOp):
        return isinstance(value.op, gast.USub)
    if isinstance(value, gast.BinOp):
        if isinstance(value.op, (gast.Add, gast.Sub)):
            return True
        if isinstance(value.op, gast.Mult):
            return constant(value.left) or constant(value.right)
        if isinstance(value.op, gast.Div):
            return constant(value.right)
    return False


_ALLOCATORS = {"empty", "zeros", "ones", "full"}


def _array_lengths(before, counts):
    """Array name -> dump of its length expression, for 1-D arrays made once
    by `np.empty(n)` (zeros, ones, full) with `n` bound at most once."""
    lengths = {}
    for s in before:
        if not (isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)
                and isinstance(s.value, gast.Call) and s.value.args):
            continue
        func = s.value.func
        if not (isinstance(func, gast.Attribute) and func.attr in _ALLOCATORS):
            continue
        size = s.value.args[0]
        if not isinstance(size, (gast.Name, gast.Constant)):
            continue
        if isinstance(size, gast.Name) and counts.get(size.id, 0) > 1:
            continue
        v = s.targets[0].id
        if counts.get(v) == 1:
            lengths[v] = structure(size)
    return lengths


def fused_sweeps(mode, plan):
    """(forward sweep, reverse sweep, reverse statements that read recorded
    values) of the function, with the sweeps of `plan.loop` fused; `mode`
    is the ReverseMode building it."""
    outer_before = [st for before, _, _ in plan.around for st in before]
    before_f, before_r = mode.block(plan.before, [])
    independent_f, independent_r = mode.block(plan.independent, [])
    linear_f, linear_r = mode.block(plan.linear, [])
    # what may hold a value when an iteration starts: its overwrites are recorded
    maybe = ({a.id for a in mode.tree.args.args} | names_stored(outer_before)
             | names_stored(plan.before) | names_stored(plan.independent))
    hoisted, save, fused, restore, reads = _fused_loop(
        mode, plan.loop, maybe, mode.defs.surely_before(plan.loop), plan.totals, plan.carried)
    for s in [fused] + linear_f:
        s.s2sad_deferred = True  # computes values after the reverse sweep began
    forward = before_f + independent_f
    # the linear statements compute the value from the totals before the
    # reverse sweep of the independent ones restores what they read
    reverse = (linear_r + hoisted + save + [fused] + restore + linear_f + independent_r
               + before_r)
    reads = linear_r + reads + independent_r + before_r
    for before, test, branch in reversed(plan.around):  # (the `if`s around it, inside out)
        forward, reverse, reads = _in_branch(mode, before, test, branch, forward, reverse,
                                             reads)
    return forward, reverse, reads


def _in_branch(mode, before, test, branch, forward, reverse, reads):
    """The sweeps of a block whose last statement is the `if` `test`, with
    (forward, reverse, reads) the fused sweeps of its `branch`."""
    before_f, before_r = mode.block(before, [])
    other = test.orelse if branch == "body" else test.body
    other_f, other_r = mode.block(other, [])

    def branches(mine, theirs):
        return (mine, theirs) if branch == "body" else (theirs, mine)

    def if_(body, orelse):
        return gast.copy_location(gast.If(test=clone(test.test), body=body or [gast.Pass()],
                                          orelse=orelse), test)

    fwd = if_(*branches(forward, other_f))
    fwd.test = test.test
    out = []
    for stmts in (reverse, reads):
        mine, theirs = branches(stmts, other_r)
        out.append([if_(mine, theirs)] + before_r if mine or theirs else before_r)
    return before_f + [fwd], out[0], out[1]


def _fused_loop(mode, loop, maybe, surely, totals, carried=frozenset()):
    """(allocations hoisted out of it, save of its counter, the loop with
    each iteration's adjoint right after it, restore, the reverse
    statements of an iteration that read recorded values) for `loop`,
    whose iterations only add to `totals`; `maybe` and `surely` may and
    must hold a value when an iteration starts. A loop in its body whose
    iterations only add to the same totals (the inner loop of `for i: for j
    in range(i + 1, n): e += f(x[i], x[j])`) is fused in turn."""
    from ..analysis.definitions import Definitions
    outer_defs = mode.defs
    # (the same in every round of the sweeps, as _inner_plan's)
    held = mode.__dict__.setdefault("_iteration_defs", {})
    key = (id(loop), frozenset(maybe), frozenset(surely))
    if key not in held:
        held[key] = (loop, Definitions.of_iteration(loop, maybe, surely))
    mode.defs = held[key][1]
    try:
        # a value the next iteration reads, as this one's forward computation
        # left it (its adjoint restores what the computation overwrote)
        kept = {v: mode.namer.fresh(f"{v}_next") for v in sorted(carried)}
        mode.generated.update(kept.values())
        keep = [assign(k, name(v)) for v, k in kept.items()]
        inner = _inner_plan(loop, mode, totals)
        if inner is None:
            iteration_f, iteration_r = mode.block(loop.body, [])
            reads, own = iteration_r, loop.body
            iteration_f = iteration_f + keep
        else:
            before_f, before_r = mode.block(inner.before, [])
            independent_f, independent_r = mode.block(inner.independent, [])
            inner_maybe = maybe | {loop.target.id} | names_stored(inner.before) \
                | names_stored(inner.independent)
            hoisted, save, fused, restore, reads = _fused_loop(
                mode, inner.loop, inner_maybe, mode.defs.surely_before(inner.loop), totals,
                inner.carried)
            iteration_f = before_f + independent_f + hoisted
            # (the inner loop's forward computation runs in the adjoint part:
            # a value carried to the next iteration is complete after it)
            iteration_r = save + [fused] + keep + restore + independent_r + before_r
            reads = reads + independent_r + before_r
            own = [s for s in loop.body if s is not inner.loop]  # (the inner one zeroes its own)
    finally:
        mode.defs = outer_defs
    # the adjoint of an array bound in the loop starts as zeros shaped like
    # this iteration's value, not the value before the loop
    bound = binding_counts(own)
    zeros = [mode.zero_stmt(v) for v in sorted(bound) if v in mode.active
             and not mode.kind(v).is_scalar and iteration_r]
    iteration_r, reads = zeros + iteration_r, zeros + reads
    written = names_stored([loop])
    parallel = getattr(loop, "s2sad_parallel", False) or getattr(mode, "parallel", False)
    hoisted = [s for s in iteration_f if getattr(s, "s2sad_allocation", False)
               and not names_loaded(s) & written
               and not parallel]  # one tape for every iteration (one per iteration in parallel)
    iteration_f = [s for s in iteration_f if not any(s is h for h in hoisted)]
    iteration_r = iteration_r + [assign(v, name(k)) for v, k in kept.items()]
    fused = gast.For(target=loop.target, iter=loop.iter, body=iteration_f + iteration_r,
                     orelse=[], type_comment=None)
    gast.copy_location(fused, loop)
    parallel_marks(fused, loop)
    fused.s2sad_fused = True  # an iteration's adjoint is in its own body (parallel.py)
    fused.s2sad_comment = (f"each iteration only adds to {', '.join(sorted(totals))}: "
                           f"its adjoint runs right after it")
    # the loop binds its counter: a value of that name the reverse sweep reads is kept
    save, _, restore = mode.record(loop.target, loop, [],
                                   maybe=mode.bindings.get(loop.target.id, 0) > 1)
    return hoisted, save, fused, restore, reads


def _inner_plan(loop, mode, totals):
    """The plan for a loop in the body of `loop` whose iterations only add
    to (some of) `totals`, with no statement after it in the body that
    reads them, or None."""
    # (the same in every round of the sweeps: reverse.py builds them until
    # what they read is stable, from the same function)
    plans = mode.__dict__.setdefault("_inner_plans", {})
    key = (id(loop), frozenset(totals))
    if key not in plans:
        plans[key] = (loop, _find_inner_plan(loop, mode, totals))
    return plans[key][1]


def _find_inner_plan(loop, mode, totals):
    body = loop.body
    plans = [_try(body, k, gast.Pass(), mode.kinds, mode.active, mode.bindings, mode.fn.resolve)
             for k, s in enumerate(body) if isinstance(s, gast.For) and is_range(s.iter)]
    plans = [p for p in plans if p is not None and not p.linear and p.totals <= totals]
    return max(plans, key=lambda p: sum(1 for _ in walk_stmts([p.loop])), default=None)
