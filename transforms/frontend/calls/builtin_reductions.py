"""Python's `sum`, `max` and `min` of an array (`sum(x ** 2)`, `max(v)`):
numpy's reductions over the first axis, which is what iterating over the
array computes (`sum(A)` of a matrix adds its rows). Decided from the kinds,
since `sum` of a list or a generator is lowered elsewhere (comprehensions.py);
numba has neither builtin for arrays, and these are the calls the rules and
numba know:

    s = sum(x)      ->  s = np.sum(x, axis=0)
    m = max(v)      ->  m = np.max(v)           (v a vector: Python's max)
    s = sum(x, 2)   ->  total = np.sum(x, axis=0)
                        s = 2 + total           (Python's sum starts there)

`max` of a matrix (Python compares rows and raises) is left as written
(and refused)."""
import builtins

import gast

from ...syntax import assign, call, const, name, walk

_NUMPY = {builtins.sum: "sum", builtins.max: "max", builtins.min: "min"}


def run(tree, ctx):
    """Rewrite the calls in `tree` (normalised, with `ctx.kinds`); the tree
    if any was (its kinds are inferred again)."""
    kinds, resolve = ctx.kinds, ctx.safe_resolve
    changed = _sums_with_a_start(tree, kinds, resolve, ctx.namer)
    if changed:  # (a sum's start known, the kinds after it are)
        ctx.infer_kinds()
        kinds = ctx.kinds
    for node in walk(tree) if changed else ctx.nodes:
        if not (isinstance(node, gast.Call) and len(node.args) == 1 and not node.keywords
                and isinstance(node.args[0], gast.Name)):
            continue
        try:
            name = _NUMPY.get(resolve(node.func))
        except TypeError:  # (an unhashable callee)
            name = None
        kind = kinds.get(node.args[0].id)
        if name is None or kind is None or not kind.is_array or kind.ndim < 1 \
                or (name != "sum" and kind.ndim != 1):
            continue
        node.func = gast.Attribute(value=gast.Name(id="np", ctx=gast.Load(), annotation=None,
                                                   type_comment=None),
                                   attr=name, ctx=gast.Load())
        if kind.ndim > 1:
            node.keywords = [gast.keyword(arg="axis", value=gast.Constant(value=0, kind=None))]
        changed = True
    return tree if changed else None


def _sums_with_a_start(tree, kinds, resolve, namer):
    """`v = sum(x, start)` of an array x: `total = np.sum(x, axis=0); v =
    start + total`. Whether any was."""
    changed = False
    for node in walk(tree):
        for field in ("body", "orelse"):
            stmts = getattr(node, field, None)
            if not isinstance(stmts, list):
                continue
            out = []
            for st in stmts:
                start = _start_of_sum(st, kinds, resolve)
                if start is None:
                    out.append(st)
                    continue
                total = namer.fresh("total")
                c = st.value
                axis = [("axis", const(0))] if kinds[c.args[0].id].ndim > 1 else []
                out += [assign(total, call("np.sum", c.args[0], keywords=axis), src=st),
                        assign(st.targets[0], gast.BinOp(left=start, op=gast.Add(),
                                                         right=name(total)), src=st)]
                changed = True
            stmts[:] = out
    return changed


def _start_of_sum(st, kinds, resolve):
    """The start of `v = sum(x, start)` (or start=) of an array x, or None."""
    if not (isinstance(st, gast.Assign) and isinstance(st.value, gast.Call)):
        return None
    c = st.value
    starts = c.args[1:] + [k.value for k in c.keywords if k.arg == "start"]
    if not (len(starts) == 1 and c.args and len(c.args) + len(c.keywords) == 2
            and isinstance(c.args[0], gast.Name)):
        return None
    try:
        if resolve(c.func) is not builtins.sum:
            return None
    except TypeError:  # (an unhashable callee)
        return None
    kind = kinds.get(c.args[0].id)
    if kind is None or not kind.is_array:
        return None
    return starts[0]
