"""Calls of builtins that build lists, written as the comprehensions they
compute once container arguments are flattened (their loops unrolled): one
table keyed by the callee, one walk to find which entries have work.

    s = sorted(x)       s = [v for v in np.sort(sorted_values)]   (sorted_forms.py)
    list(x)             [item for item in x]                      (list_spellings.py)
    x.tolist()          [float(item) for item in x]

s2sad keeps such lists as arrays, and refuses them where a list and an
array differ (comprehensions.py, materialised_lists.py)."""
import builtins

from . import list_spellings, sorted_forms
from ...syntax import walk

# callee -> the module that finds (finds(nodes, namespace)) and rewrites
# (rewrite(tree, namespace, nodes)) its calls, in the order they run
RESPELLINGS = {
    builtins.sorted: sorted_forms,
    builtins.list: list_spellings,  # (and the method x.tolist())
}


def run(tree, ctx):
    nodes, changed = walk(tree), False
    for spelling in RESPELLINGS.values():
        if spelling.finds(nodes, ctx.namespace) and spelling.rewrite(tree, ctx.namespace, nodes):
            nodes, changed = walk(tree), True
    return tree if changed else None
