"""A local list of lists written out (`M = [[a, b], [c, d]]`), bound once
and used only where an array of its elements means the same (`M[i][j]`
read or written, `M[i]`, `len(M)`, `for row in M`, given to numpy), is that
array: `M = np.array([[a, b], [c, d]])`. Its elements may then need a
gradient (a list of lists of such values is refused otherwise). A list of
lists used as a list (`M + N`, `M[0] * 2`, `M.append(...)`, `M[0] ==
M[1]`, given to a helper) stays as written."""
import gast
import numpy as np

from .common import list_only_use
from ...syntax import walk


def run(fn_tree, ctx):
    """Rewrite the candidates in place."""
    resolve = ctx.resolve
    stores, candidates = {}, {}
    for node in walk(fn_tree):
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            stores[node.id] = stores.get(node.id, 0) + 1
        if isinstance(node, gast.Assign) and len(node.targets) == 1 and isinstance(
                node.targets[0], gast.Name) and isinstance(node.value, gast.List):
            depth = _rectangular_depth(node.value)
            if depth is not None and depth >= 2:
                candidates[node.targets[0].id] = (node, depth)
    params = {a.id for a in walk(fn_tree.args) if isinstance(a, gast.Name)}
    candidates = {v: c for v, c in candidates.items() if stores.get(v) == 1 and v not in params}
    if not candidates:
        return None
    try:
        numpy = resolve(gast.Name(id="np", ctx=gast.Load(), annotation=None, type_comment=None))
    except Exception:  # noqa: BLE001 - np is not numpy here
        return None
    if numpy is not np:
        return None
    for v, (stmt, depth) in candidates.items():
        if list_only_use(fn_tree, {v}, resolve, {v: depth}) is not None:
            continue
        stmt.value = gast.copy_location(gast.Call(
            func=gast.Attribute(value=gast.Name(id="np", ctx=gast.Load(), annotation=None,
                                                type_comment=None),
                                attr="array", ctx=gast.Load()),
            args=[stmt.value], keywords=[]), stmt.value)
    return fn_tree


def _rectangular_depth(node):
    """Levels of nested list displays of equal lengths (1: a flat list), or
    None (a starred element, ragged rows, lists mixed with other values)."""
    if not isinstance(node, (gast.List, gast.Tuple)) or not node.elts or any(
            isinstance(e, gast.Starred) for e in node.elts):
        return None
    # (rows written as tuples, `[(w, b), (w2, b2)]`, are pairs of values of
    # their own shapes, taken apart by `for w, b in params`: not an array)
    if any(isinstance(e, gast.Tuple) for e in node.elts):
        return None
    inner = [e for e in node.elts if isinstance(e, gast.List)]
    if not inner:
        return 1
    if len(inner) != len(node.elts):
        return None
    depths = {_rectangular_depth(e) for e in inner}
    lengths = {len(e.elts) for e in inner}
    if len(depths) != 1 or None in depths or len(lengths) != 1:
        return None
    return depths.pop() + 1
