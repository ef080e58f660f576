"""Unparse generated functions to source, with the user's original line as
a comment above each group of adjoint statements."""
import gast

from .gast_unparse import printer

_INDENT = "    "

# The user's line (1 = the def line) each generated line comes from, by the
# generated function's text: s2sad/diagnose.py reads it to name the user's
# line of an error raised in the forward sweep, which has no comment.
ORIGINS = {}


def _unparse(node):
    """ast.unparse's text of the gast tree `node` (gast_unparse.py)."""
    return printer()(node)


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
    origins = {}
    _block(fn_def.body, 1, lines, source_line, origins)
    text = "\n".join(lines) + "\n"
    if origins:  # (by physical line: a docstring may span several)
        physical, row = [], 0
        for entry in lines:
            physical.append(row)
            row += entry.count("\n") + 1
        if len(ORIGINS) >= 4096:  # (a long session: the oldest go first)
            del ORIGINS[next(iter(ORIGINS))]
        ORIGINS[text.rstrip()] = {physical[k]: line for k, line in origins.items()}
    return text


def _block(stmts, depth, lines, source_line, origins, previous=None):
    """`previous`: the user's line whose comment stands above the block
    (not repeated for a first statement from the same line)."""
    pad = _INDENT * depth
    for s in stmts:
        origin = getattr(s, "s2sad_line", None) or getattr(s, "lineno", None)
        line = getattr(s, "s2sad_line", None)
        if line is not None and line != previous and source_line is not None:
            text = source_line(line)
            if text:
                lines.append(f"{pad}# {text}")
        if line is not None:  # (bookkeeping between, restores and checks, has none)
            previous = line
        comment = getattr(s, "s2sad_comment", None)
        if comment:
            lines.append(f"{pad}# {comment}")
        if origin:
            origins[len(lines)] = origin
        if isinstance(s, gast.If):
            _if(s, depth, lines, source_line, origins, previous=previous)
        elif isinstance(s, gast.For):
            lines.append(f"{pad}for {expr_source(s.target)} in {expr_source(s.iter)}:")
            _block(s.body or [gast.Pass()], depth + 1, lines, source_line, origins, previous)
        elif isinstance(s, gast.While):
            lines.append(f"{pad}while {expr_source(s.test)}:")
            _block(s.body or [gast.Pass()], depth + 1, lines, source_line, origins, previous)
        else:
            for text in stmt_source(s).splitlines():
                lines.append(pad + text)


def _if(s, depth, lines, source_line, origins, keyword="if", previous=None):
    pad = _INDENT * depth
    lines.append(f"{pad}{keyword} {expr_source(s.test)}:")
    _block(s.body or [gast.Pass()], depth + 1, lines, source_line, origins, previous)
    if len(s.orelse) == 1 and isinstance(s.orelse[0], gast.If) \
            and getattr(s.orelse[0], "s2sad_line", None) is None:
        origin = getattr(s.orelse[0], "lineno", None)
        if origin:
            origins[len(lines)] = origin
        _if(s.orelse[0], depth, lines, source_line, origins, "elif", previous)
    elif s.orelse:
        lines.append(f"{pad}else:")
        _block(s.orelse, depth + 1, lines, source_line, origins, previous)
