"""Small predicates the container passes share, and the test that skips
them all at once for a function with no container (most numeric ones)."""
import builtins
import inspect

import gast

from ...libraries import is_library_function, of_package
from ...syntax import clone, walk


STACK_LIST = "stack_list"  # the runtime helper stacking a grown list's elements (np.stack)


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


def changed_while_iterated(loop, resolve):
    """(list name, call) where the for `loop` iterates over a list (also
    through enumerate, zip, reversed) that its body appends to or pops
    (the call), else None: Python's iterator reads the length at every
    step, the counted loop s2sad makes of it reads it once."""
    it = loop.iter
    parts = [it]
    if isinstance(it, gast.Call) and any(is_builtin(resolve, it.func, f) for f in (
            builtins.enumerate, builtins.zip, builtins.reversed)):
        parts = list(it.args)
    iterated = {p.id for p in parts if isinstance(p, gast.Name)}
    for node in (n for st in loop.body for n in walk(st)):
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
                and node.func.attr in ("append", "pop") and isinstance(node.func.value, gast.Name) \
                and node.func.value.id in iterated:
            return node.func.value.id, node
    return None


def is_range(resolve, node):
    return isinstance(node, gast.Call) and is_builtin(resolve, node.func, builtins.range) \
        and 1 <= len(node.args) <= 3 and not node.keywords


def is_user_function(obj):
    return inspect.isfunction(obj) and not of_package(obj, "numpy", "math", "s2sad") \
        and not is_library_function(obj)


def constant_index(node, size):
    value = node.value if isinstance(node, gast.Constant) else (
        -node.operand.value if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub)
        and isinstance(node.operand, gast.Constant) else None)
    if isinstance(value, bool) or not isinstance(value, int) or not -size <= value < size:
        return None
    return value % size


# Builtins the passes above do not look for (a call of any other builtin,
# sum, min, max, enumerate, zip, reversed, ..., takes the passes' path).
_PLAIN_BUILTINS = {builtins.range, builtins.len, builtins.abs, builtins.float, builtins.int,
                   builtins.bool, builtins.round, builtins.pow}
_CONTAINERS = (gast.List, gast.Tuple, gast.Dict, gast.Set, gast.ListComp, gast.GeneratorExp,
               gast.SetComp, gast.DictComp, gast.Starred, gast.Lambda, gast.FunctionDef)


def has_containers(ctx):
    """Whether the tree holds something the container passes act on. That
    is a list, dict, set or comprehension, a tuple bound or looped over, a
    nested function, a call without arguments (`d.items()`, `dict()`), a call
    of a builtin but the plain ones, or a loop other than `for v in
    range(...)`. Most numeric functions have none: one walk instead of one
    per pass."""
    return not _without_containers(ctx.tree, ctx.resolve)


def _without_containers(fn_tree, resolve):
    for node in walk(fn_tree):
        cls = node.__class__
        if cls is gast.Tuple:
            continue  # (a literal bound or looped over is seen at its Assign or For)
        if isinstance(node, _CONTAINERS) and node is not fn_tree:
            return False
        if cls is gast.Assign and node.value.__class__ is gast.Tuple:
            return False
        if cls is gast.For and not (node.target.__class__ is gast.Name
                                    and node.iter.__class__ is gast.Call
                                    and is_builtin(resolve, node.iter.func, builtins.range)):
            return False
        if cls is gast.Call:
            if not node.args:
                return False
            if node.func.__class__ is gast.Name:
                try:
                    obj = resolve(node.func)
                except Exception:  # noqa: BLE001 - not resolvable: not a builtin
                    continue
                if getattr(obj, "__module__", None) == "builtins" \
                        and obj not in _PLAIN_BUILTINS:
                    return False
    return True


_LIST_OPERATIONS = {gast.Add: "`+` on a list (concatenation)",
                    gast.Mult: "`*` on a list (repetition)"}
_SYMBOLS = {gast.Sub: "-", gast.Div: "/", gast.FloorDiv: "//", gast.Mod: "%", gast.Pow: "**",
            gast.MatMult: "@", gast.BitAnd: "&", gast.BitOr: "|", gast.BitXor: "^",
            gast.LShift: "<<", gast.RShift: ">>"}


def list_only_use(fn_tree, names, resolve, depth=None, helpers=False, attributes=True):
    """The first (node, description) of a use of a list named in `names`
    where a list and an array differ, or None. `depth` ({name: levels}):
    a list of lists, whose `M[i]` is a list too. `helpers`: a helper
    called with the list is given its kind, which says it is a list
    (sequence_args.py), so passing it is not such a use. `attributes`:
    refuse x.attr (a list argument is an array to its attributes: x.shape
    raises in Python, gives no other value)."""
    depth = depth or {}

    def is_list(node):
        chain = 0
        while isinstance(node, gast.Subscript):
            if any(isinstance(s, gast.Slice) for s in walk(node.slice)):
                chain -= 1  # (a slice of a list is a list)
            chain += 1
            node = node.value
        return isinstance(node, gast.Name) and node.id in names \
            and chain < depth.get(node.id, 1)

    for node in walk(fn_tree):
        bad = None
        if isinstance(node, gast.BinOp) and (is_list(node.left) or is_list(node.right)):
            bad = _LIST_OPERATIONS.get(type(node.op), (
                f"`{_SYMBOLS.get(type(node.op), '?')}` on a list (Python's lists have no such "
                f"operator: with an array on the other side numpy converts the list; "
                f"with a number or a list it raises TypeError)"))
        elif isinstance(node, gast.AugAssign) and is_list(node.target):
            bad = "an augmented assignment to a list"
        elif attributes and isinstance(node, gast.Attribute) and is_list(node.value):
            bad = f"the list method .{node.attr}"
        elif isinstance(node, gast.Compare) and any(
                is_list(c) for c in [node.left] + node.comparators):
            bad = "comparing a list"
        elif not helpers and isinstance(node, gast.Call) and any(
                is_list(a) for a in node.args) and is_user_function(resolve(node.func)):
            bad = "a list passed to a function s2sad differentiates through its source"
        if bad:
            return node, bad
    return None


def constant_slice(node):
    """The slice `node` writes with int constants or nothing as its bounds
    (`[:-1]`, `[1:]`, `[::2]`), else None."""
    if not isinstance(node, gast.Slice):
        return None
    bounds = []
    for part in (node.lower, node.upper, node.step):
        if part is None:
            bounds.append(None)
        elif isinstance(part, gast.Constant) and type(part.value) is int:
            bounds.append(part.value)
        elif isinstance(part, gast.UnaryOp) and isinstance(part.op, gast.USub) and isinstance(
                part.operand, gast.Constant) and type(part.operand.value) is int:
            bounds.append(-part.operand.value)
        else:
            return None
    return None if bounds[2] == 0 else slice(*bounds)


def iterated(expr, parents):
    """Whether `expr` is what a for loop iterates, itself or enumerated."""
    up = parents.get(id(expr))
    if isinstance(up, gast.Call) and isinstance(up.func, gast.Name) and up.func.id == "enumerate" \
            and up.args == [expr] and not up.keywords:
        expr, up = up, parents.get(id(up))
    return isinstance(up, gast.For) and up.iter is expr
