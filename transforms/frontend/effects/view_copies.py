"""`row = b[i]; b[i] = np.sin(row) * row`: `row = np.copy(b[i])`, because
the reverse sweep reads row after the write into b
(analysis/view_reads.py). The function's values do not change: aliases.py
has refused every function in which a read could tell the copy from the
view."""
import gast

from ...analysis.helper_results import call_shares
from ...analysis.view_reads import views_read_across_writes
from ...syntax import assign, call, name
from .blocks import insert_after


def run(tree, ctx):
    """Each second name the reverse sweep would read after a write through
    the other becomes a copy: `v = value` is `v_view = value; v =
    np.copy(v_view)` (a call's arguments are names in normal form)."""
    made = views_read_across_writes(tree, ctx.kinds,
                                    call_shares(ctx.parsed, ctx.readable, ctx.parse))
    if not made:
        return None
    copies = {}
    for s in made:
        alias = s.targets[0].id
        view = ctx.namer.fresh(alias + "_view")
        s.targets[0] = gast.Name(id=view, ctx=gast.Store(), annotation=None, type_comment=None)
        copied = assign(alias, call("np.copy", name(view)))
        copied.lineno = getattr(s, "lineno", None)
        copies[id(s)] = [copied]
    insert_after(tree, copies)
    return tree

