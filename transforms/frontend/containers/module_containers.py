"""A module-level tuple, list or dict of arrays and numbers, read by the
function, is the literal of its elements, each a module-level name:

    S = (np.array(...), np.array(...))          def f(x):
                                                    S = (S_0, S_1)
    def f(x):                          ->           return np.sum(x * S[0] + S[1])
        return np.sum(x * S[0] + S[1])
                                                (S_0, S_1: the arrays themselves)

so the passes that follow a local container (its elements by constant key,
loops over it, unpacking it, passing it to a helper) follow this one, and
the generated module reads arrays and numbers, which numba takes as
constants, never a list or dict, which it cannot. The elements are read
when the derivative is generated; it is generated again when one of them
is rebound or, compiled, changed in place (s2sad/guards.py).

Left as it is (read by Python as it is, and by numba where it can): a
container the function writes into (S[0] = v, S.append(v)), a list or
dict a helper it calls may change (writes into, calls a method of, passes
on or aliases: the literal would not see the change), or one it reads with
a key that is not a constant other than into numbers or arrays of one
shape (LAYERS[i][0] of a list of pairs, S[1:] but where a loop iterates
it); one holding anything but
numbers and arrays, one of ints alone (a shape, indices), and one of more
than 64 elements. A list or tuple of tuples of ints (layer shapes) is
bound too, so that a loop over it runs once per shape."""
import gast
import numpy as np

from .common import constant_slice, iterated
from ..functions.bound_copies import raw_tree
from ..functions.module_values import data
from ...names import fresh_name
from ...syntax import names_stored, parents_of, walk

_LARGEST = 64
_READING_METHODS = {"items", "keys", "values", "get"}
_SCANNED = 64  # helpers read for writes into a module-level list or dict, at most


def run(tree, ctx):
    """Bind each module-level container `tree` only reads to its literal,
    first thing in the function."""
    namespace = ctx.namespace
    local = names_stored(tree.body) | {a.id for a in tree.args.args} | {
        n.name for n in walk(tree) if isinstance(n, gast.FunctionDef) and n is not tree}
    names = [n for n in walk(tree) if isinstance(n, gast.Name) and n.id not in local
             and _container(namespace.get(n.id))]
    if not names:
        return None
    parents = parents_of(tree)
    left = {n.id for n in names if not _followed(n, parents, namespace[n.id])}
    chosen = sorted({n.id for n in names} - left)
    changing = _changed_by_helpers(tree, namespace, {v: namespace[v] for v in chosen},
                                   ctx.readable)
    chosen = [v for v in chosen if v not in changing]
    if not chosen:
        return None
    taken = set(namespace) | {n.id for n in walk(tree) if isinstance(n, gast.Name)} | local
    first = 1 if tree.body and _docstring(tree.body[0]) else 0
    for v in chosen:
        literal = _literal(namespace[v], v, namespace, taken)
        stmt = gast.Assign(targets=[gast.Name(id=v, ctx=gast.Store(), annotation=None,
                                              type_comment=None)],
                           value=literal, type_comment=None)
        for n in walk(stmt):
            if isinstance(n, (gast.stmt, gast.expr)):
                gast.copy_location(n, tree.body[first] if len(tree.body) > first else tree)
        tree.body.insert(first, stmt)
    ctx.reads_values = True
    return tree


def _container(value):
    """A tuple, list or dict of numbers and arrays (nested), with a float or
    an array among them, of at most _LARGEST leaves."""
    if type(value) not in (tuple, list, dict) or not value or not data(value):
        return False
    leaves = list(_leaves(value))
    if len(leaves) > _LARGEST:
        return False
    return any(isinstance(v, (np.ndarray, float, complex, np.inexact)) for v in leaves) or \
        _shapes(value)


def _shapes(value):
    """A tuple or list of tuples of ints (a network's layer shapes,
    list(zip(sizes[:-1], sizes[1:]))): a loop over it runs once per shape."""
    return type(value) in (tuple, list) and all(
        type(v) is tuple and v and all(isinstance(i, (int, np.integer)) and not isinstance(
            i, bool) for i in v) for v in value)


def _leaves(value):
    if type(value) in (tuple, list):
        for v in value:
            yield from _leaves(v)
    elif type(value) is dict:
        for v in value.values():
            yield from _leaves(v)
    else:
        yield value


def _followed(node, parents, value):
    """Whether the passes following a local container follow this read of
    it: not a write into it (an element assigned or deleted, a method that
    changes it), and a key that is not a constant only into elements that
    are numbers or arrays of one shape (read from an array of them)."""
    up, child = parents.get(id(node)), node
    while isinstance(up, gast.Subscript) and up.value is child:
        if not isinstance(up.ctx, gast.Load):
            return False
        key = up.slice
        if isinstance(key, gast.Constant) and not isinstance(key.value, bool) and \
                isinstance(key.value, (int, str)):
            try:
                value = value[key.value]
            except (IndexError, KeyError, TypeError):
                return False  # (Python's error, where the function runs)
        elif isinstance(key, gast.UnaryOp) and isinstance(key.op, gast.USub) and isinstance(
                key.operand, gast.Constant) and type(key.operand.value) is int:
            try:
                value = value[-key.operand.value]
            except (IndexError, KeyError, TypeError):
                return False
        elif constant_slice(key) is not None and type(value) in (tuple, list) \
                and iterated(up, parents):
            value = value[constant_slice(key)]  # (for w, b in LAYERS[:-1]: literal_loops.py)
        else:
            return type(value) in (tuple, list) and _alike(value)
        if type(value) not in (tuple, list, dict):
            return True
        up, child = parents.get(id(up)), up
    if isinstance(up, gast.Attribute) and up.value is child:
        return up.attr in _READING_METHODS and isinstance(up.ctx, gast.Load)
    return isinstance(child.ctx, gast.Load)


def _changed_by_helpers(tree, namespace, containers, readable):
    """The names of `containers` (name -> a module-level list, dict or tuple)
    whose lists and dicts a function `tree` calls (or one they call) may
    change while the function runs: it writes into one, calls a method of
    it other than a read, gives it to a call or binds another name to it.
    The function's literal would not see the change."""
    mutable = {}  # id of a list or dict inside a container -> the container's name
    for v, value in containers.items():
        for part in _parts(value):
            if type(part) in (list, dict):
                mutable[id(part)] = v
    if not mutable:
        return set()
    found, seen = set(), set()
    todo = [(tree, namespace)]
    while todo and len(seen) < _SCANNED:
        fn_tree, fn_namespace = todo.pop()
        # (names the function binds: not those it only writes into, HIST[0] = v)
        local = {n.id for n in walk(fn_tree) if isinstance(n, gast.Name) and isinstance(
            n.ctx, (gast.Store, gast.Del, gast.Param))}
        parents = parents_of(fn_tree)
        for n in walk(fn_tree):
            if isinstance(n, (gast.Global, gast.Nonlocal)):
                found |= {mutable[id(fn_namespace[g])] for g in n.names
                          if id(fn_namespace.get(g)) in mutable}
            if not isinstance(n, gast.Name) or n.id in local:
                continue
            obj = fn_namespace.get(n.id)
            if fn_tree is not tree and id(obj) in mutable and _changes(n, parents):
                found.add(mutable[id(obj)])
            called = readable(obj) if isinstance(parents.get(id(n)), gast.Call) else None
            if called is not None and called not in seen:
                seen.add(called)
                try:
                    read = raw_tree(called)
                except Exception:  # noqa: BLE001 - no source: refused where it is called
                    continue
                todo.append((read.tree, read.namespace))
    return found


def _parts(value):
    yield value
    if type(value) in (tuple, list):
        for v in value:
            yield from _parts(v)
    elif type(value) is dict:
        for v in value.values():
            yield from _parts(v)


def _changes(node, parents):
    """Whether a use of a module-level list or dict may change it: a write
    into it, a method other than a read, given to a call, bound to a name."""
    up, child = parents.get(id(node)), node
    while isinstance(up, gast.Subscript) and up.value is child:
        if not isinstance(up.ctx, gast.Load):
            return True
        up, child = parents.get(id(up)), up
    if isinstance(up, gast.Attribute):
        return up.attr not in _READING_METHODS
    if isinstance(up, gast.Call) and child is not up.func or isinstance(up, gast.keyword):
        return True
    return isinstance(up, (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Return)) or \
        not isinstance(node.ctx, gast.Load)


def _alike(values):
    """Numbers alone, or arrays of one shape and kind of dtype."""
    if all(isinstance(v, (int, float, np.number)) and not isinstance(v, bool) for v in values):
        return True
    return all(isinstance(v, np.ndarray) for v in values) and \
        len({(v.shape, v.dtype.kind) for v in values}) == 1


def _literal(value, path, namespace, taken):
    """The display of `value` whose leaves are module-level names bound (in
    `namespace`) to its numbers and arrays."""
    if type(value) in (tuple, list):
        elts = [_literal(v, f"{path}_{k}", namespace, taken) for k, v in enumerate(value)]
        kind = gast.Tuple if type(value) is tuple else gast.List
        return kind(elts=elts, ctx=gast.Load())
    if type(value) is dict:
        keys = [gast.Constant(value=k, kind=None) for k in value]
        values = [_literal(v, f"{path}_{k}" if str(k).isidentifier() else f"{path}_{j}",
                           namespace, taken) for j, (k, v) in enumerate(value.items())]
        return gast.Dict(keys=keys, values=values)
    n = fresh_name(path, taken)
    namespace[n] = value
    return gast.Name(id=n, ctx=gast.Load(), annotation=None, type_comment=None)


def _docstring(stmt):
    return isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Constant) and \
        isinstance(stmt.value.value, str)
