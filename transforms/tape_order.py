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

Renumbering the first axis of an array by k -> n - 1 - k, n its extent,
is a bijection of its rows, so applied to every access of a tape it reads
back exactly what was stored. It applies to preallocated tapes of two or
more dimensions (a nest; a 1-D tape read descending is one stream, which
prefetches fine) whose every use is an element access, each write inside
an ascending loop whose counter the row index names and each read inside a
descending one."""
import gast

from .syntax import binding_counts, callee_name, clone, const, names_loaded, walk, walk_stmts
from .templates import fold


def reverse_tapes(body):
    """Renumber the rows of the tapes of `body` (a function's statements)
    that the reverse sweep reads back to front."""
    counts = binding_counts(body)
    for top, outer in enumerate(body):
        for s in walk_stmts([outer]):
            if getattr(s, "s2sad_allocation", False) and isinstance(s, gast.Assign) \
                    and isinstance(s.targets[0], gast.Name):
                rows = _rows(s.value)
                if rows is not None and all(_fixed(v, counts, body[:top])
                                            for v in names_loaded(rows)):
                    _reverse(body, s, s.targets[0].id, rows)


def _fixed(var, counts, before):
    """A parameter never rebound, or a name bound once, at the top level
    before the tape is made: its value when read is the allocation's."""
    if counts.get(var, 0) == 0:
        return True
    return counts[var] == 1 and any(isinstance(s, gast.Assign) and any(
        isinstance(t, gast.Name) and t.id == var for t in s.targets) for s in before)


def _rows(value):
    """The row count n of `np.empty((max(n, 0), ...))` or `np.empty((n,
    ...))` with two or more dimensions, else None."""
    if callee_name(value) != "np.empty" or not value.args \
            or not isinstance(value.args[0], gast.Tuple) or len(value.args[0].elts) < 2:
        return None
    first = value.args[0].elts[0]
    if callee_name(first) == "max" and len(first.args) == 2 \
            and isinstance(first.args[1], gast.Constant) and first.args[1].value == 0:
        return first.args[0]
    return first


def _reverse(body, alloc, tape, rows):
    accesses = []  # (subscript, direction of the loop its row index counts: +1 or -1)
    mentions = 0

    def visit(stmts, loops):
        nonlocal mentions
        for s in stmts:
            heads = [s.iter] if isinstance(s, gast.For) else \
                [s.test] if isinstance(s, (gast.If, gast.While)) else [s]
            for h in heads:
                if s is alloc:
                    continue
                for n in walk(h):
                    if isinstance(n, gast.Name) and n.id == tape:
                        mentions += 1
                    if isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name) \
                            and n.value.id == tape:
                        accesses.append((n, _direction(n, loops)))
            if isinstance(s, (gast.For, gast.While, gast.If)):
                inner = loops + [s] if isinstance(s, gast.For) else loops
                visit(s.body, inner)
                visit(s.orelse, inner)
    visit(body, [])
    if not accesses or mentions != len(accesses):
        return  # the tape used whole (passed, sliced by a view, returned)
    for sub, direction in accesses:
        if not isinstance(sub.slice, gast.Tuple) or direction is None:
            return
        want = -1 if isinstance(sub.ctx, gast.Load) else 1
        if direction != want:
            return  # read ascending already, or written descending
    for sub, _ in accesses:
        first = sub.slice.elts[0]
        last = fold(gast.BinOp(left=clone(rows), op=gast.Sub(), right=const(1)))
        sub.slice.elts[0] = fold(gast.BinOp(left=last, op=gast.Sub(), right=clone(first)))
    alloc.s2sad_comment = "(rows stored in reverse time order: the reverse sweep reads ascending)"


def _direction(sub, loops):
    """+1 or -1: the step of the innermost loop around `sub` whose counter
    its row index names; None if there is none or its step is unknown."""
    if not isinstance(sub.slice, gast.Tuple):
        return None
    used = {n.id for n in walk(sub.slice.elts[0]) if isinstance(n, gast.Name)}
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

