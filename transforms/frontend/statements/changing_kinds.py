"""`sum(res)` (Python's sum, max or min) of a name bound to a number and,
in a loop or branch, to an array (number_starts.py folds only straight-line
starts): its kind is unknown, so the call is neither numpy's reduction nor
anything with a rule. Said so, with the lines, rather than that `sum` has
no gradient."""
import builtins

import gast

from ...errors import UnsupportedSyntaxError
from ...syntax import names_stored, walk


def run(tree, ctx):
    """Refuse `sum(res)` of such a name, with the lines."""
    kinds, resolve, location = ctx.kinds, ctx.safe_resolve, ctx.location
    for node in ctx.nodes:
        if not (isinstance(node, gast.Call) and len(node.args) == 1
                and isinstance(node.args[0], gast.Name)):
            continue
        var = node.args[0].id
        kind = kinds.get(var)
        if kind is None or kind.known:
            continue
        func = resolve(node.func)
        if func not in (builtins.sum, builtins.max, builtins.min):
            continue
        starts = [s for s in walk(tree) if isinstance(s, gast.Assign)
                  and _starts_as_number(s, var)]
        others = [s for s in walk(tree) if isinstance(s, gast.Assign) and s not in starts
                  and var in names_stored(s)]
        if starts and others:
            raise UnsupportedSyntaxError(
                f"{func.__name__}({var}) of a name bound to a number (line "
                f"{location.line_of(starts[0])}) and, in a loop or branch, to a value of "
                f"another kind such as an array (line {location.line_of(others[0])})",
                location, node,
                f"s2sad gives each variable one kind, as numba does: start '{var}' as the "
                f"array it becomes (np.zeros_like(...)), or use np.{func.__name__}")
    return None


def _starts_as_number(s, var):
    """`var = 0` (or another int or float constant)."""
    return isinstance(s, gast.Assign) and len(s.targets) == 1 \
        and isinstance(s.targets[0], gast.Name) and s.targets[0].id == var \
        and isinstance(s.value, gast.Constant) and type(s.value.value) in (int, float)
