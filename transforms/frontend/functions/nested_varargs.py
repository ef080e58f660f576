"""Nested functions with `*args` or `**kwargs`: what each call passes through
them is known where it is written, so the function takes those values as
keyword-only parameters of its own and builds the tuple and dict from them:

    def h(u, *args, **kw):            def h(u, *, args_0, args_1, kw_scale):
        ...                    ->         args = (args_0, args_1)
                                          kw = {'scale': kw_scale}
                                          ...
    h(a, b, c, scale=2.0)             h(a, args_0=b, args_1=c, kw_scale=2.0)

after which `args` is a tuple literal and `kw` a dict literal with constant
keys, bound once (`sum(args)`, `for v in args`, `args[0]`, `len(args)`,
`kw['scale']`, `kw.get(...)`, `kw.items()` are forms s2sad follows), and the
function is lifted as any other (closures.py).

Calls passing other numbers of extra arguments or other extra keywords
(`h(x, y)` and `h(x, y, z)`) each get a copy of the function (`h2`) for
their form. Refused, with the line: a call with `*xs` or `**d`, the
function calling itself or used other than by calling it."""
import gast

from ...errors import UnsupportedSyntaxError
from ...names import fresh_name
from ...syntax import clone, walk
from ...errors import S2sadTypeError


def run(tree, ctx):
    """Rewrite, in place, the nested functions of `tree` that take *args or
    **kwargs, and their calls."""
    location = ctx.location
    defs = [n for n in walk(tree) if isinstance(n, gast.FunctionDef) and n is not tree
            and (n.args.vararg or n.args.kwarg)]
    if not defs:
        return None
    taken = {n.id for n in walk(tree) if isinstance(n, gast.Name)} | \
        {n.name for n in walk(tree) if isinstance(n, gast.FunctionDef)}
    for d in defs:
        calls = [n for n in walk(tree) if isinstance(n, gast.Call)
                 and isinstance(n.func, gast.Name) and n.func.id == d.name]
        called = {id(c.func) for c in calls}
        for n in walk(tree):
            if isinstance(n, gast.Name) and n.id == d.name and id(n) not in called:
                _refuse(d, location, n, "used other than by calling it (passed, stored or "
                        "returned)", "Call it where it is needed")
        inside = {id(n) for n in walk(d)}
        for c in calls:
            if id(c) in inside:
                _refuse(d, location, c, "calling itself", "Write the recursion as a loop")
        _spread(d, calls, location, taken, tree)
    return tree


def _refuse(d, location, node, why, hint):
    raise UnsupportedSyntaxError(f"a nested function '{d.name}' with *args or **kwargs {why}",
                                 location, node, hint)


def _spread(d, calls, location, taken, tree):
    """Group the calls of `d` by the extra arguments they pass; the first
    group's form rewrites `d`, each other one a copy of it placed after it."""
    shapes = {}
    for c in calls:
        shapes.setdefault(_shape(d, c, location), []).append(c)
    if not shapes:
        shapes[(0, ())] = []
    block = _block_of(d, tree)
    targets = [d]
    for group in list(shapes.values())[1:]:  # h(x, y) and h(y, x, x): h and h2
        copy = clone(d)
        copy.name = fresh_name(d.name, taken)
        block.insert(block.index(d) + len(targets), copy)
        targets.append(copy)
        for c in group:
            c.func.id = copy.name
    for target, (shape, group) in zip(targets, shapes.items()):
        _rewrite(target, shape, group, taken)


def _shape(d, c, location):
    """(number of extra positional arguments, sorted extra keywords) of a call."""
    a = d.args
    positional = [p.id for p in list(getattr(a, "posonlyargs", None) or []) + list(a.args)]
    named = set(positional) | {p.id for p in a.kwonlyargs}
    if any(isinstance(x, gast.Starred) for x in c.args) or any(
            k.arg is None for k in c.keywords):
        _refuse(d, location, c, "called with *xs or **d", "Pass each argument")
    extra = max(0, len(c.args) - len(positional))
    keys = tuple(k.arg for k in c.keywords if k.arg not in named)
    if extra and not a.vararg:
        raise S2sadTypeError(f"{location.describe(c)}: {d.name}() takes {len(positional)} "
                        f"positional arguments but {len(c.args)} were given")
    if keys and not a.kwarg:
        raise S2sadTypeError(f"{location.describe(c)}: {d.name}() got an unexpected keyword "
                        f"argument '{keys[0]}'")
    return extra, tuple(sorted(keys))


def _block_of(d, tree):
    for n in walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(n, field, None)
            if isinstance(block, list) and any(s is d for s in block):
                return block
    raise AssertionError("a nested def outside any block")


def _rewrite(d, shape, calls, taken):
    a = d.args
    positional = [p.id for p in list(getattr(a, "posonlyargs", None) or []) + list(a.args)]
    extra, keys = shape
    star = [fresh_name(f"{a.vararg.id}_{k}", taken) for k in range(extra)] if a.vararg else []
    double = {k: fresh_name(f"{a.kwarg.id}_{k}", taken) for k in keys} if a.kwarg else {}
    prologue = []
    if a.vararg:
        prologue.append(_assign(a.vararg.id, gast.Tuple(
            elts=[_name(n) for n in star], ctx=gast.Load()), d))
    if a.kwarg:
        prologue.append(_assign(a.kwarg.id, gast.Dict(
            keys=[gast.Constant(value=k, kind=None) for k in keys],
            values=[_name(double[k]) for k in keys]), d))
    new_params = star + [double[k] for k in keys]
    a.kwonlyargs = list(a.kwonlyargs) + [gast.Name(id=n, ctx=gast.Param(), annotation=None,
                                                   type_comment=None) for n in new_params]
    a.kw_defaults = list(a.kw_defaults) + [None] * len(new_params)
    a.vararg = a.kwarg = None
    d.body = [gast.copy_location(s, d.body[0]) for s in prologue] + d.body
    for c in calls:
        moved = [gast.keyword(arg=n, value=v) for n, v in zip(star, c.args[len(positional):])]
        c.args = c.args[:len(positional)]
        kept = []
        for k in c.keywords:
            if k.arg in double:
                moved.append(gast.keyword(arg=double[k.arg], value=k.value))
            else:
                kept.append(k)
        c.keywords = moved + kept


def _name(n, ctx=None):
    return gast.Name(id=n, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def _assign(target, value, src):
    return gast.copy_location(gast.Assign(targets=[_name(target, gast.Store())], value=value,
                                          type_comment=None), src)
