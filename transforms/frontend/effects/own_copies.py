"""A writing copy of a helper (writing_copies.py) differentiated: its
`w = w.copy()` lines are left out, since a derivative copies the arrays its
function writes into anyway."""
import gast

from .writing_copies import made_by


def run(tree, ctx):
    """The derivative of a writing copy (`ctx.fn`, made by writing_copies.py)
    starts without its `w = w.copy()` lines: a derivative copies the arrays
    its function writes into anyway (program.py, argument_copies.py), and a
    second copy would read as one too many. (The primal copy keeps them.)"""
    positions = made_by(ctx.fn)
    if positions is None:
        return None
    written = {tree.args.args[p].id for p in positions}
    first = 1 if tree.body and isinstance(tree.body[0], gast.Expr) \
        and isinstance(tree.body[0].value, gast.Constant) else 0  # (after the docstring)
    while len(tree.body) > first and _copies_itself(tree.body[first], written):
        written.discard(tree.body[first].targets[0].id)
        del tree.body[first]
    return tree


def _copies_itself(s, names):
    """`w = w.copy()` for a w in `names`."""
    return (isinstance(s, gast.Assign) and len(s.targets) == 1
            and isinstance(s.targets[0], gast.Name) and s.targets[0].id in names
            and isinstance(s.value, gast.Call) and not s.value.args
            and isinstance(s.value.func, gast.Attribute) and s.value.func.attr == "copy"
            and isinstance(s.value.func.value, gast.Name)
            and s.value.func.value.id == s.targets[0].id)
