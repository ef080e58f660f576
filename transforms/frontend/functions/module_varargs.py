"""A module-level helper taking *args or **kwargs, called with a known
number of extra arguments and known extra keywords:

    def cat_mul(w, *args):                     def cat_mul_2(w, *, args_0, args_1):
        x = np.hstack(args + (1.0,))               args = (args_0, args_1)
        ...                            ->          x = np.hstack(args + (1.0,))
    cat_mul(W, a, b)                           cat_mul_2(W, args_0=a, args_1=b)

The call is bound to a copy of the helper made for its form
(varargs_forms.py, as for nested defs), after which `args` is a tuple
literal and `kw` a dict literal with constant keys, forms s2sad follows.
Calls passing other numbers of arguments get other copies. Left as it is
(the binder refuses it with the line): a call with `*xs` or `**d`, a helper
calling itself."""
import inspect

import gast

from .lifted import LIFTED, Lifted, NestedLocation, function_of, root_of
from .passed_functions import bound_names
from .varargs_forms import call_shape, rewrite_varargs
from ..read.read import parsed, positional_parameters, source_of
from ...names import fresh_name
from ...syntax import clone, walk

# (helper, shape) -> (copy's name, copy)
_COPIES = {}


def run(tree, ctx):
    """Rewrite, in place, the calls of `tree` of module-level helpers taking
    *args or **kwargs into calls of their copies for the call's form."""
    namespace = ctx.namespace
    local = bound_names(tree) | {a.id for a in tree.args.args}
    changed = False
    for call in [n for n in walk(tree) if isinstance(n, gast.Call)]:
        fn = _helper(call, namespace, local, ctx.readable)
        if fn is None:
            continue
        made = _copy_for(fn, call, namespace, tree)
        if made is None:
            continue
        name, _ = made
        call.func = gast.copy_location(gast.Name(id=name, ctx=gast.Load(), annotation=None,
                                                 type_comment=None), call.func)
        changed = True
    return tree if changed else None


def _helper(call, namespace, local, readable):
    if not isinstance(call.func, gast.Name) or call.func.id in local:
        return None
    obj = namespace.get(call.func.id)
    if obj is None or not inspect.isfunction(obj) or readable(obj) is not obj:
        return None
    if any(isinstance(a, gast.Starred) for a in call.args) or any(
            k.arg is None for k in call.keywords):
        return None
    if not any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
               for p in inspect.signature(obj).parameters.values()):
        return None
    return obj


def _not_rewritten(*_):
    raise _Unchanged


class _Unchanged(Exception):
    pass


def _copy_for(fn, call, namespace, tree):
    """(name, function) of `fn`'s copy for the form of `call`, whose
    arguments are moved to the copy's parameters; None to leave it."""
    found = source_of(fn)
    found = found if found.tree is not None else parsed(found)
    d = clone(found.tree)
    if any(isinstance(n, gast.Name) and n.id == fn.__name__ for n in walk(d)):
        return None  # calling itself (or passing itself on)
    try:
        shape = call_shape(d, call, found.location, _not_rewritten)
    except _Unchanged:
        return None
    taken = {n.id for n in walk(d) if isinstance(n, gast.Name)}
    rewrite_varargs(d, shape, [call], taken)
    key = (fn, shape)
    cached = _COPIES.get(key)
    if cached is not None and namespace.get(cached[0], cached[1]) is cached[1]:
        name, obj = cached
    else:
        used = set(namespace) | {n.id for n in walk(tree) if isinstance(n, gast.Name)}
        name = fresh_name(f"{fn.__name__}_{shape[0]}", used)
        d.name = name
        obj = function_of(d, fn, found.location)
        location = found.location
        # (the compiler's tree takes every parameter by position, read.py)
        LIFTED[obj] = Lifted(positional_parameters(clone(d)), NestedLocation(location.filename, location.first_line,
                                               location.func_name, location.first_line),
                             found.source, root_of(fn), {})
        _COPIES[key] = (name, obj)
    namespace[name] = obj
    return name, obj
