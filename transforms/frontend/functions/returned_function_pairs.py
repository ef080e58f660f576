"""A helper returning a value and a nested function together, whose caller
calls the function: `flat, unflat = flatten(params); unflat(flat)`, as
autograd programs flatten their parameters. The closure is made explicit:
the helper's copy returns the values the function captures in its place,
and the caller calls the function, lifted to module level, with them:

    def flatten(params):                      def flatten_captures(params):
        vector = np.concatenate(...)              vector = np.concatenate(...)
        def unflatten(v):                         ...
            return ... params ...      ->         return vector, params
        return vector, unflatten
                                              def flatten_unflatten(v, *, params):
                                                  return ... params ...

    flat, unflat = flatten(p)                 flat, unflat_params = flatten_captures(p)
    unflat(flat)                              flatten_unflatten(flat, params=unflat_params)

A function returned sees its captured variables as they are when the helper
returns (no code of the helper runs after), so the values returned are the
ones the closure would read. Rewritten only when the nested function is a
def in the helper's body, bound no other way, writing none of its captures
(no nonlocal) and capturing no function of the helper; every return of the
helper is a tuple of one length holding it at one place; and the caller
binds that place's name once, reading it only to call it. Anything else
is left to the refusal of a returned nested function."""
import inspect

import gast

from .bound_copies import raw_tree
from .lifted import LIFTED, Lifted, NestedLocation, free_names, function_of, root_of
from ..read.read import positional_parameters
from ...emit.unparse import stmt_source
from ...names import fresh_name
from ...syntax import clone, own_nodes, walk

# (helper, place, captures passed) -> (copy's name, copy, lifted's name, lifted,
# captures, source)
_COPIES = {}


def run(tree, ctx):
    """Rewrite, in place, the calls of `tree` calling a function a helper returned."""
    namespace = ctx.namespace
    stores = {}
    for n in walk(tree):
        if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
            stores[n.id] = stores.get(n.id, 0) + 1
    rebound = {n.id for n in walk(tree) if isinstance(n, gast.Name)
               and isinstance(n.ctx, (gast.Store, gast.Del))}
    own_parameters = {a.id for a in tree.args.args + tree.args.kwonlyargs
                      + list(getattr(tree.args, "posonlyargs", None) or [])}
    declared = {name for n in walk(tree) if isinstance(n, (gast.Global, gast.Nonlocal))
                for name in n.names}
    taken = set(namespace) | {n.id for n in walk(tree) if isinstance(n, gast.Name)}
    changed = False
    for node in list(walk(tree)):
        if not (isinstance(node, gast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], (gast.Tuple, gast.List))
                and all(isinstance(e, gast.Name) for e in node.targets[0].elts)
                and isinstance(node.value, gast.Call)
                and isinstance(node.value.func, gast.Name)
                and node.value.func.id not in stores):
            continue
        helper = namespace.get(node.value.func.id)
        if helper is None or not inspect.isfunction(helper) or inspect.isgeneratorfunction(
                helper) or ctx.readable(helper) is not helper:
            continue
        names = node.targets[0].elts
        for place, target in enumerate(names):
            if stores.get(target.id) != 1 or target.id in declared:
                continue
            calls = _only_called(tree, target.id)
            if calls is None:
                continue
            given = _stable_arguments(helper, node.value, own_parameters - rebound - declared)
            made = _copies(helper, place, len(names), given, namespace, taken)
            if made is None:
                continue
            copy_name, lifted_name, captures, direct = made
            held = [fresh_name(f"{target.id}_{c}", taken) for c in captures]
            node.value.func = gast.copy_location(_name(copy_name, gast.Load()), node.value.func)
            stored = [_name(h, gast.Store()) for h in held]
            node.targets[0].elts = names[:place] + stored + names[place + 1:]
            for call in calls:
                call.func = gast.copy_location(_name(lifted_name, gast.Load()), call.func)
                call.keywords = list(call.keywords) + [
                    gast.keyword(arg=c, value=_name(h, gast.Load()))
                    for c, h in zip(captures, held)] + [
                    gast.keyword(arg=c, value=clone(given[c])) for c in direct]
            changed = True
            break  # (one place per assignment: the helper's copy is for that place)
    return tree if changed else None


def _stable_arguments(helper, call, stable):
    """{parameter: argument} of `call`'s arguments that are constants or
    names in `stable` (the caller's parameters it never binds again): the
    lifted function can be given them directly, as the value the helper's
    parameter has (when the helper does not bind it either)."""
    if any(isinstance(a, gast.Starred) for a in call.args) or any(
            k.arg is None for k in call.keywords):
        return {}
    try:
        bound = inspect.signature(helper).bind(
            *call.args, **{k.arg: k.value for k in call.keywords})
    except TypeError:
        return {}
    return {p: v for p, v in bound.arguments.items()
            if isinstance(v, gast.Constant) or (isinstance(v, gast.Name) and v.id in stable)}


def _only_called(tree, name):
    """The calls of `name` in `tree` when every read of it calls it (without
    **kwargs, which could name a capture), else None."""
    reads = [n for n in walk(tree) if isinstance(n, gast.Name) and n.id == name
             and isinstance(n.ctx, gast.Load)]
    calls = [n for n in walk(tree) if isinstance(n, gast.Call)
             and isinstance(n.func, gast.Name) and n.func.id == name]
    if len(reads) != len(calls) or not calls:
        return None
    if any(k.arg is None for c in calls for k in c.keywords):
        return None
    return calls


def _copies(helper, place, width, given, namespace, taken):
    """(the helper's copy's name, the lifted function's name, the names it
    captures that the copy returns, those the caller passes from `given`)
    for the function `helper` returns at `place`, or None."""
    found = raw_tree(helper)
    tree = found.tree
    returns = [n for n in own_nodes(tree) if isinstance(n, gast.Return)]
    if not returns or any(not isinstance(r.value, gast.Tuple) or len(r.value.elts) != width
                          or any(isinstance(e, gast.Starred) for e in r.value.elts)
                          for r in returns):
        return None
    values = [r.value.elts[place] for r in returns]
    if not all(isinstance(v, gast.Name) for v in values) or len({v.id for v in values}) != 1:
        return None
    fname = values[0].id
    defs = [s for s in tree.body if isinstance(s, gast.FunctionDef) and s.name == fname]
    nested = [n for n in own_nodes(tree) if isinstance(n, gast.FunctionDef) and n is not tree]
    if len(defs) != 1 or sum(n.name == fname for n in nested) != 1:
        return None
    inner = defs[0]
    bound_otherwise = {n.id for n in walk(tree) if isinstance(n, gast.Name)
                       and not isinstance(n.ctx, gast.Load)}
    reads = [n for n in walk(tree) if isinstance(n, gast.Name) and n.id == fname
             and isinstance(n.ctx, gast.Load)]
    if fname in bound_otherwise or inner.decorator_list or inner.args.vararg \
            or inner.args.kwarg or any(isinstance(n, gast.Nonlocal) for n in walk(inner)) \
            or not all(isinstance(d, gast.Constant) for d in inner.args.defaults) \
            or any(d is not None for d in inner.args.kw_defaults) \
            or len(reads) != len(returns) or any(r.lineno < inner.lineno for r in returns):
        return None  # (the def is read only by the returns, after it)
    helper_names = {a.id for a in tree.args.args + tree.args.kwonlyargs
                    + list(getattr(tree.args, "posonlyargs", None) or [])} | {
        n.id for n in own_nodes(tree) if isinstance(n, gast.Name)
        and isinstance(n.ctx, gast.Store)}
    if tree.args.vararg:
        helper_names.add(tree.args.vararg.id)
    if tree.args.kwarg:
        helper_names.add(tree.args.kwarg.id)
    captures = sorted(free_names(inner) & (helper_names | {n.name for n in nested}))
    if any(c in {n.name for n in nested} for c in captures):
        return None  # (a captured function would be returned as a value)
    params = {a.id for a in tree.args.args + tree.args.kwonlyargs
              + list(getattr(tree.args, "posonlyargs", None) or [])}
    helper_rebinds = {n.id for n in walk(tree) if isinstance(n, gast.Name)
                      and isinstance(n.ctx, (gast.Store, gast.Del))} | {
        name for n in walk(tree) if isinstance(n, (gast.Global, gast.Nonlocal))
        for name in n.names}
    direct = [c for c in captures if c in given and c in params and c not in helper_rebinds]
    returned = [c for c in captures if c not in direct]
    # the lifted function: the nested one, its captures keyword-only parameters
    lifted = clone(inner)
    lifted.args.kwonlyargs = list(lifted.args.kwonlyargs) + [
        _name(c, gast.Param()) for c in captures]
    lifted.args.kw_defaults = list(lifted.args.kw_defaults) + [None] * len(captures)
    if set(captures) & {a.id for a in inner.args.args + inner.args.kwonlyargs}:
        return None
    for r in returns:
        elts = list(r.value.elts)
        r.value = gast.copy_location(gast.Tuple(
            elts=elts[:place] + [_name(c, gast.Load()) for c in returned] + elts[place + 1:],
            ctx=gast.Load()), r.value)
    tree.body = [s for s in tree.body if s is not inner] or [gast.Pass()]
    tree.name = helper.__name__
    lifted.name = fname
    source = stmt_source(tree) + "\n" + stmt_source(lifted)
    key = (helper, place, tuple(direct))
    cached = _COPIES.get(key)
    if cached is not None and cached[5] == source and all(
            namespace.get(n) is o or n not in taken
            for n, o in ((cached[0], cached[1]), (cached[2], cached[3]))):
        copy_name, obj, lifted_name, lifted_obj = cached[:4]
        taken.update((copy_name, lifted_name))
    else:
        copy_name = fresh_name(f"{helper.__name__}_captures", taken)
        lifted_name = fresh_name(f"{helper.__name__}_{fname}", taken)
        tree.name, lifted.name = copy_name, lifted_name
        obj = function_of(tree, helper, found.location)
        obj.__defaults__ = helper.__defaults__
        obj.__kwdefaults__ = helper.__kwdefaults__
        lifted_obj = function_of(lifted, helper, found.location)
        lifted_obj.__defaults__ = tuple(d.value for d in inner.args.defaults) or None
        _COPIES[key] = (copy_name, obj, lifted_name, lifted_obj, captures, source)
    tree.name, lifted.name = copy_name, lifted_name
    namespace[copy_name], namespace[lifted_name] = obj, lifted_obj
    location = found.location
    at = NestedLocation(location.filename, location.first_line, location.func_name,
                        location.first_line)
    LIFTED[obj] = Lifted(tree, at, found.source, root_of(helper), {})
    LIFTED[lifted_obj] = Lifted(positional_parameters(clone(lifted)), at, found.source,
                                root_of(helper), {})
    return copy_name, lifted_name, returned, direct


def _name(n, ctx):
    return gast.Name(id=n, ctx=ctx, annotation=None, type_comment=None)
