"""Python's `sum`, `max` and `min` of an array (`sum(x ** 2)`, `max(v)`):
numpy's reductions over the first axis, which is what iterating over the
array computes (`sum(A)` of a matrix adds its rows). Decided from the kinds,
since `sum` of a list or a generator is lowered elsewhere (comprehensions.py);
numba has neither builtin for arrays, and these are the calls the rules and
numba know:

    s = sum(x)      ->  s = np.sum(x, axis=0)
    m = max(v)      ->  m = np.max(v)           (v a vector: Python's max)

`max` of a matrix (Python compares rows and raises) and `sum(x, start)`
are left as written (and refused)."""
import builtins

import gast

from ...analysis import kinds as K

_NUMPY = {builtins.sum: "sum", builtins.max: "max", builtins.min: "min"}


def run(tree, ctx):
    """Rewrite the calls in `tree` (normalised, with `ctx.kinds`); the tree
    if any was (its kinds are inferred again). A rewritten call's result has
    a kind now, which can make another call's argument known (`y - sum(e)`
    read by a later `sum`), so this repeats until nothing changes."""
    changed = False
    while _rewrite(ctx):
        changed = True
        ctx.infer_kinds()
    return tree if changed else None


def _rewrite(ctx):
    kinds, resolve = ctx.kinds, ctx.safe_resolve
    changed = False
    for node in ctx.nodes:
        if not (isinstance(node, gast.Call) and len(node.args) == 1 and not node.keywords
                and isinstance(node.args[0], (gast.Name, gast.Subscript))):
            continue
        try:
            name = _NUMPY.get(resolve(node.func))
        except TypeError:  # (an unhashable callee)
            name = None
        kind = K.of_atom(node.args[0], kinds)  # (min(x[0]): a row)
        if name is None or kind is None or not kind.is_array or kind.ndim < 1 \
                or (name != "sum" and kind.ndim != 1):
            continue
        node.func = gast.Attribute(value=gast.Name(id="np", ctx=gast.Load(), annotation=None,
                                                   type_comment=None),
                                   attr=name, ctx=gast.Load())
        if kind.ndim > 1:
            node.keywords = [gast.keyword(arg="axis", value=gast.Constant(value=0, kind=None))]
        changed = True
    return changed
