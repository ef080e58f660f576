"""Errors raised while a derivative runs (an index out of range, shapes that
do not broadcast), re-raised with the derivative, the user's line and what
to do.

numba's errors say neither where nor in which function ("index is out of
bounds"); when the compiled call failed quickly, the same arguments are run
again through the generated Python, whose traceback gives the generated
line. The comment above it in the generated source is the user's line, and
the generated function's docstring names the user's file."""
import ast
import inspect
import linecache
import os
import re

import numpy as np

from .transforms.emit.unparse import ORIGINS

# A compiled call that failed after this many seconds is not re-run as
# Python (about a hundred times slower) to locate the error.
RERUN_LIMIT = 0.05

_DOC_WHERE = re.compile(r"\(([^()]+):(\d+), in (\w+)\)")


def explain(exc, entry, args, compiled, elapsed):
    """An exception like `exc` (same type) whose message adds context."""
    located, message = _locate(exc), str(exc)
    if compiled:
        rerun = _rerun(entry, args) if elapsed < RERUN_LIMIT else None
        if rerun is not None and (isinstance(rerun, type(exc)) or isinstance(exc, type(rerun))):
            located, message = _locate(rerun), str(rerun) or message
    parts = [f"{message} (raised by the {'numba-compiled ' if compiled else ''}derivative "
             f"of {entry.label})"]
    if located:
        parts.append(located[0].upper() + located[1:])
    elif compiled:
        parts.append("numba does not report the line: run the derivative with jit=False to "
                     "get it in the traceback")
    parts.append(f"Arguments: {_describe_args(entry, args)}")
    parts.append(_advice(exc, entry))
    return _same_type(exc, ". ".join(p.rstrip(".") for p in parts if p) + ".")


def _rerun(entry, args):
    try:
        entry._python_call(*args)
    except Exception as again:
        return again
    return None


def _locate(exc):
    """'at file:line in f (`user code`), generated line N in fname: `code`',
    from the innermost frame of generated code in the traceback. When that
    frame has no line of the user's (s2sad's own definition of a numpy
    function, `np.convolve` raising for a 2-d array), the user's line is
    that of the innermost frame that has one: the call that reached it."""
    frames = []
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename.startswith("<s2sad "):
            frames.append((tb.tb_frame.f_code.co_filename, tb.tb_lineno,
                           tb.tb_frame.f_code.co_name))
        tb = tb.tb_next
    if not frames:
        return ""
    found = _frame_lines(*frames[-1])
    if found is None:
        return ""
    where, generated = found
    if where and not _in_s2sad(where):
        return f"at {where}, {generated}"
    for frame in reversed(frames[:-1]):
        outer = _frame_lines(*frame)
        if outer is not None and outer[0] and not _in_s2sad(outer[0]):
            inside = f" (in s2sad's definition {where})" if where else ""
            return f"at {outer[0]}{inside}, {generated}"
    return f"at {where}, {generated}" if where else generated


def _in_s2sad(where):
    """A location in s2sad's own files (its definitions of numpy functions)."""
    return where.startswith(_PACKAGE)


_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def _frame_lines(filename, lineno, fname):
    """(the user's line or "", 'generated line N in fname: `code`') of a
    frame of generated code; None when its source is not known."""
    lines = linecache.getlines(filename)
    if not 0 < lineno <= len(lines):
        return None
    code = lines[lineno - 1].strip()
    generated = f"generated line {lineno} in {fname}: `{code}`"
    comment, start = None, None
    for k in range(lineno - 2, -1, -1):
        text = lines[k].strip()
        if text.startswith("def "):
            start = k
            break
        if comment is None and text.startswith("# "):
            comment = text[2:]
    origin = _origin(lines, start, lineno)
    where = _user_line(lines, start, comment, code, origin)
    return where, generated


def _origin(lines, start, lineno):
    """The user's line (1 = the def line) that emit.py recorded for
    generated line `lineno` of the function whose def is at index `start`."""
    if start is None:
        return None
    end = next((k for k in range(start + 1, len(lines)) if lines[k].startswith("def ")),
               len(lines))
    text = "".join(lines[start:end]).rstrip()
    return ORIGINS.get(text, {}).get(lineno - 1 - start)


def _user_line(lines, def_index, comment, code, origin=None):
    """'file:line in f (`text`)' for the user's line that the generated line
    comes from (`origin`, recorded when it was emitted), that the comment
    above it repeats (reverse sweep) or, in the forward sweep (no such
    comment), that reads the same subscripts."""
    if def_index is None or def_index + 1 >= len(lines):
        return ""
    found = _DOC_WHERE.search(lines[def_index + 1])
    if not found:
        return ""
    path, first, func = found.group(1), int(found.group(2)), found.group(3)
    body = _function_lines(path, first)
    matches = []
    if origin is not None and first + origin - 1 in {k for k, _ in body}:
        matches = [first + origin - 1]
    if not matches and comment is not None:
        matches = [k for k, text in body if text.strip() == comment]
    if not matches:  # a forward statement (a fused loop's comment says what the loop does)
        subscripts = _subscripts(code)
        matches = [k for k, text in body
                   if subscripts and all(s in text.replace(" ", "") for s in subscripts)]
    if not matches:
        return ""
    text = linecache.getlines(path)[matches[0] - 1].strip()
    lines_text = " or ".join(f"{path}:{k}" for k in matches[:3])
    return f"{lines_text} in {func} (`{text}`)"


def _function_lines(path, first):
    """(line number, text) of the function whose def is at line `first`."""
    source = linecache.getlines(path)
    if not 0 < first <= len(source):
        return []
    indent = len(source[first - 1]) - len(source[first - 1].lstrip())
    out = []
    for k in range(first, len(source)):
        text = source[k]
        if text.strip() and len(text) - len(text.lstrip()) <= indent:
            break
        out.append((k + 1, text))
    return out


def _subscripts(code):
    try:
        tree = ast.parse(code.rstrip(":") + ("\n    pass" if code.endswith(":") else ""))
    except SyntaxError:
        return []
    return [ast.unparse(n).replace(" ", "") for n in ast.walk(tree) if isinstance(n, ast.Subscript)]


def _describe_args(entry, args):
    try:
        names = list(inspect.signature(getattr(entry.module.python, entry.fname)).parameters)
    except (TypeError, ValueError, AttributeError):
        names = [f"#{k}" for k in range(len(args))]
    out = []
    for n, a in zip(names, args):
        if isinstance(a, np.ndarray):
            out.append(f"{n} {a.dtype} array of shape {a.shape}")
        elif isinstance(a, (tuple, list)):
            out.append(f"{n} {type(a).__name__} of {len(a)}")
        else:
            out.append(f"{n} {type(a).__name__}")
    return ", ".join(out)


def _advice(exc, entry):
    parts = []
    if isinstance(exc, IndexError):
        parts.append("An index is out of range: check that the arguments' shapes fit how the "
                     "function indexes them.")
    elif isinstance(exc, RecursionError):
        parts.append("Recursion deeper than sys.getrecursionlimit(), compiled or not: check "
                     "the recursion's base case, or raise the limit with sys.setrecursionlimit.")
    elif isinstance(exc, ValueError) and re.search(r"broadcast|shape|size", str(exc)):
        parts.append("Check that the arguments' shapes agree.")
    if entry.hint:
        parts.append(entry.hint)
    parts.append("The generated code is in .source")
    return " ".join(parts)


def _same_type(exc, message):
    try:
        new = type(exc)(message)
    except Exception:  # an exception type with other constructor arguments
        exc.add_note(message)
        return exc
    return new
