"""Rewrites of a generated program's spelling that avoid the features of
known bugs (generator.KNOWN_BUGS) without changing what it computes."""
import ast
import math
import re

import numpy as np


def _scaled(e):
    """`1.0 * e`: the same value, in fresh memory, and not a plain copy."""
    return ast.BinOp(left=ast.Constant(1.0), op=ast.Mult(), right=e)


_INT_NAME = re.compile(r"(i|it|n)\d+$|k$")     # the generator's int variables


def _constant_value(e):
    """The value of an expression without variables (after folding), or None."""
    if any(isinstance(n, ast.Name) and n.id not in ("np", "math", "stop_gradient", "s2sad")
           for n in ast.walk(e)):
        return None
    try:
        v = eval(compile(ast.Expression(ast.fix_missing_locations(e)), "<const>", "eval"),
                 {"np": np, "math": math, "stop_gradient": lambda v: v,
                  "s2sad": type("s2sad", (), {"stop_gradient": staticmethod(lambda v: v)})})
    except Exception:
        return None
    return float(v) if np.ndim(v) == 0 else None


def _is_copy(e):
    """A plain copy: a name, `np.copy(...)`, `a.copy()`."""
    if isinstance(e, ast.Name):
        return True
    if isinstance(e, ast.Call):
        f = ast.unparse(e.func)
        return f == "np.copy" or (f.endswith(".copy") and not e.args)
    return False


def _uncopied(e):
    if isinstance(e, ast.Name):
        return _scaled(e)
    if isinstance(e.func, ast.Attribute) and e.func.attr == "copy" and not e.args:
        return _scaled(e.func.value)
    return _scaled(e.args[0])


class _Spellings(ast.NodeTransformer):
    """Features that are spellings of otherwise generated code: each one
    either kept (and recorded as used) or rewritten away when avoided."""

    def __init__(self, g):
        self.g = g
        self.written = set()   # arrays written through subscripts in this function

    def feature(self, name):
        if self.g.ok(name):
            self.g.use(name)
            return True
        return False

    def visit_FunctionDef(self, node):
        self.written = {t.value.id for n in ast.walk(node) if isinstance(n, (ast.Assign, ast.AugAssign))
                        for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                        if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name)}
        self.generic_visit(node)
        return node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Pow):
            base = _constant_value(node.left)
            if base is not None and base < 0 and not self.feature("neg_const_pow"):
                node.left = ast.Constant(-base)
        if isinstance(node.op, (ast.Add, ast.Sub, ast.Mod)):
            # `s + c` gives s the adjoint of the sum as is: a copy
            for side in (("left", "right") if not isinstance(node.op, ast.Mod) else ("left",)):
                v = getattr(node, side)
                if isinstance(v, ast.Name) and not _INT_NAME.match(v.id) \
                        and not self.feature("copy_after_loop"):
                    setattr(node, side, _scaled(getattr(node, side)))
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        f = ast.unparse(node.func)
        if f == "s2sad.stop_gradient" and not self.feature("stop_gradient_attr"):
            node.func = ast.Name(id="stop_gradient", ctx=ast.Load())
        if f.startswith("helper_") or f == "float":
            # the argument's adjoint is the vjp's result (or the seed) as is: a copy
            for i, a in enumerate(node.args):
                if isinstance(a, ast.Name) and not _INT_NAME.match(a.id) \
                        and not self.feature("copy_after_loop"):
                    node.args[i] = _scaled(a)
            for kw in node.keywords:
                if isinstance(kw.value, ast.Name) and not _INT_NAME.match(kw.value.id) \
                        and not self.feature("copy_after_loop"):
                    kw.value = _scaled(kw.value)
        return node

    def visit_IfExp(self, node):
        self.generic_visit(node)
        for side in ("body", "orelse"):
            v = getattr(node, side)
            if isinstance(v, ast.Name) and not _INT_NAME.match(v.id) \
                    and not self.feature("copy_after_loop"):
                setattr(node, side, _scaled(v))
        return node

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if isinstance(node.value, ast.Subscript) and isinstance(node.ctx, ast.Load) \
                and not self.feature("chained_subscript"):
            node.value = _scaled(node.value)
        return node

    def visit_Assign(self, node):
        self.generic_visit(node)
        t = node.targets[0]
        values = node.value.elts if isinstance(t, ast.Tuple) and isinstance(node.value, ast.Tuple) \
            else [node.value]
        new = []
        for v in values:
            if _is_copy(v) and not self.feature("copy_after_loop"):
                v = _uncopied(v)
            new.append(v)
        if isinstance(t, ast.Tuple) and isinstance(node.value, ast.Tuple):
            node.value.elts = new
        else:
            node.value = new[0]
        if isinstance(t, ast.Subscript) and isinstance(node.value, ast.Subscript) \
                and isinstance(t.value, ast.Name) and isinstance(node.value.value, ast.Name) \
                and t.value.id == node.value.value.id and not self.feature("element_self_copy"):
            node.value = _scaled(node.value)
        return node

    def visit_Return(self, node):
        self.generic_visit(node)
        elts = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
        for i, e in enumerate(elts):
            if isinstance(node.value, ast.Tuple) and isinstance(e, ast.Subscript) \
                    and not self.feature("tuple_output_subscript"):
                elts[i] = _scaled(e)
            elif isinstance(e, ast.Name) and e.id in self.written \
                    and not self.feature("array_output_restored"):
                elts[i] = _scaled(e)
        if not isinstance(node.value, ast.Tuple):
            node.value = elts[0]
        return node


def _postprocess(g, tree):
    tree = ast.fix_missing_locations(_Spellings(g).visit(tree))
    return ast.unparse(tree).replace("\ndef ", "\n\n\ndef ") + "\n"
