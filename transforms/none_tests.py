"""`if weights is None:` on a parameter the function never reassigns is
decided by the argument's kind: the derivative is generated for the kinds
it is called with (as numba specialises on types), so only the branch that
runs is differentiated and compiled (numba could not type the other one,
`np.moveaxis(a, None, -1)`). desugar.py then folds the constant test."""
import gast

from . import kinds as K
from .syntax import const, names_stored


def fold_none_tests(tree, arg_kinds):
    params = [a.id for a in tree.args.args]
    stored = names_stored(tree.body)
    known = {p: k for p, k in zip(params, arg_kinds)
             if p not in stored and k is not None and k.known}
    if known:
        _NoneTests(known).visit(tree)
    return tree


class _NoneTests(gast.NodeTransformer):
    def __init__(self, known):
        self.known = known

    def visit_FunctionDef(self, node):
        if hasattr(self, "_inside"):
            return node  # a nested function's own parameters
        self._inside = True
        self.generic_visit(node)
        return node

    def visit_Lambda(self, node):
        return node

    def visit_Compare(self, node):
        self.generic_visit(node)
        if len(node.ops) != 1 or not isinstance(node.ops[0], (gast.Is, gast.IsNot)):
            return node
        left, right = node.left, node.comparators[0]
        if _is_none(left):
            left, right = right, left
        if not (_is_none(right) and isinstance(left, gast.Name) and left.id in self.known):
            return node
        is_none = self.known[left.id] == K.NONE
        return gast.copy_location(const(is_none == isinstance(node.ops[0], gast.Is)), node)


def _is_none(node):
    return isinstance(node, gast.Constant) and node.value is None
