"""Running steps backwards: the range that runs a loop's iterations in
reverse, and the statement that undoes an integer counter's step (so the
reverse sweep recomputes the counter instead of recording it)."""
import gast

from ..syntax import const, parse_expr, store
from ..templates import fold
from .tapes import unparse


def reversed_range(args, st):
    """The range running the iterations of `range(*args)` (step `st`, a
    nonzero int) backwards."""
    # (each bound in parentheses: `stop - start` with start `m - 3` is
    # `stop - (m - 3)`; parentheses that change nothing leave no trace)
    start = unparse(args[0]) if len(args) > 1 else "0"
    start = start if start == "0" else f"({start})"
    stop = f"({unparse(args[1] if len(args) > 1 else args[0])})"
    if st == 1:
        first = f"{stop} - 1"
        end = "-1" if start == "0" else f"{start} - 1"
    elif st > 0:
        first = f"{start} + ({stop} - {start} - 1) // {st} * {st}"
        end = f"{start} - 1"
    else:
        first = f"{start} + ({stop} - {start} + 1) // {st} * {st}"
        end = f"{start} + 1"
    return fold(parse_expr(f"range({first}, {end}, {-st})"))


def integer_step_inverse(s, var, kind):
    """`var = var +/- c` with an integer var and constant c, exactly
    invertible: the statement that undoes it."""
    value = getattr(s, "value", None)
    if not (kind.tag == "int" and isinstance(s, gast.Assign)
            and isinstance(s.targets[0], gast.Name) and isinstance(value, gast.BinOp)
            and isinstance(value.op, (gast.Add, gast.Sub))
            and isinstance(value.left, gast.Name) and value.left.id == var
            and isinstance(value.right, gast.Constant) and isinstance(value.right.value, int)):
        return None
    op = gast.Sub() if isinstance(value.op, gast.Add) else gast.Add()
    return gast.AugAssign(target=store(var), op=op, value=const(value.right.value))
