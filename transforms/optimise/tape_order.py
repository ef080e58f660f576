"""Tapes stored in reverse time order.

A tape of a loop nest, `total_tape[t, i - 1]`, is written row by row as
the forward sweep's `for t in range(nsteps)` runs, and read row by row as
the reverse sweep's `for t in range(nsteps - 1, -1, -1)` runs: rows
descending, each row ascending. Out of cache (a heat stencil's tape is 8
MB), that pattern defeats the hardware prefetcher, and the reverse sweep
waits on memory. Storing row t at `nsteps - 1 - t` instead makes the
reverse sweep read the tape ascending, front to back, as a person writing
the gradient does (the forward sweep then writes it back to front, which
costs little: stores do not wait).

Renumbering an axis of an array by k -> n - 1 - k, n its extent, is a
bijection, so applied to every access of a tape it reads back exactly
what was stored. It applies to preallocated tapes of two or more
dimensions (a nest; a 1-D tape read descending is one stream, which
prefetches fine) whose every use is an element access, along each axis
whose index every write takes from an ascending loop's counter and every
read from a descending one's (the time axis; in a 2-D stencil whose rows
the reverse sweep also runs backwards, the row axis too).

A tape whose every access lies in one iteration of a loop around them
(W3's per-component tapes inside the loop over points, whose forward
sweep and adjoint run in the same iteration) is left in time order: the
reverse sweep reads back what the same iteration has just written, the
last written first, while it is in cache, so there is no stream to
prefetch; renumbering would only add index arithmetic (which kept LLVM
from vectorising W3's loop storing its tape: ~8% of its gradient's
time)."""
import gast

from ..syntax import binding_counts, callee_name, clone, const, names_loaded, walk, walk_stmts
from ..templates import fold


def reverse_tapes(body):
    """Renumber the axes of the tapes of `body` (a function's statements)
    that the reverse sweep reads back to front."""
    tapes = {}  # name -> (allocation, extents, position of its top-level statement)
    for top, outer in enumerate(body):
        for s in walk_stmts([outer]):
            if getattr(s, "s2sad_allocation", False) and isinstance(s, gast.Assign) \
                    and isinstance(s.targets[0], gast.Name):
                extents = _extents(s.value)
                if extents is not None:
                    tapes[s.targets[0].id] = (s, extents, top)
    if not tapes:
        return
    counts = binding_counts(body)
    accesses, mentions = _accesses(body, tapes)
    for tape, (alloc, extents, top) in tapes.items():
        fixed = [all(_fixed(v, counts, body[:top]) for v in names_loaded(e)) for e in extents]
        _reverse(alloc, extents, fixed, accesses.get(tape, []), mentions.get(tape, 0))


def _accesses(body, tapes):
    """({tape: [(subscript, loops around it)]}, {tape: how often it is
    named}), outside the allocations, in one walk."""
    accesses, mentions = {}, {}
    allocations = {id(a) for a, _, _ in tapes.values()}

    def visit(stmts, loops):
        for s in stmts:
            if id(s) in allocations:
                continue
            heads = [s.iter] if isinstance(s, gast.For) else \
                [s.test] if isinstance(s, (gast.If, gast.While)) else [s]
            for h in heads:
                for n in walk(h):
                    if n.__class__ is gast.Name and n.id in tapes:
                        mentions[n.id] = mentions.get(n.id, 0) + 1
                    elif n.__class__ is gast.Subscript and n.value.__class__ is gast.Name \
                            and n.value.id in tapes:
                        accesses.setdefault(n.value.id, []).append((n, loops))
            if isinstance(s, (gast.For, gast.While, gast.If)):
                inner = loops + [s] if isinstance(s, gast.For) else loops
                visit(s.body, inner)
                visit(s.orelse, inner)
    visit(body, [])
    del visit  # (a recursive closure is a reference cycle: it would keep the tree)
    return accesses, mentions


def _fixed(var, counts, before):
    """A parameter never rebound, or a name bound once, at the top level
    before the tape is made: its value when read is the allocation's."""
    if counts.get(var, 0) == 0:
        return True
    return counts[var] == 1 and any(isinstance(s, gast.Assign) and any(
        isinstance(t, gast.Name) and t.id == var for t in s.targets) for s in before)


def _extents(value):
    """The extents n of `np.empty((max(n, 0), ...))` (or `(n, ...)`) with
    two or more dimensions, else None."""
    if callee_name(value) != "np.empty" or not value.args \
            or not isinstance(value.args[0], gast.Tuple) or len(value.args[0].elts) < 2:
        return None
    out = []
    for e in value.args[0].elts:
        if callee_name(e) == "max" and len(e.args) == 2 \
                and isinstance(e.args[1], gast.Constant) and e.args[1].value == 0:
            e = e.args[0]
        out.append(e)
    return out


def _reverse(alloc, extents, fixed, accesses, mentions):
    if not accesses or mentions != len(accesses) or any(
            not isinstance(sub.slice, gast.Tuple) or len(sub.slice.elts) != len(extents)
            for sub, _ in accesses):
        return  # the tape used whole (passed, sliced by a view, returned)
    if _one_iteration(accesses):
        return  # read back within the iteration that wrote it: in cache
    reversed_axes = []
    for axis, extent in enumerate(extents):
        if not fixed[axis] or any(
                _direction(sub.slice.elts[axis], loops)
                != (-1 if isinstance(sub.ctx, gast.Load) else 1) for sub, loops in accesses):
            continue  # read ascending already, or written descending
        reversed_axes.append(axis)
        last = fold(gast.BinOp(left=clone(extent), op=gast.Sub(), right=const(1)))
        for sub, _ in accesses:
            sub.slice.elts[axis] = fold(gast.BinOp(left=clone(last), op=gast.Sub(),
                                                   right=sub.slice.elts[axis]))
    if reversed_axes:
        alloc.s2sad_comment = ("(stored back to front along axis "
                               + ", ".join(map(str, reversed_axes))
                               + ": the reverse sweep reads it ascending)")


def _one_iteration(accesses):
    """Whether one loop is around every access (the tape is written and
    read back within each of its iterations)."""
    first = accesses[0][1]
    return any(all(any(lp is loop for lp in loops) for _, loops in accesses[1:])
               for loop in first)


def _direction(index, loops):
    """+1 or -1: the step of the innermost loop around the access whose
    counter `index` names; None if there is none or its step is unknown."""
    used = {n.id for n in walk(index) if isinstance(n, gast.Name)}
    for loop in reversed(loops):
        if isinstance(loop.target, gast.Name) and loop.target.id in used:
            it = loop.iter
            if callee_name(it) != "range" or it.keywords:
                return None
            if len(it.args) < 3:
                return 1
            step = it.args[2]
            if isinstance(step, gast.UnaryOp) and isinstance(step.op, gast.USub) \
                    and isinstance(step.operand, gast.Constant):
                return -1
            if isinstance(step, gast.Constant) and isinstance(step.value, int):
                return 1 if step.value > 0 else -1
            return None
    return None

