"""Helpers that change a list, dict or set they are given through one of its
methods (`out.append(v)` in `def add(out, v)`, also a nested function
lifted into a helper taking what it captures): the caller's container
changes, which a derivative treating the call as a function of its
arguments would not see (the appended values would get no gradient, with
no error). Such a call is refused at the call, naming the helper's line.

A nested function that appends to its outer function's list is inlined
where it is called as a statement (inline_nested.py) and never reaches
this check."""
import gast

from .helper_effects import mutated_parameters
from ...errors import UnsupportedSyntaxError
from ...syntax import walk


def run(tree, ctx):
    """Refuse, in `tree`, a call of a helper that changes a container
    argument through one of its methods."""
    parsed, readable = ctx.parsed, ctx.readable
    for call in walk(tree):
        if not isinstance(call, gast.Call):
            continue
        try:
            fn = readable(parsed.resolve(call.func))
        except Exception:  # noqa: BLE001
            continue
        if fn is None:
            continue
        for pos, (what, where) in sorted(mutated_parameters(fn, readable, ctx.parse).items()):
            if pos < len(call.args):
                raise UnsupportedSyntaxError(
                    f"a call of {fn.__name__}, which changes the container it is given "
                    f"({what} at {where})", parsed.location, call,
                    "Have the helper return the new values and append or store them in the "
                    "caller (or define it as a nested function called as a statement of its "
                    "own, which s2sad inlines)")
