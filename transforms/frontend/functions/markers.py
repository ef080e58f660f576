"""The markers stripped from a helper's primal copy: `s2sad.stop_gradient(x)`
is `x`, a `with s2sad.stop_recording():` block its body, `reset_recording()`
nothing (they are identities there, and numba would not compile them)."""
import gast


class _MarkerStripper(gast.NodeTransformer):
    """The primal copy of a helper runs without markers: they are identities
    there, and numba would not compile them."""

    def __init__(self, marker_of):
        self.marker_of = marker_of

    def visit_With(self, node):
        self.generic_visit(node)
        ctx = node.items[0].context_expr if len(node.items) == 1 else None
        if isinstance(ctx, gast.Call) and self.marker_of(ctx.func) == "stop_recording":
            return node.body
        return node

    def visit_Expr(self, node):
        if isinstance(node.value, gast.Call) and self.marker_of(node.value.func) == "reset_recording":
            return gast.Pass()
        return self.generic_visit(node)

    def visit_Call(self, node):
        self.generic_visit(node)
        if self.marker_of(node.func) == "stop_gradient" and len(node.args) == 1:
            return node.args[0]
        return node


def run(tree, ctx):
    _MarkerStripper(ctx.marker_of).visit(tree)
    return tree
