"""A module-level function passed to a helper, as numerical code passes the
step of an iteration or the integrand of a quadrature:

    def fixed_point(f, a, x0):                def sqrt_fp(a):
        ...                                       return fixed_point_step(a, 1.0)
            x = f(a, x)           ->
    def sqrt_fp(a):                           (fixed_point_step: fixed_point with
        return fixed_point(step, a, 1.0)       `f` read as `step`, bound_copies.py)

The function a call passes is known where the call is written, so the
helper is copied for it: its parameter's reads become reads of that
function, and what the copy does with it (calls it, passes it on to
another helper, which is copied in turn) is what any function does with a
module-level function. A user's function, a lambda bound at module level,
numpy's and math's functions (`fixed_point(np.cos, ...)`), a custom
gradient and an s2sad derivative are passed this way.

A parameter left out whose default is such a function (`squash=np.tanh`)
is bound to it the same way. Left as it is (a call of the parameter is
then refused where the adjoint is built): a helper that rebinds the parameter, takes *args or **kwargs,
or a call with a star argument."""
import inspect

import gast
import numpy as np

from .bound_copies import bound_copy
from .lifted import LIFTED
from .module_values import method_of_plain_object
from .passed_functions import bound_names
from ...syntax import walk


def run(tree, ctx):
    """Rewrite, in place, the calls of `tree` passing a module-level
    function to a Python helper into calls of the helper's copy."""
    namespace = ctx.namespace
    local = bound_names(tree) | {a.id for a in tree.args.args}
    calls = [n for n in walk(tree) if isinstance(n, gast.Call)]
    if not calls:
        return None
    taken = set(namespace) | {n.id for n in walk(tree) if isinstance(n, gast.Name)}
    changed = False
    for call in calls:
        helper = _helper(call, namespace, local, ctx.readable)
        if helper is None:
            continue
        try:
            bound = inspect.signature(helper).bind(*call.args, **{
                k.arg: k.value for k in call.keywords})
        except TypeError:
            continue  # (the binder reports it with the line)
        passed, spellings = {}, {}
        for p, node in bound.arguments.items():
            obj = _function_value(node, namespace, local)
            if obj is not None:
                passed[p], spellings[p] = obj, node
        for p in inspect.signature(helper).parameters.values():
            if p.name not in bound.arguments and _passable(p.default) is not None:
                passed[p.name] = p.default  # left out: its default, a function (f=np.tanh)
        if not passed:
            continue
        made = bound_copy(helper, passed, spellings, namespace, taken)
        if made is None:
            continue
        copy_name, copy = made
        namespace[copy_name] = copy
        params = list(inspect.signature(helper).parameters)
        call.func = gast.copy_location(gast.Name(id=copy_name, ctx=gast.Load(), annotation=None,
                                                 type_comment=None), call.func)
        call.args = [a for p, a in zip(params, call.args) if p not in passed]
        call.keywords = [k for k in call.keywords if k.arg not in passed]
        changed = True
    return tree if changed else None


def _helper(call, namespace, local, readable):
    """The Python function (a user's, or a copy made from one) that `call`
    calls, when its arguments may be bound to its parameters here."""
    if not isinstance(call.func, gast.Name) or call.func.id in local:
        return None
    obj = namespace.get(call.func.id)
    if obj is None or readable(obj) is not obj:
        return None
    if any(isinstance(a, gast.Starred) for a in call.args) or any(
            k.arg is None for k in call.keywords):
        return None
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
           for p in inspect.signature(obj).parameters.values()):
        return None
    return obj


def _function_value(node, namespace, local):
    """The function a module-level name (or attribute: np.cos) passed as an
    argument denotes, or None."""
    base = node
    while isinstance(base, gast.Attribute):
        base = base.value
    if not isinstance(base, gast.Name) or base.id in local:
        return None

    def value(n):
        if isinstance(n, gast.Name):
            return namespace.get(n.id)
        v = value(n.value)
        return None if v is None else getattr(v, n.attr, None)
    obj = value(node)
    if obj is None or (inspect.isfunction(obj) and obj in LIFTED):
        return None  # (a lifted nested function: passed_functions.py)
    return _passable(obj)


def _passable(obj):
    """`obj` when it is a function a helper's copy can read by a name."""
    if getattr(obj, "__s2sad_derivative__", False) or getattr(obj, "__s2sad_custom__", None):
        return obj
    if inspect.isfunction(obj) or inspect.isbuiltin(obj) or isinstance(obj, np.ufunc) \
            or method_of_plain_object(obj):
        return obj
    return None
