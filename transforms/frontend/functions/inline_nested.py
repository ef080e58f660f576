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

Called as the value of an assignment (`col = make_col(i)`), its body runs
there and the value of its final `return` is assigned; called as the
element of a list comprehension assigned to a name (`cols = [make_col(i)
for i in range(d)]`), the comprehension is the loop it stands for
(`cols = []; for i2 in range(d): cols_item = make_col(i2);
cols.append(cols_item)`, its variables renamed: a comprehension's are its
own) and the call is inlined in it. Such a comprehension inside another
expression (`return np.column_stack([make_col(i) for i in ...])`) is
assigned to a name first when nothing else in the statement reads what the
function changes. A call that is a statement of its own
drops the result. Refused, with the line: such a function called inside
another expression or before its `def`, returning before its end,
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
        tree.body = _hoisted(tree.body, d, _changed(d, outer), taken)
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


def _changed(d, outer):
    """The outer function's names the nested function `d` changes: its
    nonlocal names, the containers it writes into or appends to."""
    out = {name for n in walk(d) if isinstance(n, gast.Nonlocal) for name in n.names}
    for n in walk(d):
        base = None
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) \
                and n.func.attr in MUTATING_METHODS:
            base = n.func.value
        elif isinstance(n, gast.Subscript) and isinstance(n.ctx, (gast.Store, gast.Del)):
            base = n.value
        while isinstance(base, (gast.Subscript, gast.Attribute)):
            base = base.value
        if isinstance(base, gast.Name) and base.id in outer:
            out.add(base.id)
    return out


def _hoisted(stmts, d, changed, taken):
    """A list comprehension of calls of `d` inside a statement's expression
    (`return np.column_stack([d(i) for i in range(n)])`) assigned to a name
    of its own first, when nothing else in the statement reads what `d`
    changes (so it sees the same values either way)."""
    out = []
    for s in stmts:
        for field in ("body", "orelse"):
            block = getattr(s, field, None)
            if isinstance(block, list) and block and not isinstance(s, gast.FunctionDef):
                setattr(s, field, _hoisted(block, d, changed, taken))
        comps = [] if isinstance(s, (gast.FunctionDef, gast.For, gast.While, gast.If)) else [
            n for n in walk(s) if isinstance(n, gast.ListComp) and isinstance(n.elt, gast.Call)
            and isinstance(n.elt.func, gast.Name) and n.elt.func.id == d.name]
        if len(comps) != 1 or (isinstance(s, gast.Assign) and s.value is comps[0]
                               and isinstance(s.targets[0], gast.Name)):
            out.append(s)
            continue
        inside = {id(n) for n in walk(comps[0])}
        if any(isinstance(n, gast.Name) and n.id in changed and id(n) not in inside
               for n in walk(s)):
            out.append(s)  # (refused where the calls are checked)
            continue
        held = fresh_name(f"{d.name}_values", taken)
        out.append(gast.copy_location(gast.Assign(
            targets=[gast.Name(id=held, ctx=gast.Store(), annotation=None, type_comment=None)],
            value=comps[0], type_comment=None), s))
        _replace(s, comps[0], gast.Name(id=held, ctx=gast.Load(), annotation=None,
                                        type_comment=None))
        out.append(s)
    return out


def _replace(root, old, new):
    for parent in walk(root):
        for field, value in gast.iter_fields(parent):
            if value is old:
                setattr(parent, field, new)
                return
            if isinstance(value, list) and any(v is old for v in value):
                value[[id(v) for v in value].index(id(old))] = new
                return


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
        call = _inlined_call(s, d)
        if call is not None:
            if not _after(path, def_path):
                _refuse(d, location, s, "called where its def may not have run (before it, "
                        "or outside the block that defines it)",
                        "Define the function before the call, in the same block")
            calls.add(id(call.func))
    for n in walk(tree):
        if isinstance(n, gast.Name) and n.id == d.name and id(n) not in calls:
            if isinstance(n.ctx, gast.Load):
                _refuse(d, location, n, "used other than by a call that is a statement of its "
                        "own, the value of an assignment or the element of a list "
                        "comprehension assigned to a name (inside another expression, "
                        "passed or returned)",
                        f"Call it as a statement: {d.name}(...), or assign its value: "
                        f"v = {d.name}(...)")
            _refuse(d, location, n, f"whose name '{d.name}' is bound again",
                    "Give the nested function and the variable different names")


def _inlined_call(s, d):
    """The call of `d` that statement `s` is, assigns or makes a list
    comprehension's elements of (see the module's text), or None."""
    def calls_d(node):
        return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
            and node.func.id == d.name
    if isinstance(s, gast.Expr) and calls_d(s.value):
        return s.value
    if isinstance(s, gast.Assign) and len(s.targets) == 1:
        if calls_d(s.value):
            return s.value
        if _comprehension_of(s, d) is not None:
            return s.value.elt
    return None


def _comprehension_of(s, d):
    """`s` as `xs = [d(...) for ... in ...]` (d named only in its element's
    call): the comprehension, or None."""
    comp = s.value
    if not (isinstance(s.targets[0], gast.Name) and isinstance(comp, gast.ListComp)
            and isinstance(comp.elt, gast.Call) and isinstance(comp.elt.func, gast.Name)
            and comp.elt.func.id == d.name):
        return None
    others = [n for g in comp.generators for n in walk(g)] + \
        [n for a in list(comp.elt.args) + [k.value for k in comp.elt.keywords] for n in walk(a)]
    if any(isinstance(n, gast.Name) and n.id == d.name for n in others):
        return None
    return comp


def _as_loop(s, comp, taken):
    """`xs = [e for t in it if c]` as `xs = []; for t2 in it: if c: xs_item = e;
    xs.append(xs_item)` (the comprehension's variables renamed: they are its
    own); returns the statements and the assignment of the element."""
    xs = s.targets[0].id
    mapping = {}
    loops = []
    for g in comp.generators:
        for n in walk(g.target):
            if isinstance(n, gast.Name) and n.id not in mapping:
                mapping[n.id] = gast.Name(id=fresh_name(n.id, taken), ctx=gast.Load(),
                                          annotation=None, type_comment=None)
        loops.append(g)
    item = fresh_name(f"{xs}_item", taken)
    element = gast.copy_location(gast.Assign(
        targets=[gast.Name(id=item, ctx=gast.Store(), annotation=None, type_comment=None)],
        value=_Rename(mapping).visit(clone(comp.elt)), type_comment=None), s)
    append = gast.copy_location(gast.Expr(value=gast.Call(
        func=gast.Attribute(value=gast.Name(id=xs, ctx=gast.Load(), annotation=None,
                                            type_comment=None), attr="append", ctx=gast.Load()),
        args=[gast.Name(id=item, ctx=gast.Load(), annotation=None, type_comment=None)],
        keywords=[])), s)
    body = [element, append]
    # (a generator's iterable reads the names bound by the ones before it)
    for g in reversed(loops):
        for cond in reversed(g.ifs):
            body = [gast.copy_location(gast.If(test=_Rename(mapping).visit(clone(cond)),
                                               body=body, orelse=[]), s)]
        body = [gast.copy_location(gast.For(
            target=_Rename(mapping).visit(clone(g.target)), iter=_Rename(mapping).visit(
                clone(g.iter)) if g is not loops[0] else clone(g.iter),
            body=body, orelse=[], type_comment=None), s)]
    start = gast.copy_location(gast.Assign(
        targets=[gast.Name(id=xs, ctx=gast.Store(), annotation=None, type_comment=None)],
        value=gast.List(elts=[], ctx=gast.Load()), type_comment=None), s)
    return [start] + body, element


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
        call = _inlined_call(s, d)
        if call is not None and isinstance(s, gast.Assign) and call is not s.value:
            # the element of a list comprehension: the loop it stands for
            loop, element = _as_loop(s, s.value, taken)
            out += _splice(loop, element,
                           _inline_block([element], d, location, taken, params_of, stored))
            continue
        if call is not None:
            body = _inlined(call, d, location, taken, params_of, stored,
                            s.targets[0] if isinstance(s, gast.Assign) else None)
            out += body
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


def _splice(stmts, element, replacement):
    """`stmts` with the statement `element` (somewhere in their blocks)
    replaced by the statements `replacement`."""
    out = []
    for s in stmts:
        if s is element:
            out += replacement
            continue
        for field in ("body", "orelse"):
            block = getattr(s, field, None)
            if isinstance(block, list) and block:
                setattr(s, field, _splice(block, element, replacement))
        out.append(s)
    return out


def _inlined(call, d, location, taken, params_of, stored, target=None):
    """The statements running `d`'s body for `call` (and assigning the value
    of its final return to `target`, if given)."""
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
    value = None
    if body and isinstance(body[-1], gast.Return):
        last = body.pop()
        value = last.value
        if target is None and value is not None \
                and any(isinstance(n, gast.Call) for n in walk(value)):
            # the call is a statement: its result unused, its calls still made
            body.append(gast.copy_location(gast.Expr(value=value), last))
    renamed = [_Rename(mapping).visit(s) for s in body]
    if target is not None:  # v = d(...): v is the value returned (None without a return)
        value = _Rename(mapping).visit(value) if value is not None \
            else gast.Constant(value=None, kind=None)
        renamed.append(gast.copy_location(gast.Assign(targets=[target], value=value,
                                                      type_comment=None), call))
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
