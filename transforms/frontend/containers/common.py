"""Small predicates the container passes share."""
import builtins
import inspect

import gast

from ...libraries import is_library_function
from ...syntax import clone, walk


def range_element(start, step, k):
    """start + k * step, without the terms that are 0 or the factors that are 1."""
    def value(node):
        return node.value if isinstance(node, gast.Constant) else None
    if value(k) == 0:
        return clone(start)
    term = clone(k) if value(step) == 1 else gast.BinOp(left=clone(k), op=gast.Mult(),
                                                         right=clone(step))
    return term if value(start) == 0 else gast.BinOp(left=clone(start), op=gast.Add(), right=term)


def has_comprehension(node):
    return any(isinstance(n, (gast.ListComp, gast.GeneratorExp)) for n in walk(node))


def mentions(node, v):
    return any(isinstance(n, gast.Name) and n.id == v for n in walk(node))


def is_builtin(resolve, func, obj):
    try:
        return isinstance(func, gast.Name) and resolve(func) is obj
    except Exception:  # noqa: BLE001 - not resolvable: not the builtin
        return False


def stacks(resolve, func):
    """np.array, np.asarray or np.stack: a list of equal elements becomes its
    materialised array."""
    import numpy as np
    try:
        obj = resolve(func)
    except Exception:  # noqa: BLE001 - not resolvable: not one of them
        return False
    return any(obj is f for f in (np.array, np.asarray, np.stack, np.ascontiguousarray))


def is_range(resolve, node):
    return isinstance(node, gast.Call) and is_builtin(resolve, node.func, builtins.range) \
        and 1 <= len(node.args) <= 3 and not node.keywords


def is_user_function(obj):
    return inspect.isfunction(obj) and not getattr(obj, "__module__", "").startswith(
        ("numpy", "math", "s2sad")) and not is_library_function(obj)


def constant_index(node, size):
    value = node.value if isinstance(node, gast.Constant) else (
        -node.operand.value if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub)
        and isinstance(node.operand, gast.Constant) else None)
    if isinstance(value, bool) or not isinstance(value, int) or not -size <= value < size:
        return None
    return value % size
