"""A local name bound once to a list or tuple literal becomes one variable
per element, read and written through constant indices; a whole use
(`np.sum(v)`, `return v`) is the literal again, a run-time index `v[i]`
reads `np.array(v)[i]`. `sum()` of a literal is a chain of additions, as
Python computes it (and `min`/`max` of one its elements, pairwise):

    v = [1.0, a, 3.0]            v_0, v_1, v_2 = (1.0, a, 3.0)
    y = v[1] * v[-1]      ->     y = v_1 * v_2
    z = sum([a, b])              z = 0 + a + b
    w = np.hstack(v + (b,))      w = np.hstack((v_0, v_1, v_2, b))
"""
import builtins

import gast

from .common import constant_index, is_builtin, is_user_function
from ...syntax import Transformer, call, clone, const, name, parents_of, store, walk


def run(fn_tree, ctx):
    _scalarise_literals(fn_tree, ctx.namer, ctx.resolve)
    _SumOfLiteral(ctx.resolve).visit(fn_tree)
    return fn_tree


def _scalarise_literals(fn_tree, namer, resolve):
    nodes = walk(fn_tree)  # (one walk for both questions)
    bindings = {}
    for node in nodes:
        for target in _stored_names(node):
            bindings.setdefault(target, []).append(node)
    candidates = {}
    for node in nodes:
        if isinstance(node, gast.Assign) and len(node.targets) == 1 and isinstance(
                node.targets[0], gast.Name) and isinstance(node.value, (gast.List, gast.Tuple)) \
                and len(bindings.get(node.targets[0].id, [])) == 1 \
                and not any(isinstance(e, gast.Starred) for e in node.value.elts):
            candidates[node.targets[0].id] = node
    if not candidates:
        return
    excluded = {a.id for a in walk(fn_tree.args) if isinstance(a, gast.Name)}
    for node in walk(fn_tree):  # another scope's names (a nested def or lambda)
        if isinstance(node, (gast.FunctionDef, gast.Lambda)) and node is not fn_tree:
            excluded |= {n.id for n in walk(node) if isinstance(n, gast.Name)}
    for v, stmt in list(candidates.items()):
        if v in excluded or not _uses_understood(fn_tree, v, stmt, len(stmt.value.elts),
                                                 resolve):
            del candidates[v]
    if not candidates:
        return
    parts = {v: [namer.fresh(f"{v}_{j}") for j in range(len(s.value.elts))]
             for v, s in candidates.items()}
    _Scalarise(candidates, parts).visit(fn_tree)


def _stored_names(node):
    if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store):
        return [node.id]
    return []


def _uses_understood(fn_tree, v, stmt, size, resolve):
    """Every use of `v` is an element read or write at a constant index, a
    read at a run-time index, a whole read that cannot change it (an
    argument of a function with a rule, a return value, unpacking,
    iteration) or len(v)."""
    parents = parents_of(fn_tree)
    for node in walk(fn_tree):
        if not (isinstance(node, gast.Name) and node.id == v) or node is stmt.targets[0]:
            continue
        parent = parents.get(id(node))
        if isinstance(parent, gast.Subscript) and parent.value is node:
            if any(isinstance(n, gast.Slice) for n in walk(parent.slice)):
                return False
            constant = constant_index(parent.slice, size) is not None
            if not isinstance(parent.ctx, gast.Load) and not (
                    constant and isinstance(stmt.value, gast.List)):
                return False
            continue
        if not isinstance(node.ctx, gast.Load):
            return False
        if isinstance(parent, gast.Call) and node in parent.args:
            if is_user_function(resolve(parent.func)) or not isinstance(
                    parent.func, (gast.Name, gast.Attribute)):
                return False  # a helper could change the list it is given
            continue
        if isinstance(parent, gast.Return) or (isinstance(parent, gast.For) and parent.iter is node):
            continue
        if isinstance(parent, gast.Assign) and parent.value is node and isinstance(
                parent.targets[0], gast.Tuple):
            continue  # a, b = v
        if _joined_with_literal(parent, node, type(stmt.value)):
            continue  # v + (w,): one literal
        return False
    return True


def _joined_with_literal(parent, node, kind):
    """`v + (w,)` or `[w] + v`: v joined with a literal of its own kind."""
    if not (isinstance(parent, gast.BinOp) and isinstance(parent.op, gast.Add)):
        return False
    other = parent.right if parent.left is node else parent.left
    return type(other) is kind and not any(isinstance(e, gast.Starred) for e in other.elts)


class _Scalarise(Transformer):
    def __init__(self, candidates, parts):
        self.candidates, self.parts = candidates, parts

    def literal(self, v):
        kind = type(self.candidates[v].value)
        return kind(elts=[name(p) for p in self.parts[v]], ctx=gast.Load())

    def visit_Assign(self, node):
        if len(node.targets) == 1 and isinstance(node.targets[0], gast.Name) \
                and node.targets[0].id in self.candidates \
                and self.candidates[node.targets[0].id] is node:
            v = node.targets[0].id
            value = self.visit(node.value)
            return gast.copy_location(gast.Assign(
                targets=[gast.Tuple(elts=[store(p) for p in self.parts[v]], ctx=gast.Store())],
                value=gast.Tuple(elts=value.elts, ctx=gast.Load()), type_comment=None), node)
        node = self.generic_visit(node)
        elements = getattr(node.value, "s2sad_elements", None)
        if elements and len(node.targets) == 1 and isinstance(node.targets[0], gast.Name):
            # `dst = bufs[k]`: in Python dst is one of the elements themselves,
            # here a copy of it (analysis/aliases.py refuses writes that tell)
            node.s2sad_element_of = elements
        return node

    def visit_Subscript(self, node):
        if isinstance(node.value, gast.Name) and node.value.id in self.candidates:
            v = node.value.id
            index = constant_index(node.slice, len(self.parts[v]))
            if index is not None:
                return gast.copy_location(name(self.parts[v][index], node.ctx), node)
            # a run-time index reads the elements as an array, as numpy would
            read = gast.copy_location(gast.Subscript(
                value=call("np.array", self.literal(v)), slice=self.visit(node.slice),
                ctx=node.ctx), node)
            read.s2sad_elements = (v, frozenset(self.parts[v]))
            return read
        return self.generic_visit(node)

    def visit_Call(self, node):
        if isinstance(node.func, gast.Name) and node.func.id == "len" and len(node.args) == 1 \
                and isinstance(node.args[0], gast.Name) and node.args[0].id in self.candidates:
            return const(len(self.parts[node.args[0].id]))
        return self.generic_visit(node)

    def visit_BinOp(self, node):
        node = self.generic_visit(node)
        left, right = node.left, node.right
        if isinstance(node.op, gast.Add) and type(left) is type(right) \
                and isinstance(left, (gast.Tuple, gast.List)) \
                and not any(isinstance(e, gast.Starred) for e in left.elts + right.elts):
            # (a, b) + (c,) is (a, b, c), as Python joins them
            return gast.copy_location(type(left)(elts=left.elts + right.elts, ctx=gast.Load()),
                                      node)
        return node

    def visit_For(self, node):
        if isinstance(node.iter, gast.Name) and node.iter.id in self.candidates:
            node.iter = call("np.array", self.literal(node.iter.id))
        return self.generic_visit(node)

    def visit_Name(self, node):
        if node.id in self.candidates and isinstance(node.ctx, gast.Load):
            return gast.copy_location(self.literal(node.id), node)
        return node


class _SumOfLiteral(Transformer):
    """sum([a, b, c]) is 0 + a + b + c, Python's order of additions; min(a,
    b, c) is min(min(a, b), c) (the first of equal values, as Python's), and
    min([a, b, c]) of a list or tuple written out is min(a, b, c)."""

    def __init__(self, resolve):
        self.resolve = resolve

    def visit_Call(self, node):
        self.generic_visit(node)
        for fn in (builtins.min, builtins.max):
            if is_builtin(self.resolve, node.func, fn) and len(node.args) == 1 \
                    and not node.keywords and isinstance(node.args[0], (gast.List, gast.Tuple)) \
                    and node.args[0].elts and not any(isinstance(e, gast.Starred)
                                                      for e in node.args[0].elts):
                if len(node.args[0].elts) == 1:
                    return node.args[0].elts[0]
                node.args = list(node.args[0].elts)
            if is_builtin(self.resolve, node.func, fn) and len(node.args) > 2 \
                    and not node.keywords and not any(isinstance(a, gast.Starred)
                                                      for a in node.args):
                nested = node.args[0]
                for a in node.args[1:]:
                    nested = gast.Call(func=clone(node.func), args=[nested, a], keywords=[])
                return gast.copy_location(nested, node)
        if is_builtin(self.resolve, node.func, builtins.sum) and len(node.args) in (1, 2) \
                and isinstance(node.args[0], (gast.List, gast.Tuple)) and not node.keywords \
                and not any(isinstance(e, gast.Starred) for e in node.args[0].elts):
            total = node.args[1] if len(node.args) == 2 else const(0)
            for e in node.args[0].elts:
                total = gast.BinOp(left=total, op=gast.Add(), right=e)
            return gast.copy_location(total, node) if hasattr(total, "lineno") else total
        return node
