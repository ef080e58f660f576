"""Conversions between Python's ast and gast: what gast.ast_to_gast and
gast.gast_to_ast do, several times faster (gast's generic NodeTransformer,
with a method lookup and a dict per node, was most of the time taken to
parse a function and to print its derivative).

Node classes that gast converts field by field are converted here the same
way, and so are names and function definitions; the rare ones it converts
otherwise (class definitions, exception handlers, ...) are left to it. Contexts and operators
become shared instances, as ast.parse makes them. A negative number
becomes a unary minus of its magnitude, which ast.unparse parenthesises as
precedence requires (folding leaves negative constants, which it prints
bare: (-1.5) ** 2 would read back as -(1.5 ** 2))."""
import ast
import math

import gast
from gast.ast3 import Ast3ToGAst, GAstToAst3

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
        continue  # gast's own conversion (the module's docstring)
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
    convert = _CONVERTERS.get(cls)
    if convert is None:
        if cls not in _FIELDS:
            return _signed(gast.gast_to_ast(node))
        convert = _converter(cls)
    return convert(node)


# A function per node class converts a node field by field (as _pusher in
# syntax.py: a loop over the field names was most of the conversion)
_CONVERTERS = {}


def _converter(cls):
    target, fields = _FIELDS[cls]
    lines = ["def convert(node):"]
    for k, field in enumerate(fields):
        lines += [f"    v{k} = getattr(node, {field!r}, None)",
                  f"    if v{k}.__class__ is list:",
                  f"        v{k} = [to_ast(v) if isinstance(v, node_class) else v for v in v{k}]",
                  f"    elif isinstance(v{k}, node_class):",
                  f"        v{k} = to_ast(v{k})"]
    lines.append("    return target(" + ", ".join(f"{field}=v{k}" for k, field in enumerate(fields))
                 + ")")
    namespace = {"to_ast": to_ast, "node_class": gast.AST, "target": target}
    exec(compile("\n".join(lines), f"<to_ast of {cls.__name__}>", "exec"), namespace)  # noqa: S102
    _CONVERTERS[cls] = convert = namespace["convert"]
    return convert


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


# ---- ast -> gast ----------------------------------------------------------

_SHARED_G = {}  # ast context/operator class -> the gast instance every node shares
_FIELDS_G = {}  # ast class -> (gast class, fields)

for _name in dir(ast):
    _cls = getattr(ast, _name)
    if not (isinstance(_cls, type) and issubclass(_cls, ast.AST) and hasattr(gast, _name)):
        continue
    _target = getattr(gast, _name)
    if issubclass(_cls, (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)) \
            and not _cls._fields:
        _SHARED_G[_cls] = _target()
    elif _name in ("Name", "arg", "FunctionDef"):
        continue  # below
    elif _name != "Constant" and hasattr(Ast3ToGAst, "visit_" + _name):
        continue  # gast's own conversion (ast.NodeVisitor's visit_Constant
        # only dispatches to the visit_Num of Python < 3.8)
    elif set(_cls._fields) == set(_target._fields):
        _FIELDS_G[_cls] = (_target, _cls._fields)


def parse(source):
    """gast.parse(source), faster."""
    return to_gast(ast.parse(source))


def to_gast(node):
    """The gast tree of the ast tree `node` (a node or a list of nodes)."""
    if node.__class__ is list:
        return [to_gast(n) if isinstance(n, ast.AST) else n for n in node]
    cls = node.__class__
    shared = _SHARED_G.get(cls)
    if shared is not None:
        return shared
    spec = _FIELDS_G.get(cls)
    if spec is not None:
        target, fields = spec
        new = target.__new__(target)
        values = new.__dict__
        for field in fields:
            value = getattr(node, field, _MISSING)
            if value.__class__ is list:
                value = [to_gast(v) if isinstance(v, ast.AST) else v for v in value]
            elif isinstance(value, ast.AST):
                value = to_gast(value)
            elif value is _MISSING:
                continue
            values[field] = value
    elif cls is ast.Name:
        new = gast.Name(node.id, _SHARED_G[node.ctx.__class__], None, None)
    elif cls is ast.arg:  # a parameter
        new = gast.Name(node.arg, gast.Param(), _opt(node.annotation), node.type_comment)
    elif cls is ast.FunctionDef:
        new = gast.FunctionDef(node.name, to_gast(node.args), to_gast(node.body),
                               to_gast(node.decorator_list), _opt(node.returns),
                               node.type_comment, [])
    else:
        return gast.ast_to_gast(node)
    values = new.__dict__
    for attr in node._attributes:  # (line and column)
        value = getattr(node, attr, _MISSING)
        if value is not _MISSING:
            values[attr] = value
    return new


_MISSING = object()


def _opt(node):
    return None if node is None else to_gast(node)
