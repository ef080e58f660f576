"""Which arguments a helper's result may share memory with.

In Python a helper may return the array it was given, or a view of it:

    def bumped(p):                 def first_row(A):
        p += 1.0                       return A[0]
        return p

`r = bumped(u)` makes `r` another name of `u`'s memory, as `r = u` would,
and `row = first_row(A)` a view of A. The derivative follows values by
name, so a later write through one name that the other reads must be
refused like any write through a second name (aliases.py); without this,
`r[0] = 5.0; np.sum(u * x)` would get the gradient of a program in which
`u` keeps its old first element.

The answer is read from the helper's source: a result is a new array when
it is computed (arithmetic, a numpy function that makes a new array, a
copy), and otherwise may share the memory of every name it is made from
(a name, a slice, a view, a tuple of them, an unknown call's arguments),
followed back through the helper's assignments to its parameters."""
import inspect

import gast
import numpy as np

from .aliases import _FRESH_FUNCTIONS, _FRESH_METHODS, _VIEW_FUNCTIONS, _VIEW_METHODS, \
    _VIEW_ATTRIBUTES
from ..syntax import walk

_SHARED = {}  # (helper, its source) -> positions of parameters its result may share memory with
_VALUES = {bool, int, float, complex, len, range, abs, round}  # new values, never an argument


def shared_parameters(fn, readable, parse, _seen=None):
    """Positions of `fn`'s parameters whose memory its returned value may
    share (a tuple result: any of its elements). `readable(obj)`: the
    Python function s2sad reads for a callee, or None; `parse(fn)`: a
    helper's tree as the front end reads it."""
    key = _key(fn)
    if key in _SHARED:
        return _SHARED[key]
    top = _seen is None
    _seen = set() if top else _seen
    if fn in _seen:  # recursion: what the other returns decide
        return ()
    _seen.add(fn)
    try:
        parsed = parse(fn)
    except Exception:  # noqa: BLE001 - reported where the helper is differentiated
        return ()
    params = [a.id for a in parsed.tree.args.args]
    # name -> the names whose memory it may share; "%p": the memory parameter p came with
    first = _rebound_first(parsed.tree.body, params)  # `p = p.copy()`: p is a new array
    links = {p: set() if p in first else {"%" + p} for p in params}
    returned = set()

    def shares(e):
        return _shares(e, parsed, readable, parse, _seen)

    for node in walk(parsed.tree):
        if node in first.values():  # (its value reads the argument)
            p = next(q for q, s in first.items() if s is node)
            links[p] |= {"%" + n if n == p else n for n in shares(node.value)}
        elif isinstance(node, gast.Assign):
            for t in node.targets:
                _bind(t, node.value, shares, links)
        elif isinstance(node, gast.For):
            _bind(node.target, node.iter, shares, links)  # `for row in A`: rows are views
        elif isinstance(node, gast.Return) and node.value is not None:
            returned |= shares(node.value)
    reach = {n: set(v) for n, v in links.items()}
    changed = True
    while changed:  # through assignments
        changed = False
        for n, sources in reach.items():
            more = set().union(set(), *(reach.get(s, set()) for s in sources)) - sources
            if more:
                sources |= more
                changed = True
    shared = set().union(set(), *(reach.get(n, {n}) for n in returned))
    result = tuple(k for k, p in enumerate(params) if "%" + p in shared)
    if top:  # (inside a recursion the answer may be partial)
        _SHARED[key] = result
    return result


def _rebound_first(body, params):
    """Parameter -> the statement at the top of `body` that rebinds it
    (`p = p.copy()`, `p = p * 2.0`) before anything else mentions it."""
    out, mentioned = {}, set()
    for s in body:
        if isinstance(s, gast.Assign) and len(s.targets) == 1 \
                and isinstance(s.targets[0], gast.Name) and s.targets[0].id in params \
                and s.targets[0].id not in mentioned and s.targets[0].id not in out:
            out[s.targets[0].id] = s
        mentioned |= {n.id for n in walk(s) if isinstance(n, gast.Name)} - set(out)
    return out


def _key(fn):
    """A helper as it reads now (an edited file gives a new answer)."""
    try:
        return fn, inspect.getsource(fn)
    except (OSError, TypeError):
        return fn, None


def returned_parameter(fn, parse):
    """The position of the parameter every `return` of `fn` returns as
    such (`return p`), or None."""
    try:
        tree = parse(fn).tree
    except Exception:  # noqa: BLE001 - reported where the helper is differentiated
        return None
    params = [a.id for a in tree.args.args]
    values = [n.value for n in walk(tree) if isinstance(n, gast.Return)]
    names = {v.id for v in values if isinstance(v, gast.Name)}
    if not values or len(names) != 1 or not all(isinstance(v, gast.Name) for v in values) \
            or not names <= set(params):
        return None
    return params.index(names.pop())


def returned_parameters(fn, parse):
    """For a helper whose every `return` is a tuple of its parameters as
    such (`return u, v`, the same ones each time): their positions, else None."""
    try:
        tree = parse(fn).tree
    except Exception:  # noqa: BLE001 - reported where the helper is differentiated
        return None
    params = [a.id for a in tree.args.args]
    values = [n.value for n in walk(tree) if isinstance(n, gast.Return)]
    if not values or not all(isinstance(v, gast.Tuple) for v in values):
        return None
    names = {tuple(e.id if isinstance(e, gast.Name) else None for e in v.elts) for v in values}
    if len(names) != 1:
        return None
    found = names.pop()
    if not all(n in params for n in found):
        return None
    return tuple(params.index(n) for n in found)


def returns_display(fn, parse):
    """Whether some `return` of `fn` returns a tuple or list display."""
    try:
        tree = parse(fn).tree
    except Exception:  # noqa: BLE001 - reported where the helper is differentiated
        return False
    return any(isinstance(n, gast.Return) and isinstance(n.value, (gast.Tuple, gast.List))
               for n in walk(tree))


def call_shares(parsed, readable, parse):
    """A function: a call node of the function `parsed` -> the names among
    its arguments whose memory the call's result may share (empty for
    calls of anything but a helper s2sad reads)."""
    def shares(call):
        fn = _callee(call, parsed, readable)
        if fn is None:
            return set()
        positions = shared_parameters(fn, readable, parse)
        return {call.args[k].id for k in positions
                if k < len(call.args) and isinstance(call.args[k], gast.Name)}
    return shares


def _callee(call, parsed, readable):
    try:
        return readable(parsed.resolve(call.func))
    except Exception:  # noqa: BLE001 - a local or unknown name
        return None


def _bind(target, value, shares, links):
    names = [n.id for n in walk(target) if isinstance(n, gast.Name)
             and isinstance(n.ctx, gast.Store)]
    sources = shares(value)
    for n in names:
        links.setdefault(n, {n}).update(sources)


def _shares(e, parsed, readable, parse, seen):
    """Names whose memory the value of expression `e` may share."""
    def rec(x):
        return _shares(x, parsed, readable, parse, seen)

    if isinstance(e, gast.Name):
        return {e.id}
    if isinstance(e, gast.Subscript):  # a slice is a view (fancy indexing copies: no matter)
        return rec(e.value)
    if isinstance(e, gast.Attribute):
        return rec(e.value) if e.attr in _VIEW_ATTRIBUTES else set()
    if isinstance(e, (gast.Tuple, gast.List)):
        return set().union(set(), *(rec(x) for x in e.elts))
    if isinstance(e, gast.IfExp):
        return rec(e.body) | rec(e.orelse)
    if isinstance(e, gast.BoolOp):
        return set().union(*(rec(x) for x in e.values))
    if not isinstance(e, gast.Call):
        return set()  # arithmetic, comparisons, constants: new values
    out = {k.value for k in e.keywords if k.arg == "out"}
    if out:
        return set().union(*(rec(x) for x in out))
    args = [*e.args, *(k.value for k in e.keywords)]
    try:
        obj = parsed.resolve(e.func)
    except Exception:  # noqa: BLE001 - a local or unknown callee
        obj = None
    helper = readable(obj) if obj is not None else None
    if helper is not None:
        return set().union(set(), *(rec(e.args[k]) for k in shared_parameters(
            helper, readable, parse, seen) if k < len(e.args)))
    if isinstance(obj, np.ufunc) or obj in _VALUES or obj is not None and getattr(
            obj, "__name__", None) in _FRESH_FUNCTIONS and _is_numpy(obj):
        return set()
    if isinstance(e.func, gast.Attribute) and not _is_numpy(obj):  # a method
        if e.func.attr in _FRESH_METHODS:
            return set()
        if e.func.attr in _VIEW_METHODS:
            return rec(e.func.value)
        return rec(e.func.value) | set().union(set(), *(rec(a) for a in args))
    if obj is not None and _is_numpy(obj) and getattr(obj, "__name__", "") in _VIEW_FUNCTIONS:
        return rec(e.args[0]) if e.args else set()
    return set().union(set(), *(rec(a) for a in args))  # anything else may return an argument


def _is_numpy(obj):
    return isinstance(obj, np.ufunc) or (getattr(obj, "__module__", None) or "").split(".")[0] \
        == "numpy"
