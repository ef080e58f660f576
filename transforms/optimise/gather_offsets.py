"""What gather.py and gather_nests.py share: the arithmetic of an index
`i + c` (a loop counter and a constant offset), whether a gather's first
loop reaches below element 0, and the loop a gather leaves of what it did
not move (`remainder_loop`) with the names read outside it."""
import gast

from ..syntax import clone, const, name, names_loaded, rewrite, walk_stmts
from ..templates import fold


def offset(index, counter):
    """c for an index `counter`, `counter + c` or `counter - c` (c an int
    constant), else None."""
    if isinstance(index, gast.Name) and index.id == counter:
        return 0
    if isinstance(index, gast.BinOp) and isinstance(index.op, (gast.Add, gast.Sub)) \
            and isinstance(index.left, gast.Name) and index.left.id == counter \
            and isinstance(index.right, gast.Constant) and type(index.right.value) is int:
        return index.right.value if isinstance(index.op, gast.Add) else -index.right.value
    return None


def from_the_front(start, plan):
    """Whether no element added into can be a negative index (one that
    counts from the end, as `dx[i - 1]` at i = 0 does): the loop starts at
    a constant at least as large as the largest offset below the counter."""
    lowest = min(c for _, c, _, _ in plan)
    return isinstance(start, gast.Constant) and type(start.value) is int \
        and start.value + lowest >= 0


def shift(expr, c):
    """`expr + c`, folded (`N - 1 + -1` reads `N - 2`)."""
    if c == 0:
        return clone(expr)
    op = gast.Add() if c > 0 else gast.Sub()
    return fold(gast.BinOp(left=clone(expr), op=op, right=const(abs(c))))


def at_iteration(expr, i, c):
    """`expr` as iteration i - c computes it."""
    if c == 0:
        return clone(expr)

    def replace(n):
        if isinstance(n, gast.Name) and n.id == i and isinstance(n.ctx, gast.Load):
            return shift(name(i), -c)
        return n
    return fold(rewrite(clone(expr), lambda n: fold(replace(n))))


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


def loads_outside(function, loop):
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
