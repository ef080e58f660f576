"""What the front end knows of a local dict's keys: the names bound once to
a dict literal with constant string keys (dicts.py makes a variable of each
key), and whether a dict is used only at constant keys (so a key created
earlier than Python creates it cannot be told apart)."""
import builtins

import gast

from .common import is_builtin
from ...syntax import walk


def local_dict_keys(fn_tree, resolve):
    """name -> [keys] of the local names bound once, to a dict literal with
    constant string keys (the ones dicts.py may make variables of)."""
    bound, keys = {}, {}
    for node in walk(fn_tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
            bound[node.id] = bound.get(node.id, 0) + 1
        if isinstance(node, gast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], gast.Name):
            items = dict_items(node.value, resolve)
            if items is not None:
                keys[node.targets[0].id] = list(items)
    return {v: k for v, k in keys.items() if bound.get(v) == 1}


def dict_items(value, resolve):
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


def used_at_keys(tree, var, parents, parsed, readable):
    """Whether every read of the dict `var` is `var[constant]` or an argument
    of a Python helper (nothing that sees its keys: len, in, a loop, a
    method, a numpy function)."""
    for node in walk(tree):
        if not (isinstance(node, gast.Name) and node.id == var
                and isinstance(node.ctx, gast.Load)):
            continue
        up = parents.get(id(node))
        if isinstance(up, gast.Subscript) and up.value is node \
                and isinstance(up.slice, gast.Constant):
            continue
        if isinstance(up, gast.Call) and node in up.args and _resolves(parsed, up.func) \
                and readable(parsed.resolve(up.func)) is not None:
            continue
        return False
    return True


def only_at_keys(node, param, keys):
    """Whether `node` names `param` only as `param[key]` with a key in `keys`."""
    allowed = set()
    for n in walk(node):
        if isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name) \
                and n.value.id == param and isinstance(n.slice, gast.Constant) \
                and n.slice.value in keys:
            allowed.add(id(n.value))
    return all(id(n) in allowed for n in walk(node)
               if isinstance(n, gast.Name) and n.id == param)


def _resolves(parsed, func):
    try:
        parsed.resolve(func)
        return True
    except Exception:  # noqa: BLE001
        return False
