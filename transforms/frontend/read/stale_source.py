"""A function's file edited after the function was defined: s2sad reads
the source from the file, so it would differentiate the new text while the
old code runs (a wrong gradient with no error). The file as it reads now
must compile, as Python compiled it, to the function's own bytecode at the
function's line; otherwise the derivative is refused."""
import ast
import importlib.machinery
import linecache
import os
import sys

from ...errors import SourceUnavailableError

_CHECKED = {}  # code object -> the file's lines (linecache's list) found to match it
_COMPILED = {}  # file name -> (its lines, the module's code object or None)


def check_source_is_current(fn, first_line):
    """SourceUnavailableError when the function's file, as linecache holds
    it now, is not the code `fn` runs."""
    code = fn.__code__
    held = linecache.cache.get(code.co_filename)
    lines = held[2] if held is not None and len(held) == 4 else None
    if lines is None or _CHECKED.get(code) is lines:
        return  # (a source linecache does not hold as a file's: nothing to compare with)
    if not _compiled_from_text(fn):
        return  # an import hook rewrote its code (typeguard, jaxtyping): nothing to compare with
    module = _module_code(code.co_filename, lines, fn.__globals__)
    if module is None and not os.path.isfile(code.co_filename):
        return  # not a file that compiled when imported (an exec'd string): cannot tell
    compiled = _function_code(module, code) if module is not None else None
    if compiled is None or compiled.co_code != code.co_code:
        raise SourceUnavailableError(
            f"{code.co_filename}:{first_line}: the source of {fn.__qualname__} in its file is "
            f"not the code that runs: the file has changed since {fn.__name__} was defined, "
            f"and s2sad differentiates the source it reads. Run the definition again (reload "
            f"the module with importlib.reload, or re-run the cell) and differentiate the new "
            f"function.")
    if len(_CHECKED) >= 1024:
        _CHECKED.clear()
    _CHECKED[code] = lines


def _compiled_from_text(fn):
    """Whether Python compiled fn's module from its text (or pytest, whose
    assertion rewriting _module_code repeats); a module without a loader
    (__main__, a notebook's cells) counts as compiled from its text."""
    loader = getattr(getattr(sys.modules.get(fn.__module__), "__spec__", None), "loader", None)
    return loader is None or "@py_builtins" in fn.__globals__ \
        or type(loader) is importlib.machinery.SourceFileLoader


def _module_code(filename, lines, namespace):
    """The file's text compiled as Python compiled the module (under pytest,
    with its assertion rewriting, which changes functions holding asserts);
    None if it does not compile."""
    known = _COMPILED.get(filename)
    if known is not None and known[0] is lines:
        return known[1]
    text = "".join(lines)
    try:
        if "@py_builtins" in namespace:  # a module pytest rewrote when importing it
            from _pytest.assertion.rewrite import rewrite_asserts
            tree = ast.parse(text.encode(), filename=filename)
            rewrite_asserts(tree, text.encode(), filename, None)
            module = compile(tree, filename, "exec", dont_inherit=True)
        else:
            module = compile(text, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, ImportError):
        module = None
    if len(_COMPILED) >= 64:
        _COMPILED.clear()
    _COMPILED[filename] = (lines, module)
    return module


def _function_code(module, code):
    """The code object in `module` of the function defined where `code` is."""
    todo = [module]
    while todo:
        c = todo.pop()
        for const in c.co_consts:
            if hasattr(const, "co_code"):
                if const.co_name == code.co_name and const.co_firstlineno == code.co_firstlineno:
                    return const
                todo.append(const)
    return None
