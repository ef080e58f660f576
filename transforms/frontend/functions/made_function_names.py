"""A function a helper makes, bound to a name and called later, called where
it is made each time (functions/returned_functions.py then runs the helper
and calls what it returns):

    def step_of(a):                            def solve(a, x):
        return lambda x: x - 0.1 * (x * x - a)     step_a = a
                                          ->       x = step_of(step_a)(x)
    def solve(a, x):                               x = step_of(step_a)(x)
        step = step_of(a)                          return x
        x = step(x)
        x = step(x)
        return x

The helper's arguments are evaluated where it was called (bound to names of
their own, which nothing else writes), as the function it makes reads the
values they had then. Rewritten when the name is assigned once, to a call
of a Python helper whose returns return a lambda or a function it defines,
with names and constants as arguments, and read only as the function of
calls whose arguments are names and constants; and when the helper draws no random numbers and prints nothing
(running it again per call must give what running it once gave). Anything
else is left as it is (refused where the name is called)."""
import builtins

import gast

from .bound_copies import raw_tree
from .inlining import draws
from .passed_functions import bound_names
from ..read.read import namespace_of
from ...names import fresh_name
from ...syntax import walk


def run(tree, ctx):
    """Rewrite, in place, the names of `tree` bound to functions helpers make."""
    stores, loads = {}, {}
    for n in walk(tree):
        if isinstance(n, gast.Name):
            (loads if isinstance(n.ctx, gast.Load) else stores).setdefault(n.id, []).append(n)
    local = bound_names(tree) | {a.id for a in tree.args.args}
    called = {id(n.func) for n in walk(tree) if isinstance(n, gast.Call)}
    taken = set(ctx.namespace) | {n.id for n in walk(tree) if isinstance(n, gast.Name)}
    changed = False
    for s in [s for s in walk(tree) if isinstance(s, gast.Assign)]:
        made = _made(s, ctx, local, stores)
        if made is None or not all(id(n) in called for n in loads.get(made, [])) \
                or not all(_plain(c) for c in walk(tree) if isinstance(c, gast.Call)
                           and isinstance(c.func, gast.Name) and c.func.id == made):
            continue
        call = s.value
        held, bind = [], []
        for a in call.args:
            if isinstance(a, gast.Constant):
                held.append(a)
                continue
            new = fresh_name(f"{made}_{a.id}", taken)
            taken.add(new)
            bind.append(gast.copy_location(gast.Assign(
                targets=[gast.Name(id=new, ctx=gast.Store(), annotation=None,
                                   type_comment=None)],
                value=a, type_comment=None), s))
            held.append(gast.Name(id=new, ctx=gast.Load(), annotation=None, type_comment=None))
        for n in walk(tree):
            if isinstance(n, gast.Call) and isinstance(n.func, gast.Name) \
                    and n.func.id == made:
                n.func = gast.copy_location(gast.Call(
                    func=gast.Name(id=call.func.id, ctx=gast.Load(), annotation=None,
                                   type_comment=None),
                    args=[_copy(h) for h in held], keywords=[]), n.func)
        _replace(tree.body, s, bind or [gast.copy_location(gast.Pass(), s)])
        changed = True
    return tree if changed else None


def _made(s, ctx, local, stores):
    """The name `s` binds to a function a helper makes (see the module's
    text), or None."""
    if len(s.targets) != 1 or not isinstance(s.targets[0], gast.Name) \
            or not isinstance(s.value, gast.Call) or s.value.keywords \
            or not isinstance(s.value.func, gast.Name) or s.value.func.id in local \
            or not all(isinstance(a, (gast.Name, gast.Constant)) for a in s.value.args):
        return None
    target = s.targets[0].id
    if len(stores.get(target, [])) != 1:
        return None
    helper = ctx.namespace.get(s.value.func.id)
    if helper is None or ctx.readable(helper) is not helper:
        return None
    try:
        tree = raw_tree(helper).tree
    except Exception:  # noqa: BLE001 - not read here: left as it is
        return None
    if not _returns_functions(tree):
        return None
    names = namespace_of(helper)

    def resolve(node):
        if isinstance(node, gast.Name):
            return names.get(node.id)
        if isinstance(node, gast.Attribute):
            base = resolve(node.value)
            return None if base is None else getattr(base, node.attr, None)
        return None
    if draws(tree, resolve) or any(isinstance(n, gast.Call) and resolve(n.func) is builtins.print
                                   for n in walk(tree)):
        return None
    return target


def _returns_functions(tree):
    defs = {n.name for n in tree.body if isinstance(n, gast.FunctionDef)}
    returns = [n for n in walk(tree) if isinstance(n, gast.Return)]
    return bool(returns) and all(
        isinstance(r.value, gast.Lambda) or (isinstance(r.value, gast.Name)
                                             and r.value.id in defs)
        for r in returns if not _inside_nested(tree, r))


def _inside_nested(tree, node):
    for d in walk(tree):
        if d is not tree and isinstance(d, (gast.FunctionDef, gast.Lambda)) \
                and any(n is node for n in walk(d)):
            return True
    return False


def _plain(call):
    """Whether a call's arguments are names and constants (the helper can
    run after them: functions/returned_functions.py)."""
    return all(isinstance(v, (gast.Name, gast.Constant))
               for v in list(call.args) + [k.value for k in call.keywords]) \
        and all(k.arg is not None for k in call.keywords)


def _copy(node):
    if isinstance(node, gast.Constant):
        return gast.Constant(value=node.value, kind=None)
    return gast.Name(id=node.id, ctx=gast.Load(), annotation=None, type_comment=None)


def _replace(stmts, old, new):
    for k, s in enumerate(stmts):
        if s is old:
            stmts[k:k + 1] = new
            return True
        for field in ("body", "orelse", "finalbody"):
            block = getattr(s, field, None)
            if isinstance(block, list) and _replace(block, old, new):
                return True
    return False
