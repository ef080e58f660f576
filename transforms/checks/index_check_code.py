"""The source of the checks the index-check pass (bounds.py) adds: tested
in place, hoisted before a nest, and the hoisted ones of one access merged
into one `if`. Checks are text until they are placed, so that equal ones
before a statement are made once."""
import gast

from .affine import Affine, nonnegative_source, obviously_non_negative
from ..emit.unparse import expr_source


def in_place(base, axis, index, upper, lower, what, shown):
    extent = f"{base}.shape[{axis}]"
    if shown is not None and (upper or lower):
        violation = shown - Affine.symbol(extent) if lower else \
            Affine({}, -1) - shown - Affine.symbol(extent)
        return raise_if(nonnegative_source(violation), what)
    text = expr_source(index)
    if isinstance(index, (gast.IfExp, gast.BoolOp, gast.Compare, gast.NamedExpr)):
        text = f"({text})"
    if not upper and not lower:
        test = f"not -{extent} <= {text} < {extent}"
    elif not upper:
        test = f"{text} >= {extent}"
    else:
        test = f"{text} < -{extent}"
    return raise_if(test, what)


def raise_if(test, what):
    """A check's source (checks are kept as text until they are placed:
    equal ones before a statement are made once)."""
    return f"if {test}:\n    raise IndexError({what!r})"


def conjunction(tests):
    """`a and b` of comparisons' sources."""
    return " and ".join(t for t in tests if t != "True") or "True"


def merged(checks):
    """The checks' sources; the hoisted checks of one access (its axes, its
    upper and lower ends) become one `if guards and (v1 or v2)`. The guards
    are all the ones each violation kept (a guard one of them dropped is
    implied by that violation, so adding it back changes nothing), less
    those another implies (n > 0 when n > 1)."""
    out, hoisted = [], {}  # hoisted: what -> (position -> guard, violations)
    for check in checks:
        if isinstance(check, str):
            out.append(check)
            continue
        what, guards, violation = check
        if what not in hoisted:
            hoisted[what] = ({}, [])
            out.append(hoisted[what] + (what,))
        kept, violations = hoisted[what]
        kept.update(guards)
        violations.append(nonnegative_source(violation))
    for k, check in enumerate(out):
        if not isinstance(check, str):
            kept, violations, what = check
            guards = [g for _, g in sorted(kept.items())]
            guards = [g for g in guards if not any(
                h != g and obviously_non_negative(g - h) for h in guards)]
            test = violations[0] if len(violations) == 1 else f"({' or '.join(violations)})"
            out[k] = raise_if(conjunction([nonnegative_source(g) for g in guards] + [test]),
                               what)
    return out
