"""Loop nests as the index-check pass (bounds.py) sees them: the range of
each loop's counter, whether a nest runs at all, how many times its
innermost body runs, and variables that count those runs (`t += 1`).

Ranges are affine forms (affine.py), inclusive at both ends, of which each
loop has two kinds: proof forms name only loop counters and values fixed
for the whole function; shown forms name what the code names, for checks."""
import gast

from .affine import Affine
from ..syntax import binop, const, names_bound_by, walk_stmts


class Loop:
    """A for loop around the statement being read."""

    def __init__(self, node, lo=None, hi=None, shown_lo=None, shown_hi=None, stored=()):
        self.node = node
        self.var = node.target.id if isinstance(node.target, gast.Name) else None
        self.lo, self.hi = lo, hi                      # proof forms (None: unknown)
        self.shown_lo, self.shown_hi = shown_lo, shown_hi  # as written (for checks)
        self.stored = stored                           # names (re)bound in the body
        self.facts = []                                # proof forms >= 0 inside
        self.exits = False                             # a return or raise in the body
        self.strided = False                           # a step other than 1 or -1


def survey_loops(stmts, out):
    """Fill `out`: id of each for loop in `stmts` -> (the names its body
    binds, whether its body returns or raises), in one pass; returns the
    same for `stmts`."""
    bound, exits = set(), False
    for s in stmts:
        bound.update(names_bound_by(s))
        exits = exits or isinstance(s, (gast.Return, gast.Raise))
        for field in ("body", "orelse"):
            block = getattr(s, field, None)
            if isinstance(block, list):
                inner_bound, inner_exits = survey_loops(block, out)
                if field == "body" and isinstance(s, gast.For):
                    out[id(s)] = (inner_bound, inner_exits)
                bound |= inner_bound
                exits = exits or inner_exits
    return bound, exits


def extremes(form, nest, lo, hi):
    """(greatest, least) of `form` over the counters of `nest`, taking each
    counter to the end of its range that favours it, innermost first; exact
    when no loop's range depends on a counter that `form` names."""
    high = low = form
    for loop in reversed(nest):
        c = form.terms.get(loop.var, 0)
        if c:
            high = high.substitute(loop.var, getattr(loop, hi if c > 0 else lo))
            low = low.substitute(loop.var, getattr(loop, lo if c > 0 else hi))
    return high, low


def nonempty(nest, lo, hi):
    """Forms that are all >= 0 exactly when the innermost body of `nest`
    runs at least once, outermost first; None when that takes more than a
    list of forms (an inner range that grows with a counter and another that
    shrinks with it). A rectangular nest gives one form per loop, stop minus
    start; `for row in range(col + 1, d)` inside `for col in range(d - 1)`
    adds nothing to the outer loop's `d - 2`."""
    pending = []
    for loop in reversed(nest):
        first, last = getattr(loop, lo), getattr(loop, hi)
        mine = [f for f in pending if f.terms.get(loop.var)]
        if mine:
            rising = {f.terms[loop.var] > 0 for f in mine}
            if len(rising) > 1:
                return None
            # affine in the counter, they all hold for some value in its
            # range iff they hold at the end they all favour
            end = last if rising.pop() else first
            pending = [f for f in pending if not f.terms.get(loop.var)] \
                + [f.substitute(loop.var, end) for f in mine]
        pending.append(last - first)
    return list(dict.fromkeys(reversed(pending)))


def trip_count(loops, lo, hi):
    """How many times the innermost body of `loops` runs, as (factors,
    divisor): the product of the affine factors divided by the divisor.
    None beyond a product of counts and one triangular sum. Every count but
    the outermost loop's must be non-negative wherever it is taken (the
    caller proves it); the outermost's is negative only when nothing runs."""
    factors, divisor = [], 1
    for loop in reversed(loops):
        first, last = getattr(loop, lo), getattr(loop, hi)
        count = (last - first).plus(1)
        involved = [f for f in factors if f.terms.get(loop.var)]
        if not involved:  # (outer counts first: k * (d - 1) * d // 2)
            factors.insert(0, count)
        elif len(involved) == 1 and divisor == 1:
            # sum of a * v + b over v from first to last
            #   = count * (a * (first + last) + 2 * b) / 2
            f = involved[0]
            a = f.terms[loop.var]
            b = f.substitute(loop.var, Affine())
            factors = [count, (first + last).scale(a) + b.scale(2)] \
                + [g for g in factors if g is not f]
            divisor = 2
        else:
            return None
    return factors, divisor


def product_form(factors, divisor):
    """A trip count as an affine form when it is one (at most one factor is
    not a constant), else None."""
    k, rest = 1, []
    for f in factors:
        if f.terms:
            rest.append(f)
        else:
            k *= f.const
    if not rest:
        return Affine({}, k // divisor)
    form = rest[0].scale(k)
    if len(rest) > 1 or any(c % divisor for c in [*form.terms.values(), form.const]):
        return None
    return Affine({s: c // divisor for s, c in form.terms.items()}, form.const // divisor)


def product_symbol(factors, divisor):
    """A trip count as a symbol (affine.py) standing for it as a person
    would write it: `(d - 1) * d // 2`."""
    parts = [f.source() if len(f.terms) + bool(f.const) == 1 else f"({f.source()})"
             for f in factors]
    expression = factors[0].expression()
    for f in factors[1:]:
        expression = binop(expression, "*", f.expression())
    if divisor != 1:
        expression = binop(expression, "//", const(divisor))
    return Affine.symbol(" * ".join(parts) + (f" // {divisor}" if divisor != 1 else ""),
                         expression)


class Counter:
    """`var = init` before `loops` (outermost first), `var += 1` once in the
    innermost body, and no other binding of `var` in them: at a statement
    in that body, `offset` increments (0 or 1) after the innermost body
    began, var runs over init + offset .. init + offset + trips - 1.
    `between` are the statements after `var = init` and before the loops."""

    def __init__(self, loops, init, offset, between):
        self.loops, self.init, self.offset, self.between = loops, init, offset, between


def find_counter(var, loops, path, function_body, stmt):
    """`var` as a Counter at `stmt`, a statement directly in the body of the
    innermost of `loops`; `path` is the (statement, field) chain down to
    it. None if `var` is not one."""
    inner = loops[-1].node
    increments = [s for s in inner.body if _increments(s, var)]
    if len(increments) != 1 or any(_binds(s, var) for s in inner.body
                                   if s is not increments[0]):
        return None
    offset = 0 if _position(inner.body, stmt) < _position(inner.body, increments[0]) else 1
    k, depth = len(loops) - 1, len(path) - 1
    while True:
        node = loops[k].node
        block = getattr(*path[depth - 1]) if depth else function_body
        at = _position(block, node)
        before = [s for s in block[:at] if _binds(s, var)]
        if before:
            init = before[-1]
            if not (isinstance(init, gast.Assign) and len(init.targets) == 1
                    and isinstance(init.targets[0], gast.Name) and init.targets[0].id == var):
                return None
            return Counter(loops[k:], init.value, offset,
                           block[_position(block, init) + 1:at])
        # not set in this block: it must be the body of the loop around,
        # which binds var nowhere else
        if not depth or not k or path[depth - 1][0] is not loops[k - 1].node:
            return None
        if any(_binds(s, var) for s in loops[k - 1].node.body if s is not node):
            return None
        k, depth = k - 1, depth - 1


def _increments(s, var):
    return isinstance(s, gast.AugAssign) and isinstance(s.target, gast.Name) \
        and s.target.id == var and isinstance(s.op, gast.Add) \
        and isinstance(s.value, gast.Constant) and type(s.value.value) is int \
        and s.value.value == 1


def _binds(s, var):
    return any(var in names_bound_by(x) for x in walk_stmts([s]))


def _position(block, node):
    return next(k for k, s in enumerate(block) if s is node)
