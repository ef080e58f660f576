"""The checks the index-check pass (bounds.py) adds: tested in place,
hoisted before a nest, and the hoisted ones of one access merged into one
`if`. A check is a statement (`if i + 1 >= x.shape[0]: raise IndexError(...)`)
once placed; a hoisted one is kept as (what, guards, violation) until all
of an access's are known."""
import gast

from .affine import Affine, nonnegative, obviously_non_negative
from ..expressions import raising
from ..syntax import compare, const, plain_copy


def in_place(base, axis, index, upper, lower, what, shown):
    """The check of `base[..., index, ...]` (at `axis`) made just before the
    access; `upper`/`lower`: which ends are proven already; `shown`: the
    index as an affine form, if it is one."""
    extent = Affine.extent(base, axis)
    if shown is not None and (upper or lower):
        violation = shown - extent if lower else Affine({}, -1) - shown - extent
        return raise_if(nonnegative(violation), what)
    index, size = plain_copy(index), extent.expression()
    negative = gast.UnaryOp(op=gast.USub(), operand=extent.expression())
    if not upper and not lower:
        test = gast.UnaryOp(op=gast.Not(), operand=gast.Compare(
            left=negative, ops=[gast.LtE(), gast.Lt()], comparators=[index, size]))
    elif not upper:
        test = compare(index, ">=", size)
    else:
        test = compare(index, "<", negative)
    return raise_if(test, what)


def raise_if(test, what):
    """`if test: raise IndexError(what)`."""
    return gast.If(test=test, body=[raising("IndexError", what)], orelse=[])


def conjunction(tests):
    """`a and b` of comparisons (True ones left out)."""
    tests = [t for t in tests if not (isinstance(t, gast.Constant) and t.value is True)]
    if not tests:
        return const(True)
    return tests[0] if len(tests) == 1 else gast.BoolOp(op=gast.And(), values=tests)


def merged(checks):
    """The checks' statements; the hoisted checks of one access (its axes,
    its upper and lower ends) become one `if guards and (v1 or v2)`. The
    guards are all the ones each violation kept (a guard one of them
    dropped is implied by that violation, so adding it back changes
    nothing), less those another implies (n > 0 when n > 1)."""
    out, hoisted = [], {}  # hoisted: what -> (position -> guard, violations)
    for check in checks:
        if isinstance(check, gast.AST):
            out.append(check)
            continue
        what, guards, violation = check
        if what not in hoisted:
            hoisted[what] = ({}, [])
            out.append(hoisted[what] + (what,))
        kept, violations = hoisted[what]
        kept.update(guards)
        violations.append(nonnegative(violation))
    for k, check in enumerate(out):
        if not isinstance(check, gast.AST):
            kept, violations, what = check
            guards = [g for _, g in sorted(kept.items())]
            guards = [g for g in guards if not any(
                h != g and obviously_non_negative(g - h) for h in guards)]
            test = violations[0] if len(violations) == 1 else \
                gast.BoolOp(op=gast.Or(), values=violations)
            out[k] = raise_if(conjunction([nonnegative(g) for g in guards] + [test]), what)
    return out
