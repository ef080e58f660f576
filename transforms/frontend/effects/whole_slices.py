"""`u[...]` of an array with axes, written `u[:]` (numba reads `u[:]` but
not `u[...]`, and stores both; the adjoint reads it too: `du[...]`)."""
import gast

from ...analysis import kinds as K


def run(tree, ctx):
    """`u[...]` of an array with axes is `u[:]`: numba reads the one but not
    the other (it stores both), and the adjoint reads it (`du[...]`). Only
    the slices of subscripts already in the tree change: nothing after this
    pass asks the shared node list for them, so it is kept (None)."""
    kinds = ctx.kinds
    for node in ctx.nodes:
        if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) \
                and isinstance(node.slice, gast.Constant) and node.slice.value is Ellipsis:
            kind = kinds.get(node.value.id, K.UNKNOWN)
            if kind.is_array and kind.ndim >= 1:
                node.slice = gast.Slice(lower=None, upper=None, step=None)
