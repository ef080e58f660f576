"""Keywords of numpy calls that mean a form s2sad already differentiates,
rewritten before the call is bound (bind.py), so every later pass sees the
plain form:

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

Anything else is left as written."""
import gast
import numpy as np

from ....parameters import _float_dtype

# functions whose dtype= casts the input before reducing (numpy's documented meaning)
_CASTING = {np.sum, np.mean, np.prod, np.var, np.std, np.cumsum, np.cumprod, np.nansum,
            np.nanmean}
_EINSUM_ORDERS = (True, False, "greedy", "optimal")


def respell_keywords(node, fn, bind):
    """`node` (a call of `fn`) without the keywords above, or `node` itself.
    `bind` binds a call made here (the cast)."""
    try:
        if fn in _CASTING:
            return _cast_first(node, bind)
        if fn is np.einsum:
            return _without_optimize(node)
        if fn is np.concatenate:
            return _flattened_concatenate(node)
    except TypeError:  # unhashable: not a numpy function
        pass
    return node


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


def _without_optimize(node):
    optimize = _keyword(node, "optimize")
    if optimize is None or not isinstance(optimize.value, gast.Constant) or not any(
            optimize.value.value is v or optimize.value.value == v and type(
                optimize.value.value) is type(v) for v in _EINSUM_ORDERS):
        return node  # another value (a path list): as written, refused
    return _without(node, optimize)


def _flattened_concatenate(node):
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
    from ...syntax import clone
    return clone(node)
