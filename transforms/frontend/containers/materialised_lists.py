"""A list a comprehension built is kept as an array (comprehensions.py):
its uses where a list and an array differ (`+` or `*`, a method, a
comparison, passing it to a helper s2sad reads) are refused, and
`np.array(v)` of it is a copy of the array (numba has no np.array of an
array), `sum(v)` the sum over its first axis as Python's sum adds the
elements."""
import builtins

import gast

from .common import is_builtin, list_only_use, stacks
from ...errors import UnsupportedSyntaxError
from ...syntax import Transformer, call, const


def run(tree, ctx):
    if not ctx.materialised:
        return None
    _check_list_uses(tree, ctx.materialised, ctx.location, ctx.resolve)
    _CopiesOfMaterialised(ctx.materialised, ctx.resolve).visit(tree)
    return tree


def _check_list_uses(fn_tree, names, location, resolve):
    """A materialised list is an array: refuse the uses where a list and an
    array differ."""
    found = list_only_use(fn_tree, names, resolve)
    if found is not None:
        node, bad = found
        raise UnsupportedSyntaxError(
            f"{bad} built by a comprehension (s2sad keeps it as an array)", location, node,
            "Convert it with np.array(...) and use array operations")


class _CopiesOfMaterialised(Transformer):
    """np.array(v) of a materialised list is a copy of its array (numba
    has no np.array of an array)."""

    def __init__(self, names, resolve):
        self.names, self.resolve = names, resolve

    def visit_Call(self, node):
        self.generic_visit(node)
        if len(node.args) == 1 and not node.keywords and isinstance(node.args[0], gast.Name) \
                and node.args[0].id in self.names and stacks(self.resolve, node.func):
            return gast.copy_location(call("np.copy", node.args[0]), node)
        if 1 <= len(node.args) <= 2 and not node.keywords and isinstance(node.args[0], gast.Name) \
                and node.args[0].id in self.names and is_builtin(self.resolve, node.func,
                                                                 builtins.sum):
            # Python's sum adds the elements, the array's first axis
            total = call("np.sum", node.args[0], keywords=[("axis", const(0))])
            if len(node.args) == 2:
                total = gast.BinOp(left=node.args[1], op=gast.Add(), right=total)
            return gast.copy_location(total, node)
        return node
