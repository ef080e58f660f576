"""A name a loop iterates over, rebound in the loop's body, is read once,
before the loop, as Python reads it:

    for row in A:                       A_iterated = A
        A = A * 0.9             ->      for row in A_iterated:
        s += row @ row                      A = A * 0.9
                                            s += row @ row

Python makes the iterator once, from the object `A` names when the loop
starts; rebinding `A` in the body does not change what the loop runs over.
The loop is lowered to `row = A[k]` (and the reverse sweep re-reads it so),
which after the rebinding would read the new `A` (a wrong gradient). With
the iterated value under a name of its own, nothing rebinds it. Writes into
the array in place (`A[k] = ...`, `A *= 2.0`) are not rebindings: the
iterator sees them, and a write through two names of one array is refused
as before. `range(...)` headers are left alone (their arguments are read
once already)."""
import gast

from ...names import fresh_name
from ...syntax import assign, name, walk


def run(tree, ctx):
    if not any(isinstance(n, gast.For) for n in walk(tree)):
        return None
    taken = {n.id for n in walk(tree) if isinstance(n, gast.Name)}
    changed = [False]
    tree.body = _block(tree.body, taken, changed)
    return tree if changed[0] else None


def _block(stmts, taken, changed):
    out = []
    for s in stmts:
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(s, field, None), list):
                setattr(s, field, _block(getattr(s, field), taken, changed))
        if isinstance(s, gast.Try):
            for h in s.handlers:
                h.body = _block(h.body, taken, changed)
        if isinstance(s, gast.For) and not _is_range(s.iter):
            out += _read_once(s, taken, changed)
        else:
            out.append(s)
    return out


def _read_once(loop, taken, changed):
    read = {n.id for n in walk(loop.iter) if isinstance(n, gast.Name)
            and isinstance(n.ctx, gast.Load)}
    rebound = read & _rebound(loop.body)
    before = []
    for n in sorted(rebound):
        copy = fresh_name(n + "_iterated", taken)
        taken.add(copy)
        before.append(gast.copy_location(assign(copy, name(n)), loop))
        for m in walk(loop.iter):
            if isinstance(m, gast.Name) and m.id == n:
                m.id = copy
    if before:
        changed[0] = True
    return before + [loop]


def _rebound(body):
    """Names the statements bind anew (not `x *= 2`, which writes into an
    array; not inside nested functions, whose names are their own)."""
    out = set()
    for s in body:
        for n in walk(s):
            if isinstance(n, (gast.Assign, gast.AnnAssign)):
                targets = n.targets if isinstance(n, gast.Assign) else [n.target]
                out |= {t.id for target in targets for t in walk(target)
                        if isinstance(t, gast.Name) and isinstance(t.ctx, gast.Store)}
            elif isinstance(n, gast.For):
                out |= {t.id for t in walk(n.target) if isinstance(t, gast.Name)}
            elif isinstance(n, gast.NamedExpr):
                out.add(n.target.id)
    return out


def _is_range(node):
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
        and node.func.id == "range"
