"""Preallocated tapes for loop nests whose inner trip counts depend on the
outer counters (triangular loops).

In

    for i in range(n):
        for j in range(i):
            t = x[j] * x[i]
            ...

the inner loop runs i times, so a tape indexed `t_tape[i, j]` would be an
n x n rectangle, half of it unused, and a list grows as it goes. The
number of values the nest records is known before it starts: the sum of
the inner trip counts over the outer iterations, counted by running the
outer loops' headers alone (cheap: the outer trips, not the inner work).
The tape is that long, and a cursor walks it as a stack, forwards in the
forward sweep and back in the reverse one:

    n_j = 0
    for i in range(n):
        n_j += max(i, 0)
    t_tape = np.empty(n_j)
    t_top = 0
    ...
            t_tape[t_top] = t          # forward
            t_top += 1
    ...
            t_top -= 1                 # reverse
            t = t_tape[t_top]

Used for scalars in counted loops whose trip counts read nothing the nest
writes other than the counters of the loops around them (so the counting
loops see the trip counts the nest will run)."""
import gast

from .syntax import assign, call, clone, const, name, names_loaded, parse_expr, walk


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
        self.tapes = tapes
        self._counts = {}  # loops of the frames -> name of their count

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

    def record(self, target, load, dtype, frames, label):
        """(forward, reverse) statements of a cursor tape for `target`."""
        total = self.count(frames)
        tape = self.tapes._fresh(label + "_tape")
        top = self.tapes._fresh(label + "_top")
        kws = [("dtype", parse_expr(dtype))] if dtype else []
        # (not marked s2sad_allocation: its length is computed next to it,
        # so fusion.py must not hoist it alone)
        alloc = assign(tape, call("np.empty", name(total), keywords=kws))
        self.tapes.allocations[id(frames[0].loop)].extend([alloc, assign(top, const(0))])
        slot = gast.Subscript(value=name(tape), slice=name(top), ctx=gast.Store())
        # (in bounds by construction: at most one record per run of the
        # innermost body, which the count counts; for bounds.py)
        slot.s2sad_in_bounds = True
        forward = [assign(slot, load), _step(top, gast.Add())]
        back = clone(slot)
        back.ctx = gast.Load()
        return forward, [_step(top, gast.Sub()), assign(clone(target), back)]


def _renamed(expr, names):
    out = clone(expr)
    for n in walk(out):
        if isinstance(n, gast.Name) and n.id in names:
            n.id = names[n.id]
    return out


def _step(top, op):
    return gast.AugAssign(target=name(top, gast.Store()), op=op, value=const(1))

