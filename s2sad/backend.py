"""Turn generated source into callables: a module in the cache directory,
imported and registered in `sys.modules` (numba's cache needs both), its
functions compiled with `numba.njit(cache=True)`; or the same source run as
plain Python.

Thread safety: one lock per module name guards its import and the creation
of its numba dispatchers, and one lock per Entry guards its compilation, so
threads asking for the same derivative compile it once (numba serialises
its own compilations with a global lock)."""
import hashlib
import importlib.util
import linecache
import os
import re
import sys
import threading
import time
import types
import warnings

import numpy as np

from . import background, cache, diagnose, ieee, lazy_numba, recursion
from .checkpointing import MemoryBudgetExceeded
from .errors import CacheWarning, JitError, NumbaFallbackWarning, S2sadError
from .runtime.objects import object_scope

# error_model="numpy": 1/0 gives inf and 0/0 nan, as numpy does, instead of
# raising; a derivative at a singularity is inf or nan, not an exception.
# boundscheck: an index past the end raises IndexError instead of reading
# or writing memory that is not the array's (see README, "Bad input"); a
# generated function that checks its own indices (transforms/checks/bounds.py) is
# compiled without numba's check at every access.
_NJIT_OPTIONS = dict(cache=True, error_model="numpy")
# a module with prange loops: numba parallelises those loops only (not the
# whole-array expressions, whose sums would change order)
_PRANGE_ONLY = dict(prange=True, comprehension=False, setitem=False, reduction=False,
                    numpy=False, stencil=False, fusion=False, inplace_binop=False)

# Called as hook(module_name, function_name) whenever s2sad asks numba to
# compile (or load from its cache) a derivative: tests count compilations.
COMPILE_HOOKS = []

_modules_lock = threading.Lock()


def options_key(source, functions, boundscheck, checks_own_indices=()):
    """The part of the cache key that depends on compiler options (numba's
    own cache does not tell code compiled with different flags apart) and,
    for recursive code, on the recursion limit compiled into it."""
    key = f"boundscheck={bool(boundscheck)}"
    if boundscheck and checks_own_indices:
        key += ",except:" + ",".join(sorted(checks_own_indices))
    if recursion.recursive_functions(source, functions):
        key += f";recursionlimit={sys.getrecursionlimit()}"
    return key


def _numba():
    """numba, with s2sad's runtime registered in it (lazy_numba.py): imported
    at the first compile, not before (a few tenths of a second)."""
    import numba
    lazy_numba.register_all()
    return numba


_prefetch = []  # the thread importing numba while a child compiles (at most one)


def _ready_numba_target():
    """Fill numba's typing and target contexts (its registries of types and
    implementations), which it does at its first compile or cache load in a
    process: about 0.4 s of the first load of a child's code, here spent
    while the child compiles. Under numba's compiler lock, as numba does."""
    from numba.core.compiler_lock import global_compiler_lock
    from numba.core.registry import cpu_target
    with global_compiler_lock:
        cpu_target.typing_context.refresh()
        cpu_target.target_context.refresh()


def _prefetch_numba():
    """Import numba and fill its contexts in a thread while a child process
    compiles: this process needs both to load the child's code, and doing
    them then, after the compile, added most of a second before the switch.
    (A fork waits for the import: background.importing.)"""
    if _prefetch:  # (started once: the contexts, once filled, stay so)
        return

    def run():
        try:
            with background.importing():
                _numba()
                _ready_numba_target()
        except Exception:  # noqa: BLE001 - the load after the compile imports it and reports
            pass

    thread = threading.Thread(target=run, name="s2sad-numba-import", daemon=True)
    _prefetch[:] = [thread]
    thread.start()


def uses_prange(source, fname):
    """Whether the function `fname` of the module `source` has a prange loop."""
    start = source.find(f"\ndef {fname}(")
    if start < 0:
        return False
    end = source.find("\ndef ", start + 1)
    lines = source[start:end if end >= 0 else len(source)].splitlines()
    # (not the user's line quoted in a comment above an adjoint)
    return any(line.lstrip().startswith("for ") and " in prange(" in line for line in lines)


class CompiledModule:
    """A generated module, as Python and (lazily) as numba code. One per
    module name in a process: equal sources share their compiled code."""

    _loaded = {}

    @classmethod
    def get(cls, name, source, functions, namespace, boundscheck=True,
            checks_own_indices=()):
        with _modules_lock:
            module = cls._loaded.get(name)
            if module is None or not _same_objects(module.namespace, namespace):
                # a new module, or the same source naming objects that were
                # redefined since (a kernel re-created with the same code)
                module = cls._loaded[name] = cls(name, source, functions, namespace, boundscheck,
                                                 checks_own_indices)
            return module

    def __init__(self, name, source, functions, namespace, boundscheck=True,
                 checks_own_indices=()):
        self.name, self.source, self.functions = name, source, functions
        self.namespace = namespace  # globals the source names but cannot import
        self.boundscheck = boundscheck
        self.checks_own_indices = frozenset(checks_own_indices)
        # what numba compiles: the source with a depth limit on recursion
        self.numba_source = recursion.guard(source, functions, sys.getrecursionlimit())
        # numba (0.68) crashes the interpreter when it loads from its cache a
        # recursive function compiled for two signatures (f(x, 3) calling
        # f(x, n - 1): a literal and an int64), so recursive code is not cached
        self.recursive = self.numba_source is not source
        self.python = self._exec_fresh()
        self._ieee = None
        self._jit = None
        self._jit_memory = None
        self._lock = threading.RLock()
        self.jobs = {}  # (function, signature) -> its background compile (background.Job)

    def _exec_fresh(self, source=None, name=None):
        source, name = source or self.source, name or self.name
        module = types.ModuleType(name)
        filename = f"<s2sad {name}>"
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
        module.__dict__.update(self.namespace)
        exec(compile(source, filename, "exec"), module.__dict__)
        return module

    def python_ieee(self):
        """The module as Python with IEEE floating point (see ieee.py): what
        jit=False and the fallback run. `self.python` stays the plain one,
        which s2sad reads to differentiate a derivative again."""
        with self._lock:
            if self._ieee is None:
                self._ieee = ieee.ieee_module(self._exec_fresh())
            return self._ieee

    def jitted(self, in_memory=False):
        """The module with every function replaced by its numba dispatcher;
        `in_memory` compiles without numba's on-disk cache."""
        with self._lock:
            if in_memory:
                if self._jit_memory is None:
                    module = self._exec_fresh(self.numba_source, self.name + "_memory")
                    # numba resolves recursive calls through sys.modules ("unresolved
                    # symbol" otherwise)
                    sys.modules[module.__name__] = module
                    self._jit_memory = self._dispatchers(module, cache=False)
                return self._jit_memory
            if self._jit is None and self.recursive:
                self._jit = self.jitted(in_memory=True)
            if self._jit is None:
                module = self._import_from_cache()
                if module is None:  # the cache directory cannot be written
                    self._jit = self.jitted(in_memory=True)
                else:
                    try:
                        self._jit = self._dispatchers(module, cache=True)
                    except RuntimeError as exc:  # numba finds no writable cache location
                        _warn_cache(f"numba cannot cache there ({exc})", stacklevel=7)
                        self._jit = self.jitted(in_memory=True)
            return self._jit

    def _dispatchers(self, module, cache):
        for fname in self.functions:
            checked = self.boundscheck and fname not in self.checks_own_indices
            options = dict(_NJIT_OPTIONS, cache=cache, boundscheck=checked)
            if uses_prange(self.source, fname):
                options["parallel"] = _PRANGE_ONLY
            module.__dict__[fname] = _numba().njit(**options)(module.__dict__[fname])
        return module

    def _import_from_cache(self):
        existing = sys.modules.get(self.name)
        if existing is not None and getattr(existing, "__s2sad_source__", None) == self.numba_source \
                and _same_objects({k: existing.__dict__.get(k) for k in self.namespace},
                                  self.namespace):
            return existing
        try:
            path = cache.write_module(self.name, self.numba_source)
        except OSError as exc:
            _warn_cache(f"cannot write to it ({exc})", stacklevel=8)
            return None
        spec = importlib.util.spec_from_file_location(self.name, path)
        module = importlib.util.module_from_spec(spec)
        module.__dict__.update(self.namespace)
        module.__s2sad_source__ = self.numba_source
        sys.modules[self.name] = module  # numba's cache re-imports it by name
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[self.name]
            raise
        return module


def _same_objects(a, b):
    return a.keys() == b.keys() and all(a[k] is b[k] for k in a)


def _warn_cache(reason, stacklevel):
    warnings.warn(CacheWarning(
        f"s2sad cache directory {cache.cache_dir()!r}: {reason}; compiling in memory "
        f"(set S2SAD_CACHE_DIR to a writable directory to reuse compiled code across "
        f"processes)"), stacklevel=stacklevel)


# jit="auto" for a derivative without loops (whole-array code): on big arrays
# numpy runs each operation at least as fast as numba's loops (it has
# vectorised math functions, and allocates large arrays without a page fault
# per 4 kB), while on small ones its cost per operation (about a microsecond)
# dominates. Measured crossover (benchmarks/auto_threshold.py): 10^4 to 10^5 elements.
AUTO_NUMPY_FROM = 1 << 15  # elements in the array arguments together


class Entry:
    """Calls one generated function with numba, falling back to Python
    (with a warning) when numba refuses it, unless jit="require"; with
    jit="auto" (a derivative without loops), as numpy when the arguments are
    big. An error raised while it runs is re-raised with the derivative it
    came from and, when it can be found, the line (see diagnose.py)."""

    def __init__(self, module, fname, jit, label, hint="", objects=None, background=False):
        self.module, self.fname, self.jit, self.label = module, fname, jit, label
        self.hint = hint  # added to error messages (e.g. about a vjp's seed)
        # the code holds Python objects (s2sad/runtime/objects.py): the
        # positions of the arguments that are objects, which compiled code
        # takes as handles; None: it holds none
        self.objects = objects
        # compile in a child process, running as Python meanwhile (background.py)
        self.background = background
        self._job = None  # that compile, while it runs: (background.Job, signature)
        self._slowest_python = 0.0  # seconds, of the calls run as Python meanwhile
        self._python_calls = 0
        self._call = None
        self._lock = threading.Lock()

    def __call__(self, *args):
        call = self._call
        if self.jit == "auto" and _elements(args) >= AUTO_NUMPY_FROM:
            call = self._python_call
        elif call is None or self._job is not None:
            with self._lock:
                if self._call is None:
                    self._call = self._prepare(args)
                elif self._job is not None:
                    self._advance()
                call = self._call
        start = time.perf_counter()
        try:
            if self.objects is None:
                result = call(*args)
            else:
                # (the handles made in the call are dropped when it returns)
                with object_scope(args, self.objects if hasattr(call, "py_func") else ()) as held:
                    result = call(*held)
            if self._job is not None:
                self._time_python(time.perf_counter() - start)
            return result
        except (S2sadError, MemoryBudgetExceeded):  # (the Derivative switches variants)
            raise
        except Exception as exc:
            elapsed = time.perf_counter() - start
            explained = diagnose.explain(exc, self, args, compiled=hasattr(call, "py_func"),
                                         elapsed=elapsed)
            if explained is exc:
                raise
            raise explained from exc

    def _python_call(self, *args):
        return ieee.call(getattr(self.module.python_ieee(), self.fname), args)

    def _prepare(self, args):
        if not self.jit:
            return self._python_call
        if self.background and self._start_background(args):
            return self._python_call
        return self._compile_or_fall_back(self._signature(args))

    def _start_background(self, args):
        """Whether the calls run as Python while the compiled code is made
        off the caller's path: loaded from numba's cache by a thread, or
        compiled by a child process into the cache (not when it is compiled
        in this process already, or cannot be cached)."""
        if self.module.recursive:
            return False  # (not cached on disk: the child's work would be lost)
        if "numba" not in sys.modules:
            # numba unloaded: this call need not wait for it. What was
            # compiled before is marked beside the module (_marker)
            key = (self.fname, _kinds_key(args, self.objects or ()))
            with self.module._lock:
                job = self.module.jobs.get(key)
                if job is None or (isinstance(job, background.Job) and job.done()):
                    job = self._loading(args) if os.path.exists(self._marker(args)) else \
                        self._forking(args)
                    if job is None:
                        return False
                    self.module.jobs[key] = job
            self._job = (job, args)
            return True
        signature = self._signature(args)
        with self.module._lock:
            module = self.module.jitted(in_memory=False)
            if module is self.module._jit_memory:
                return False  # (not cached on disk: the child's work would be lost)
            dispatcher = getattr(module, self.fname)
            job = self.module.jobs.get((self.fname, signature))
            if job is None:  # (another derivative's entry may be compiling the same already)
                if signature in dispatcher.overloads:
                    return False
                job = self._loading(args) if _on_disk(dispatcher) else self._forking(args)
                if job is None:
                    return False
                self.module.jobs[(self.fname, signature)] = job
        self._job = (job, args)
        return True

    def _loading(self, args):
        """A thread loading the code numba has cached (a few tenths of a
        second: importing numba, its registries, the machine code)."""
        return background.load(lambda: self._load(args), _describe, before=self._load_numba)

    def _forking(self, args):
        """A child process compiling into numba's cache (None: no fork)."""
        job = background.start(lambda: self._load(args), _describe, locks=(self.module._lock,))
        if job is not None:
            _prefetch_numba()
            for hook in list(COMPILE_HOOKS):
                hook(self.module.name, self.fname)
        return job

    def _load_numba(self):
        with self.module._lock:  # (the order of the locks: module, import, compiler)
            with background.importing():
                _numba()
                self.module.jitted(in_memory=False)

    def _load(self, args):
        """Compile for `args` into numba's cache, or load what it holds: a
        thread's or a child's work (the warning filters are the process's)."""
        signature = self._signature(args)
        with self.module._lock:
            getattr(self.module.jitted(in_memory=False), self.fname).compile(signature)

    def _marker(self, args):
        """A file saying numba's cache holds this function for these kinds."""
        return os.path.join(cache.cache_dir(), f"{self.module.name}.{self.fname}."
                                               f"{_kinds_key(args, self.objects or ())}.compiled")

    def _mark_compiled(self, args):
        try:
            with open(self._marker(args), "w"):
                pass
        except OSError:  # (only a hint: without it, a child compiles, quickly)
            pass

    def _advance(self):
        """Between calls run as Python: a child that compiled hands over to
        a thread loading its code; calls take the compiled code when that is
        loaded, or wait for it when a call as Python takes longer than the
        compile has run so far (the rest is then likely quicker)."""
        job, args = self._job
        if isinstance(job, background.Job) and job.done() and job.wait().ok:
            self._mark_compiled(args)
            self._job = (self._loading(args), args)
        elif self._switch_now():
            self._call = self._finish_background()

    def _time_python(self, seconds):
        """Note how long a call run as Python took (not the first: it pays
        for building the module, which the next calls do not)."""
        self._python_calls += 1
        if self._python_calls > 1:
            self._slowest_python = max(self._slowest_python, seconds)

    def _switch_now(self):
        """Whether a call should now take the compiled code: the child is
        done, or a call as Python took longer than the compile has run so
        far (the rest of the compile is then likely shorter than the next
        call as Python: waiting is quicker)."""
        job, _ = self._job
        return job.done() or self._slowest_python > time.perf_counter() - job.started

    def _finish_background(self):
        """The compiled function, once the child or the thread is done
        (waiting for it)."""
        job, args = self._job
        reply = job.wait()
        self._job = None
        if reply.ok or reply.io:  # (io: the child could not write the cache: compile here)
            if isinstance(job, background.Job) and reply.ok:
                self._mark_compiled(args)
            return self._compile_or_fall_back(self._signature(args))
        return self._fall_back(reply.reason, stacklevel=5)

    def wait_compiled(self):
        """Block until a background compile is done; later calls are compiled."""
        with self._lock:
            if self._job is not None:
                self._call = self._finish_background()

    def _signature(self, args):
        objects = self.objects or ()
        typeof = _numba().typeof
        return tuple(typeof(0 if k in objects else a) for k, a in enumerate(args))

    def _compile_or_fall_back(self, signature):
        try:
            return self._compile(signature, in_memory=False)
        except Exception as exc:  # numba raises many kinds, internal ones too
            if _caused_by_io(exc):  # numba could not save to its cache: disk full
                _warn_cache(f"numba cannot save its cache ({_numba_reason(exc)})", stacklevel=6)
                try:
                    return self._compile(signature, in_memory=True)
                except Exception as again:
                    exc = again
            if self.jit == "require":
                raise JitError(f"numba cannot compile the derivative of {self.label}: "
                               f"{_numba_reason(exc)}. Inspect it with .source; jit=True would "
                               f"run it as Python instead.") from exc
            return self._fall_back(_numba_reason(exc))

    def _fall_back(self, reason, stacklevel=6):
        warnings.warn(NumbaFallbackWarning(
            f"numba cannot compile the derivative of {self.label} ({reason}); running it "
            f"as plain Python. Pass jit=\"require\" to make this an error."), stacklevel=stacklevel)
        return self._python_call

    def _compile(self, signature, in_memory):
        with self.module._lock:  # entries of other Derivatives share the module
            dispatcher = getattr(self.module.jitted(in_memory), self.fname)
            if signature not in dispatcher.overloads:
                for hook in list(COMPILE_HOOKS):
                    hook(self.module.name, self.fname)
                from numba.core.errors import NumbaPerformanceWarning
                with warnings.catch_warnings():
                    # (about the generated code's memory layouts, which the
                    # user cannot change: "@ is faster on contiguous arrays")
                    warnings.simplefilter("ignore", NumbaPerformanceWarning)
                    dispatcher.compile(signature)
            return dispatcher


def _on_disk(dispatcher):
    """Whether numba's cache holds code for this function (its index file
    exists: it was compiled for these kinds before, the module's name being
    a hash of its source and options). numba's internals: on a change,
    False (a background compile, which then loads from the cache)."""
    try:
        return os.path.exists(dispatcher._cache._cache_file._index_path)
    except AttributeError:
        return False


def _kinds_key(args, objects):
    """The arguments' kinds as numba would type them, roughly and without
    numba: what a marker of compiled code is named by (a wrong guess costs
    time, never a wrong call: numba types the arguments itself)."""
    def kind(a):
        if isinstance(a, np.ndarray):
            layout = "C" if a.flags.c_contiguous else "F" if a.flags.f_contiguous else "A"
            return f"{a.dtype.str}{a.ndim}{layout}{'' if a.flags.writeable else 'r'}"
        if isinstance(a, (tuple, list)):
            return type(a).__name__ + "(" + ",".join(kind(b) for b in a) + ")"
        return type(a).__name__
    text = "|".join("object" if k in objects else kind(a) for k, a in enumerate(args))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _describe(exc):
    """(numba's reason, whether it failed writing the cache): what a
    background compile reports."""
    return _numba_reason(exc), _caused_by_io(exc)


def _elements(args):
    return sum(a.size for a in args if isinstance(a, np.ndarray))


def _caused_by_io(exc):
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, OSError):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def _numba_reason(exc, limit=600):
    """numba's reason, whole: its first statement (with the lines a line
    ending in ':' introduces), never cut inside a sentence or a word."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc)).strip()  # (numba's terminal colours)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    useful = [ln for ln in lines if not ln.startswith(("Failed in nopython", "During:", "File"))]
    useful = useful or lines or [""]
    taken = [useful[0]]
    for ln in useful[1:]:
        if not taken[-1].endswith(":") or len(" ".join(taken + [ln])) > limit:
            break
        taken.append(ln)
    reason = " ".join(taken)
    if len(reason) > limit:  # one long line: up to its last sentence (or word) that fits
        head = reason[:limit]
        end = max(head.rfind(". "), head.rfind("; "))
        reason = head[:end + 1] if end > limit // 3 else head[:head.rfind(" ")] + " ..."
    return f"{type(exc).__name__}: {reason}"
