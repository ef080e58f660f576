"""A nested function or lambda passed to a helper: `apply(lambda u: u * u, x)`
or `apply(sq, x)` with `def apply(g, x): return g(x)`.

The helper is specialised for that function: a copy of it without the
function parameter, calling the lifted nested function directly, with the
values the nested function captures as extra (keyword-only) parameters:

    def apply_sq(x, *, sq_w):          # apply(sq, x) with sq capturing w
        return sq(x, sq_w)

and the call becomes `apply_sq(x, sq_w=w)`, an ordinary helper call. A
lambda written in the call is first bound to a name of its own
(`lambda_12 = lambda u: u * u`, just before the statement: making a lambda
has no effect, and what it captures is read when it is called).

Refused, with the line: a helper that does anything with the function but
call it (passes it on, stores it, returns it, rebinds the parameter), a
helper taking *args or **kwargs, a function passed to anything but a plain
Python helper (`sorted(v, key=lambda u: -u)`, `np.apply_along_axis`)."""
import inspect

import gast

from .lifted import LIFTED, Lifted, NestedLocation, bind_call, function_of, root_of
from ..read.read import positional_parameters
from ...emit.unparse import stmt_source
from ...errors import UnsupportedSyntaxError
from ...libraries import is_library_function, of_package
from ...names import fresh_name
from ...syntax import Transformer, clone, name
from ...errors import S2sadTypeError

_SPECIALISED = {}  # (outer code, helper, its function parameters) -> (name, function, source)


def bound_names(tree):
    """Every name the function binds anywhere (its nested functions too): a
    call of one of them is not a call of the global of that name."""
    out = {n.name for n in gast.walk(tree) if isinstance(n, gast.FunctionDef)}
    return out | {n.id for n in gast.walk(tree)
                  if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)}


def helper_of(call, namespace, local=frozenset()):
    """The plain Python function a call calls, or None (also for a name the
    function binds itself, in `local`)."""
    if not isinstance(call.func, gast.Name) or call.func.id in local:
        return None
    obj = namespace.get(call.func.id)
    if not inspect.isfunction(obj) or obj in LIFTED or getattr(obj, "__s2sad_derivative__",
                                                                 False):
        return None
    if of_package(obj, "numpy", "math", "s2sad") or is_library_function(obj):
        return None
    return obj


def passed_to_helper(n, parent, grandparent, namespace, local):
    """Whether the name `n` is an argument of a call of a plain helper."""
    if isinstance(parent, gast.keyword):
        return isinstance(grandparent, gast.Call) and helper_of(grandparent, namespace, local) \
            is not None
    return isinstance(parent, gast.Call) and any(a is n for a in parent.args) and \
        helper_of(parent, namespace, local) is not None


def specialise(root, by_name, namespace, location, fn, pending, local, parse):
    """Rewrite every call in `root` that passes a nested function to a plain
    helper into a call of the helper specialised for it. `pending` collects
    (siblings dict, site) pairs, filled in once the sites are lifted;
    `parse(h)` reads a helper as the front end reads a function."""
    class Rewrite(Transformer):
        def visit_Call(self, node):
            self.generic_visit(node)
            h = helper_of(node, namespace, local)
            if h is None:
                return node
            passed = {id(a) for a in list(node.args) + [k.value for k in node.keywords]
                      if isinstance(a, gast.Name) and a.id in by_name}
            if not passed:
                return node
            return _specialised_call(node, h, by_name, namespace, location, fn, pending,
                                     parse)

    Rewrite().visit(root)


def _specialised_call(node, h, by_name, namespace, location, fn, pending, parse):
    sig = inspect.signature(h)
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in sig.parameters.values()):
        raise UnsupportedSyntaxError(
            f"passing a function to {h.__name__}, which takes *args or **kwargs", location,
            node, "Give it plain parameters")
    try:
        bound = sig.bind(*node.args, **{k.arg: k.value for k in node.keywords})
    except TypeError as exc:
        raise S2sadTypeError(f"{location.describe(node)}: {h.__name__}(): {exc}") from None
    functions = {p: by_name[a.id] for p, a in bound.arguments.items()
                 if isinstance(a, gast.Name) and a.id in by_name}
    parsed = parse(h)
    tree = parsed.tree
    hloc = parsed.location
    names = {x.id for x in gast.walk(tree) if isinstance(x, gast.Name)}
    _check_only_called(tree, set(functions), hloc, h)
    key = (fn.__code__, h, tuple(sorted((p, site.name) for p, site in functions.items())))
    cached = _SPECIALISED.get(key)  # (name, function, source): calls alike share one
    taken = set(namespace) | names
    if cached is not None and namespace.get(cached[0]) is cached[1]:
        taken.discard(cached[0])
    new_name = fresh_name("_".join([h.__name__] + [s.lifted_name for s in
                                                    functions.values()]), taken)
    captures = {}  # (site, outer variable) -> parameter of the specialised helper
    for p, site in functions.items():
        if site.lifted_name in names or site.lifted_name in parsed.namespace:
            raise UnsupportedSyntaxError(
                f"passing '{site.name}' to {h.__name__}, whose module or body already uses "
                f"the name '{site.lifted_name}'", location, node, "Rename the nested function")
        for c in site.captures:
            captures[(site.lifted_name, c)] = fresh_name(f"{site.lifted_name}_{c}", names)

    class Calls(Transformer):
        def visit_Call(self, call):
            self.generic_visit(call)
            if isinstance(call.func, gast.Name) and call.func.id in functions:
                site = functions[call.func.id]
                call.args = bind_call(call, site, hloc, True)
                call.args += [name(captures[(site.lifted_name, c)]) for c in site.captures]
                call.keywords = []
                call.func = gast.copy_location(name(site.lifted_name), call.func)
            return call

    tree = Calls().visit(tree)
    args = tree.args
    kept = [a for a in args.args if a.id not in functions]
    n_defaults = len(args.defaults)
    first_default = len(args.args) - n_defaults
    args.defaults = [d for a, d in zip(args.args[first_default:], args.defaults)
                     if a.id not in functions]
    args.args = kept
    args.kwonlyargs = [gast.Name(id=v, ctx=gast.Param(), annotation=None, type_comment=None)
                       for v in captures.values()]
    args.kw_defaults = [None] * len(captures)
    tree.name = new_name
    source = stmt_source(tree)
    if cached is not None and cached[2] == source:
        obj = cached[1]
    else:
        obj = function_of(tree, h, hloc)
        with_default = [a.id for a in args.args[len(args.args) - len(args.defaults):]]
        obj.__defaults__ = tuple(sig.parameters[p].default for p in with_default) or None
        _SPECIALISED[key] = (new_name, obj, source)
    # the compiler's tree takes every parameter by position (source.positional_parameters),
    # in the order calls are bound to (the function's signature)
    tree = positional_parameters(clone(tree))
    needed = {}
    for site in functions.values():
        pending.append((needed, site))
    LIFTED[obj] = Lifted(tree, NestedLocation(hloc.filename, hloc.first_line, new_name,
                                               hloc.first_line), "\n".join(parsed.source_lines),
                         root_of(h), needed)
    namespace[new_name] = obj
    keywords = [gast.keyword(arg=p, value=v) for p, v in bound.arguments.items()
                if p not in functions]
    keywords += [gast.keyword(arg=v, value=name(c)) for (_, c), v in captures.items()]
    return gast.copy_location(gast.Call(func=name(new_name), args=[], keywords=keywords), node)


def _check_only_called(tree, params, location, h):
    """Each function parameter of `h` is only called, never rebound or
    used as a value."""
    parents = {}
    for n in gast.walk(tree):
        for c in gast.iter_child_nodes(n):
            parents[id(c)] = n
    for n in gast.walk(tree):
        if not (isinstance(n, gast.Name) and n.id in params):
            continue
        if isinstance(n.ctx, gast.Param):
            continue
        parent = parents.get(id(n))
        if isinstance(n.ctx, gast.Load) and isinstance(parent, gast.Call) and parent.func is n:
            continue
        raise UnsupportedSyntaxError(
            f"{h.__name__} using its function parameter '{n.id}' other than by calling it "
            f"(a nested function or lambda is passed to it)", location, n,
            f"Call {n.id} in {h.__name__} itself, or pass a module-level function")
