"""A helper's `p += e` writes into its caller's argument only when that is
an array (for a number it rebinds the helper's own name). written_args.py
marks such calls (`s2sad_augmented`) before the kinds are known; once they
are, a call given an array for such a parameter is rewritten like any
writing call: the function is specialised again with those calls among the
arrays written (`Restart(arrays=...)`)."""
import gast

from ..context import Restart
from ...analysis import kinds as K
from ...errors import UnsupportedSyntaxError


def run(tree, ctx):
    """Specialise again, with these calls rewritten, if a marked call (see
    written_args.py) gives an array to a `p += e` parameter."""
    kinds, call_kind, location = ctx.kinds, ctx.call_kind, ctx.location
    keys = set()
    for call in ctx.nodes:
        marked = getattr(call, "s2sad_augmented", None)
        if not isinstance(call, gast.Call) or marked is None:
            continue
        helper, key, positions = marked
        for p in positions:
            kind = K.of_atom(call.args[p], kinds, call_kind) if p < len(call.args) else None
            if kind is None or kind.is_scalar:
                continue
            if not kind.known:
                raise UnsupportedSyntaxError(
                    f"a call of {helper}, which updates a parameter in place (+=, ...), "
                    f"given a value that may or may not be an array", location, call,
                    "Give it a value of one kind (an array, or a number)")
            keys.add((key, p))  # (a parameter given a number stays as it is)
    more = keys - ctx.arrays
    if more:
        raise Restart(arrays=more)
    return None
