"""What a Python helper does to the arguments it is given, read from its
source (as the front end reads it: `parse(fn)`), itself or through the
helpers it passes them to: which parameters it writes into (subscript or
slice stores, `p += e` of an array: written_args.py rewrites such calls)
and which containers it changes through a method (`out.append(v)`:
mutated_args.py refuses such calls). Answers are kept per helper as its
source reads now (an edited file is read again)."""
import inspect

import gast

from .numpy_writes import respell_writes
from ...syntax import base_name, clone, walk

# methods of list, dict and set that change the container
MUTATING_METHODS = frozenset({"append", "extend", "insert", "pop", "remove", "clear",
                              "reverse", "update", "setdefault", "popitem", "add",
                              "discard", "difference_update", "intersection_update",
                              "symmetric_difference_update"})

_FOUND = {}  # helper -> {parameter position: (description, line)}


def mutated_parameters(fn, readable, parse, _seen=None):
    """{position: (method call's text, its line)} of the parameters `fn`
    changes through a method, itself or through a helper it passes them to."""
    key = helper_key(fn)
    if key in _FOUND:
        return _FOUND[key]
    _seen = set() if _seen is None else _seen
    if fn in _seen:
        return {}
    _seen.add(fn)
    try:
        parsed = parse(fn)
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
        for pos, why in mutated_parameters(callee, readable, parse, _seen).items():
            if pos < len(node.args) and isinstance(node.args[pos], gast.Name) \
                    and node.args[pos].id in params:
                found.setdefault(params.index(node.args[pos].id), why)
    _FOUND[key] = found
    return found


def helper_key(fn):
    """A helper as it reads now (an edited file gives a new copy)."""
    try:
        return fn, inspect.getsource(fn)
    except (OSError, TypeError):
        return fn, None


_WRITES = {}  # helper_key(helper) -> its written positions: (always, when an array)


def written_positions(fn, readable, parse, _seen=None):
    """Positions of the parameters `fn` writes into: (those it always writes
    into, by subscript or slice stores or passing them on to a helper that
    does; those it updates with `p += e`, a write only for an array)."""
    if helper_key(fn) in _WRITES:
        return _WRITES[helper_key(fn)]
    _seen = set() if _seen is None else _seen
    if fn in _seen:
        return (), ()
    _seen.add(fn)
    try:
        parsed = parse(fn)
    except Exception:  # noqa: BLE001 - reported where the helper is differentiated
        return (), ()
    params = [a.id for a in parsed.tree.args.args]
    tree = respell_writes(clone(parsed.tree), parsed)  # (u.fill(v): u[...] = v)
    # name -> the parameters whose memory it is (or a view of), and those it
    # may be through a list holding them (`lst = [P, s]; lst[0][1] = v`
    # writes into P if P is the array; into s it cannot: a number)
    of = _parameters_sharing(tree, params, displays=False)
    maybe = _parameters_sharing(tree, params, displays=True)
    lists = _list_names(tree)
    written, augmented = set(), set()
    for node in walk(tree):
        targets = node.targets if isinstance(node, gast.Assign) else \
            [node.target] if isinstance(node, gast.AugAssign) else []
        for t in targets:
            for sub in walk(t):
                if isinstance(sub, gast.Subscript) and isinstance(sub.ctx, gast.Store):
                    if isinstance(node, gast.Assign) and isinstance(sub.value, gast.Name) \
                            and sub.value.id in lists:
                        continue  # lst[1] = v replaces an item: no write into the item
                    written |= of.get(base_name(sub), set())
                    augmented |= maybe.get(base_name(sub), set())
        if isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name):
            augmented |= maybe.get(node.target.id, set())
        if isinstance(node, gast.Call):
            callee = readable(parsed.resolve(node.func)) if resolves(parsed, node.func) else None
            if callee is not None and callee is not fn:
                always, if_array = written_positions(callee, readable, parse, _seen)
                for positions, into in ((always, written), (if_array, augmented)):
                    for pos in positions:
                        if pos < len(node.args) and isinstance(node.args[pos], gast.Name) \
                                and node.args[pos].id in params:
                            into.add(node.args[pos].id)
    result = (tuple(k for k, p in enumerate(params) if p in written),
              tuple(k for k, p in enumerate(params) if p in augmented - written))
    _WRITES[helper_key(fn)] = result
    return result


def _list_names(tree):
    """Names bound only to list or tuple displays (`lst = [p, 1.0]`): not a
    parameter, nor a loop's or a with's target, nor updated with `+=`."""
    displays = {a.id: [False] for a in walk(tree.args) if isinstance(a, gast.Name)}
    for node in walk(tree):
        if isinstance(node, gast.Assign):
            targets = [(t, isinstance(t, gast.Name)
                        and isinstance(node.value, (gast.List, gast.Tuple))) for t in node.targets]
        elif isinstance(node, (gast.For, gast.AugAssign, gast.AnnAssign, gast.NamedExpr)):
            targets = [(node.target, False)]
        elif isinstance(node, gast.withitem) and node.optional_vars is not None:
            targets = [(node.optional_vars, False)]
        else:
            continue
        for t, display in targets:
            for n in walk(t):
                if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
                    displays.setdefault(n.id, []).append(display)
    return {name for name, kinds in displays.items() if all(kinds)}


def _parameters_sharing(tree, params, displays):
    """Name -> the parameters whose memory it may name: each parameter
    itself, and (flow-insensitively) a view or another name of one: `row =
    P[i]`, `Q = P`, `v = P.T`, `for row in P`. A write through `row` writes
    into the caller's array as surely as `P[i] = ...` does. `displays`:
    also a list or tuple holding one, and what is taken out of it."""
    from ...analysis.aliases import memory_links
    links = memory_links(tree, displays)
    of = {p: {p} for p in params}
    changed = True
    while changed:
        changed = False
        for name, sources in links:
            more = set().union(*(of.get(src, set()) for src in sources)) - of.get(name, set())
            if more:
                of.setdefault(name, set()).update(more)
                changed = True
    return of


def resolves(parsed, func):
    """Whether `parsed.resolve(func)` answers (rather than raising)."""
    try:
        parsed.resolve(func)
        return True
    except Exception:  # noqa: BLE001
        return False
