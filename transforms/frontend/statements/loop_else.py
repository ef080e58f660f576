"""`for ... else` and `while ... else` as the flag a person writes for them:

    for i in range(n):                  broke = False
        if x[i] > 10:                   for i in range(n):
            break                           if x[i] > 10:
    else:                                       broke = True
        i = 0                                   break
                                        if not broke:
                                            i = 0

The else block runs when the loop ends without a break (Python's rule; a
return leaves the function before it either way). A loop with no break of
its own is followed by its else block unconditionally. Only the loop's own
breaks set the flag, not those of loops nested in its body."""
import gast

from ...names import fresh_name
from ...syntax import assign, const, name, walk


def run(tree, ctx):
    taken = {n.id for n in walk(tree) if isinstance(n, gast.Name)}
    tree.body = _block(tree.body, taken)
    return tree


def _block(stmts, taken):
    out = []
    for s in stmts:
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(s, field, None), list):
                setattr(s, field, _block(getattr(s, field), taken))
        if isinstance(s, gast.Try):
            for h in s.handlers:
                h.body = _block(h.body, taken)
        if isinstance(s, (gast.For, gast.While)) and s.orelse:
            out += _lowered(s, taken)
        else:
            out.append(s)
    return out


def _lowered(loop, taken):
    orelse, loop.orelse = loop.orelse, []
    flag = fresh_name("broke", taken)
    taken.add(flag)
    if not _set_on_break(loop.body, flag):
        return [loop] + orelse  # (no break: the else block always runs)
    start = gast.copy_location(assign(flag, const(False)), loop)
    test = gast.UnaryOp(op=gast.Not(), operand=name(flag))
    after = gast.copy_location(gast.If(test=test, body=orelse, orelse=[]), loop)
    return [start, loop, after]


def _set_on_break(stmts, flag):
    """Put `flag = True` before each break of this loop in `stmts` (not of
    loops nested in it); whether there was one."""
    found = False
    k = 0
    while k < len(stmts):
        s = stmts[k]
        if isinstance(s, gast.Break):
            stmts.insert(k, gast.copy_location(assign(flag, const(True)), s))
            k += 1
            found = True
        elif not isinstance(s, (gast.For, gast.While, gast.FunctionDef, gast.AsyncFunctionDef,
                                gast.ClassDef)):
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(s, field, None)
                if isinstance(inner, list):
                    found = _set_on_break(inner, flag) or found
            for h in getattr(s, "handlers", []):
                found = _set_on_break(h.body, flag) or found
        k += 1
    return found
