"""`sorted(...)` of numbers as the permutation np.sort is (an entry of
read_respellings.py's table):

    s = sorted(x)                 sorted_values = np.asarray(x)
                                  if sorted_values.ndim != 1: raise ValueError(...)
                                  s = [v for v in np.sort(sorted_values)]

(`reverse=True`: `np.sort(...)[::-1]`). The result is a list comprehension,
which s2sad keeps as an array of the sorted values and refuses where a list
and an array differ (`s + [1.0]`, `s * 2`). Python's sorted of a 2-d array
compares its rows and raises ValueError, as this does; the check keeps
np.sort from sorting each row instead. Only an assignment's whole value or a
for loop's iterable is rewritten (the array is made where Python evaluates
the call); `key=` and any other place stay refused by sorted's rule.
"""
import builtins

import gast
import numpy as np

from ...names import fresh_name

_NOT_1D = ("sorted() of an array that is not 1-d (Python compares its rows, which "
           "raises for arrays)")


def finds(nodes, namespace):
    """Whether `nodes` (a function's walk) hold a call this rewrites."""
    return namespace.get("sorted") is builtins.sorted and namespace.get("np") is np and any(
        _is_sorted(n) for n in nodes)


def rewrite(tree, namespace, nodes):
    """Rewrite `tree` (a FunctionDef, `nodes` its walk) in place; whether it changed."""
    taken = {n.id for n in nodes if isinstance(n, gast.Name)}
    if any(isinstance(n, gast.Name) and n.id in ("sorted", "np") and not isinstance(
            n.ctx, gast.Load) for n in nodes):
        return False  # (a local of that name)
    _rewrite(tree.body, taken)
    return True


def _is_sorted(node):
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
        and node.func.id == "sorted" and len(node.args) == 1 and all(
            k.arg == "reverse" and isinstance(k.value, gast.Constant)
            and isinstance(k.value.value, bool) for k in node.keywords)


def _rewrite(stmts, taken):
    out = []
    for s in stmts:
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(s, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt) \
                    and not isinstance(s, gast.FunctionDef):
                _rewrite(inner, taken)
        if isinstance(s, gast.Assign) and _is_sorted(s.value):
            before, s.value = _sorted_list(s.value, s, taken)
            out += before
        elif isinstance(s, gast.For) and _is_sorted(s.iter):
            before, s.iter = _sorted_list(s.iter, s, taken)
            out += before
        out.append(s)
    stmts[:] = out


def _sorted_list(call, s, taken):
    def name(id_, ctx=None):
        return gast.Name(id=id_, ctx=ctx or gast.Load(), annotation=None, type_comment=None)

    def np_call(fn, *args):
        return gast.Call(func=gast.Attribute(value=name("np"), attr=fn, ctx=gast.Load()),
                         args=list(args), keywords=[])

    values = fresh_name("sorted_values", taken)
    element = fresh_name("value", taken)
    hold = gast.copy_location(gast.Assign(targets=[name(values, gast.Store())],
                                          value=np_call("asarray", call.args[0]),
                                          type_comment=None), s)
    check = gast.copy_location(gast.If(
        test=gast.Compare(left=gast.Attribute(value=name(values), attr="ndim", ctx=gast.Load()),
                          ops=[gast.NotEq()], comparators=[gast.Constant(value=1, kind=None)]),
        body=[gast.copy_location(gast.Raise(exc=gast.Call(
            func=name("ValueError"), args=[gast.Constant(value=_NOT_1D, kind=None)],
            keywords=[]), cause=None), s)], orelse=[]), s)
    ordered = np_call("sort", name(values))
    if any(k.value.value for k in call.keywords):  # reverse=True
        ordered = gast.Subscript(value=ordered, slice=gast.Slice(
            lower=None, upper=None, step=gast.UnaryOp(op=gast.USub(), operand=gast.Constant(
                value=1, kind=None))), ctx=gast.Load())
    listed = gast.ListComp(elt=name(element), generators=[gast.comprehension(
        target=name(element, gast.Store()), iter=ordered, ifs=[], is_async=0)])
    return [hold, check], gast.copy_location(listed, call)
