"""A list that grows (growing_lists.py) changes between the forward sweep
and the reverse one: each read of it is its own statement, so that the
reverse sweep reads the value it gave, which is recorded as any other,
and never the list itself, whose elements and length are by then those
the function left it with:

    z = np.sin(hs[t]) * w        hs_t = hs[t]
                           ->    z = np.sin(hs_t) * w
    for k in range(len(hs)):     n_hs = len(hs)
        ...                      for k in range(n_hs): ...
    y = stack_list(hs) * 2.0     stacked = stack_list(hs)
                                 y = stacked * 2.0

`hs[i]` reads with any int index (negative too) and raises IndexError out
of range, compiled or not (numba checks a list's indices). A while loop's
test is read by the forward sweep alone, and stays as written.

Runs on normalised code with its kinds: a list is a name of kind list."""
import gast

from .common import STACK_LIST
from ...syntax import Transformer, assign, name


def run(tree, ctx):
    lists = {v for v, k in ctx.kinds.items() if k.tag == "list"}
    if not lists:
        return None
    reads = _Reads(lists, ctx)
    tree.body = reads.block(tree.body)
    return tree if reads.changed else None


class _Reads:
    def __init__(self, lists, ctx):
        self.lists, self.ctx = lists, ctx
        self.changed = False

    def block(self, stmts):
        out = []
        for s in stmts:
            out += self.statement(s)
        return out

    def statement(self, s):
        if isinstance(s, gast.If):
            before, s.test = self.hoisted(s.test, s)
            s.body, s.orelse = self.block(s.body), self.block(s.orelse)
            return before + [s]
        if isinstance(s, gast.For):
            before, s.iter = self.hoisted(s.iter, s)
            s.body, s.orelse = self.block(s.body), self.block(s.orelse)
            return before + [s]
        if isinstance(s, gast.While):  # (its test: the forward sweep's alone)
            s.body, s.orelse = self.block(s.body), self.block(s.orelse)
            return [s]
        if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) \
                and self.is_read(s.value):
            return [s]  # v = hs[i], n = len(hs): a read of its own already
        if isinstance(s, (gast.Assign, gast.Expr, gast.Return, gast.Raise)):
            before = []
            for field in ("value", "exc"):
                node = getattr(s, field, None)
                if isinstance(node, gast.AST):
                    more, new = self.hoisted(node, s)
                    before += more
                    setattr(s, field, new)
            if isinstance(s, gast.Assign):
                # x[hs[i]] = v, hs[i][j] = v: the reads in the target too
                more, s.targets[0] = self.hoisted(s.targets[0], s, target=True)
                before += more
            return before + [s]
        return [s]

    def is_list(self, node):
        return isinstance(node, gast.Name) and node.id in self.lists

    def is_read(self, node):
        """`hs[i]` (not a slice), `len(hs)` or `stack_list(hs)` of a list."""
        if isinstance(node, gast.Subscript) and self.is_list(node.value):
            return not isinstance(node.slice, gast.Slice)
        return isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
            and (self.ctx.safe_resolve(node.func) is len or node.func.id == STACK_LIST) \
            and len(node.args) == 1 and self.is_list(node.args[0])

    def hoisted(self, expr, src, target=False):
        """(statements binding the list reads in `expr` to names, `expr`
        reading those names)."""
        before = []
        reads = self

        class Hoist(Transformer):
            def visit_Subscript(self, node):
                node.value = self.visit(node.value)
                node.slice = self.visit(node.slice)
                if isinstance(node.ctx, gast.Load) and reads.is_read(node):
                    return reads.bind(node, _element_hint(node), src, before)
                return node

            def visit_Call(self, node):
                self.generic_visit(node)
                if reads.is_read(node):
                    hint = "stacked" if node.func.id == STACK_LIST else f"n_{node.args[0].id}"
                    return reads.bind(node, hint, src, before)
                return node

        new = Hoist().visit(expr)
        return before, new

    def bind(self, value, hint, src, before):
        tmp = self.ctx.namer.fresh(hint)
        before.append(assign(tmp, value, src=src))
        self.changed = True
        return name(tmp)


def _element_hint(read):
    """hs_t for hs[t], hs_0 for hs[0], hs_last for hs[-1], hs_minus2 for hs[-2],
    else hs_elem."""
    lst, index = read.value.id, read.slice
    if isinstance(index, gast.Name):
        return f"{lst}_{index.id}"
    if isinstance(index, gast.UnaryOp) and isinstance(index.op, gast.USub) \
            and isinstance(index.operand, gast.Constant):
        index = gast.Constant(value=-index.operand.value, kind=None)
    if isinstance(index, gast.Constant) and type(index.value) is int:
        return f"{lst}_{index.value}" if index.value >= 0 else \
            f"{lst}_last" if index.value == -1 else f"{lst}_minus{-index.value}"
    return f"{lst}_elem"
