"""A loop's target rebound in its body gets a name of its own for the
loop to count with:

    for i in range(n):                  for i_loop in range(n):
        j = i                               i = i_loop
        if i > 1:               ->          j = i
            i -= 3                          if i > 1:
        out[j] = x[i]                           i -= 3
                                            out[j] = x[i]

Python rebinds the target from the iterator at each iteration, whatever
the body did to it; the reverse sweep re-creates the target from the loop
header (`for i in range(n - 1, -1, -1)`) and so would index with the value
the header gave, not the one the body made (a wrong gradient). With the
target copied into an ordinary variable, the body's rebinding is a value
like any other, recorded where the reverse sweep needs it. The rewrite is
Python's own meaning, so it is made wherever the body stores into a name
of the target (also in a loop nested in it); `v *= 2.0` counts only for a
counter of a range (of an array's row it writes into the row)."""
import gast

from ...names import fresh_name
from ...syntax import assign, name, walk


def run(tree, ctx):
    loops = [n for n in walk(tree) if isinstance(n, gast.For)]
    if not loops:
        return None
    taken = {n.id for n in walk(tree) if isinstance(n, gast.Name)}
    changed = False
    for loop in loops:
        targets = [n for n in walk(loop.target) if isinstance(n, gast.Name)]
        stored = {n.id for s in loop.body for n in walk(s) if isinstance(n, gast.Name)
                  and isinstance(n.ctx, (gast.Store, gast.Del))}
        if not _counts(loop):  # (`row *= 2.0` of an array's row writes in place: not a rebinding)
            stored -= {n.target.id for s in loop.body for n in walk(s)
                       if isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name)}
        copies = []
        for t in targets:
            if t.id in stored:
                counter = fresh_name(t.id + "_loop", taken)
                taken.add(counter)
                copies.append(gast.copy_location(assign(t.id, name(counter)), loop))
                t.id = counter
        if copies:
            loop.body = copies + loop.body
            changed = True
    return tree if changed else None


def _counts(loop):
    """`for i in range(...)`: the target is an int, so `i -= 3` rebinds it."""
    return isinstance(loop.iter, gast.Call) and isinstance(loop.iter.func, gast.Name) \
        and loop.iter.func.id == "range"
