"""Front end: a local name bound once to a dict with constant string keys
becomes one variable per key, as a list literal does (literals.py):

    p = {"w": A[0], "b": b}      p_w, p_b = (A[0], b)
    y = p["w"] * p["b"]    ->    y = p_w * p_b
    p["w"] = p["w"] - 0.1        p_w = p_w - 0.1

Every use must be a read or write of one of its keys, or passing it whole
to a Python helper (which then takes its values as parameters of their own,
spread_arguments.py); any other dict (a new key, a key computed at run
time, the dict given to anything else) is refused, never guessed."""
import builtins
import types

import gast

from .containers_common import is_builtin
from ..errors import UnsupportedSyntaxError
from .flatten_args import Structure
from .spread_arguments import spread_copy
from ..syntax import Transformer, name, store, walk


def scalarise_dicts(fn_tree, namer, resolve, location, namespace=None):
    nodes = walk(fn_tree)  # (one walk for every question below, until a rewrite)
    bindings = {}
    for node in nodes:
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            bindings[node.id] = bindings.get(node.id, 0) + 1
    candidates = {}
    for node in nodes:
        if isinstance(node, gast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], gast.Name) \
                and bindings.get(node.targets[0].id) == 1:
            items = _items(node.value, resolve)
            if items is not None:
                candidates[node.targets[0].id] = (node, items)
    excluded = {a.id for a in walk(fn_tree.args) if isinstance(a, gast.Name)}
    for node in nodes:  # another scope's names (a nested def or lambda)
        if isinstance(node, (gast.FunctionDef, gast.Lambda)) and node is not fn_tree:
            excluded |= {n.id for n in walk(node) if isinstance(n, gast.Name)}
    # (the function, as spread_copy reads it: its namespace gets the copies' names)
    caller = types.SimpleNamespace(resolve=resolve, namespace=namespace, tree=fn_tree,
                                   taken=namer.taken)
    spreads = {}  # id(call) -> name of the helper's copy taking the dict's values
    for v in list(candidates):
        if v in excluded or not _uses_understood(fn_tree, v, *candidates[v], caller, spreads):
            del candidates[v]
    if candidates:
        parts = {v: {k: namer.fresh(f"{v}_{k}" if k.isidentifier() else f"{v}_{j}")
                     for j, k in enumerate(items)} for v, (_, items) in candidates.items()}
        _Scalarise(candidates, parts, spreads).visit(fn_tree)
        nodes = walk(fn_tree)
    for node in nodes:
        if isinstance(node, gast.Dict):
            raise UnsupportedSyntaxError(
                "a dict other than one bound once with constant string keys and used only "
                "as d['key']", location, node,
                "Use separate variables, or a dict literal read and written at its keys")
    return fn_tree


def _items(value, resolve):
    """{key: value node} of a dict display or dict(k=v) call with constant
    string keys, or None."""
    if isinstance(value, gast.Dict):
        if any(not (isinstance(k, gast.Constant) and isinstance(k.value, str))
               for k in value.keys):
            return None  # (a ** unpacking has key None)
        keys = [k.value for k in value.keys]
        return dict(zip(keys, value.values)) if len(set(keys)) == len(keys) else None
    if isinstance(value, gast.Call) and is_builtin(resolve, value.func, builtins.dict) \
            and not value.args and all(k.arg is not None for k in value.keywords):
        return {k.arg: k.value for k in value.keywords}
    return None


def _uses_understood(fn_tree, v, stmt, items, caller, spreads):
    parents = {}
    for node in walk(fn_tree):
        for child in gast.iter_child_nodes(node):
            parents[id(child)] = node
    for node in walk(fn_tree):
        if not (isinstance(node, gast.Name) and node.id == v) or node is stmt.targets[0]:
            continue
        parent = parents.get(id(node))
        if isinstance(parent, gast.Call) and node in parent.args and caller.namespace is not None:
            # h(d): h's copy takes the dict's values (each a leaf: a tuple stays a tuple)
            shape = Structure("dict", tuple(items), tuple(Structure("leaf") for _ in items),
                              "dict")
            ref = spread_copy(caller, parent, parent.args.index(node), shape, caller.taken)
            if ref is not None:
                spreads[id(parent)] = ref
                continue
        if not (isinstance(parent, gast.Subscript) and parent.value is node
                and isinstance(parent.slice, gast.Constant) and parent.slice.value in items):
            return False
    return True


class _Scalarise(Transformer):
    def __init__(self, candidates, parts, spreads):
        self.candidates, self.parts, self.spreads = candidates, parts, spreads

    def visit_Call(self, node):
        if id(node) in self.spreads:  # h(d) -> h_spread(d_a, d_b)
            node.func = gast.copy_location(name(self.spreads[id(node)]), node.func)
            args = []
            for a in node.args:
                if isinstance(a, gast.Name) and a.id in self.candidates:
                    args += [name(self.parts[a.id][k]) for k in self.candidates[a.id][1]]
                else:
                    args.append(a)
            node.args = args
        return self.generic_visit(node)

    def visit_Assign(self, node):
        target = node.targets[0]
        if isinstance(target, gast.Name) and target.id in self.candidates \
                and self.candidates[target.id][0] is node:
            v = target.id
            items = self.candidates[v][1]
            values = [self.visit(items[k]) for k in items]
            return gast.copy_location(gast.Assign(
                targets=[gast.Tuple(elts=[store(self.parts[v][k]) for k in items],
                                    ctx=gast.Store())],
                value=gast.Tuple(elts=values, ctx=gast.Load()), type_comment=None), node)
        return self.generic_visit(node)

    def visit_Subscript(self, node):
        if isinstance(node.value, gast.Name) and node.value.id in self.candidates:
            return gast.copy_location(name(self.parts[node.value.id][node.slice.value],
                                           node.ctx), node)
        return self.generic_visit(node)
