"""The rules and definitions of libraries s2sad does not import before the
user's code does: importing scipy.linalg and scipy.special costs about a
quarter of a second, scipy.stats more than the rest of the compiler, and a
program that never imports them should not wait for them.

A user's code can only call a library it imported, so the registrations of
a library are loaded when a derivative is generated in a process that has
imported it (`load_imported`, at the start of every generation and at every
lookup that misses), and at a lookup that misses for one of the library's
objects or for one of s2sad's own objects whose rule it registers
(`load_for`, OWN_OBJECTS: math.lgamma's second derivative calls a helper
whose rule is scipy.special.digamma's). The tables and docs load all of
them (`load_all`)."""
import contextlib
import importlib
import sys
import threading

_OWN = __name__.rsplit(".", 1)[0]

# {a library's module: the modules registering its rules and definitions}
LAZY = {
    "scipy.linalg": (f"{_OWN}.rules.scipy_linalg", f"{_OWN}.definitions.scipy_linalg_pieces"),
    "scipy.special": (f"{_OWN}.rules.special",),
    "scipy.stats": (f"{_OWN}.definitions.scipy_stats",),
}

# s2sad's own objects (loaded with s2sad) whose rules a library's modules
# register: {their qualified name: the library}
OWN_OBJECTS = {f"{_OWN}.runtime.values.digamma": "scipy.special"}  # (its rule: polygamma)


# the context the modules load in: s2sad/registry.py sets its deferring_checks
# (s2sad's own templates are checked in the tests, not at every load)
loading = contextlib.nullcontext


# (another thread's lookup waits for a load under way: it finds the rules after)
_lock = threading.RLock()


def _load(library):
    with _lock:
        modules = LAZY.get(library, ())
        with loading():  # (a module's own lookups, reentrant: it is in sys.modules already)
            for module in modules:
                importlib.import_module(module)
        LAZY.pop(library, None)  # (after: until then other threads' misses come here and wait)
    return bool(modules)


def load_imported():
    """Load the registrations of every library in LAZY the process has imported."""
    for library in [name for name in LAZY if name in sys.modules]:
        _load(library)


def load_for(obj):
    """After a lookup of `obj` missed: load what may register it; whether
    anything was loaded (then look again)."""
    if not LAZY:
        return False
    before = len(LAZY)
    load_imported()  # (scipy's ufuncs name no module)
    owner = getattr(obj, "__self__", None)
    if owner is not None and not isinstance(owner, (type, type(sys))):
        module = type(owner).__module__  # (a method of scipy's distribution objects)
    else:
        module = getattr(obj, "__module__", None)
        module = module if isinstance(module, str) else ""
    library = OWN_OBJECTS.get(f"{module}.{getattr(obj, '__name__', '')}")
    if library is not None:
        _load(library)
    for library in [name for name in LAZY if module == name or module.startswith(name + ".")]:
        _load(library)
    return len(LAZY) < before


def load_all():
    """Load every library's registrations; whether any were waiting."""
    loaded = False
    for library in list(LAZY):
        loaded = _load(library) or loaded
    return loaded
