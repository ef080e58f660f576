"""A helper returning a function, called at once: `make_grad(ans, x)(g)`, as
autograd's gradient makers are written (`defvjp(f, lambda ans, x: lambda g:
...)`) and ADBench's custom gradients call them.

    def make_grad(ans, x):                    def make_grad_called(ans, x, *, called_0):
        def gradient_product(g):                  def gradient_product(g):
            return g * 2.0 * x         ->             return g * 2.0 * x
        return gradient_product                   return gradient_product(called_0)

    make_grad(ans, x)(g)                      make_grad_called(ans, x, called_0=g)

A copy of the helper takes the second call's arguments too, and each of
its returns calls what it returned with them (`g if c else h` as
`g(...) if c else h(...)`), so the function it makes is called where it is
made (a nested function: closures.py lifts it; a lambda returned is bound
to a name first). The second call's arguments are then
evaluated before the helper runs, not after: the call is rewritten only
when they are names and constants, whose values the helper cannot change.

Left as it is (refused where the call is differentiated): a helper some
return of which returns nothing, a generator, a call with *args or
**kwargs, arguments other than names and constants."""
import inspect

import gast

from .bound_copies import raw_tree
from .lifted import LIFTED, Lifted, NestedLocation, function_of, root_of
from .passed_functions import bound_names
from ..read.read import positional_parameters
from ...emit.unparse import stmt_source
from ...names import fresh_name
from ...syntax import clone, walk

_COPIES = {}  # (helper, positions, keywords) -> (name, function, source)


def run(tree, ctx):
    """Rewrite, in place, the calls of `tree` that call a helper's result."""
    namespace = ctx.namespace
    local = bound_names(tree) | {a.id for a in tree.args.args}
    calls = [n for n in walk(tree) if isinstance(n, gast.Call) and isinstance(n.func, gast.Call)]
    if not calls:
        return None
    taken = set(namespace) | {n.id for n in walk(tree) if isinstance(n, gast.Name)}
    changed = False
    for outer in calls:
        inner = outer.func
        if not isinstance(inner.func, gast.Name) or inner.func.id in local:
            continue
        helper = namespace.get(inner.func.id)
        if helper is None or ctx.readable(helper) is not helper \
                or not _plain_arguments(outer) or any(
                    isinstance(a, gast.Starred) for a in inner.args) \
                or any(k.arg is None for k in inner.keywords):
            continue
        made = _copy(helper, len(outer.args), [k.arg for k in outer.keywords], namespace, taken)
        if made is None:
            continue
        copy_name, copy, extra = made
        namespace[copy_name] = copy
        outer.func = gast.copy_location(gast.Name(id=copy_name, ctx=gast.Load(),
                                                  annotation=None, type_comment=None), inner)
        values = list(outer.args) + [k.value for k in outer.keywords]
        outer.args = list(inner.args)
        outer.keywords = list(inner.keywords) + [gast.keyword(arg=p, value=v)
                                                 for p, v in zip(extra, values)]
        changed = True
    return tree if changed else None


def _plain_arguments(call):
    values = list(call.args) + [k.value for k in call.keywords]
    return all(isinstance(v, (gast.Name, gast.Constant)) for v in values) and all(
        k.arg is not None for k in call.keywords)


def _copy(helper, n_positional, keywords, namespace, taken):
    """(name, function, its extra parameters) of the copy of `helper` whose
    returns call what they return with `n_positional` arguments and
    `keywords`, or None."""
    if inspect.isgeneratorfunction(helper) or any(
            p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
            for p in inspect.signature(helper).parameters.values()):
        return None
    found = raw_tree(helper)
    tree = found.tree
    returns = list(_own_returns(tree.body))
    if not returns or any(r.value is None for r in returns):
        return None
    used = {n.id for n in walk(tree) if isinstance(n, gast.Name)}
    extra = [fresh_name(f"called_{k}", used) for k in range(n_positional)]
    extra += [fresh_name(f"called_{k}", used) for k in keywords]
    for block, r in _returns_in_blocks(tree.body):
        before = []

        def called(value):
            """`value(extra)`, into both branches of a conditional expression."""
            if isinstance(value, gast.IfExp):
                return gast.copy_location(gast.IfExp(test=value.test, body=called(value.body),
                                                     orelse=called(value.orelse)), value)
            if isinstance(value, gast.Lambda):  # (closures.py lifts a lambda bound to a name)
                bound = fresh_name("returned", used)
                before.append(gast.copy_location(gast.Assign(
                    targets=[gast.Name(id=bound, ctx=gast.Store(), annotation=None,
                                       type_comment=None)], value=value, type_comment=None), r))
                value = gast.copy_location(_load(bound), value)
            args = [_load(p) for p in extra[:n_positional]]
            kws = [gast.keyword(arg=k, value=_load(p))
                   for k, p in zip(keywords, extra[n_positional:])]
            return gast.copy_location(gast.Call(func=value, args=args, keywords=kws), value)
        r.value = called(r.value)
        at = block.index(r)
        block[at:at] = before
    tree.args.kwonlyargs = list(tree.args.kwonlyargs) + [
        gast.Name(id=p, ctx=gast.Param(), annotation=None, type_comment=None) for p in extra]
    tree.args.kw_defaults = list(tree.args.kw_defaults) + [None] * len(extra)
    tree.name = helper.__name__
    source = stmt_source(tree)
    key = (helper, n_positional, tuple(keywords))
    cached = _COPIES.get(key)
    if cached is not None and cached[2] == source and (
            namespace.get(cached[0]) is cached[1] or cached[0] not in taken):
        copy_name, obj = cached[0], cached[1]
        taken.add(copy_name)
    else:
        copy_name = fresh_name(f"{helper.__name__}_called", taken)
        tree.name = copy_name
        obj = function_of(tree, helper, found.location)
        sig = inspect.signature(helper)
        args = tree.args.args
        with_default = [a.id for a in args[len(args) - len(tree.args.defaults):]]
        obj.__defaults__ = tuple(sig.parameters[p].default for p in with_default) or None
        _COPIES[key] = (copy_name, obj, source)
    tree.name = copy_name
    location = found.location
    LIFTED[obj] = Lifted(positional_parameters(clone(tree)),
                         NestedLocation(location.filename, location.first_line,
                                        location.func_name, location.first_line),
                         found.source, root_of(helper), {})
    return copy_name, obj, extra


def _load(n):
    return gast.Name(id=n, ctx=gast.Load(), annotation=None, type_comment=None)


def _own_returns(stmts):
    for _, r in _returns_in_blocks(stmts):
        yield r


def _returns_in_blocks(stmts):
    """(block, return statement) of the function's own returns (not of the
    functions it defines)."""
    out = []
    for s in stmts:
        if isinstance(s, gast.Return):
            out.append((stmts, s))
        if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(s, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                out += _returns_in_blocks(inner)
        for handler in getattr(s, "handlers", None) or []:
            out += _returns_in_blocks(handler.body)
    return out
