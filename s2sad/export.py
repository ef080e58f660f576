"""Write a derivative as a standalone Python module that needs only numpy
and numba (and scipy where it calls scipy): the runtime helpers it calls are
copied in (s2sad/export_runtime.py), and objects from the user's modules
(numba kernels, ...) are imported from where they are defined."""
import importlib
import os

from .version import __version__
from .export_runtime import runtime_source
from .transforms.errors import S2sadValueError

_RUNTIME_IMPORT = "from s2sad.runtime import "


def export(derivative, path):
    """Write the generated module of `derivative` (for the argument kinds of
    its last call) to `path`. Its functions are numba-compiled when the
    module is imported (set S2SAD_EXPORT_JIT=0 to run them as Python).
    Returns the name of the derivative function in the module (its
    `__all__`)."""
    entry = derivative.specialisation()
    gen = entry.generated
    lines = gen.source.splitlines()
    body = [ln for ln in lines if not ln.startswith(_RUNTIME_IMPORT)]
    doc_end = _docstring_end(body)
    imports = ["import os", ""] + [_import_line(name, obj) for name, obj in sorted(gen.namespace.items())]
    helpers = runtime_source(gen.source)
    functions = ", ".join(repr(f) for f in gen.functions)
    from .backend import uses_prange  # (backend imports this module through cache)
    # functions with prange loops run them in parallel
    parallel = ", ".join(repr(f) for f in gen.functions if uses_prange(gen.source, f))
    footer = [
        "",
        "",
        "if os.environ.get('S2SAD_EXPORT_JIT', '1') != '0':",
        "    import numba",
        f"    for _name in ({functions},):",
        "        globals()[_name] = numba.njit(cache=True, error_model='numpy',",
        f"                                      parallel=_name in ({parallel}{',' if parallel else ''}))(globals()[_name])",
        "",
    ]
    text = "\n".join(body[:doc_end] + imports + ["", f"__all__ = [{gen.entry!r}]"]
                     + ["", "", f"# ---- the helpers of s2sad {__version__}'s runtime it calls ----",
                        helpers, "", "# ---- the derivative ----"]
                     + body[doc_end:] + footer)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)
    return gen.entry


def _docstring_end(lines):
    if not lines or not lines[0].startswith('"""'):
        return 0
    if lines[0].count('"""') >= 2:
        return 1
    for k in range(1, len(lines)):
        if '"""' in lines[k]:
            return k + 1
    return 0


def _import_line(name, obj):
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None) or getattr(
        getattr(obj, "py_func", None), "__qualname__", None)
    if not module or not qualname or module == "__main__" or "<" in qualname:
        raise S2sadValueError(
            f"cannot export: the derivative uses {name!r} ({obj!r}), which is not importable "
            f"from a module. Define it in a module of its own (not __main__) and try again.")
    try:
        found = importlib.import_module(module)
        for part in qualname.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError):
        raise S2sadValueError(f"cannot export: {module}.{qualname} (used as {name!r}) cannot be "
                         f"imported") from None
    return f"from {module} import {qualname} as {name}" if qualname != name else \
        f"from {module} import {name}"
