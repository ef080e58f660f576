"""A helper returning a value and a nested function together, whose caller
leaves the function unused: `flat, _ = flatten(params)`, as autograd
programs flatten their parameters (`return vector, unflatten`). The caller
calls a copy of the helper returning the rest only:

    def flatten(params):                      def flatten_values(params):
        vector = np.concatenate(...)              vector = np.concatenate(...)
        def unflatten(v):              ->         return vector
            ...
        return vector, unflatten

    flat, _ = flatten(params)                 flat = flatten_values(params)
    flatten(params)[0]                        flatten_values(params)

Reading a function by its name (or writing a lambda) has no effect, so the
copy computes what the helper does; the def, no longer read, goes with it.
Rewritten only when every return of the helper is a tuple of one length
holding, at the dropped places, a function it defines (a def never bound
otherwise, or a lambda) or makes by calling, with names and constants, a
helper that only defines functions and returns one (`_unflattener(p)`:
dropped, the call has no effect), and the caller reads the names it binds there
nowhere (`_` included); anything else is left to the refusal of a
returned nested function."""
import inspect

import gast

from .bound_copies import raw_tree
from .lifted import LIFTED, Lifted, NestedLocation, function_of, root_of
from ..read.read import namespace_of
from ...emit.unparse import stmt_source
from ...names import fresh_name
from ...syntax import own_nodes, walk

_COPIES = {}  # (helper, places dropped) -> (name, function, source)


def run(tree, ctx):
    """Rewrite, in place, the calls of `tree` leaving a returned function unused."""
    namespace = ctx.namespace
    read_names = _read_names(tree)
    local = {n.id for n in walk(tree) if isinstance(n, gast.Name)
             and not isinstance(n.ctx, gast.Load)}
    taken = set(namespace) | {n.id for n in walk(tree) if isinstance(n, gast.Name)}
    changed = False
    for node in list(walk(tree)):
        if isinstance(node, gast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], (gast.Tuple, gast.List)) \
                and all(isinstance(e, gast.Name) for e in node.targets[0].elts):
            call, names = node.value, node.targets[0].elts
            unused = {k for k, e in enumerate(names) if e.id not in read_names}
        elif isinstance(node, gast.Subscript) and isinstance(node.ctx, gast.Load) \
                and isinstance(node.slice, gast.Constant) and type(node.slice.value) is int:
            call, names = node.value, None
            unused = None  # every place but the one read
        else:
            continue
        helper = _helper(call, namespace, local, ctx)
        if helper is None:
            continue
        found = raw_tree(helper)
        places = _function_places(found.tree, namespace_of(helper))
        if places is None:
            continue
        width, functions = places
        if names is not None and len(names) != width:
            continue  # (Python would raise: left as it is)
        if unused is None:
            at = node.slice.value + (width if node.slice.value < 0 else 0)
            if not 0 <= at < width:
                continue
            unused = set(range(width)) - {at}
        dropped = sorted(unused & functions)
        if not dropped or len(dropped) == width:
            continue
        kept = [k for k in range(width) if k not in dropped]
        copy_name = _copy(helper, found, tuple(dropped), namespace, taken)
        namespace[copy_name] = _COPIES[(helper, tuple(dropped))][1]
        call.func = gast.copy_location(_name(copy_name, gast.Load()), call.func)
        if names is not None:
            target = node.targets[0]
            left = [names[k] for k in kept]
            node.targets = [left[0] if len(left) == 1 else gast.copy_location(
                type(target)(elts=left, ctx=gast.Store()), target)]
        elif len(kept) == 1:
            _replace(tree, node, call)
        else:
            node.slice = gast.copy_location(gast.Constant(value=kept.index(at), kind=None),
                                            node.slice)
        changed = True
    return tree if changed else None


def _read_names(tree):
    """Names `tree` reads (or deletes, or declares global or nonlocal)."""
    out = set()
    for n in walk(tree):
        if isinstance(n, gast.Name) and not isinstance(n.ctx, (gast.Store, gast.Param)):
            out.add(n.id)
        elif isinstance(n, (gast.Global, gast.Nonlocal)):
            out.update(n.names)
        elif isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name):
            out.add(n.target.id)  # (`_ += 1` reads it)
    return out


def _helper(call, namespace, local, ctx):
    """The module-level Python function `call` calls, or None."""
    if not isinstance(call, gast.Call) or not isinstance(call.func, gast.Name) \
            or call.func.id in local:
        return None
    helper = namespace.get(call.func.id)
    if helper is None or not inspect.isfunction(helper) or ctx.readable(helper) is not helper \
            or inspect.isgeneratorfunction(helper):
        return None
    return helper


def _function_places(tree, names):
    """(n, places) when every return of the function is a tuple of n values,
    `places` those holding a function it defines, or makes (_made), in
    each, else None. `names`: the function's namespace."""
    returns = [n for n in own_nodes(tree) if isinstance(n, gast.Return)]
    if not returns or any(not isinstance(r.value, gast.Tuple) for r in returns):
        return None
    widths = {len(r.value.elts) for r in returns}
    if len(widths) != 1 or any(isinstance(e, gast.Starred) for r in returns
                               for e in r.value.elts):
        return None
    width = widths.pop()
    defs = _defined_functions(tree)
    places = {k for k in range(width)
              if all(_is_function(r.value.elts[k], defs) or _made(r.value.elts[k], names)
                     for r in returns)}
    return width, places


def _is_function(value, defs):
    return isinstance(value, gast.Lambda) or (isinstance(value, gast.Name) and value.id in defs)


def _made(value, names):
    """Whether `value` calls, with names and constants, a module-level helper
    whose body only defines functions and returns one (`_unflattener(p)`):
    a call with no effect, which may be dropped."""
    if not isinstance(value, gast.Call) or not isinstance(value.func, gast.Name) \
            or value.keywords or not all(isinstance(a, (gast.Name, gast.Constant))
                                         for a in value.args):
        return False
    maker = names.get(value.func.id)
    if not inspect.isfunction(maker) or inspect.isgeneratorfunction(maker):
        return False
    try:
        body = raw_tree(maker).tree.body
    except Exception:  # noqa: BLE001 - not read: not this form
        return False
    if isinstance(body[0], gast.Expr) and isinstance(body[0].value, gast.Constant):
        body = body[1:]  # (its docstring)
    defs = {d.name for d in body[:-1] if isinstance(d, gast.FunctionDef)}
    return len(defs) == len(body) - 1 and isinstance(body[-1], gast.Return) \
        and isinstance(body[-1].value, gast.Name) and body[-1].value.id in defs


def _defined_functions(tree):
    """Names of the functions `tree` defines with a def and binds no other way."""
    defs = {n.name for n in own_nodes(tree) if isinstance(n, gast.FunctionDef) and n is not tree}
    counts = {}
    for n in own_nodes(tree):
        if isinstance(n, gast.FunctionDef) and n is not tree:
            counts[n.name] = counts.get(n.name, 0) + 1
    other = {n.id for n in walk(tree) if isinstance(n, gast.Name)
             and isinstance(n.ctx, (gast.Store, gast.Del, gast.Param))}
    other |= {name for n in walk(tree) if isinstance(n, (gast.Global, gast.Nonlocal))
              for name in n.names}
    return {d for d in defs if counts[d] == 1 and d not in other}


def _copy(helper, found, dropped, namespace, taken):
    """The name of the copy of `helper` whose returns leave out the places
    `dropped` (registered in the caller's `namespace` by the caller)."""
    tree = found.tree
    for r in [n for n in own_nodes(tree) if isinstance(n, gast.Return)]:
        kept = [e for k, e in enumerate(r.value.elts) if k not in dropped]
        r.value = kept[0] if len(kept) == 1 else gast.copy_location(
            gast.Tuple(elts=kept, ctx=gast.Load()), r.value)
    _drop_unread_defs(tree)
    tree.name = helper.__name__
    source = stmt_source(tree)
    key = (helper, dropped)
    cached = _COPIES.get(key)
    if cached is not None and cached[2] == source and (
            namespace.get(cached[0]) is cached[1] or cached[0] not in taken):
        copy_name, obj = cached[0], cached[1]
        taken.add(copy_name)
    else:
        copy_name = fresh_name(f"{helper.__name__}_values", taken)
        tree.name = copy_name
        obj = function_of(tree, helper, found.location)
        obj.__defaults__ = helper.__defaults__
        obj.__kwdefaults__ = helper.__kwdefaults__
        _COPIES[key] = (copy_name, obj, source)
    tree.name = copy_name
    location = found.location
    LIFTED[obj] = Lifted(tree, NestedLocation(location.filename, location.first_line,
                                              location.func_name, location.first_line),
                         found.source, root_of(helper), {})
    return copy_name


def _drop_unread_defs(tree):
    """Remove the defs no longer read (a def without decorators or defaults
    does nothing but bind its name)."""
    read_names = _read_names(tree)
    for block in _blocks(tree):
        block[:] = [s for s in block if not (
            isinstance(s, gast.FunctionDef) and s.name not in read_names
            and not s.decorator_list and not s.args.defaults
            and not any(d is not None for d in s.args.kw_defaults))] or [gast.Pass()]


def _blocks(tree):
    """The statement lists of function `tree`, not those of the functions it defines."""
    out = [tree.body]
    for n in own_nodes(tree):
        if n is tree:
            continue
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(n, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt) \
                    and not isinstance(n, (gast.FunctionDef, gast.AsyncFunctionDef,
                                           gast.ClassDef)):
                out.append(inner)
        for handler in getattr(n, "handlers", None) or []:
            out.append(handler.body)
    return out


def _replace(tree, old, new):
    """Put `new` where `old` is in `tree`."""
    for parent in walk(tree):
        for field, value in gast.iter_fields(parent):
            if value is old:
                setattr(parent, field, new)
                return
            if isinstance(value, list):
                for k, v in enumerate(value):
                    if v is old:
                        value[k] = new
                        return


def _name(n, ctx):
    return gast.Name(id=n, ctx=ctx, annotation=None, type_comment=None)
