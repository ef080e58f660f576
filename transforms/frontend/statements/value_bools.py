"""`a or b` and `a and b` used as values. Python's `or` gives its first
truthy operand (else the last) and `and` its first falsy one (else the
last): `w = y or 1.0` is y when y is not zero. Taken as a bool, the operands
lost their gradient (a wrong gradient with no error). Where the value is
used, an and/or with an operand that is not a bool (a comparison, `not`,
isinstance, a bool constant) is written as the conditional expressions it
means, which keep Python's short circuit: `a or rest` is `a if a else
rest`, `a and rest` is `rest if a else a` (the normaliser makes them
statements). An operand that is tested and returned is evaluated twice, so
one calling a function s2sad differentiates through its source (which may
have effects) is refused. In a test (`if`, `while`, `assert`, `not`, a
conditional expression's test) only the truth matters: left as it is."""
import builtins

import gast
import numpy as np

from ...errors import UnsupportedSyntaxError
from ...syntax import Transformer, clone, const, walk
from ..containers.common import is_user_function

_BOOLEAN_CALLS = {builtins.isinstance, builtins.hasattr, builtins.bool, builtins.callable,
                  builtins.all, builtins.any, np.all, np.any, np.isnan, np.isinf,
                  np.isfinite, np.allclose, np.array_equal}


def run(tree, ctx):
    """Rewrite the and/or values of `tree` (a FunctionDef) in place."""
    if not any(n.__class__ is gast.BoolOp for n in walk(tree)):  # (most functions have none)
        return None
    _ValueBools(ctx.location, ctx.safe_resolve).visit(tree)
    return tree


class _ValueBools(Transformer):
    def __init__(self, location, resolve):
        self.location, self.resolve = location, resolve

    def _tested(self, node):
        """An expression whose truth alone is used: its and/or stay, its
        other parts are visited."""
        if isinstance(node, gast.BoolOp):
            node.values = [self._tested(v) for v in node.values]
            return node
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
            node.operand = self._tested(node.operand)
            return node
        return self.visit(node)

    def visit_If(self, node):
        node.test = self._tested(node.test)
        node.body = [self.visit(s) for s in node.body]
        node.orelse = [self.visit(s) for s in node.orelse]
        return node

    visit_While = visit_If

    def visit_Assert(self, node):
        node.test = self._tested(node.test)
        return node

    def visit_IfExp(self, node):
        node.test = self._tested(node.test)
        node.body, node.orelse = self.visit(node.body), self.visit(node.orelse)
        return node

    def visit_UnaryOp(self, node):
        if isinstance(node.op, gast.Not):
            node.operand = self._tested(node.operand)
            return node
        self.generic_visit(node)
        return node

    def visit_comprehension(self, node):
        node.iter = self.visit(node.iter)
        node.ifs = [self._tested(t) for t in node.ifs]
        return node

    def visit_BoolOp(self, node):
        node.values = [self.visit(v) for v in node.values]
        if all(self._boolean(v) for v in node.values):
            return node  # (a bool whichever operand it is)
        for v in node.values[:-1]:
            for n in walk(v):
                if isinstance(n, gast.Call) and is_user_function(self._resolve(n.func)):
                    raise UnsupportedSyntaxError(
                        "`and`/`or` used as a value, with an operand calling a function "
                        "s2sad differentiates through its source", self.location, node,
                        "Assign that call to a name first (v = f(x); w = v or default)")
        out = node.values[-1]
        for v in reversed(node.values[:-1]):
            if isinstance(node.op, gast.Or):   # a or rest: a if a else rest
                out = gast.IfExp(test=clone(v), body=v, orelse=out)
            else:                              # a and rest: rest if a else a
                out = gast.IfExp(test=clone(v), body=out, orelse=v)
        return gast.copy_location(out, node)

    def _resolve(self, node):
        try:
            return self.resolve(node)
        except Exception:  # noqa: BLE001 - a local name
            return None

    def _boolean(self, node):
        if isinstance(node, gast.Compare):
            return True
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not):
            return True
        if isinstance(node, gast.Constant):
            return isinstance(node.value, bool)
        if isinstance(node, gast.BoolOp):
            return all(self._boolean(v) for v in node.values)
        if isinstance(node, gast.Call):
            try:
                return self._resolve(node.func) in _BOOLEAN_CALLS
            except TypeError:  # (an unhashable object)
                return False
        return False
