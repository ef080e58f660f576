"""Unparse generated functions to source, with the user's original line as
a comment above each group of adjoint statements."""
import ast

import gast

from ..ast_convert import to_ast

_INDENT = "    "


def _unparse(node):
    tree = to_ast(node)
    _number_statements(tree)
    return ast.unparse(tree)


def _number_statements(tree):
    """ast.unparse reads a statement's line number (for type comments), and
    nothing else's: cheaper than ast.fix_missing_locations."""
    if isinstance(tree, ast.stmt):
        tree.lineno = 1
        for field in ("body", "orelse"):
            for s in getattr(tree, field, ()):
                _number_statements(s)


stmt_source = _unparse


def expr_source(node):
    """An expression's source. A chain `a and b and c` prints without the
    parentheses ast.unparse puts around its later operands."""
    if isinstance(node, gast.BoolOp):
        word = " and " if isinstance(node.op, gast.And) else " or "
        return word.join(f"({_unparse(v)})" if isinstance(v, (gast.BoolOp, gast.IfExp))
                         else _unparse(v) for v in node.values)
    return _unparse(node)


def function_source(fn_def, source_line=None, docstring=None):
    """`fn_def` is a gast.FunctionDef whose statements may carry
    `s2sad_line` (line number in the user's function); `source_line(n)`
    gives that line's text."""
    args = ", ".join(a.id for a in fn_def.args.args)
    lines = [f"def {fn_def.name}({args}):"]
    if docstring:
        lines.append(f'{_INDENT}"""{docstring}"""')
    _block(fn_def.body, 1, lines, source_line)
    return "\n".join(lines) + "\n"


def _block(stmts, depth, lines, source_line):
    pad = _INDENT * depth
    previous = None
    for s in stmts:
        line = getattr(s, "s2sad_line", None)
        if line is not None and line != previous and source_line is not None:
            text = source_line(line)
            if text:
                lines.append(f"{pad}# {text}")
        previous = line
        comment = getattr(s, "s2sad_comment", None)
        if comment:
            lines.append(f"{pad}# {comment}")
        if isinstance(s, gast.If):
            _if(s, depth, lines, source_line)
        elif isinstance(s, gast.For):
            lines.append(f"{pad}for {expr_source(s.target)} in {expr_source(s.iter)}:")
            _block(s.body or [gast.Pass()], depth + 1, lines, source_line)
        elif isinstance(s, gast.While):
            lines.append(f"{pad}while {expr_source(s.test)}:")
            _block(s.body or [gast.Pass()], depth + 1, lines, source_line)
        else:
            for text in stmt_source(s).splitlines():
                lines.append(pad + text)


def _if(s, depth, lines, source_line, keyword="if"):
    pad = _INDENT * depth
    lines.append(f"{pad}{keyword} {expr_source(s.test)}:")
    _block(s.body or [gast.Pass()], depth + 1, lines, source_line)
    if len(s.orelse) == 1 and isinstance(s.orelse[0], gast.If) \
            and getattr(s.orelse[0], "s2sad_line", None) is None:
        _if(s.orelse[0], depth, lines, source_line, "elif")
    elif s.orelse:
        lines.append(f"{pad}else:")
        _block(s.orelse, depth + 1, lines, source_line)
