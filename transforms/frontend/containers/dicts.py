"""Front end: a local name bound once to a dict with constant string keys
becomes one variable per key, as a list literal does (literals.py):

    p = {"w": A[0], "b": b}      p_w, p_b = (A[0], b)
    y = p["w"] * p["b"]    ->    y = p_w * p_b
    p["w"] = p["w"] - 0.1        p_w = p_w - 0.1

Every use must be a read or write of one of its keys, `d.get(key,
default)` with a constant key, `d.values()`, `d.keys()` or `d.items()`
iterated by a `for` loop or given to `sum`, `min`, `max` or `len` (a tuple
of its entries, in the dict's order), or passing it whole to a Python helper
(which then takes its values as parameters of their own,
flatten.py's spread_copy); any other dict (a new key, a key computed at run
time, the dict given to anything else) is refused, never guessed. A dict
written out as a helper's argument (`h({"a": x})`, `h(dict(a=x))`) is first
bound to a name of its own, just before the statement."""
import builtins
import types

import gast

from .common import is_builtin, is_user_function
from .dict_keys import dict_items
from .flatten import spread_copy
from .structure import Structure
from ...errors import UnsupportedSyntaxError
from ...syntax import Transformer, name, parents_of, store, walk


def run(fn_tree, ctx):
    namer, resolve, location, namespace = ctx.namer, ctx.resolve, ctx.location, ctx.namespace
    if not any(n.__class__ is gast.Dict or (n.__class__ is gast.Call and not n.args)
               for n in walk(fn_tree)):
        return None  # (no dict display, nor a call that may be dict(k=v): most functions)
    _name_helper_arguments(fn_tree, namer, resolve)
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
            items = dict_items(node.value, resolve)
            if items is not None:
                candidates[node.targets[0].id] = (node, items)
    excluded = {a.id for a in walk(fn_tree.args) if isinstance(a, gast.Name)}
    for node in nodes:  # another scope's names (a nested def or lambda)
        if isinstance(node, (gast.FunctionDef, gast.Lambda)) and node is not fn_tree:
            excluded |= {n.id for n in walk(node) if isinstance(n, gast.Name)}
    # (the function, as spread_copy reads it: its namespace gets the copies' names)
    caller = types.SimpleNamespace(resolve=resolve, namespace=namespace, tree=fn_tree,
                                   taken=namer.taken, parse=ctx.parse)
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


def _uses_understood(fn_tree, v, stmt, items, caller, spreads):
    parents = parents_of(fn_tree)
    for node in walk(fn_tree):
        if not (isinstance(node, gast.Name) and node.id == v) or node is stmt.targets[0]:
            continue
        parent = parents.get(id(node))
        if isinstance(parent, gast.Call) and node in parent.args and caller.namespace is not None:
            # h(d): h's copy takes the dict's values (each a leaf: a tuple stays a tuple)
            shape = Structure("dict", tuple(items), tuple(Structure("leaf") for _ in items),
                              "dict")
            ref = spread_copy(caller, parent, parent.args.index(node), shape, caller.parse,
                              caller.taken)
            if ref is not None:
                spreads[id(parent)] = ref
                continue
        if _view(parent, node, parents, caller.resolve) is not None \
                or _get(parent, node, parents) is not None:
            continue
        if not (isinstance(parent, gast.Subscript) and parent.value is node
                and isinstance(parent.slice, gast.Constant) and parent.slice.value in items):
            return False
    return True


_SEQUENCE_USERS = (builtins.sum, builtins.min, builtins.max, builtins.len)


def _view(parent, node, parents, resolve):
    """The call `d.values()` (or keys, items) of which `node` (d) is the
    object, when a for loop iterates over it or sum/min/max/len takes it."""
    if not (isinstance(parent, gast.Attribute) and parent.value is node
            and parent.attr in ("values", "keys", "items")):
        return None
    c = parents.get(id(parent))
    if not (isinstance(c, gast.Call) and c.func is parent and not c.args and not c.keywords):
        return None
    user = parents.get(id(c))
    if isinstance(user, gast.For) and user.iter is c:
        return c
    if isinstance(user, gast.Call) and user.args == [c] and not user.keywords \
            and any(is_builtin(resolve, user.func, f) for f in _SEQUENCE_USERS):
        return c
    return None


def _get(parent, node, parents):
    """The call `d.get("key")` or `d.get("key", default)` with a constant key."""
    if not (isinstance(parent, gast.Attribute) and parent.value is node and parent.attr == "get"):
        return None
    c = parents.get(id(parent))
    if isinstance(c, gast.Call) and c.func is parent and 1 <= len(c.args) <= 2 \
            and not c.keywords and isinstance(c.args[0], gast.Constant) \
            and isinstance(c.args[0].value, str):
        return c
    return None


def _name_helper_arguments(fn_tree, namer, resolve):
    """h({"a": x}) -> d = {"a": x}; h(d), for a helper h (a Python function)
    called in a simple statement, the dict's values without calls (so that
    evaluating them first changes nothing)."""
    for node in walk(fn_tree):
        for field in ("body", "orelse"):
            stmts = getattr(node, field, None)
            if not isinstance(stmts, list):
                continue
            out = []
            for s in stmts:
                if isinstance(s, (gast.Assign, gast.AugAssign, gast.Return, gast.Expr)):
                    out += _hoisted(s, namer, resolve)
                out.append(s)
            stmts[:] = out


def _hoisted(stmt, namer, resolve):
    bindings = []
    for c in walk(stmt):
        if isinstance(c, (gast.Lambda, gast.ListComp, gast.GeneratorExp, gast.SetComp,
                          gast.DictComp)):
            return []  # (another scope: evaluated there, maybe many times)
    for c in walk(stmt):
        if not isinstance(c, gast.Call):
            continue
        try:
            callee = resolve(c.func)
        except Exception:  # noqa: BLE001 - a local or unknown name
            callee = None
        if not is_user_function(callee):
            continue
        for k, a in enumerate(c.args):
            items = dict_items(a, resolve)
            if items is None or any(isinstance(n, gast.Call) for v in items.values()
                                    for n in walk(v)):
                continue
            d = namer.fresh("d")
            bindings.append(gast.copy_location(
                gast.Assign(targets=[store(d)], value=a, type_comment=None), stmt))
            c.args[k] = gast.copy_location(name(d), a)
    return bindings


class _Scalarise(Transformer):
    def __init__(self, candidates, parts, spreads):
        self.candidates, self.parts, self.spreads = candidates, parts, spreads

    def visit_Call(self, node):
        f = node.func
        if isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name) \
                and f.value.id in self.candidates and f.attr in ("get", "values", "keys", "items"):
            v, items = f.value.id, self.candidates[f.value.id][1]
            parts = self.parts[v]
            if f.attr == "get":  # a constant key: the value, or the default
                key = node.args[0].value
                if key in items:
                    return gast.copy_location(name(parts[key]), node)
                default = node.args[1] if len(node.args) == 2 else gast.Constant(value=None,
                                                                                    kind=None)
                return self.visit(default)
            entries = [name(parts[k]) if f.attr == "values" else
                       gast.Constant(value=k, kind=None) if f.attr == "keys" else
                       gast.Tuple(elts=[gast.Constant(value=k, kind=None), name(parts[k])],
                                  ctx=gast.Load()) for k in items]
            return gast.copy_location(gast.Tuple(elts=entries, ctx=gast.Load()), node)
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
