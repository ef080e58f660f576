"""Generated sources kept on disk: a derivative made again in a later
process (the same function, argument kinds and options) is read back
instead of generated, so its first call neither loads the compiler nor
runs it (together 70 ms for a small function, seconds for a large one).

A record's key is what generation reads, by content: the code and source
text of the function and of every function it reaches, and the values of
the globals, module attributes, closure cells, default values and
container elements they read (guards.reads, the walk that tells a
derivative went stale within a process), with the argument kinds, the
options, and the versions cache.module_key names (s2sad's own files,
numba, numpy, Python). Generating from equal inputs gives the equal source,
so a record is only ever read back for what would generate it again.
Where an input has no content that can be written down (an object of a
class s2sad does not know, a property, another derivative, a container
too long to open, a dataclass argument whose methods the function may
call), or the process registered gradients of its own, nothing is cached:
the derivative is generated as before. A record that cannot be read back
is generated again. S2SAD_SOURCE_CACHE=0 turns the cache off."""
import hashlib
import inspect
import os
import pickle
import sys
import types
import warnings

import numpy as np

from . import cache, guards
from .errors import CacheWarning
from .generated import Generated
from .registry import REGISTRY

_FORMAT = 1  # (a record's layout: records of another are not read)
_LIBRARIES = ("scipy.linalg", "scipy.special", "scipy.stats")  # (their rules load lazily)


def enabled():
    return os.environ.get("S2SAD_SOURCE_CACHE", "1") not in ("0", "")


def generated(generate, fn, kinds, flat, options, verify=False):
    """generate(fn, kinds, flat=flat, **options) (s2sad.generate.generate),
    or the source generated for the same inputs by an earlier process.
    `verify` (derivatives checking themselves, S2SAD_CHECK): a record read
    back is generated again and compared; one that differs (a change the
    key missed) warns (CacheWarning) and is replaced."""
    key, targets = _key(fn, kinds, flat, options) if enabled() else (None, None)
    if key is None:
        return generate(fn, kinds, flat=flat, **options)
    path = os.path.join(cache.cache_dir(), "sources", key + ".pickle")
    kept = _load(path, targets)
    if kept is not None and not verify:
        return kept
    gen = generate(fn, kinds, flat=flat, **options)
    if kept is not None and kept.source != gen.source:
        warnings.warn(f"s2sad: the generated source kept on disk for {fn.__qualname__} "
                      f"({path}) is not what generating it gives now; it was generated "
                      f"again. Please report this (what changed between the two runs).",
                      CacheWarning, stacklevel=6)
    if kept is None or kept.source != gen.source:
        _store(path, gen, targets)
    return gen


def _key(fn, kinds, flat, options):
    """The record's name and the objects read ({path: object}), or (None,
    None) where the inputs cannot be written down."""
    if REGISTRY.user_registrations or not inspect.isfunction(fn) \
            or not all(_plain_kind(k) for k in kinds):
        return None, None
    if flat is not None and not all(_plain_structure(s) for s in flat.structures.values()):
        return None, None
    targets = {}
    found = fingerprint(fn, targets)
    if found is None:
        return None, None
    settings = sorted((name, sorted(v) if isinstance(v, (set, frozenset)) else v)
                      for name, v in options.items())
    if options.get("parallel"):
        settings.append(("threads", _threads()))  # (prange loops are chunked per thread)
    loaded = [name for name in _LIBRARIES if name in sys.modules]
    shape = (flat.key, flat.wrt, flat.wrt_text) if flat is not None else None
    parts = (found, repr(kinds), repr(shape), repr(settings), loaded, _FORMAT)
    return cache.module_key("\n".join(map(str, parts))), targets


def _threads():
    import numba
    return numba.get_num_threads()


def _plain_kind(kind):
    """Numbers, arrays, strings, None, tuples of them and library objects:
    kinds whose values carry no code of the user's."""
    if kind.tag == "tuple":
        return all(_plain_kind(k) for k in kind.items)
    return kind.tag in ("float", "int", "bool", "complex", "array", "none", "str", "object")


def _plain_structure(structure):
    """A dict, list or tuple container (a dataclass's or NamedTuple's
    methods are code the walk does not reach)."""
    return structure.node in ("leaf", "dict", "list", "tuple") and \
        all(_plain_structure(c) for c in structure.children)


# ---- what generation reads, by content --------------------------------------

def fingerprint(fn, targets=None):
    """A text that changes with anything generating a derivative of `fn`
    reads, or None where something read has no content to write down.
    `targets` (a dict): filled with the objects read, by path."""
    lines = []
    for mapping, key, target, path in guards.reads(fn):
        if targets is not None and key is not guards.CODE and key is not guards.LENGTH:
            targets.setdefault(path, target)
        if mapping is None:  # (too much to read: the walk stopped)
            return None
        if key is guards.CODE:
            text = _function(mapping)
        elif key is guards.LENGTH:
            text = f"len {target}"
        else:
            text = _value(target)
        if text is None:
            return None
        lines.append(f"{path} {text}")
    return "\n".join(lines)


def _function(fn):
    """A function's code (what runs) and source text (what s2sad reads):
    equal both, and the source last generated from passed the check that it
    is the code that runs."""
    try:
        source = inspect.getsource(fn)
    except (OSError, TypeError):
        return None
    extras = [_value(v) for v in (fn.__kwdefaults__ or {}).values()]
    if None in extras:
        return None
    return "\n".join([f"function {fn.__module__}.{fn.__qualname__}", _code(fn.__code__),
                      _digest(source.encode()), repr(sorted(fn.__kwdefaults__ or {})),
                      *extras, repr(fn.__annotations__)])


def _code(code):
    consts = []
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            consts.append(_code(c))
        elif isinstance(c, frozenset):  # (its order is the process's string hashing)
            consts.append(f"frozenset {sorted(map(repr, c))}")
        else:
            consts.append(f"{type(c).__name__} {c!r}")
    return "\n".join([code.co_qualname, code.co_filename, str(code.co_firstlineno),
                      str(code.co_flags), str(code.co_argcount), str(code.co_posonlyargcount),
                      str(code.co_kwonlyargcount), code.co_code.hex(), code.co_linetable.hex(),
                      code.co_exceptiontable.hex(), repr(code.co_names),
                      repr(code.co_varnames), repr(code.co_freevars), repr(code.co_cellvars),
                      *consts])


def _value(v):
    """A read value's content, or None. Containers, functions, classes and
    objects are described by their type and size here: the walk reads
    their elements, code and attributes one by one."""
    if v is guards.MISSING:
        return "builtin"  # (a builtin's name, not rebound)
    if v is None or type(v) in (bool, int, float, complex, str, bytes):
        return f"{type(v).__name__} {v!r}"
    if isinstance(v, np.generic):
        return f"scalar {v.dtype.str} {v.tobytes().hex()}"
    if isinstance(v, np.ndarray):
        if v.dtype.hasobject:
            return None
        return f"array {v.dtype.str} {v.shape} {_digest(np.ascontiguousarray(v).tobytes())}"
    if isinstance(v, types.ModuleType):
        return f"module {v.__name__}"
    if type(v) in (tuple, list, dict):
        return f"{type(v).__name__} {len(v)}" if len(v) <= guards.OPEN else None
    if type(v) in (set, frozenset):
        items = [_value(x) for x in v]
        return None if None in items else f"{type(v).__name__} {sorted(items)}"
    if getattr(v, "__s2sad_derivative__", False):
        return None  # (its options are not read here)
    if getattr(v, "__s2sad_custom__", None):
        return _custom(v)
    if inspect.isfunction(v):
        return f"function {v.__module__}.{v.__qualname__}"  # (its code: read as its own)
    if isinstance(v, (types.BuiltinFunctionType, np.ufunc)):
        return f"builtin {getattr(v, '__module__', None)}.{v.__name__}"
    if isinstance(v, (staticmethod, classmethod)):
        return f"{type(v).__name__}"  # (the function it wraps: read as its own)
    if isinstance(v, (types.GetSetDescriptorType, types.MemberDescriptorType)):
        return f"descriptor {v.__name__}"
    if hasattr(v, "py_func") and type(v).__module__.startswith("numba"):
        return _numba_kernel(v)
    if isinstance(v, type) or guards.users_object(v):
        cls = v if isinstance(v, type) else type(v)
        attributes = v.__dict__ if isinstance(v, type) else getattr(v, "__dict__", {})
        if len(attributes) > guards.OPEN:
            return None
        what = "class" if isinstance(v, type) else "object"
        return f"{what} {cls.__module__}.{cls.__qualname__}"  # (attributes: read one by one)
    return None


def _custom(v):
    """A custom gradient: its type and options (fn, fwd and bwd: read as
    their own)."""
    options = []
    for name, x in sorted(vars(v).items()):
        if name in ("fn", "fwd", "bwd", "__wrapped__", "__dict__") or callable(x):
            continue
        text = _value(x)
        if text is None:
            return None
        options.append(f"{name}={text}")
    return f"custom {type(v).__module__}.{type(v).__qualname__} {options}"


def _numba_kernel(kernel):
    """A numba kernel the function calls: its Python code and options."""
    text = _function(kernel.py_func)
    if text is None:
        return None
    return f"numba {text} {sorted(kernel.targetoptions.items())!r}"


def _digest(data):
    return hashlib.sha256(data).hexdigest()


# ---- records -----------------------------------------------------------------

def _load(path, targets):
    """The record at `path`, its module's objects taken from `targets` (this
    process's own: a global array is the array itself, as generated)."""
    try:
        with open(path, "rb") as f:
            record = pickle.load(f)
        if record.get("format") != _FORMAT:
            return None
        gen = Generated.__new__(Generated)
        gen.__dict__.update(record["generated"])
        gen.namespace = {name: targets[where] for name, where in record["namespace"].items()}
        return gen
    except FileNotFoundError:
        return None
    except Exception:  # (a record of another installation, or damaged: generate again)
        return None


def _store(path, gen, targets):
    """Write the record of `gen`; the objects its module needs (a global
    array, a numba kernel) are written as where the walk read them."""
    where = {id(obj): p for p, obj in reversed(targets.items())}
    if any(id(obj) not in where for obj in gen.namespace.values()):
        return  # (an object generation found elsewhere)
    fields = {k: v for k, v in vars(gen).items() if k != "namespace"}
    try:
        data = pickle.dumps({"format": _FORMAT, "generated": fields,
                             "namespace": {n: where[id(o)] for n, o in gen.namespace.items()}},
                            protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # (a field pickle cannot write)
        return
    try:
        cache.write_file(path, data)
    except OSError:
        pass
