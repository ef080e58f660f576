"""gast trees to Python's ast, for ast.unparse: what gast.gast_to_ast does,
several times faster (a generic NodeTransformer with a method lookup and a
dict per node was most of the time taken to print a derivative).

Node classes that gast converts field by field are converted here the same
way; those it converts specially (`arguments`, function and class
definitions, exception handlers) are left to it. Contexts and operators
become shared instances, as ast.parse makes them. A negative number
becomes a unary minus of its magnitude, which ast.unparse parenthesises as
precedence requires (folding leaves negative constants, which it prints
bare: (-1.5) ** 2 would read back as -(1.5 ** 2))."""
import ast
import math

import gast
from gast.ast3 import GAstToAst3

_SHARED = {}   # gast context/operator class -> the ast instance every node shares
_FIELDS = {}   # gast class -> (ast class, fields converted one by one)
_SPECIAL = {"Name": ("id", "ctx"), "Assign": ("targets", "value")}  # gast drops the rest

for _name in dir(gast):
    _cls = getattr(gast, _name)
    if not (isinstance(_cls, type) and issubclass(_cls, gast.AST) and hasattr(ast, _name)):
        continue
    _target = getattr(ast, _name)
    if issubclass(_cls, (gast.expr_context, gast.operator, gast.unaryop, gast.cmpop,
                         gast.boolop)) and not _cls._fields:
        _SHARED[_cls] = _target()
    elif _name in _SPECIAL:
        _FIELDS[_cls] = (_target, _SPECIAL[_name])
    elif _name != "Constant" and hasattr(GAstToAst3, "visit_" + _name):
        continue  # gast's own conversion (see below)
    elif _cls._fields == _target._fields:
        _FIELDS[_cls] = (_target, _cls._fields)


def to_ast(node):
    """The ast tree of the gast tree `node` (a node or a list of nodes)."""
    if node.__class__ is list:
        return [to_ast(n) if isinstance(n, gast.AST) else n for n in node]
    cls = node.__class__
    shared = _SHARED.get(cls)
    if shared is not None:
        return shared
    if cls is gast.Constant:
        value = node.value
        if isinstance(value, (int, float)) and math.copysign(1.0, value) < 0:
            return ast.UnaryOp(op=ast.USub(), operand=ast.Constant(value=-value))
        return ast.Constant(value=value, kind=node.kind)
    spec = _FIELDS.get(cls)
    if spec is None:
        return _signed(gast.gast_to_ast(node))
    target, fields = spec
    values = {}
    for field in fields:
        value = getattr(node, field, None)
        if value.__class__ is list:
            value = [to_ast(v) if isinstance(v, gast.AST) else v for v in value]
        elif isinstance(value, gast.AST):
            value = to_ast(value)
        values[field] = value
    return target(**values)


class _SignedConstants(ast.NodeTransformer):
    def visit_Constant(self, node):
        value = node.value
        if isinstance(value, (int, float)) and not isinstance(value, bool) \
                and math.copysign(1.0, value) < 0:
            return ast.UnaryOp(op=ast.USub(), operand=ast.Constant(value=-value))
        return node


def _signed(tree):
    """A subtree gast converted, its negative numbers as in to_ast."""
    if any(n.__class__ is ast.Constant and isinstance(n.value, (int, float))
           and not isinstance(n.value, bool) and math.copysign(1.0, n.value) < 0
           for n in ast.walk(tree)):
        tree = _SignedConstants().visit(tree)
    return tree
