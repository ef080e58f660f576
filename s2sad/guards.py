"""Checks made at every call of a derivative, before any generated code
runs: the arguments can be differentiated, a vjp's seed and a jvp's
tangents have the right shape, and the functions the derivative was
generated from are still the ones their names denote."""
import builtins
import inspect
import types

import numpy as np

from .registry import REGISTRY
from .transforms.libraries import is_library_class
from .transforms.errors import S2sadTypeError, S2sadValueError

# keys and values of reads() besides names and items (s2sad/source_cache.py
# reads them too): a name not bound (a builtin), a function's code, a list's
# length; containers up to OPEN long are opened
MISSING = object()
CODE = object()
_CONTENT = object()  # (an array, its values when the derivative was generated)
LENGTH = object()   # (a list, its length when the derivative was generated)
OPEN = 256          # containers up to this length are followed element by element


class _Item:
    """The key of a tuple's or list's element in a dependency."""
    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index
_LIBRARIES = ("numpy", "math", "numba", "s2sad", "scipy", "builtins")


# ---- arguments ---------------------------------------------------------------

def _what(v):
    if v is None:
        return "None"
    if isinstance(v, np.ndarray):
        return f"an array of dtype {v.dtype}"
    return type(v).__name__


def check_arguments(where, names, values, wrt):
    """TypeError for an argument s2sad cannot work with. `where` names the
    function and its file and line; `wrt` are argument positions."""
    for k, (n, v) in enumerate(zip(names, values)):
        if isinstance(v, np.ndarray) and v.dtype.kind not in "biufc":
            raise S2sadTypeError(f"{where}: argument '{n}' is {_what(v)}; s2sad works on numeric "
                            f"arrays. Convert it, e.g. np.asarray({n}, dtype=float).")
        if isinstance(v, dict) or (isinstance(v, tuple) and hasattr(v, "_fields")):
            raise S2sadTypeError(f"{where}: argument '{n}' is a {type(v).__name__}; s2sad does not "
                            f"take dicts or NamedTuples as arguments yet. Pass their fields as "
                            f"separate arguments (float scalars or arrays).")
        if isinstance(v, list):
            raise S2sadTypeError(f"{where}: argument '{n}' is a list that is not a rectangular "
                            f"array of numbers. Pass a numpy array.")
        if k not in wrt or _differentiable(v):
            continue
        if isinstance(v, (complex, np.complexfloating)) or \
                (isinstance(v, np.ndarray) and v.dtype.kind == "c"):
            raise S2sadTypeError(f"{where}: argument '{n}' is complex; s2sad differentiates real "
                            f"functions. Pass the real and imaginary parts as two float "
                            f"arguments.")
        raise S2sadTypeError(f"{where}: argument '{n}' is {_what(v)}; only float scalars and float "
                        f"arrays can be differentiated. Pass a float (e.g. {n}=float(...)) "
                        f"or leave it out of wrt.")


def _differentiable(v):
    if isinstance(v, np.ndarray):
        return v.dtype.kind == "f"
    if isinstance(v, tuple):
        return any(_differentiable(e) for e in v)
    return isinstance(v, (float, np.floating))


# ---- seeds and tangents ------------------------------------------------------

def check_seed(where, out_kind, seed):
    """ValueError unless `seed` can weight an output of kind `out_kind`
    (shapes are compared after the call, by `check_seed_shape`)."""
    if out_kind is None or not out_kind.known:
        return
    if out_kind.tag == "tuple":
        n = len(out_kind.items)
        if isinstance(seed, (tuple, list)) and len(seed) == n:
            for item_kind, item in zip(out_kind.items, seed):
                check_seed(where, item_kind, item)
            return
        if isinstance(seed, np.ndarray) and seed.shape == (n,) and \
                all(k.is_scalar for k in out_kind.items):
            return
        raise S2sadValueError(f"{where}: the function returns a tuple of {n} values, so the seed "
                         f"must be a tuple of {n} seeds (one per output), not {_what(seed)}"
                         f"{_shape_text(seed)}.")
    ndim = out_kind.ndim if out_kind.is_array else 0
    if out_kind.is_scalar or out_kind.is_array:
        if not isinstance(seed, (int, float, np.number, np.ndarray)) or np.ndim(seed) != ndim:
            expected = "a float" if ndim == 0 else f"a {ndim}-d array"
            raise S2sadValueError(f"{where}: the output is {expected}, so the seed must be "
                             f"{expected} of the output's shape, not {_what(seed)}"
                             f"{_shape_text(seed)}.")


def check_seed_shape(where, value, seed):
    """ValueError if a seed's shape differs from its output's: numpy would
    have broadcast it and given a wrong gradient."""
    if isinstance(value, tuple) and isinstance(seed, (tuple, list, np.ndarray)) \
            and len(seed) == len(value):
        for v, s in zip(value, seed):
            check_seed_shape(where, v, s)
        return
    if np.shape(value) != np.shape(seed):
        raise S2sadValueError(f"{where}: the seed has shape {np.shape(seed)}, but the output has "
                         f"shape {np.shape(value)}; pass a seed of the output's shape.")


def seed_after_failure(where, fn, values, seed, exc):
    """The vjp failed: if the seed's shape is not the output's (which the
    function itself, run as Python, gives), that is the error to report."""
    try:
        with np.errstate(all="ignore"):
            value = fn(*values)
    except Exception:
        return
    try:
        check_seed_shape(where, value, seed)
    except ValueError as mismatch:
        raise mismatch from exc


def check_tangents(where, names, values, wrt, tangents):
    for w, t in zip(wrt, tangents):
        if not isinstance(w, int):
            continue
        if not isinstance(t, (int, float, np.number, np.ndarray)) or \
                np.shape(t) != np.shape(values[w]):
            raise S2sadValueError(f"{where}: the tangent of '{names[w]}' must have its shape "
                             f"{np.shape(values[w])}, not {_what(t)}{_shape_text(t)}.")


def check_written_aliases(where, names, values, written):
    """ValueError when the function writes into an array argument that is
    also passed as another argument (or container leaf): the derivative
    writes into a copy of it, so the other would not see the write, as it
    does in Python."""
    for i in written:
        a = values[i]
        if not isinstance(a, np.ndarray):
            continue
        for j, b in enumerate(values):
            if j != i and isinstance(b, np.ndarray) and np.may_share_memory(a, b):
                raise S2sadValueError(
                    f"{where}: the function writes into '{names[i]}', and '{names[j]}' is "
                    f"the same array (or shares its memory). The derivative works on a copy "
                    f"of '{names[i]}', so '{names[j]}' would not see the writes as it does in "
                    f"Python. Pass a copy ({names[j]}.copy()).")


def _shape_text(v):
    return f" of shape {np.shape(v)}" if isinstance(v, np.ndarray) else ""


# ---- are the functions still the ones the names denote? ---------------------

def snapshot(fn, limit=300, contents=False):
    """(mapping, key, object) for every global, module attribute and closure
    cell that `fn` and the functions it reaches read, and the number of
    gradients the user registered. A derivative generated now stays valid while
    `fresh(snapshot)` holds. `contents`: also the values of the arrays among
    them, for a compiled derivative (numba freezes a global array's values
    when it compiles: changed in place, `W[0] = 5.0`, the compiled code would
    go on reading the old ones, a wrong gradient with no error)."""
    # (the user's registrations: s2sad's own, loaded lazily with the compiler
    # or scipy, never change a derivative generated before them)
    deps = [(REGISTRY.__dict__, "user_registrations", REGISTRY.user_registrations)]
    for mapping, key, target, _ in reads(fn, limit):
        if mapping is None:  # (the walk stopped at `limit`)
            break
        deps.append((mapping, key, target))
        if contents and isinstance(target, np.ndarray):
            deps.append((target, _CONTENT, target.copy()))
    return tuple(deps)


def reads(fn, limit=300):
    """What generating a derivative of `fn` reads, as (mapping, key, target,
    path): every global, module attribute, closure cell, default value,
    container element and object attribute that `fn` and the functions it
    reaches read (key CODE: a function's code; LENGTH: a list's length).
    `path` says where, in words stable across processes ("fn/helper/[2]").
    After `limit` objects the walk stops, yielding (None, None, None, None)
    last. (s2sad/source_cache.py writes the same walk down by content.)"""
    seen, todo = set(), [(fn, "fn")]
    while todo:
        if len(seen) >= limit:
            yield None, None, None, None
            return
        obj, path = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))

        def read(mapping, key, target, name):
            todo.append((target, f"{path}/{name}"))
            return mapping, key, target, f"{path}/{name}"
        if getattr(obj, "__s2sad_derivative__", False) or getattr(obj, "__s2sad_custom__", None):
            todo += [(getattr(obj, a), f"{path}.{a}") for a in ("fn", "fwd", "bwd")
                     if getattr(obj, a, None)]
            continue
        if isinstance(obj, (tuple, list)) and len(obj) <= OPEN:
            # (the derivative reads a module-level container's elements as constants)
            if type(obj) is list:
                yield obj, LENGTH, len(obj), path
            for k, v in enumerate(obj):
                yield read(obj, _Item(k), v, f"[{k}]")
            continue
        if type(obj) is dict and len(obj) <= OPEN:
            for k, v in obj.items():
                yield read(obj, k, v, f"[{k!r}]")
            continue
        if users_object(obj):  # its attributes are constants of the derivative
            attributes = vars(obj) if not isinstance(obj, type) else obj.__dict__
            for k, v in list(attributes.items())[:OPEN]:
                found = read(attributes, k, v, f".{k}")
                todo[-1] = (getattr(v, "__func__", v), found[3])  # (a static or class method)
                yield found
            if not isinstance(obj, type):
                todo.append((type(obj), f"{path}.__class__"))
            else:  # (a method it inherits is read from its base's dict)
                for k, base in enumerate(obj.__bases__):
                    yield read(obj.__bases__, _Item(k), base, f".__bases__[{k}]")
            continue
        if not inspect.isfunction(obj) or _is_library(obj):
            continue
        yield obj, CODE, obj.__code__, path  # code replaced in place
        for k, v in enumerate(obj.__defaults__ or ()):  # (a helper's default values)
            yield read(obj.__defaults__, _Item(k), v, f"<default {k}>")
        g = obj.__globals__
        names = _code_names(obj.__code__)
        for name in sorted(names):
            target = g.get(name, MISSING)
            if target is MISSING and not hasattr(builtins, name):
                continue
            found = read(g, name, target, name)
            if target is MISSING or isinstance(target, types.ModuleType):
                todo.pop()  # (a builtin; a module: only the attributes read are followed)
            yield found
            # a module's attributes the code names, and theirs for a submodule
            # (`pkg.sub.f`: f is read too)
            modules = [(target, name)] if isinstance(target, types.ModuleType) else []
            opened = set()  # (a package whose module imports it back)
            while modules:
                module, spelled = modules.pop()
                if _is_library_name(module.__name__) or id(module) in opened:
                    continue
                opened.add(id(module))
                for attr in sorted(names & module.__dict__.keys()):
                    value = module.__dict__[attr]
                    found = read(module.__dict__, attr, value, f"{spelled}.{attr}")
                    if isinstance(value, types.ModuleType):
                        todo.pop()
                        modules.append((value, f"{spelled}.{attr}"))
                    yield found
        for k, cell in enumerate(obj.__closure__ or ()):
            try:
                value = cell.cell_contents
            except ValueError:
                continue
            yield read(cell, None, value, f"<cell {obj.__code__.co_freevars[k]}>")


def fresh(deps):
    for mapping, key, obj in deps:
        if key is None:
            try:
                if mapping.cell_contents is not obj:
                    return False
            except ValueError:
                return False
        elif key is CODE:
            if mapping.__code__ is not obj:
                return False
        elif key is LENGTH:
            if len(mapping) != obj:
                return False
        elif isinstance(key, _Item):
            if len(mapping) <= key.index or mapping[key.index] is not obj:
                return False
        elif key is _CONTENT:  # a global array's values, as when compiled
            if mapping.shape != obj.shape or not np.array_equal(
                    mapping, obj, equal_nan=mapping.dtype.kind in "fc"):
                return False
        elif mapping.get(key, MISSING) is not obj:
            return False
    return True


def users_object(obj):
    """An object of a user's class, or the class (with attributes to read)."""
    if isinstance(obj, (types.ModuleType, types.FunctionType, types.BuiltinFunctionType,
                        types.MethodType, np.ndarray, np.generic, str, bytes, int, float,
                        complex, tuple, list, dict, set, frozenset)) or obj is None:
        return False
    cls = obj if isinstance(obj, type) else type(obj)
    if not isinstance(obj, type) and not hasattr(obj, "__dict__"):
        return False
    return not is_library_class(cls)


def _is_library(fn):
    return _is_library_name(getattr(fn, "__module__", None) or "")


def _is_library_name(name):
    return any(name == lib or name.startswith(lib + ".") for lib in _LIBRARIES)


def _code_names(code):
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):  # the backward of a custom_gradient
            names |= _code_names(const)
    return names
