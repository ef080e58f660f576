"""Nested functions that change their outer function's containers, inlined
where they are called.

    out = []                          out = []
    def add(v):                       for i in range(n):
        out.append(v * 2.0)    ->         add_v = x[i]
    for i in range(n):                    out.append(add_v * 2.0)
        add(x[i])

A nested function writing into a list, dict or array of the function it
is defined in (`out.append(...)`, `d[k] = ...`, `a[i] = ...`), or assigning
a `nonlocal` name, changes that function's state: lifted into a helper
(closures.py), the change would be lost. Called as a statement of its own
after its `def`, its body runs there with its parameters bound to the
call's arguments and its own names renamed (`add_v`), which is what Python
runs; the outer function's names it reads and writes are the outer
function's. A constant argument is written in place of its parameter (so
`d[k] = v` called with `k="a"` writes the constant key `d["a"]`).

Its result, when it ends with a `return`, is not used (the call is a
statement). Refused, with the line: such a function called inside an
expression or before its `def`, returning before its end,
recursive, declaring a `global`, defining functions, or whose default is
not a constant."""
import gast

from ...errors import UnsupportedSyntaxError
from ...names import fresh_name
from ...syntax import clone, walk
from ..effects.helper_effects import MUTATING_METHODS
from .lifted import params_of, stored
from ...errors import S2sadTypeError


def run(tree, ctx):
    """Inline, in place, the nested functions of `tree` (a FunctionDef) that
    change the outer function's containers."""
    location = ctx.location
    outer = {a.id for a in params_of(tree.args)} | stored(tree.body)
    defs = _defs(tree.body)
    changing = {}
    for d, path in defs:
        own = {a.id for a in params_of(d.args)} | stored(d.body)
        if _changes_outer(d, outer - own):
            changing[d.name] = (d, path)
    grew = True
    while grew:  # a nested function calling one of them changes the state too
        grew = False
        for d, path in defs:
            if d.name not in changing and any(
                    isinstance(n, gast.Call) and isinstance(n.func, gast.Name)
                    and n.func.id in changing for n in walk(d)):
                changing[d.name] = (d, path)
                grew = True
    if not changing:
        return None
    taken = {n.id for n in walk(tree) if isinstance(n, gast.Name)} | outer
    for d, _ in changing.values():
        _check_inlinable(d, location, params_of)
    while True:  # one at a time: removing a def moves the statements after it
        found = [(d, path) for d, path in _defs(tree.body) if d.name in changing]
        if not found:
            return tree
        d, path = found[0]
        _check_calls(tree, d, path, location)
        tree.body = _inline_block(tree.body, d, location, taken, params_of, stored)
        _remove(tree.body, d)


def _defs(stmts, path=()):
    """(def, its statement path) of the nested functions of a block, nested blocks too."""
    out = []
    for k, s in enumerate(stmts):
        here = path + (k,)
        if isinstance(s, gast.FunctionDef):
            out.append((s, here))
            continue
        for field in ("body", "orelse", "finalbody"):
            block = getattr(s, field, None)
            if isinstance(block, list):
                out += _defs(block, here + (field,))
        for k2, h in enumerate(getattr(s, "handlers", None) or []):
            out += _defs(h.body, here + ("handlers", k2))
    return out


def _changes_outer(d, outer):
    """Whether the nested function `d` changes a container of the outer
    function (`outer`: the outer function's names it does not bind itself)
    or assigns a nonlocal name."""
    for n in walk(d):
        if isinstance(n, gast.Nonlocal):
            return True
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) \
                and n.func.attr in MUTATING_METHODS and isinstance(n.func.value, gast.Name) \
                and n.func.value.id in outer:
            return True
        if isinstance(n, gast.Subscript) and isinstance(n.ctx, (gast.Store, gast.Del)):
            base = n.value
            while isinstance(base, (gast.Subscript, gast.Attribute)):
                base = base.value
            if isinstance(base, gast.Name) and base.id in outer:
                return True
    return False


def _refuse(d, location, node, why, hint):
    raise UnsupportedSyntaxError(
        f"a nested function '{d.name}' that changes its outer function's variables "
        f"(nonlocal), lists, dicts or arrays, {why}", location, node, hint)


def _check_inlinable(d, location, params_of):
    if d.decorator_list:
        _refuse(d, location, d, "decorated", "Remove the decorator")
    if d.args.vararg or d.args.kwarg:
        _refuse(d, location, d, "with *args or **kwargs", "Give it plain parameters")
    a = d.args
    for default in list(a.defaults) + [k for k in a.kw_defaults if k is not None]:
        if not _is_constant(default):
            _refuse(d, location, default, "with a default that is not a constant",
                    "Pass the value at each call")
    body = d.body[:-1] if d.body and isinstance(d.body[-1], gast.Return) else d.body
    for n in walk(gast.Module(body=body, type_ignores=[])):
        if isinstance(n, gast.Return):
            _refuse(d, location, n, "returning before its end",
                    "Return only at its end, or return the new values and store them in the "
                    "outer function")
        if isinstance(n, (gast.Yield, gast.YieldFrom)):
            _refuse(d, location, n, "a generator", "Append to a list instead")
        if isinstance(n, gast.Global):
            _refuse(d, location, n, "declaring a global", "Pass the value as an argument")
        if isinstance(n, (gast.FunctionDef, gast.Lambda)):
            _refuse(d, location, n, "defining a function", "Define it in the outer function")
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and n.func.id == d.name:
            _refuse(d, location, n, "calling itself", "Write the recursion as a loop")


def _is_constant(node):
    return isinstance(node, gast.Constant) or (
        isinstance(node, gast.UnaryOp) and isinstance(node.operand, gast.Constant))


def _check_calls(tree, d, def_path, location):
    """Every use of `d`'s name is a call that is a statement of its own, after
    the def in the def's block (or a block inside it)."""
    calls = set()
    for s, path in _statements(tree.body):
        if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) \
                and isinstance(s.value.func, gast.Name) and s.value.func.id == d.name:
            if not _after(path, def_path):
                _refuse(d, location, s, "called where its def may not have run (before it, "
                        "or outside the block that defines it)",
                        "Define the function before the call, in the same block")
            calls.add(id(s.value.func))
    for n in walk(tree):
        if isinstance(n, gast.Name) and n.id == d.name and id(n) not in calls:
            if isinstance(n.ctx, gast.Load):
                _refuse(d, location, n, "used other than by a call that is a statement of its "
                        "own (inside an expression, passed or returned)",
                        f"Call it as a statement: {d.name}(...)")
            _refuse(d, location, n, f"whose name '{d.name}' is bound again",
                    "Give the nested function and the variable different names")


def _statements(stmts, path=()):
    """(statement, path) of every statement, nested blocks and nested defs'
    bodies included (a call in a def's body counts where the def is)."""
    for k, s in enumerate(stmts):
        here = path + (k,)
        yield s, here
        if isinstance(s, gast.FunctionDef):
            for inner, _ in _statements(s.body, ()):
                yield inner, here
            continue
        for field in ("body", "orelse", "finalbody"):
            block = getattr(s, field, None)
            if isinstance(block, list):
                for inner, p in _statements(block, here + (field,)):
                    yield inner, p
        for k2, h in enumerate(getattr(s, "handlers", None) or []):
            for inner, p in _statements(h.body, here + ("handlers", k2)):
                yield inner, p


def _after(path, def_path):
    depth = len(def_path)
    return len(path) >= depth and path[:depth - 1] == def_path[:-1] \
        and path[depth - 1] > def_path[-1]


def _inline_block(stmts, d, location, taken, params_of, stored):
    out = []
    for s in stmts:
        if s is d:
            out.append(s)
            continue
        if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) \
                and isinstance(s.value.func, gast.Name) and s.value.func.id == d.name:
            out += _inlined(s.value, d, location, taken, params_of, stored)
            continue
        if isinstance(s, gast.FunctionDef):
            s.body = _inline_block(s.body, d, location, taken, params_of, stored)
            out.append(s)
            continue
        for field in ("body", "orelse", "finalbody"):
            block = getattr(s, field, None)
            if isinstance(block, list) and block:
                setattr(s, field, _inline_block(block, d, location, taken, params_of, stored))
        for h in getattr(s, "handlers", None) or []:
            h.body = _inline_block(h.body, d, location, taken, params_of, stored)
        out.append(s)
    return out


def _inlined(call, d, location, taken, params_of, stored):
    """The statements running `d`'s body for `call`."""
    given = _bind(call, d, location, params_of)
    nonlocal_names = {n for s in walk(d) if isinstance(s, gast.Nonlocal) for n in s.names}
    own_stored = stored(d.body) - nonlocal_names
    params = [a.id for a in params_of(d.args)]
    mapping, out = {}, []
    for p in params:
        value = given[p]
        if _is_constant(value) and p not in own_stored:
            mapping[p] = value  # a constant: written in place (d[k] keeps a constant key)
            continue
        var = fresh_name(f"{d.name}_{p}", taken)
        mapping[p] = gast.Name(id=var, ctx=gast.Load(), annotation=None, type_comment=None)
        out.append(gast.copy_location(gast.Assign(
            targets=[gast.Name(id=var, ctx=gast.Store(), annotation=None, type_comment=None)],
            value=value, type_comment=None), call))
    for n in sorted(own_stored - set(params)):
        mapping[n] = gast.Name(id=fresh_name(f"{d.name}_{n}", taken), ctx=gast.Load(),
                               annotation=None, type_comment=None)
    body = [clone(s) for s in d.body if not isinstance(s, gast.Nonlocal)]
    if body and isinstance(body[-1], gast.Return):  # the call is a statement: its result unused
        last = body.pop()
        if last.value is not None and any(isinstance(n, gast.Call) for n in walk(last.value)):
            body.append(gast.copy_location(gast.Expr(value=last.value), last))
    renamed = [_Rename(mapping).visit(s) for s in body]
    return out + renamed or [gast.copy_location(gast.Pass(), call)]


def _bind(call, d, location, params_of):
    """{parameter: argument node} of a call, as Python binds it."""
    if any(isinstance(a, gast.Starred) for a in call.args) or any(
            k.arg is None for k in call.keywords):
        _refuse(d, location, call, "called with *args or **kwargs", "Pass each argument")
    a = d.args
    positional = [p.id for p in list(getattr(a, "posonlyargs", None) or []) + list(a.args)]
    if len(call.args) > len(positional):
        raise S2sadTypeError(f"{location.describe(call)}: {d.name}() takes {len(positional)} "
                        f"positional arguments but {len(call.args)} were given")
    given = dict(zip(positional, call.args))
    names = [p.id for p in params_of(a)]
    posonly = {p.id for p in getattr(a, "posonlyargs", None) or []}
    for k in call.keywords:
        if k.arg not in names or k.arg in given or k.arg in posonly:
            raise S2sadTypeError(f"{location.describe(call)}: {d.name}() got an unexpected or "
                            f"repeated keyword argument '{k.arg}'")
        given[k.arg] = k.value
    defaults = dict(zip(positional[len(positional) - len(a.defaults):], a.defaults))
    defaults.update({p.id: v for p, v in zip(a.kwonlyargs, a.kw_defaults) if v is not None})
    for p in names:
        if p not in given:
            if p not in defaults:
                raise S2sadTypeError(f"{location.describe(call)}: {d.name}() missing required "
                                f"argument '{p}'")
            given[p] = clone(defaults[p])
    return given


class _Rename(gast.NodeTransformer):
    def __init__(self, mapping):
        self.mapping = mapping

    def visit_Name(self, node):
        new = self.mapping.get(node.id)
        if new is None:
            return node
        if isinstance(new, gast.Name):
            return gast.copy_location(gast.Name(id=new.id, ctx=node.ctx, annotation=None,
                                                type_comment=None), node)
        return gast.copy_location(clone(new), node)  # a constant (its parameter is only read)


def _remove(stmts, d):
    for k, s in enumerate(stmts):
        if s is d:
            del stmts[k]
            if not stmts:
                stmts.append(gast.Pass())
            return True
        for field in ("body", "orelse", "finalbody"):
            block = getattr(s, field, None)
            if isinstance(block, list) and _remove(block, d):
                return True
        for h in getattr(s, "handlers", None) or []:
            if _remove(h.body, d):
                return True
    return False
