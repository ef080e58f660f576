"""Spellings of a numpy call that mean the same as a form its gradient rule
implements, rewritten to that form before the call is bound (bind.py):

* an argument written with the function's own default value
  (`np.reshape(x, s, order="C")`, `np.sum(x, out=None)`) is left out, as
  if the user had not written it;
* `np.clip(a, None, hi)` is `np.minimum(a, hi)` and `np.clip(a, lo, None)`
  `np.maximum(a, lo)` (numpy's meaning of a missing bound); numpy 2's
  `min=` / `max=` are `a_min` / `a_max`, the one not given None (as the
  method's: `x.clip(lo)` is `np.clip(x, min=lo)`, normalize.py).

Anything else is left as written: a parameter the rule does not implement
is then refused (transforms/frontend/bind.py), never dropped."""
import functools
import inspect

import gast
import numpy as np


def respell(node, fn, rule):
    """`node` (a call of `fn`, which has gradient `rule`) in a spelling the
    rule implements, or `node` itself."""
    if fn is np.clip:
        respelled = _clip(node)
        if respelled.func is not node.func:
            return respelled  # np.minimum / np.maximum: bound as their own call
        node = respelled
    return _without_defaults(node, fn, rule)


def _signature(fn):
    # (inspect.signature of a numpy function parses its text signature: a
    # few percent of generating a derivative, for every call it binds)
    try:
        return _cached_signature(fn)
    except TypeError:  # unhashable, or no signature (raised again below)
        return inspect.signature(fn)


@functools.lru_cache(maxsize=1024)
def _cached_signature(fn):
    return inspect.signature(fn)


def _without_defaults(node, fn, rule):
    try:
        sig = _signature(fn)
        bound = sig.bind(*node.args, **{k.arg: k.value for k in node.keywords})
    except (TypeError, ValueError):
        return node
    implemented = rule.signature.parameters
    dropped = []
    for pname, value in bound.arguments.items():
        p = sig.parameters[pname]
        if pname in implemented or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if isinstance(value, gast.Constant) and p.default is not p.empty \
                and type(value.value) is type(p.default) and value.value == p.default:
            dropped.append(pname)
    if not dropped:
        return node
    args, keywords = [], []
    for pname, value in bound.arguments.items():
        if pname in dropped:
            continue
        if sig.parameters[pname].kind == inspect.Parameter.POSITIONAL_ONLY:
            args.append(value)
        else:
            keywords.append(gast.keyword(arg=pname, value=value))
    return gast.copy_location(gast.Call(func=node.func, args=args, keywords=keywords), node)


def _clip(node):
    """np.clip(a, lo, hi) with a bound None, or written min= / max=."""
    given = {k.arg: k.value for k in node.keywords}
    if any(k.arg is None for k in node.keywords) or len(node.args) > 3:
        return node
    aliased = False
    for alias, name in (("min", "a_min"), ("max", "a_max")):
        if alias in given and name not in given:
            given[name] = given.pop(alias)
            aliased = True
    names = ["a", "a_min", "a_max"]
    values = dict(zip(names, node.args))
    if set(values) & set(given) or set(given) - set(names):
        return node  # as written: numpy's TypeError or an unimplemented parameter
    values.update(given)
    if aliased:  # numpy 2's min= / max=: the one not given is None (a_min / a_max are required)
        for name in ("a_min", "a_max"):
            values.setdefault(name, gast.Constant(value=None, kind=None))
    if len(values) != 3:
        return node
    lo, hi = _is_none(values["a_min"]), _is_none(values["a_max"])
    if lo == hi:  # both bounds (the rule's form), or neither (numpy raises)
        return gast.copy_location(gast.Call(func=node.func, args=[values[n] for n in names],
                                            keywords=[]), node)
    if not isinstance(node.func, gast.Attribute):
        return node  # `clip` imported by name: no module to take minimum from
    other, bound = ("minimum", values["a_max"]) if lo else ("maximum", values["a_min"])
    func = gast.Attribute(value=node.func.value, attr=other, ctx=gast.Load())
    return gast.copy_location(gast.Call(func=func, args=[values["a"], bound], keywords=[]), node)


def _is_none(value):
    return isinstance(value, gast.Constant) and value.value is None
