"""Running steps backwards: the range that runs a loop's iterations in
reverse, and the statement that undoes an integer counter's step (so the
reverse sweep recomputes the counter instead of recording it)."""
import gast

from ..syntax import binop, call, clone, const, number, plain_copy, store
from ..templates import fold


def reversed_range(args, st):
    """The range running the iterations of `range(*args)` (step `st`, a
    nonzero int) backwards."""
    zero = len(args) == 1 or (isinstance(args[0], gast.Constant) and args[0].value == 0
                              and type(args[0].value) is int)
    start = const(0) if zero else plain_copy(args[0])
    stop = plain_copy(args[1] if len(args) > 1 else args[0])
    if st == 1:
        first = binop(stop, "-", const(1))
        end = number(-1) if zero else binop(start, "-", const(1))
    else:  # start + (stop - start -+ 1) // st * st, the last value the loop takes
        span = binop(binop(stop, "-", clone(start)), "-" if st > 0 else "+", const(1))
        first = binop(start, "+", binop(binop(span, "//", number(st)), "*", number(st)))
        end = binop(clone(start), "-" if st > 0 else "+", const(1))
    return fold(call("range", first, end, number(-st)))


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
