"""The markers in a derivative's tree: stop_gradients' assignments made
constants, reset_recording's early returns completed (program.py)."""
import gast

from ..syntax import clone, names_stored, walk_stmts


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
