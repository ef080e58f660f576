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

from .varargs_forms import call_shape, rewrite_varargs
from ...errors import UnsupportedSyntaxError
from ...names import fresh_name
from ...syntax import clone, walk


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
        shapes.setdefault(call_shape(d, c, location, _refuse), []).append(c)
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
        rewrite_varargs(target, shape, group, taken)


def _block_of(d, tree):
    for n in walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(n, field, None)
            if isinstance(block, list) and any(s is d for s in block):
                return block
    raise AssertionError("a nested def outside any block")
