"""Helpers that change a list, dict or set they are given through one of its
methods (`out.append(v)` in `def add(out, v)`, also a nested function
lifted into a helper taking what it captures): the caller's container
changes, which a derivative treating the call as a function of its
arguments would not see (the appended values would get no gradient, with
no error). Such a call is refused at the call, naming the helper's line.

A nested function that appends to its outer function's list is inlined
where it is called as a statement (inline_nested.py) and never reaches
this check."""
import gast

from ...errors import UnsupportedSyntaxError
from ...syntax import walk

# methods of list, dict and set that change the container
MUTATING_METHODS = frozenset({"append", "extend", "insert", "pop", "remove", "clear",
                              "reverse", "update", "setdefault", "popitem", "add",
                              "discard", "difference_update", "intersection_update",
                              "symmetric_difference_update"})

_FOUND = {}  # helper -> {parameter position: (description, line)}


def mutated_parameters(fn, readable, _seen=None):
    """{position: (method call's text, its line)} of the parameters `fn`
    changes through a method, itself or through a helper it passes them to."""
    from .written_args import _key
    key = _key(fn)  # (a helper as it reads now: an edited file is read again)
    if key in _FOUND:
        return _FOUND[key]
    _seen = set() if _seen is None else _seen
    if fn in _seen:
        return {}
    _seen.add(fn)
    from ..read.read import parse_function
    try:
        parsed = parse_function(fn)
    except Exception:  # noqa: BLE001 - reported where the helper is differentiated
        return {}
    params = [a.id for a in parsed.tree.args.args]
    found = {}
    for node in walk(parsed.tree):
        if not isinstance(node, gast.Call):
            continue
        func = node.func
        if isinstance(func, gast.Attribute) and func.attr in MUTATING_METHODS \
                and isinstance(func.value, gast.Name) and func.value.id in params:
            found.setdefault(params.index(func.value.id), (
                f"{func.value.id}.{func.attr}(...)", parsed.location.describe(node)))
            continue
        try:
            callee = readable(parsed.resolve(func))
        except Exception:  # noqa: BLE001
            callee = None
        if callee is None or callee is fn:
            continue
        for pos, why in mutated_parameters(callee, readable, _seen).items():
            if pos < len(node.args) and isinstance(node.args[pos], gast.Name) \
                    and node.args[pos].id in params:
                found.setdefault(params.index(node.args[pos].id), why)
    _FOUND[key] = found
    return found


def refuse_mutating_calls(tree, parsed, readable):
    """Refuse, in `tree` (of `parsed`), a call of a helper that changes a
    container argument through one of its methods."""
    for call in walk(tree):
        if not isinstance(call, gast.Call):
            continue
        try:
            fn = readable(parsed.resolve(call.func))
        except Exception:  # noqa: BLE001
            continue
        if fn is None:
            continue
        for pos, (what, where) in sorted(mutated_parameters(fn, readable).items()):
            if pos < len(call.args):
                raise UnsupportedSyntaxError(
                    f"a call of {fn.__name__}, which changes the container it is given "
                    f"({what} at {where})", parsed.location, call,
                    "Have the helper return the new values and append or store them in the "
                    "caller (or define it as a nested function called as a statement of its "
                    "own, which s2sad inlines)")
