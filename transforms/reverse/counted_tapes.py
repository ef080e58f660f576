"""Preallocated tapes for loop nests whose inner trip counts depend on the
outer counters (triangular loops).

In

    for i in range(n):
        for j in range(i):
            t = x[j] * x[i]
            ...

the inner loop runs i times, so a tape indexed `t_tape[i, j]` would be an
n x n rectangle, half of it unused, and a list grows as it goes. The
number of runs of the inner body is known before the nest starts: the sum
of the inner trip counts over the outer iterations, counted by running the
outer loops' headers alone (cheap: the outer trips, not the inner work).
Each tape of values recorded in the inner body is that long, indexed by
the number of the run, which the forward sweep counts up and the reverse
sweep back down:

    n_j = 0
    for i2 in range(n):
        n_j += max(i2, 0)
    t_tape = np.empty(n_j)
    j_run = -1
    for i in range(n):
        for j in range(i):
            j_run += 1
            t = x[j] * x[i]
            t_tape[j_run] = t
            ...
    ...
    for i in range(n - 1, -1, -1):
        for j in range(i - 1, -1, -1):
            t = t_tape[j_run]
            ...
            j_run -= 1

Used for scalars in counted loops whose trip counts read nothing the nest
writes other than the counters of the loops around them (so the counting
loops see the trip counts the nest will run); a value recorded in a branch
leaves the slots of the runs that skip it unused."""
import weakref

import gast

from ..syntax import assign, call, clone, const, dotted, name, names_loaded, walk


def countable(frames, written):
    """Whether the records of a statement inside `frames` (all counted) can
    be counted before the outermost loop runs; `written`: the names the
    outermost loop writes."""
    counters = set()
    for f in frames:
        if names_loaded(f.trip) & (written - counters) or names_loaded(f.loop.iter) & (
                written - counters):
            return False
        counters.add(f.loop.target.id)
    return True


class CountedTapes:
    """The record counts (one per nest shape) and the cursor tapes of one
    Tapes."""

    def __init__(self, tapes):
        # (a proxy: its Tapes holds it, and a reference cycle would leave the
        # tapes' statements to the cyclic collector)
        self.tapes = weakref.proxy(tapes)
        self._counts = {}  # loops of the frames -> name of their count
        self._runs = {}    # id(innermost loop) -> (its loop, name of its run index)

    def count(self, frames):
        """The name holding how many times the innermost of `frames` runs
        its body in all, with the statements computing it (once per nest)
        among the allocations of the outermost loop."""
        key = tuple(id(f.loop) for f in frames)
        if key in self._counts:
            return self._counts[key]
        total = self.tapes._fresh("n_" + frames[-1].loop.target.id)
        self._counts[key] = total
        # the counting loops have counters of their own: the nest's may hold
        # values the reverse sweep reads
        renamed = {f.loop.target.id: self.tapes._fresh(f.loop.target.id) for f in frames[:-1]}
        body = [gast.AugAssign(target=name(total, gast.Store()), op=gast.Add(),
                               value=_renamed(frames[-1].trip, renamed))]
        for f in reversed(frames[:-1]):
            loop = gast.For(target=name(renamed[f.loop.target.id], gast.Store()),
                            iter=_renamed(f.loop.iter, renamed), body=body,
                            orelse=[], type_comment=None)
            body = [loop]
        stmts = [assign(total, const(0))] + body
        self.tapes.allocations.setdefault(id(frames[0].loop), []).extend(stmts)
        return total

    def run_index(self, frames):
        """The name numbering the runs of the innermost of `frames`' body
        (from 0, across the nest), set to -1 before the outermost loop."""
        loop = frames[-1].loop
        if id(loop) not in self._runs:
            run = self.tapes._fresh(loop.target.id + "_run")
            self._runs[id(loop)] = (loop, run)
            self.tapes.allocations.setdefault(id(frames[0].loop), []).append(
                assign(run, const(-1)))
        return self._runs[id(loop)][1]

    def steps(self, loop):
        """(first statement of the forward body, last of the reversed one)
        of `loop` if a tape is indexed by the number of its runs."""
        if id(loop) not in self._runs:
            return None
        run = self._runs[id(loop)][1]
        return (gast.AugAssign(target=name(run, gast.Store()), op=gast.Add(), value=const(1)),
                gast.AugAssign(target=name(run, gast.Store()), op=gast.Sub(), value=const(1)))

    def record(self, target, load, dtype, frames, label):
        """(forward, reverse) statements of a tape for `target` indexed by
        the run of the innermost loop."""
        total = self.count(frames)
        run = self.run_index(frames)
        tape = self.tapes._fresh(label + "_tape")
        kws = [("dtype", dotted(dtype))] if dtype else []
        # (not marked s2sad_allocation: its length is computed next to it,
        # so fusion.py must not hoist it alone)
        alloc = assign(tape, call("np.empty", name(total), keywords=kws))
        self.tapes.allocations[id(frames[0].loop)].append(alloc)  # (after its count)
        slot = gast.Subscript(value=name(tape), slice=name(run), ctx=gast.Store())
        # (in bounds by construction: one slot per run of the innermost body,
        # which the count counts; for bounds.py)
        slot.s2sad_in_bounds = True
        back = clone(slot)
        back.ctx = gast.Load()
        return [assign(slot, load)], [assign(clone(target), back)]


def _renamed(expr, names):
    out = clone(expr)
    for n in walk(out):
        if isinstance(n, gast.Name) and n.id in names:
            n.id = names[n.id]
    return out


