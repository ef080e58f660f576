"""A slice object bound to a name, used to index: its bounds bound to names,
the index written with them (what Python computes: `x[slice(a, b)]` is
`x[a:b]`):

    idx = slice(k * n, k * n + n)     ->     idx_start = k * n
    y = x[idx]                               idx_stop = k * n + n
                                             y = x[idx_start:idx_stop]

Rewritten when the name is assigned once, to `slice(...)` of the builtin
with one to three positional arguments, and read only as an index (`x[idx]`,
`x[idx, 0]`): the bounds' names hold what the slice held, wherever it is
read. Otherwise left as it is (its kind unknown: refused where a value's
kind is needed)."""
import builtins

import gast

from ...names import fresh_name
from ...syntax import walk


def run(tree, ctx):
    """Rewrite, in place, the slices of `tree` bound to names."""
    found = _candidates(tree, ctx)
    if not found:
        return None
    taken = {n.id for n in walk(tree) if isinstance(n, gast.Name)} | set(ctx.namespace)
    changed = False
    for name, assign in found.items():
        parents = _index_parents(tree, name)
        if parents is None:
            continue
        parts = _parts(assign.value)
        names = {}
        stmts = []
        for field, value in parts.items():
            if value is None:
                continue
            names[field] = fresh_name(f"{name}_{field}", taken)
            taken.add(names[field])
            stmts.append(gast.copy_location(gast.Assign(
                targets=[gast.Name(id=names[field], ctx=gast.Store(), annotation=None,
                                   type_comment=None)],
                value=value, type_comment=None), assign))
        if not stmts:
            stmts.append(gast.copy_location(gast.Pass(), assign))
        if not _replace_statement(tree.body, assign, stmts):
            continue
        for parent, field, index in parents:
            bound = gast.Slice(**{k: gast.Name(id=names[k], ctx=gast.Load(), annotation=None,
                                               type_comment=None) if k in names else None
                                  for k in ("lower", "upper", "step")})
            if index is None:
                setattr(parent, field, bound)
            else:
                getattr(parent, field)[index] = bound
        changed = True
    return tree if changed else None


def _candidates(tree, ctx):
    """{name: its assignment} of the names assigned once, to slice(...)."""
    counts, found = {}, {}
    for n in walk(tree):
        if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)):
            counts[n.id] = counts.get(n.id, 0) + 1
        if isinstance(n, gast.Assign) and len(n.targets) == 1 \
                and isinstance(n.targets[0], gast.Name) and isinstance(n.value, gast.Call) \
                and not n.value.keywords and 1 <= len(n.value.args) <= 3 \
                and not any(isinstance(a, gast.Starred) for a in n.value.args) \
                and ctx.safe_resolve(n.value.func) is builtins.slice:
            found[n.targets[0].id] = n
    params = {a.id for a in tree.args.args + tree.args.kwonlyargs}
    return {k: v for k, v in found.items() if counts.get(k) == 1 and k not in params}


def _parts(call):
    args = list(call.args)
    if len(args) == 1:
        return {"lower": None, "upper": _or_none(args[0]), "step": None}
    return {"lower": _or_none(args[0]), "upper": _or_none(args[1]),
            "step": _or_none(args[2]) if len(args) == 3 else None}


def _or_none(node):
    return None if isinstance(node, gast.Constant) and node.value is None else node


def _index_parents(tree, name):
    """(parent, field, position or None) of every read of `name`, each an
    index (a subscript's slice, or an element of a tuple that is one); None
    if it is read otherwise."""
    places, allowed = [], set()
    for n in walk(tree):
        if not isinstance(n, gast.Subscript):
            continue
        if isinstance(n.slice, gast.Name) and n.slice.id == name:
            places.append((n, "slice", None))
            allowed.add(id(n.slice))
        elif isinstance(n.slice, gast.Tuple):
            for k, e in enumerate(n.slice.elts):
                if isinstance(e, gast.Name) and e.id == name:
                    places.append((n.slice, "elts", k))
                    allowed.add(id(e))
    for n in walk(tree):
        if isinstance(n, gast.Name) and n.id == name and isinstance(n.ctx, gast.Load) \
                and id(n) not in allowed:
            return None
    return places


def _replace_statement(stmts, old, new):
    for k, s in enumerate(stmts):
        if s is old:
            stmts[k:k + 1] = new
            return True
        for field in ("body", "orelse", "finalbody"):
            block = getattr(s, field, None)
            if isinstance(block, list) and _replace_statement(block, old, new):
                return True
    return False
