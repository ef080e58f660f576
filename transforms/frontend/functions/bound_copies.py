"""A copy of a function with some of its parameters bound to module-level
objects: what a call passing a module-level function to a helper
(module_function_args.py), or calling a method of a module-level object
(object_methods.py), is specialised into.

    def fixed_point(f, a, x0):            def fixed_point_step(a, x0):
        x = x0                                x = x0
        for _ in range(20):       ->          for _ in range(20):
            x = f(a, x)                           x = step(a, x)
        return x                              return x

Each bound parameter's reads become a name (or attribute) denoting its
object, so the copy is an ordinary function whose calls and reads resolve
like any other's. The copy is made from the function's source as written
(READ runs over it once, when the compiler reads the copy) and registered
in lifted.LIFTED with the names it reads its objects by."""
import inspect
import keyword

import gast

from .lifted import LIFTED, Lifted, NestedLocation, function_of, root_of
from ..read.read import parsed, source_of
from ...emit.unparse import stmt_source
from ...names import fresh_name
from ...syntax import clone, rewrite, walk

# (function, ((parameter, id(object)), ...)) -> (its objects, copy's name, copy, source)
_COPIES = {}
_NOTHING = object()


def raw_tree(fn):
    """`fn`'s Source (tree, location, namespace, source) as read from its
    file, before any pass ran over it."""
    found = source_of(fn)
    return found if found.tree is not None else parsed(found)


def bound_copy(fn, bound, spellings, namespace, taken):
    """(name, function) of the copy of `fn` with the parameters in `bound`
    (parameter -> object) removed, their reads spelled as in `spellings`
    (parameter -> the Name or Attribute the caller wrote for the object, when
    it denotes the same object where the copy's names resolve), or None when
    `fn` binds one of them itself (the copy would not be the same function).
    The name avoids `taken` (which it joins) unless `namespace` (the
    caller's) already binds it to the copy."""
    found = raw_tree(fn)
    tree = found.tree
    if _binds(tree, set(bound)):
        return None
    used = {n.id for n in walk(tree) if isinstance(n, gast.Name)}
    local = {n.id for n in walk(tree) if isinstance(n, gast.Name)
             and not isinstance(n.ctx, gast.Load)}
    refs = {}  # name the copy reads an object by -> the object
    reads = {p: _spelling(spellings.get(p), obj, found.namespace, used, local, refs)
             for p, obj in bound.items()}

    def read(node):
        if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Load) and node.id in reads:
            return gast.copy_location(clone(reads[node.id]), node)
        return node
    tree.body = [rewrite(s, read) for s in tree.body]
    args = tree.args
    defaults = [None] * (len(args.args) - len(args.defaults)) + list(args.defaults)
    kept = [(a, d) for a, d in zip(args.args, defaults) if a.id not in bound]
    args.args = [a for a, _ in kept]
    args.defaults = [d for _, d in kept if d is not None]
    tree.name = fn.__name__
    source = stmt_source(tree)
    key = (fn, tuple(sorted((p, id(o)) for p, o in bound.items())))
    cached = _COPIES.get(key)
    # (one function per copy, and one name: the generated module provides a
    # function under the name it was first copied by)
    if cached is not None and cached[3] == source and (
            namespace.get(cached[1], _NOTHING) is cached[2] or cached[1] not in taken):
        copy_name, obj = cached[1], cached[2]
        taken.add(copy_name)
    else:
        parts = [fn.__name__.strip("_") or "function"]
        parts += [_preferred(o, spellings.get(p)) for p, o in sorted(bound.items())]
        copy_name = fresh_name("_".join(parts), taken)
        tree.name = copy_name
        # (the function object is what the helper machinery keys on; its
        # globals hold the names the copy reads, so it runs as Python too)
        obj = function_of(tree, fn, found.location, refs)
        sig = inspect.signature(fn)
        with_default = [a.id for a in args.args[len(args.args) - len(args.defaults):]]
        obj.__defaults__ = tuple(sig.parameters[p].default for p in with_default) or None
        _COPIES[key] = (tuple(bound.values()), copy_name, obj, source)
    tree.name = copy_name
    location = found.location
    LIFTED[obj] = Lifted(tree, NestedLocation(location.filename, location.first_line,
                                              location.func_name, location.first_line),
                         found.source, root_of(fn), refs)
    return copy_name, obj


def _binds(tree, params):
    """Whether the function binds a name of `params` anywhere (a nested
    function's parameter or name included)."""
    for n in walk(tree):
        if isinstance(n, gast.Name) and n.id in params and (
                isinstance(n.ctx, (gast.Store, gast.Del)) or (
                    isinstance(n.ctx, gast.Param) and not any(a is n for a in tree.args.args))):
            return True
        if isinstance(n, gast.FunctionDef) and n is not tree and n.name in params:
            return True
        if isinstance(n, (gast.Global, gast.Nonlocal)) and set(n.names) & params:
            return True
    return False


def _preferred(obj, written):
    """A name for `obj`: its own, else the caller's (a lambda's)."""
    for n in (getattr(obj, "__name__", None), getattr(written, "id", None),
              getattr(written, "attr", None)):
        if isinstance(n, str) and n.isidentifier() and not keyword.iskeyword(n):
            return n
    return "bound"


def _spelling(written, obj, namespace, used, local, refs):
    """The expression the copy reads `obj` by: the caller's own spelling
    when it denotes the same object in the copy's namespace, else a name of
    its own (in `refs`)."""
    if written is not None and _denotes(written, obj, namespace, local):
        return written
    preferred = _preferred(obj, written)
    n = preferred
    if n in used or namespace.get(n, obj) is not obj or n in refs:
        n = fresh_name(preferred, used | set(namespace) | set(refs))
    refs[n] = obj
    used.add(n)
    return gast.Name(id=n, ctx=gast.Load(), annotation=None, type_comment=None)


def _denotes(node, obj, namespace, local):
    """Whether `node` (a Name or an Attribute chain on one) denotes `obj`
    where the copy's free names resolve."""
    base = node
    while isinstance(base, gast.Attribute):
        base = base.value
    if not isinstance(base, gast.Name) or base.id in local:
        return False

    def value(n):
        if isinstance(n, gast.Name):
            return namespace.get(n.id, _NOTHING)
        v = value(n.value)
        return _NOTHING if v is _NOTHING else getattr(v, n.attr, _NOTHING)
    found = value(node)
    # (a bound method is made anew at each read: the same method is an equal one)
    return found is obj or (inspect.ismethod(obj) and found == obj)
