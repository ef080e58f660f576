"""`if weights is None:` (or `isinstance(x, np.ndarray)`, `isinstance(x,
float)`, `x.ndim == 2`, `np.ndim(x) == 0`) on a parameter the function never reassigns
(or before it first reassigns it) is decided by the argument's kind: the derivative is generated for the kinds
it is called with (as numba specialises on types), so only the branch that
runs is differentiated and compiled (numba could not type the other one,
`np.moveaxis(a, None, -1)`). `hasattr(np, "name")` of a module is decided
too (code written for several numpy versions names a function that is
missing in the other branch). desugar.py then folds the constant test."""
import builtins
import types

import gast
import numpy as np

from ...analysis import kinds as K
from ...syntax import Transformer, const, names_stored


def run(tree, ctx):
    """Fold the tests of `tree` (in place) that the argument kinds answer."""
    params = [a.id for a in tree.args.args]
    stored = names_stored(tree.body)
    kinds = {p: k for p, k in zip(params, ctx.arg_kinds) if k is not None and k.known}
    known = {p: k for p, k in kinds.items() if p not in stored}
    _NoneTests(known, ctx.resolve).visit(tree)
    _before_rebinding(tree.body, {p: k for p, k in kinds.items() if p in stored}, ctx.resolve)
    return tree


def _before_rebinding(body, kinds, resolve):
    """A parameter the function rebinds still holds its argument in the
    top-level statements up to the first that rebinds it (that one's test
    or value included, evaluated first): `if w is None: w = np.ones(n)`,
    the idiom of a default, is decided there too."""
    rebound = set()
    for s in body:
        here = {p: k for p, k in kinds.items() if p not in rebound}
        if not here:
            return
        tests = _NoneTests(here, resolve)
        if isinstance(s, gast.If):
            s.test = tests.visit(s.test)
        elif isinstance(s, (gast.Assign, gast.Expr, gast.Return)) and s.value is not None:
            s.value = tests.visit(s.value)
        rebound |= names_stored([s])


# what isinstance(x, cls) is for an argument of each kind tag
# (a list or tuple of numbers is an array here; a list literal passed to a
# helper is a tuple: Kind.sequence says which Python had)
_INSTANCE = {np.ndarray: lambda k: k.is_array and k.sequence is None,
             builtins.list: lambda k: k.sequence == "list",
             builtins.tuple: lambda k: k.sequence == "tuple" or (
                 k.tag == "tuple" and k.sequence is None),
             builtins.float: lambda k: k.tag == "float",
             builtins.complex: lambda k: k.tag == "complex",
             builtins.bool: lambda k: k.tag == "bool",
             builtins.int: lambda k: k.tag in ("int", "bool")}  # (a bool is an int)


class _NoneTests(Transformer):
    def __init__(self, known, resolve):
        self.known, self.resolve = known, resolve

    def visit_Call(self, node):
        self.generic_visit(node)
        if len(node.args) == 2 and not node.keywords \
                and self.resolve(node.func) is builtins.hasattr \
                and isinstance(node.args[1], gast.Constant) and isinstance(node.args[1].value, str):
            module = self.resolve(node.args[0])
            if isinstance(module, types.ModuleType):  # hasattr(np, "trapezoid"): numpy's version
                return gast.copy_location(const(hasattr(module, node.args[1].value)), node)
        if not (len(node.args) == 2 and not node.keywords and isinstance(node.args[0], gast.Name)
                and node.args[0].id in self.known
                and self.resolve(node.func) is builtins.isinstance):
            return node
        classes = node.args[1].elts if isinstance(node.args[1], gast.Tuple) else [node.args[1]]
        tests = [_INSTANCE.get(_hashable(self.resolve(c))) for c in classes]
        if any(t is None for t in tests):
            return node  # a class whose instances the kinds do not tell
        kind = self.known[node.args[0].id]
        return gast.copy_location(const(any(t(kind) for t in tests)), node)

    def visit_FunctionDef(self, node):
        if hasattr(self, "_inside"):
            return node  # a nested function's own parameters
        self._inside = True
        self.generic_visit(node)
        return node

    def visit_Lambda(self, node):
        return node

    def visit_Name(self, node):
        """A string parameter (`mode`) is its text: strings are constants of
        the specialisation, so a rule needing a constant (`np.pad(x, 1,
        mode)`) sees one, and `mode == "edge"` folds below."""
        kind = self.known.get(node.id)
        if isinstance(node.ctx, gast.Load) and kind is not None and kind.tag == "str" \
                and kind.text is not None:
            return gast.copy_location(const(kind.text), node)
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) == 1 and isinstance(node.ops[0], (gast.Eq, gast.NotEq)) \
                and all(isinstance(v, gast.Constant) and isinstance(v.value, str)
                        for v in (node.left, node.comparators[0])):
            return gast.copy_location(const(_ORDER[type(node.ops[0])](
                node.left.value, node.comparators[0].value)), node)
        if len(node.ops) == 1 and isinstance(node.ops[0], tuple(_ORDER)):
            return self.ndim_test(node)
        if len(node.ops) != 1 or not isinstance(node.ops[0], (gast.Is, gast.IsNot)):
            return node
        left, right = node.left, node.comparators[0]
        if _is_none(left):
            left, right = right, left
        if not (_is_none(right) and isinstance(left, gast.Name) and left.id in self.known):
            return node
        is_none = self.known[left.id] == K.NONE
        return gast.copy_location(const(is_none == isinstance(node.ops[0], gast.Is)), node)


    def ndim_test(self, node):
        """`x.ndim == 2` or `np.ndim(x) < 2` on a parameter: decided by its
        kind (an array's ndim, 0 for a number), as numba decides it when it
        types the function."""
        left, right = node.left, node.comparators[0]
        if not (isinstance(right, gast.Constant) and type(right.value) is int):
            return node
        name = None
        if isinstance(left, gast.Attribute) and left.attr == "ndim":
            name = left.value
        elif isinstance(left, gast.Call) and len(left.args) == 1 and not left.keywords \
                and self.resolve(left.func) is np.ndim:
            name = left.args[0]
        if not (isinstance(name, gast.Name) and name.id in self.known):
            return node
        kind = self.known[name.id]
        if kind.is_array:
            ndim = kind.ndim
        elif kind.is_scalar:
            ndim = 0
        else:
            return node
        return gast.copy_location(const(_ORDER[type(node.ops[0])](ndim, right.value)), node)


_ORDER = {gast.Eq: lambda a, b: a == b, gast.NotEq: lambda a, b: a != b,
          gast.Lt: lambda a, b: a < b, gast.LtE: lambda a, b: a <= b,
          gast.Gt: lambda a, b: a > b, gast.GtE: lambda a, b: a >= b}


def _is_none(node):
    return isinstance(node, gast.Constant) and node.value is None


def _hashable(obj):
    try:
        hash(obj)
        return obj
    except TypeError:
        return None
