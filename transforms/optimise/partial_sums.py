"""Per-point partial sums of a scalar adjoint added to over a loop nest.

A scalar parameter used at every point of every step of a space-time loop
(`un[i] = u[i] + r * (...)`) gets an adjoint that every reverse iteration
adds to (`dr += dun2 * total`): one chain of dependent additions through
the whole nest, which no compiler may vectorise (floating-point addition
is not associative). A person sums per point instead, and adds the points
up once after the nest:

    dr_per_i = np.zeros(max(N - 2, 0))
    for t in ...:
        for i in range(1, N - 1):
            dr_per_i[i - 1] += dun2 * total
    dr += np.sum(dr_per_i)

which is what this pass does, for `s += e` (s a float scalar) directly in
the body of a loop `for i in range(a, b)` (step 1) nested in another loop,
when within the outermost loop it chooses s is only added to there, a and b
do not change in it, and nothing in it returns. The sums are the same
terms in another order: they may round differently, as any reduction a
compiler reorders."""
import gast

from ..syntax import (assign, call, const, name, names_loaded, names_stored, parse_expr,
                     unit_range, walk, walk_stmts)
from ..templates import fold


def sum_per_point(body, floats, namer):
    """Rewrite the accumulations of `body` (a function's statements) into
    the float scalars `floats` (a set of names); `namer` gives fresh names."""
    _block(body, [], floats, namer)


def _block(stmts, loops, floats, namer):
    for s in list(stmts):  # (a nest gets statements before and after it)
        if isinstance(s, (gast.For, gast.While, gast.If)):
            inner = loops + [(stmts, s)] if isinstance(s, (gast.For, gast.While)) else loops
            for field in ("body", "orelse"):
                _block(getattr(s, field), inner, floats, namer)
        if isinstance(s, gast.For) and loops:
            _loop(s, loops, floats, namer)


def _loop(loop, loops, floats, namer):
    bounds = unit_range(loop.iter)
    if bounds is None or not isinstance(loop.target, gast.Name) or loop.orelse:
        return
    i = loop.target.id
    if i in names_stored(loop.body):
        return
    totals = {}
    for s in loop.body:
        if isinstance(s, gast.AugAssign) and isinstance(s.op, gast.Add) \
                and isinstance(s.target, gast.Name) and s.target.id in floats:
            totals.setdefault(s.target.id, []).append(s)
    for total, adds in sorted(totals.items()):
        outer = _outermost(loops, loop, total, adds, bounds)
        if outer is None:
            continue
        block, nest = outer
        a, b = bounds
        parts = namer.fresh(f"{total}_per_{i}")
        length = fold(gast.BinOp(left=b, op=gast.Sub(), right=a))
        if not (isinstance(length, gast.Constant) and length.value >= 0):
            length = call("max", length, const(0))
        alloc = assign(parts, call("np.zeros", length))
        alloc.s2sad_comment = (f"{total} summed per {i} over the nest, added up after it "
                               f"(one serial sum does not vectorise)")
        index = fold(gast.BinOp(left=name(i), op=gast.Sub(), right=a)) \
            if not (isinstance(a, gast.Constant) and a.value == 0) else name(i)
        for s in adds:
            s.target = gast.Subscript(value=name(parts), slice=index, ctx=gast.Store())
        done = gast.AugAssign(target=name(total, gast.Store()), op=gast.Add(),
                              value=call(parse_expr("np.sum"), name(parts)))
        at = block.index(nest)
        block[at:at + 1] = [alloc, nest, done]


def _outermost(loops, loop, total, adds, bounds):
    """(block, loop) of the outermost enclosing loop in which `total` is
    only added to by `adds` and the bounds stay the same, or None."""
    bound_names = names_loaded(list(bounds))
    for block, nest in loops:
        if not isinstance(nest, gast.For):
            continue
        if any(isinstance(s, gast.Return) for s in walk_stmts(nest.body)):
            continue
        if bound_names & names_stored([nest]):
            continue
        mentions = sum(1 for n in walk(nest) if isinstance(n, gast.Name) and n.id == total)
        if mentions != len(adds) or any(total in names_loaded(s.value) for s in adds):
            continue
        return block, nest
    return None
