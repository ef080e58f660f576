"""An attribute numpy's arrays do not have (`x.ptp()`, removed in numpy 2),
of a variable known to be an array: the AttributeError the function itself
raises when it runs, not a missing gradient."""
import gast
import numpy as np


def run(tree, ctx):
    """Raise numpy's AttributeError for `x.name` of an array `x` (a kind
    known to be an ndarray) that ndarrays do not have (`x.ptp()` in numpy
    2)."""
    kinds, location = ctx.kinds, ctx.location
    for node in ctx.nodes:
        if node.__class__ is gast.Attribute and node.value.__class__ is gast.Name:
            kind = kinds.get(node.value.id)
            if kind is not None and kind.is_array and not hasattr(np.ndarray, node.attr):
                raise AttributeError(f"{location.describe(node)}: 'numpy.ndarray' object has "
                                     f"no attribute '{node.attr}' (numpy {np.__version__})")
    return None
