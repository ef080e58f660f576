"""Spellings of a numpy call that mean a form s2sad already differentiates,
rewritten before the call is bound (binder.py), so every later pass sees the
plain form. One table, keyed by the callee:

* `np.clip(a, None, hi)` is `np.minimum(a, hi)` and `np.clip(a, lo, None)`
  `np.maximum(a, lo)` (numpy's meaning of a missing bound); numpy 2's
  `min=` / `max=` are `a_min` / `a_max`, the one not given None (as the
  method's: `x.clip(lo)` is `np.clip(x, min=lo)`, normalize.py);
* `dtype=` of a float64 kind (`float`, `np.float64`, `'float64'`, `None`)
  on a reduction or a running sum/product is numpy's cast of the input
  before it reduces: `np.sum(x, dtype=np.float64)` is
  `np.sum(np.asarray(x, dtype=np.float64))` (the same for float64 input;
  an int or float32 input is cast as numpy casts it). Any other dtype is
  left as written, and refused where the call is differentiated;
* `np.einsum(..., optimize=True/False/'greedy'/'optimal')` only chooses the
  order of the products: the same values, so the keyword is left out;
* `np.concatenate((a, b), axis=None)` joins the flattened arrays:
  `np.concatenate((np.ravel(a), np.ravel(b)))` (a sequence written out;
  a named one is left as written and refused).

And for every call with a gradient rule (`without_defaults`): an argument
written with the function's own default value (`np.reshape(x, s,
order="C")`, `np.sum(x, out=None)`) is left out, as if the user had not
written it.

Anything else is left as written: a parameter the rule does not implement
is then refused (binder.py), never dropped."""
import functools
import inspect

import gast
import numpy as np

from ...syntax import clone
from ...parameters import _float_dtype


def respell(node, fn, bind):
    """`node` (a call of `fn`) in the spelling its entry of RESPELLINGS
    gives, or `node` itself. `bind` binds a call made here (the cast)."""
    try:
        spelling = RESPELLINGS.get(fn)
    except TypeError:  # unhashable: not a numpy function
        return node
    return node if spelling is None else spelling(node, bind)


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


def without_defaults(node, fn, rule):
    """`node` (a call of `fn`, which has gradient `rule`) without the
    arguments written with numpy's own default that the rule does not
    implement (`order="C"`, `out=None`)."""
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


def _clip(node, bind):
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


# functions whose dtype= casts the input before reducing (numpy's documented meaning)
_CASTING = {np.sum, np.mean, np.prod, np.var, np.std, np.cumsum, np.cumprod, np.nansum,
            np.nanmean}
_EINSUM_ORDERS = (True, False, "greedy", "optimal")


def _keyword(node, name):
    return next((k for k in node.keywords if k.arg == name), None)


def _without(node, keyword, args=None):
    return gast.copy_location(gast.Call(func=node.func, args=list(node.args if args is None
                                                                  else args),
                                        keywords=[k for k in node.keywords if k is not keyword]),
                              node)


def _numpy(node, attr, *args, keywords=()):
    """A call of `attr` of the module the call's function comes from (`np`)."""
    return gast.copy_location(gast.Call(
        func=gast.Attribute(value=_copy(_module(node)), attr=attr, ctx=gast.Load()),
        args=list(args), keywords=list(keywords)), node)


def _module(node):
    return node.func.value if isinstance(node.func, gast.Attribute) else gast.Name(
        id="np", ctx=gast.Load(), annotation=None, type_comment=None)


def _cast_first(node, bind):
    dtype = _keyword(node, "dtype")
    if dtype is None or not node.args or any(isinstance(a, gast.Starred) for a in node.args) \
            or len(node.args) > 2 or not _float_dtype(dtype.value, None):
        return node  # dtype by position (np.sum(x, 0, float)) or not a float64: as written
    if isinstance(dtype.value, gast.Constant) and dtype.value.value is None:
        return _without(node, dtype)
    # every accepted spelling means float64: written as one numba compiles
    float64 = gast.Attribute(value=_copy(_module(node)), attr="float64", ctx=gast.Load())
    cast = bind(_numpy(node, "asarray", node.args[0],
                       keywords=[gast.keyword(arg="dtype", value=float64)]))
    return _without(node, dtype, [cast] + list(node.args[1:]))


def _without_optimize(node, bind):
    optimize = _keyword(node, "optimize")
    if optimize is None or not isinstance(optimize.value, gast.Constant) or not any(
            optimize.value.value is v or optimize.value.value == v and type(
                optimize.value.value) is type(v) for v in _EINSUM_ORDERS):
        return node  # another value (a path list): as written, refused
    return _without(node, optimize)


def _flattened_concatenate(node, bind):
    axis = _keyword(node, "axis")
    args = list(node.args)
    if axis is None and len(args) == 2:
        axis, args = gast.keyword(arg="axis", value=args[1]), args[:1]
    if axis is None or not (isinstance(axis.value, gast.Constant) and axis.value.value is None) \
            or len(args) != 1 or not isinstance(args[0], (gast.Tuple, gast.List)):
        return node
    flat = gast.Tuple(elts=[_numpy(node, "ravel", e) for e in args[0].elts], ctx=gast.Load())
    return gast.copy_location(gast.Call(func=node.func, args=[flat], keywords=[
        k for k in node.keywords if k.arg != "axis"]), node)


def _copy(node):
    return clone(node)


# callee -> its respelling(node, bind)
RESPELLINGS = {
    np.clip: _clip,
    np.einsum: _without_optimize,
    np.concatenate: _flattened_concatenate,
    **{fn: _cast_first for fn in _CASTING},
}
