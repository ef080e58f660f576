"""Derivatives travel between processes: a derivative pickles as a
reference to its function (module + qualified name) plus its options, and
the receiving process regenerates it (or loads it from its cache) from the
source it imports there. The function itself is never pickled by value:
s2sad reads a function's source, and source shipped apart from the code
could disagree with it.

A function that cannot be found again by its name (a lambda, a function
defined inside another) is refused when pickling, with what to do."""
import functools
import importlib
import importlib.util
import os
import pickle
import sys


def reference(fn):
    """What to pickle for the function a derivative was made from."""
    if isinstance(fn, functools.partial):  # its function by reference, its bound values by value
        return ("partial", reference(fn.func), fn.args, fn.keywords)
    if getattr(fn, "__s2sad_derivative__", False) or not hasattr(fn, "__code__"):
        return ("object", fn)  # a derivative (grad of grad) pickles itself; np.sin by name
    module, qualname = getattr(fn, "__module__", None), fn.__qualname__
    what = f"the derivative of {qualname}"
    if "<lambda>" in qualname or "<locals>" in qualname or module is None:
        raise pickle.PicklingError(
            f"{what} cannot be pickled: a derivative travels as a reference to its function "
            f"(module + name), and {'a lambda' if '<lambda>' in qualname else 'a function defined inside another function'} "
            f"cannot be found by name in another process. Define it at the top level of a module.")
    try:
        found = _unwrap(_lookup(sys.modules[module], qualname))
    except (KeyError, AttributeError):
        found = None
    if found is not fn:
        raise pickle.PicklingError(
            f"{what} cannot be pickled: {module}.{qualname} does not name that function "
            f"(it was redefined or renamed), so another process would find another function")
    return ("function", module, qualname, getattr(sys.modules[module], "__file__", None))


def resolve(ref):
    """The function a reference names, in this process."""
    kind = ref[0]
    if kind == "object":
        return ref[1]
    if kind == "partial":
        return functools.partial(resolve(ref[1]), *ref[2], **ref[3])
    _, module, qualname, path = ref
    try:
        return _unwrap(_lookup(_import(module, path), qualname))
    except AttributeError:
        raise ImportError(f"cannot rebuild the derivative of {module}.{qualname}: this process's "
                          f"{module} has no {qualname}") from None


def rebuild(cls, ref, options):
    """The reconstructor pickle calls: a fresh derivative, generated (or
    loaded from the cache) on its first call here."""
    return cls(resolve(ref), **options)


def _import(module, path):
    if module in sys.modules:
        found = sys.modules[module]
        if module != "__main__" or path is None or getattr(found, "__file__", None) == path:
            return found
    elif module != "__main__":
        return importlib.import_module(module)
    # the sender's script, here not the main module (a worker of a cluster):
    # imported from its file under another name, as multiprocessing's spawn does
    name = "__s2sad_main__"
    if name in sys.modules and getattr(sys.modules[name], "__file__", None) == path:
        return sys.modules[name]
    if path is None or not os.path.exists(path):
        raise ImportError(f"cannot rebuild a derivative of a function of the sender's main "
                          f"script {path}: it is not on this machine. Put the function in a "
                          f"module the workers can import (or upload it, e.g. "
                          f"dask's Client.upload_file)")
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _lookup(obj, qualname):
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def _unwrap(obj):
    """A module-level `@s2sad.grad def f` names the derivative: its function."""
    while getattr(obj, "__s2sad_derivative__", False):
        obj = obj.fn
    return obj
