"""Find the source of a lambda: `s2sad.grad(lambda x: np.sum(np.sin(x)))`.

A lambda has no `def` line of its own: inspect gives the lines around it,
not the lambda. Its file (or notebook cell, which IPython registers in
linecache) is parsed and the lambda is the one whose body holds every
source position of the lambda's code (`co_positions`, Python 3.11): several
lambdas on one line are told apart by their columns, and a lambda inside
another by the smaller span. Without positions (Python < 3.11) a lambda is
identified by its line and parameter names, and refused when another lambda
on that line has the same parameters. A lambda that cannot be identified
exactly is refused: differentiating the wrong one would be the worst
outcome."""
import ast
import linecache

import gast

from ...errors import SourceLocation, SourceUnavailableError

_FILES = {}  # (filename, its text) -> parsed module (ast)


def lambda_tree(fn):
    """(gast FunctionDef named `lambda_<line>` returning the lambda's body,
    SourceLocation, source text whose line 1 is the lambda's first line)."""
    code = fn.__code__
    where = f"{code.co_filename}:{code.co_firstlineno}"
    node, lines = _find(fn, where)
    first = node.lineno
    last = node.end_lineno
    source = "".join(lines[first - 1:last])  # (line 1: the lambda's first line)
    params = node.args
    if params.vararg or params.kwarg:
        raise SourceUnavailableError(
            f"{where}: s2sad cannot differentiate a lambda with *args or **kwargs; give it "
            f"plain parameters.")
    body = gast.ast_to_gast(ast.copy_location(ast.Return(value=node.body), node.body))
    args = gast.ast_to_gast(node.args)
    fdef = gast.FunctionDef(name=f"lambda_{first}", args=args, body=[body],
                            decorator_list=[], returns=None, type_comment=None)
    gast.copy_location(fdef, gast.ast_to_gast(node))
    for n in gast.walk(fdef):  # line 1 is the lambda's first line
        if getattr(n, "lineno", None) is not None:
            n.lineno -= first - 1
            if getattr(n, "end_lineno", None) is not None:
                n.end_lineno -= first - 1
    location = SourceLocation(code.co_filename, first, f"lambda_{first}")
    return fdef, location, source


def _find(fn, where):
    code = fn.__code__
    linecache.checkcache(code.co_filename)
    lines = linecache.getlines(code.co_filename, fn.__globals__)
    if not lines:
        raise SourceUnavailableError(
            f"No source code is available for the lambda at {where}. s2sad reads a "
            f"function's source: define it in a file or a notebook cell, not with exec or "
            f"eval.")
    text = "".join(lines)
    key = (code.co_filename, text)
    if key not in _FILES:
        try:
            _FILES[key] = ast.parse(text)
        except SyntaxError:
            _FILES[key] = None
        if len(_FILES) > 64:
            _FILES.pop(next(iter(_FILES)))
    module = _FILES[key]
    if module is None:
        raise SourceUnavailableError(
            f"s2sad could not parse the source of the lambda at {where} (its file or cell "
            f"is not plain Python, e.g. it holds IPython magics). Define the function with "
            f"def in a cell of plain Python.")
    params = _parameters(code)
    candidates = [n for n in ast.walk(module) if isinstance(n, ast.Lambda)
                  and n.lineno == code.co_firstlineno and _parameter_names(n) == params]
    positions = _positions(code)
    if positions:  # (none: identified by line and parameters only)
        candidates = [n for n in candidates if all(_inside(p, n.body) for p in positions)]
        candidates.sort(key=_span_size)
        if len(candidates) > 1 and _span_size(candidates[0]) == _span_size(candidates[1]):
            candidates = candidates[:2]  # two of the same span: ambiguous
        else:
            candidates = candidates[:1]
    if len(candidates) != 1:
        found = "no lambda" if not candidates else "several lambdas"
        raise SourceUnavailableError(
            f"s2sad cannot tell which lambda at {where} to differentiate ({found} with "
            f"parameters ({', '.join(params)}) there match its code; has the file changed "
            f"since it was loaded?). Define the function with def, or put the lambda on a "
            f"line of its own.")
    return candidates[0], lines


def _parameters(code):
    return tuple(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])


def _parameter_names(node):
    a = node.args
    return tuple(p.arg for p in list(a.posonlyargs) + list(a.args) + list(a.kwonlyargs))


def _positions(code):
    """The (line, end line, column, end column) of every instruction with a
    position (the code's own start has none worth keeping), or None before
    Python 3.11."""
    if not hasattr(code, "co_positions"):
        return None
    out = set()
    for p in code.co_positions():
        if None in p or (p[2] == 0 and p[3] == 0):
            continue
        out.add(p)
    return out


def _inside(position, node):
    line, end_line, col, end_col = position
    start = (node.lineno, node.col_offset)
    end = (node.end_lineno, node.end_col_offset)
    return start <= (line, col) and (end_line, end_col) <= end


def _span_size(node):
    return (node.end_lineno - node.lineno, node.end_col_offset - node.col_offset
            if node.end_lineno == node.lineno else node.end_col_offset)
