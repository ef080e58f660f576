"""Functions that belong to an installed package, not to the user's code.

s2sad differentiates the user's helpers through their source. A library's
Python function (scipy.special.multigammaln, a function of a pip-installed
package, the standard library's) is not read: its source is the library's
business (validation, array-API dispatch, private C calls), and a rule says
what its derivative is. Without one, a call that needs a gradient raises
the LookupError that names it (see errors.missing_gradient), as for a numba
kernel."""
import functools
import inspect
import os
import re
import site
import sys
import sysconfig


@functools.lru_cache(maxsize=1)
def _installed_roots():
    roots = set()
    for key in ("purelib", "platlib", "stdlib", "platstdlib"):
        path = sysconfig.get_paths().get(key)
        if path:
            roots.add(os.path.realpath(path))
    try:
        roots.update(os.path.realpath(p) for p in site.getsitepackages())
    except AttributeError:  # a virtualenv's old site module
        pass
    user = getattr(site, "getusersitepackages", lambda: None)()
    if user:
        roots.add(os.path.realpath(user))
    return tuple(sorted(r.rstrip(os.sep) + os.sep for r in roots))


def of_package(obj, *packages):
    """Whether `obj` is defined in one of `packages` or a module of it, by
    its __module__ (numpy.linalg is numpy's; a user's module numpy_utils,
    or a user's package named s2sad plus a suffix, are not). A module s2sad
    generated (its name is s2sad, an underscore and a key: api.py) is s2sad's."""
    module = getattr(obj, "__module__", None)
    if not isinstance(module, str):
        return False
    top = module.partition(".")[0]
    return top in packages or ("s2sad" in packages and _GENERATED.fullmatch(top) is not None)


# the modules s2sad writes: derivatives and batch drivers (api.py, vector_mode.py),
# functions standing for primitives and custom gradients (primitives.py), each
# named by cache.module_key's 20 hex digits
_GENERATED = re.compile(r"s2sad_(?:primitive_|custom_)?[0-9a-f]{20}")


def is_library_function(obj):
    """Whether `obj` is a Python function defined in an installed package or
    the standard library (s2sad's own functions are not: they are rules,
    markers and derivatives, handled before this is asked)."""
    if not inspect.isfunction(obj):
        return False
    if of_package(obj, "s2sad"):
        return False
    return _installed_file(obj.__code__.co_filename)


def is_library_class(cls):
    """Whether the class `cls` is defined in an installed package or the
    standard library (builtins included), not in the user's code."""
    module = sys.modules.get(getattr(cls, "__module__", None) or "")
    if module is None or of_package(cls, "s2sad"):
        return True
    return _installed_file(getattr(module, "__file__", None)) or \
        module.__name__ in sys.builtin_module_names


def is_user_module(module):
    """Whether `module` is the user's code: a file that is neither installed
    nor the standard library, and not s2sad's (a generated module)."""
    name = module.__name__
    top = name.partition(".")[0]
    if name in sys.builtin_module_names or top == "s2sad" or _GENERATED.fullmatch(top):
        return False
    path = getattr(module, "__file__", None)
    return isinstance(path, str) and not _installed_file(path)


@functools.lru_cache(maxsize=4096)  # (realpath asks the file system: 60 us a call)
def _installed_file(filename):
    if not filename or filename.startswith("<"):
        return False
    path = os.path.realpath(filename)
    parts = path.split(os.sep)
    if "site-packages" in parts or "dist-packages" in parts:
        return True
    return path.startswith(_installed_roots())


def describe_library_function(obj):
    """`module.qualname`, the way a user would import it."""
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', obj.__name__)}"
