"""A helper that returns a nested function, called at once: `make(a, b)(g)`,
as autograd's gradient makers are written, is one function doing both:

    def make_grad(ans, a, b):             def make_grad_called(ans, a, b, g2):
        def gradient_product(g):              def gradient_product(g):
            return cross(g, -b)      ->           return cross(g, -b)
        return gradient_product               return gradient_product(g2)

    make_grad(None, a, b)(g)              make_grad_called(None, a, b, g)

which runs what Python runs: the maker's body, then its nested function
called with the second call's arguments; the nested function is then lifted
as any other (closures.py). Rewritten only when the maker is a Python
function s2sad reads whose one return, at its end, returns a function
defined in its body, and both calls' arguments bind to the parameters
(defaults that are constants filled in); anything else is left to the
refusal of `f(a)(b)`."""
import gast

from .lifted import LIFTED, Lifted, function_of, params_of
from ..read import read
from ...emit.unparse import stmt_source
from ...names import fresh_name
from ...syntax import clone, walk

# (maker's code, nested function's name) -> the function doing both
_MADE = {}


def run(tree, ctx):
    calls = [n for n in walk(tree) if isinstance(n, gast.Call) and isinstance(n.func, gast.Call)]
    changed = False
    for node in calls:
        maker = ctx.readable(ctx.safe_resolve(node.func.func))
        if maker is None:
            continue
        made = _both(maker)
        if made is None:
            continue
        fn, outer_params, inner_params, outer_defaults, inner_defaults = made
        outer = _bound(node.func, outer_params, outer_defaults)
        inner = _bound(node, inner_params, inner_defaults)
        if outer is None or inner is None:
            continue
        fname = fn.__name__
        if ctx.namespace.get(fname, fn) is not fn:
            fname = fresh_name(fname, set(ctx.namespace))
        ctx.namespace[fname] = fn
        node.func = gast.copy_location(gast.Name(id=fname, ctx=gast.Load(), annotation=None,
                                                 type_comment=None), node.func)
        node.args, node.keywords = outer + inner, []
        changed = True
    return tree if changed else None


def _both(maker):
    """(the function doing both calls, the maker's parameters, the nested
    function's, their {parameter: constant default}), or None."""
    try:
        found = read.parsed(read.source_of(maker))
    except Exception:  # noqa: BLE001 - a lambda, a lifted function: not this form
        return None
    tree = found.tree
    if not tree.body or not isinstance(tree.body[-1], gast.Return):
        return None
    ret = tree.body[-1].value
    defs = {s.name: s for s in tree.body if isinstance(s, gast.FunctionDef)}
    if not isinstance(ret, gast.Name) or ret.id not in defs:
        return None
    inner = defs[ret.id]
    if any(isinstance(n, gast.Return) for s in tree.body[:-1] for n in _own(s)):
        return None  # a return before the end
    a, b = tree.args, inner.args
    if a.vararg or a.kwarg or b.vararg or b.kwarg or b.kwonlyargs or a.kwonlyargs \
            or getattr(a, "posonlyargs", None) or getattr(b, "posonlyargs", None):
        return None
    defaults = []
    for args in (a, b):
        pairs = zip(args.args[len(args.args) - len(args.defaults):], args.defaults)
        defaults.append({p.id: d for p, d in pairs})
        if not all(isinstance(d, gast.Constant) for d in args.defaults):
            return None  # (a default evaluated when the def runs)
    outer_params = [p.id for p in a.args]
    taken = {n.id for n in walk(tree) if isinstance(n, gast.Name)} | set(defs)
    # (the nested function's parameters, as the new one's: named apart from the maker's)
    inner_params = [fresh_name(p.id, taken) for p in b.args]
    key = (maker.__code__, inner.name)
    both = clone(tree)
    both.name = f"{tree.name}_called"
    both.args = gast.arguments(
        args=[gast.Name(id=p, ctx=gast.Param(), annotation=None, type_comment=None)
              for p in outer_params + inner_params],
        posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
    last = both.body[-1]
    last.value = gast.copy_location(gast.Call(
        func=gast.Name(id=inner.name, ctx=gast.Load(), annotation=None, type_comment=None),
        args=[gast.Name(id=p, ctx=gast.Load(), annotation=None, type_comment=None)
              for p in inner_params], keywords=[]), last.value)
    fn = _MADE.get(key)
    if fn is None or stmt_source(LIFTED[fn].tree) != stmt_source(both):
        fn = function_of(both, maker, found.location)
        _MADE[key] = fn
    LIFTED[fn] = Lifted(both, found.location, found.source, maker, {})
    return fn, outer_params, [p.id for p in b.args], defaults[0], defaults[1]


def _own(s):
    """The nodes of statement `s`, not inside the functions it defines."""
    todo = [s]
    while todo:
        n = todo.pop()
        yield n
        if not isinstance(n, (gast.FunctionDef, gast.Lambda)):
            todo.extend(gast.iter_child_nodes(n))


def _bound(call, params, defaults):
    """The arguments of `call` in the order of `params` (constant defaults
    filled in), or None when they do not bind so."""
    if any(isinstance(a, gast.Starred) for a in call.args) or len(call.args) > len(params) \
            or any(k.arg is None for k in call.keywords):
        return None
    given = dict(zip(params, call.args))
    for k in call.keywords:
        if k.arg not in params or k.arg in given:
            return None
        given[k.arg] = k.value
    out = []
    for p in params:
        if p in given:
            out.append(given[p])
        elif p in defaults:
            out.append(clone(defaults[p]))
        else:
            return None
    return out
