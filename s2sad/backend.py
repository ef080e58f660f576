"""Turn generated source into callables: a module in the cache directory,
imported and registered in `sys.modules` (numba's cache needs both), its
functions compiled with `numba.njit(cache=True)`; or the same source run as
plain Python."""
import importlib.util
import linecache
import sys
import types
import warnings

import numba

from . import cache
from .errors import CacheWarning, JitError, NumbaFallbackWarning

# error_model="numpy": 1/0 gives inf and 0/0 nan, as numpy does, instead of
# raising; a derivative at a singularity is inf or nan, not an exception.
_NJIT_OPTIONS = dict(cache=True, error_model="numpy")


class CompiledModule:
    """A generated module, as Python and (lazily) as numba code. One per
    module name in a process: equal sources share their compiled code."""

    _loaded = {}

    @classmethod
    def get(cls, name, source, functions, namespace):
        module = cls._loaded.get(name)
        if module is None:
            module = cls._loaded[name] = cls(name, source, functions, namespace)
        return module

    def __init__(self, name, source, functions, namespace):
        self.name, self.source, self.functions = name, source, functions
        self.namespace = namespace  # globals the source names but cannot import
        self.python = self._exec_fresh()
        self._jit = None

    def _exec_fresh(self):
        module = types.ModuleType(self.name)
        filename = f"<s2sad {self.name}>"
        linecache.cache[filename] = (len(self.source), None, self.source.splitlines(True), filename)
        module.__dict__.update(self.namespace)
        exec(compile(self.source, filename, "exec"), module.__dict__)
        return module

    def jitted(self):
        """The module with every function replaced by its numba dispatcher."""
        if self._jit is None:
            module = self._import_from_cache()
            options = dict(_NJIT_OPTIONS)
            if module is None:  # in memory: numba cannot cache it
                module = self._exec_fresh()
                options["cache"] = False
            for fname in self.functions:
                fn = module.__dict__[fname]
                module.__dict__[fname] = numba.njit(**options)(fn)
            self._jit = module
        return self._jit

    def _import_from_cache(self):
        existing = sys.modules.get(self.name)
        if existing is not None and getattr(existing, "__s2sad_source__", None) == self.source:
            return existing
        try:
            path = cache.write_module(self.name, self.source)
        except OSError as exc:
            warnings.warn(CacheWarning(
                f"cannot write to the s2sad cache directory {cache.cache_dir()!r} ({exc}); "
                f"compiling in memory (set S2SAD_CACHE_DIR to a writable directory to "
                f"reuse compiled code across processes)"), stacklevel=4)
            return None
        spec = importlib.util.spec_from_file_location(self.name, path)
        module = importlib.util.module_from_spec(spec)
        module.__dict__.update(self.namespace)
        module.__s2sad_source__ = self.source
        sys.modules[self.name] = module  # numba's cache re-imports it by name
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[self.name]
            raise
        return module


class Entry:
    """Calls one generated function with numba, falling back to Python
    (with a warning) when numba refuses it, unless jit="require"."""

    def __init__(self, module, fname, jit, label):
        self.module, self.fname, self.jit, self.label = module, fname, jit, label
        self._call = None

    def __call__(self, *args):
        if self._call is None:
            self._call = self._prepare(args)
        return self._call(*args)

    def _prepare(self, args):
        python = getattr(self.module.python, self.fname)
        if not self.jit:
            return python
        try:
            dispatcher = getattr(self.module.jitted(), self.fname)
            dispatcher.compile(tuple(numba.typeof(a) for a in args))
            return dispatcher
        except Exception as exc:  # numba raises many kinds, internal ones too
            reason = _first_line(exc)
            if self.jit == "require":
                raise JitError(f"numba cannot compile the derivative of {self.label}: {reason}. "
                               f"Inspect it with .source; jit=True would run it as Python "
                               f"instead.") from exc
            warnings.warn(NumbaFallbackWarning(
                f"numba cannot compile the derivative of {self.label} ({reason}); running it "
                f"as plain Python. Pass jit=\"require\" to make this an error."), stacklevel=3)
            return python


def _first_line(exc):
    text = str(exc).strip()
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    useful = [ln for ln in lines if not ln.startswith(("Failed in nopython", "During:", "File"))]
    return f"{type(exc).__name__}: {(useful or lines or [''])[0]}"[:400]
