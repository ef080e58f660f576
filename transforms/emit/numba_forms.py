"""The last pass over a generated function: calls of a form the backend
cannot compile become calls of a runtime helper with the same semantics.

The forms come as a table (for numba: s2sad.forms.FORMS) of
`(function, test on the call node, helper name, how the arguments pass)`:
the call `np.mean(x, axis=0)` resolves to np.mean, whose entry's test
holds, so it reads `mean_axis(x, axis=0)`. It runs on every function of a
module, the user's statements and the adjoint templates' alike, after
everything else, so no other pass ever sees a helper call in their place;
with jit=False the helpers run numpy itself.

A list literal given to np.concatenate (np.stack, ...) is a tuple: numba
takes a tuple only.

`a ** b` with an exponent that may be a negative integer (not a float or
non-negative int constant) becomes `python_power(a, b)`: numba computes an integer
to a negative integer power as an integer (2 ** -1 is 0, where Python gives
0.5), a wrong value with no error; compiled, `python_power` raises there instead.

A method of a local array (`a.max(axis=0)`) is its numpy function
(`np.max(a, axis=0)`) for this purpose: the user's statements reach here
in that form, but a helper's forward copy keeps the user's methods. A
method numba has only as the numpy function (`a.swapaxes(0, 2)`) is that
function itself."""
import gast
import numpy as np

from ..ops import METHODS
from ..syntax import walk


def rewrite_forms(tree, forms, resolve, powers=False):
    """Rewrite the calls under `tree` (in place) that `forms` names;
    `resolve(node)` is the object a callee expression denotes (None if
    unknown); `powers`: rewrite_powers too (after the calls, which may move
    a power into a new tuple; its walk is this one's when no power needs
    it). Returns the helper names used."""
    by_function = {}
    for fn, test, helper, passing in forms:
        by_function.setdefault(id(fn), []).append((test, helper, passing))
    used = set()
    power_seen = False
    for node in walk(tree):
        if node.__class__ is gast.BinOp:
            power_seen = power_seen or _needs_power(node)
            continue
        if node.__class__ is not gast.Call:
            continue
        try:
            callee = resolve(node.func)
            entries = by_function.get(id(callee), ())
        except Exception:  # noqa: BLE001 - an unknown callee is left as it is
            continue
        if callee in _TUPLES_ONLY and node.args and node.args[0].__class__ is gast.List:
            node.args[0] = gast.Tuple(elts=node.args[0].elts, ctx=gast.Load())
        call = node
        if not entries:
            call, entries = _method_as_function(node, by_function, resolve)
        if not entries and call is node and _function_only(node, resolve):
            node.func, node.args = gast.Attribute(value=gast.Name(
                id="np", ctx=gast.Load(), annotation=None, type_comment=None),
                attr=node.func.attr, ctx=gast.Load()), [node.func.value] + node.args
            continue
        for test, helper, passing in entries:
            if not test(call):
                continue
            node.func = gast.Name(id=helper, ctx=gast.Load(), annotation=None,
                                  type_comment=None)
            node.args = call.args
            if passing == "tuple":  # np.array([a, b]) -> array_of((a, b))
                node.args = [gast.Tuple(elts=call.args[0].elts, ctx=gast.Load())]
            used.add(helper)
            break
    if powers and power_seen:
        used |= rewrite_powers(tree)
    return used


def _method_as_function(node, by_function, resolve):
    """`a.max(axis=0)` as the call `np.max(a, axis=0)` and its table entries,
    when `a` is a local (or a global array) and the method one numpy also
    has as a function with the array first (`a.reshape(m, n)`: np.reshape(a,
    (m, n))); else (node, ())."""
    func, call = node.func, node
    if isinstance(func, gast.Attribute) and func.attr == "reshape" and node.args \
            and not node.keywords and not any(isinstance(a, gast.Starred) for a in node.args):
        shape = node.args[0] if len(node.args) == 1 else gast.Tuple(elts=list(node.args),
                                                                    ctx=gast.Load())
        call = gast.Call(func=func, args=[shape], keywords=[])  # (a.reshape(m, n): one shape)
    elif not (isinstance(func, gast.Attribute) and func.attr in METHODS
              and func.attr != "transpose"):  # (which takes axes as varargs)
        return node, ()
    try:
        base = resolve(func.value) if isinstance(func.value, gast.Name) else None
    except Exception:  # noqa: BLE001
        return node, ()
    if base is not None and not isinstance(base, np.ndarray):
        return node, ()  # np.max itself, or a method of some other object
    entries = by_function.get(id(getattr(np, func.attr, None)), ())
    if not entries:
        return node, ()
    as_function = gast.Call(func=gast.Attribute(value=gast.Name(id="np", ctx=gast.Load(),
                                                                annotation=None,
                                                                type_comment=None),
                                                attr=func.attr, ctx=gast.Load()),
                            args=[func.value] + list(call.args), keywords=call.keywords)
    return as_function, entries


# numpy functions numba takes a sequence of arrays of as a tuple only: a list
# literal given to them (a helper's copy, np.concatenate([u, v])) is a tuple
_TUPLES_ONLY = (np.concatenate, np.stack, np.vstack, np.hstack, np.column_stack, np.dstack)

# array methods numba compiles only as the numpy functions (np.swapaxes(a, 0, 2))
_FUNCTION_ONLY = {"swapaxes", "trace", "round"}


def _function_only(node, resolve):
    """`a.swapaxes(0, 2)` of a local (or a global array) `a`, a method
    numba has only as a numpy function."""
    func = node.func
    if not (isinstance(func, gast.Attribute) and func.attr in _FUNCTION_ONLY):
        return False
    try:
        base = resolve(func.value) if isinstance(func.value, gast.Name) else None
    except Exception:  # noqa: BLE001
        return False
    return base is None or isinstance(base, np.ndarray)


def module_resolver(globals_, modules):
    """A `resolve` for generated code: attribute chains on a module name
    (`np.linalg.norm`), and names the module gets from the caller's."""
    def resolve(node):
        path = []
        while isinstance(node, gast.Attribute):
            path.append(node.attr)
            node = node.value
        if not isinstance(node, gast.Name):
            return None
        obj = modules.get(node.id, globals_.get(node.id))
        for attr in reversed(path):
            obj = getattr(obj, attr, None)
        return obj
    return resolve


def rewrite_powers(tree):
    """`a ** b` under `tree` as `python_power(a, b)` where numba and Python may
    differ (see the module's text); returns the helper names used."""
    used = set()
    nodes = walk(tree)
    if not any(n.__class__ is gast.BinOp and _needs_power(n) for n in nodes):
        return used  # (most functions: only constant exponents)
    for node in nodes:
        for field in ("value", "left", "right", "operand", "body", "orelse", "test"):
            child = getattr(node, field, None)
            if _needs_power(child):
                setattr(node, field, _power_call(child))
                used.add("python_power")
        for field in ("args", "elts", "values", "comparators"):
            items = getattr(node, field, None)
            if isinstance(items, list):
                for k, child in enumerate(items):
                    if _needs_power(child):
                        items[k] = _power_call(child)
                        used.add("python_power")
    return used


def _needs_power(node):
    if not (isinstance(node, gast.BinOp) and isinstance(node.op, gast.Pow)):
        return False
    e, b = node.right, node.left
    if isinstance(e, gast.Constant) and (isinstance(e.value, float) or (
            isinstance(e.value, int) and e.value >= 0)):
        return False  # x ** 2, x ** 0.5: the same in numba
    return not (isinstance(b, gast.Constant) and isinstance(b.value, float))


def _power_call(node):
    return gast.copy_location(gast.Call(
        func=gast.Name(id="python_power", ctx=gast.Load(), annotation=None, type_comment=None),
        args=[node.left, node.right], keywords=[]), node)
