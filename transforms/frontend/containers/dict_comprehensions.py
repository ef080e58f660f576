"""A dict comprehension over keys known when the derivative is generated is
the dict literal it builds (READ, pipeline.py):

    d = {"a": x, "b": y}
    e = {k: v * w for k, v in d.items()}     e = {"a": d["a"] * w, "b": d["b"] * w}
    f = {k: g(k) for k in ("p", "q")}        f = {"p": g("p"), "q": g("q")}

The iterable is a tuple or list of constants, or `.items()`, `.keys()`,
`.values()` (or the dict itself) of a local dict bound once to a literal with
constant keys; one `for`, no `if`. The dict literal is then one variable per
key (transforms/frontend/containers/dicts.py). Any other dict comprehension (a dict
argument's items, keys computed at run time, a condition) is refused with
what to write, as is a set comprehension (a set of numbers keeps one of
equal values, in an order of its own: there is no gradient to give it).
"""
import gast

from ...errors import UnsupportedSyntaxError
from ...syntax import clone, walk

_DICT_HINT = ("Write the dict out with constant keys ({'a': ..., 'b': ...}), or loop over a "
              "local dict literal's .items() or a tuple of constant keys")
_SET_HINT = ("A set keeps one of equal numbers, in an order of its own: there is no "
             "gradient to give it. Use a list comprehension, or np.unique of an array")


def run(tree, ctx):
    """Rewrite `tree` (a FunctionDef) in place."""
    location = ctx.location
    comps = [n for n in walk(tree) if isinstance(n, (gast.DictComp, gast.SetComp))]
    if not comps:
        return None
    for comp in comps:
        dicts = _dict_literals(tree)  # (with the literals made of comprehensions before)
        if isinstance(comp, gast.SetComp):
            raise UnsupportedSyntaxError("a set comprehension", location, comp, _SET_HINT)
        entries = _entries(comp, dicts)
        if entries is None:
            raise UnsupportedSyntaxError(
                "a dict comprehension over keys known only when the function runs (or with "
                "an if, or several fors)", location, comp, _DICT_HINT)
        keys, values = [], []
        for bound in entries:
            keys.append(_substituted(comp.key, bound))
            values.append(_substituted(comp.value, bound))
        literal = gast.copy_location(gast.Dict(keys=keys, values=values), comp)
        _replace(tree, comp, literal)
    return tree


def _dict_literals(tree):
    """{name: its constant keys} of the names bound once, to a dict literal
    with constant keys."""
    counts, keys = {}, {}
    for node in walk(tree):
        if isinstance(node, gast.Name) and not isinstance(node.ctx, gast.Load):
            counts[node.id] = counts.get(node.id, 0) + 1
        if isinstance(node, gast.Assign) and len(node.targets) == 1 and isinstance(
                node.targets[0], gast.Name) and isinstance(node.value, gast.Dict) and all(
                isinstance(k, gast.Constant) for k in node.value.keys):
            keys[node.targets[0].id] = [k.value for k in node.value.keys]
    return {v: k for v, k in keys.items() if counts.get(v) == 1}


def _entries(comp, dicts):
    """[{loop name: the expression it stands for}] per entry, or None."""
    if len(comp.generators) != 1 or comp.generators[0].ifs:
        return None
    gen = comp.generators[0]
    if _rebinds_inside(comp, gen.target):
        return None
    it, target = gen.iter, gen.target
    if isinstance(it, (gast.Tuple, gast.List)) and all(
            isinstance(e, gast.Constant) for e in it.elts):
        if not isinstance(target, gast.Name):
            return None
        return [{target.id: gast.Constant(value=e.value, kind=None)} for e in it.elts]
    method, base = None, it
    if isinstance(it, gast.Call) and not it.args and not it.keywords and isinstance(
            it.func, gast.Attribute) and it.func.attr in ("items", "keys", "values"):
        method, base = it.func.attr, it.func.value
    if not (isinstance(base, gast.Name) and base.id in dicts):
        return None
    out = []
    for key in dicts[base.id]:
        k = gast.Constant(value=key, kind=None)
        v = gast.Subscript(value=gast.Name(id=base.id, ctx=gast.Load(), annotation=None,
                                           type_comment=None),
                           slice=gast.Constant(value=key, kind=None), ctx=gast.Load())
        if method == "items":
            if not (isinstance(target, gast.Tuple) and len(target.elts) == 2 and all(
                    isinstance(e, gast.Name) for e in target.elts)):
                return None
            out.append({target.elts[0].id: k, target.elts[1].id: v})
        elif isinstance(target, gast.Name):
            out.append({target.id: v if method == "values" else k})
        else:
            return None
    return out


def _rebinds_inside(comp, target):
    """Whether the key or value binds a loop name again (a nested
    comprehension or lambda), which a plain substitution would get wrong."""
    names = {n.id for n in walk(target) if isinstance(n, gast.Name)}
    return any(isinstance(n, gast.Name) and n.id in names and not isinstance(n.ctx, gast.Load)
               for part in (comp.key, comp.value) for n in walk(part)) or any(
        isinstance(n, gast.arguments) for part in (comp.key, comp.value) for n in walk(part))


def _substituted(expr, bound):
    if isinstance(expr, gast.Name) and expr.id in bound and isinstance(expr.ctx, gast.Load):
        return gast.copy_location(clone(bound[expr.id]), expr)
    expr = clone(expr)
    for node in walk(expr):
        for field, value in gast.iter_fields(node):
            if isinstance(value, gast.Name) and value.id in bound:
                setattr(node, field, gast.copy_location(clone(bound[value.id]), value))
            elif isinstance(value, list):
                value[:] = [gast.copy_location(clone(bound[v.id]), v)
                            if isinstance(v, gast.Name) and v.id in bound else v for v in value]
    return expr


def _replace(tree, old, new):
    for node in walk(tree):
        for field, value in gast.iter_fields(node):
            if value is old:
                setattr(node, field, new)
                return
            if isinstance(value, list) and any(v is old for v in value):
                value[:] = [new if v is old else v for v in value]
                return
