"""The markers in a derivative's tree: stop_gradients' assignments made
constants, reset_recording's early returns completed, and every marker
stripped from a helper's primal copy (they are identities there, and numba
would not compile them)."""
import gast

from ...syntax import clone, names_stored, walk_stmts


def mark_stopped(tree, names):
    """stop_gradients: assignments to these names are constants for the
    derivative (no gradient flows through them, as in tf.gradients)."""
    if not names:
        return
    for s in walk_stmts(tree.body):
        if isinstance(s, gast.Assign) and names & names_stored([s]):
            s.s2sad_constant = True


def complete_early_returns(stmts, result):
    """reset_recording() ends the reverse sweep where it stands: its return
    gives the same results as the final one."""
    for k, s in enumerate(stmts):
        for field in ("body", "orelse"):
            if isinstance(getattr(s, field, None), list):
                complete_early_returns(getattr(s, field), result)
        if isinstance(s, gast.Return) and getattr(s, "s2sad_reset", False):
            stmts[k] = gast.Return(value=clone(result))


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


def strip_markers(tree, marker_of):
    _MarkerStripper(marker_of).visit(tree)
