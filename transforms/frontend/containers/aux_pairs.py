"""The pair a has_aux function returns, checked once the kinds are known:
`return pair` (aux_output.py names it) must be a tuple of two values."""
from .aux import HINT
from ...analysis import kinds as K
from ...errors import S2sadTypeError


def run(tree, ctx):
    """A `return pair` of a has_aux function (aux_output.py) must return a
    tuple of two values (a helper's pair, a name bound to one); JAX refuses
    anything else, an array of two elements included."""
    kinds, location = ctx.kinds, ctx.location
    for pair, stmt in ctx.aux_pairs:
        kind = kinds.get(pair, K.UNKNOWN)
        if kind.tag != "tuple" or len(kind.items) != 2:
            what = f"a tuple of {len(kind.items)} values" if kind.tag == "tuple" else \
                (f"a value of kind {kind}" if kind.known else "a value of unknown kind")
            raise S2sadTypeError(f"{location.describe(stmt)}: expected a function with aux output "
                            f"to return a two-element tuple (output, aux), but it returns "
                            f"{what}. {HINT}; return `output, aux`, or differentiate "
                            f"without has_aux.")
