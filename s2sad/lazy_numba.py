"""numba's extension API for s2sad's runtime, without importing numba.

The runtime's helpers are plain Python and numpy, each with a numba
`overload` or `register_jitable`. A derivative run as Python (the first
calls with jit="auto", jit=False) needs only the helpers, and importing
numba takes a few tenths of a second, so the registrations wait until numba
is loaded: `register_all()` runs them, called by numba itself when it
initialises its extensions (the `numba_extensions` entry point in
pyproject.toml, at the first compile of any function in the process) and
by s2sad's backend before it compiles. A registration made after that
(a runtime module imported later, as s2sad.runtime.special is) runs at once.

`types`, `numba` are the modules, imported at their first attribute read
(inside an overload's typing code, which only numba runs); `as_dtype` and
`get_cython_function_address` import theirs when called. An exported
derivative imports numba's own names instead (export_runtime.NUMBA_NAMES)."""
import importlib
import threading

_pending = []          # (register, arguments) not yet given to numba
_registered = False    # numba has been given every registration so far
_lock = threading.RLock()

# the modules whose helpers register themselves here
_MODULES = ("s2sad.runtime", "s2sad.markers", "s2sad.checkpointing")


class _Module:
    """A module imported at the first read of one of its attributes."""

    def __init__(self, name):
        self._name = name

    def __getattr__(self, attr):
        return getattr(importlib.import_module(self._name), attr)

    def __repr__(self):
        return f"<{self._name}, imported at its first use>"


types = _Module("numba.core.types")
numba = _Module("numba")


def as_dtype(numba_type):
    from numba.np.numpy_support import as_dtype as numba_as_dtype
    return numba_as_dtype(numba_type)


def get_cython_function_address(module, name):
    from numba.extending import get_cython_function_address as address
    return address(module, name)


def _defer(register, *arguments):
    with _lock:
        if _registered:
            register(*arguments)
        else:
            _pending.append((register, arguments))


def _overload_now(target, options, implementation):
    from numba.extending import overload as numba_overload
    numba_overload(target, **options)(implementation)


def _jitable_now(options, fn):
    from numba.extending import register_jitable as numba_register_jitable
    if options:
        numba_register_jitable(**options)(fn)
    else:
        numba_register_jitable(fn)


def overload(target, **options):
    """numba.extending.overload(target, **options), registered when numba
    loads; returns the implementation, as numba's does."""
    def decorate(implementation):
        _defer(_overload_now, target, options, implementation)
        return implementation
    return decorate


def register_jitable(*args, **options):
    """numba.extending.register_jitable, as a decorator with or without
    options; the function itself is returned, as numba's does."""
    if args and callable(args[0]) and not options:
        _defer(_jitable_now, {}, args[0])
        return args[0]

    def decorate(fn):
        _defer(_jitable_now, options, fn)
        return fn
    return decorate


def register_all():
    """Give numba every registration (idempotent; the entry point numba
    calls, and what s2sad's backend calls before compiling)."""
    global _registered
    if _registered:
        return
    for name in _MODULES:  # (importing them records their registrations)
        importlib.import_module(name)
    with _lock:
        if _registered:
            return
        while _pending:
            register, arguments = _pending.pop(0)
            register(*arguments)
        _registered = True
