"""Containers as arguments (pytrees, as JAX and autograd take them).

A dict, a NamedTuple, a dataclass instance, or a list or tuple holding an
array or another container is flattened at the boundary: the derivative is generated for
its leaves (floats, ints, arrays) as separate parameters
(transforms/frontend/containers/flatten_args.py rewrites the function's reads of it), and the
gradient, tangent or seed of such an argument has its structure: a dict
for a dict, the same NamedTuple type or dataclass, a list for a list. A
list or tuple of plain numbers is an array, as it always was in s2sad.
A string field of a dataclass or NamedTuple (`mode: str`) is a static
leaf: a constant of the specialisation, as a string argument is, and the
gradient holds it unchanged; an int or bool leaf's gradient is 0.0."""
import dataclasses
import textwrap

import numpy as np

from .precision import cast_like
from .transforms.frontend.containers.structure import Structure, path_text
from .transforms.errors import S2sadTypeError, S2sadValueError


def is_container(v):
    """Is `v` flattened into leaves (rather than being one value)?"""
    if isinstance(v, dict) or _is_namedtuple(v) or _is_dataclass(v):
        return True
    if isinstance(v, (list, tuple)):
        return not v or not all(_is_number(e) for e in v) and not _is_nested_numbers(v)
    return False


def _is_number(v):
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, bool)


def _is_nested_numbers(v):
    """[[1, 2], [3, 4]]: a rectangular list of numbers, which is an array."""
    if not isinstance(v, list) or not all(isinstance(e, (list, tuple)) for e in v):
        return False
    try:
        return np.asarray(v).dtype.kind in "iuf"
    except ValueError:
        return False


def _is_namedtuple(v):
    return isinstance(v, tuple) and hasattr(type(v), "_fields")


def _is_dataclass(v):
    return dataclasses.is_dataclass(v) and not isinstance(v, type)


def _fields(v, where="", path=("",)):
    """The field names of a dataclass instance; TypeError for a field the
    constructor does not take (s2sad could not say what it holds)."""
    names = []
    for f in dataclasses.fields(v):
        if not f.init:
            raise S2sadTypeError(f"{where}: argument {path_text(path[0], path[1:])} is a "
                            f"{type(v).__name__} (dataclass) with the field '{f.name}' set "
                            f"outside __init__ (init=False); s2sad takes dataclasses whose "
                            f"fields are all constructor arguments.")
        names.append(f.name)
    return tuple(names)


def structure_of(value, where, path):
    """The Structure of a container argument; TypeError for what cannot be a
    leaf. `where` names the derivative, `path` the argument (for messages)."""
    if isinstance(value, dict):
        keys = tuple(value)
        for k in keys:
            if not isinstance(k, (str, int)) or isinstance(k, bool):
                raise S2sadTypeError(f"{where}: argument {path} has the key {k!r}; s2sad takes dicts "
                                f"with str or int keys. Use string keys.")
        return Structure("dict", keys, tuple(structure_of(value[k], where, path + (k,))
                                             for k in keys), "dict")
    if _is_namedtuple(value):
        fields = tuple(type(value)._fields)
        return Structure("namedtuple", fields, tuple(
            _field_structure(getattr(value, f), where, path + (f,)) for f in fields),
            type(value).__name__)
    if _is_dataclass(value):
        fields = _fields(value, where, path)
        return Structure("dataclass", fields, tuple(
            _field_structure(getattr(value, f), where, path + (f,)) for f in fields),
            type(value).__name__)
    if isinstance(value, (list, tuple)):
        node = "list" if isinstance(value, list) else "tuple"
        return Structure(node, tuple(range(len(value))), tuple(
            structure_of(e, where, path + (k,)) for k, e in enumerate(value)), node)
    if isinstance(value, (bool, np.bool_)) or _is_number(value) or isinstance(value, np.number):
        return Structure("leaf")
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
        return Structure("leaf")
    raise S2sadTypeError(f"{where}: argument {path_text(path[0], path[1:])} is "
                    f"{type(value).__name__ if not isinstance(value, np.ndarray) else 'an array of dtype ' + str(value.dtype)}; "
                    f"the leaves of a container argument must be floats, ints or numeric arrays "
                    f"(or strings, as fields of a NamedTuple or dataclass). "
                    f"Pass it as a separate argument, or convert it.")


def _field_structure(value, where, path):
    """A NamedTuple's or dataclass's field: a string is a static leaf (a
    constant of the specialisation, as a string argument is)."""
    if isinstance(value, str):
        return Structure("leaf")
    return structure_of(value, where, path)


def leaves(value):
    """The leaves of a container, in the order of its Structure; 0-d arrays
    are floats (as a plain argument)."""
    if isinstance(value, dict):
        return [x for k in value for x in leaves(value[k])]
    if _is_dataclass(value):
        return [x for f in _fields(value) for x in leaves(getattr(value, f))]
    if isinstance(value, (list, tuple)):
        return [x for e in value for x in leaves(e)]
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return [value.item()]
    return [value]


def leaves_like(structure, value, where, what):
    """The leaves of `value` (a tangent or a seed), which must have
    `structure`; ValueError naming `what` if it does not."""
    if structure.is_leaf:
        return [value]
    if structure.node == "dict":
        if not isinstance(value, dict) or set(value) != set(structure.keys):
            raise S2sadValueError(f"{where}: {what} must be a dict with the keys "
                             f"{list(structure.keys)}, not {_describe(value)}")
        return [x for k, c in zip(structure.keys, structure.children)
                for x in leaves_like(c, value[k], where, f"{what}[{k!r}]")]
    if structure.node == "dataclass":
        if not _is_dataclass(value) or _fields(value) != structure.keys:
            raise S2sadValueError(f"{where}: {what} must be a {structure.type_name} (dataclass) "
                             f"with the fields {list(structure.keys)}, not {_describe(value)}")
        return [x for k, c in zip(structure.keys, structure.children)
                for x in leaves_like(c, getattr(value, k), where, f"{what}.{k}")]
    if not isinstance(value, (list, tuple)) or len(value) != len(structure.children):
        raise S2sadValueError(f"{where}: {what} must be {structure.describe()} of "
                         f"{len(structure.children)} items, not {_describe(value)}")
    return [x for k, c, e in zip(structure.keys, structure.children, value)
            for x in leaves_like(c, e, where, f"{what}[{k!r}]")]


def _describe(v):
    if isinstance(v, dict):
        return f"a dict with the keys {list(v)}"
    if isinstance(v, (list, tuple)):
        return f"a {type(v).__name__} of {len(v)} items"
    return type(v).__name__


def unflatten(structure, values, like=None):
    """A container of `structure` holding `values` (an iterator or list),
    of the same types as `like` (the argument: its NamedTuple class)."""
    it = iter(values)
    return _build(structure, it, like)


def _build(structure, it, like):
    if structure.is_leaf:
        return next(it)
    if structure.node == "dict":
        return {k: _build(c, it, like[k] if like is not None else None)
                for k, c in zip(structure.keys, structure.children)}
    if structure.node == "dataclass":
        # without calling __init__ or __post_init__ (which may check or convert
        # values: these are gradients), frozen or not, as flax and equinox do
        out = object.__new__(type(like))
        for k, c in zip(structure.keys, structure.children):
            object.__setattr__(out, k, _build(c, it, getattr(like, k)))
        return out
    parts = list(like) if like is not None else [None] * len(structure.children)
    items = [_build(c, it, part) for c, part in zip(structure.children, parts)]
    if structure.node == "list":
        return items
    if structure.node == "namedtuple":
        return type(like)(*items)
    return tuple(items)


class Flat:
    """One call's arguments with its containers flattened: the leaves'
    names (for messages), values and positions of `wrt`, and how to put
    the leaves' gradients back into the containers' structure."""

    def __init__(self, where, names, values, wrt):
        self.structures, self.args = {}, dict(zip(names, values))
        self.names, self.values, spans = [], [], []
        for n, v in zip(names, values):
            start = len(self.values)
            if is_container(v):
                s = self.structures[n] = structure_of(v, where, (n,))
                self.names += [path_text(n, p) for p in s.leaf_paths()]
                self.values += leaves(v)
            else:
                self.names.append(n)
                self.values.append(v)
            spans.append(range(start, len(self.values)))
        self.wrt, self.groups = [], []  # per item of wrt: (argument, its leaves' positions)
        for w in wrt:
            if not isinstance(w, int):  # a local variable
                self.groups.append((None, [len(self.wrt)]))
                self.wrt.append(w)
                continue
            arg = names[w]
            positions = list(spans[w])
            if arg in self.structures:
                positions = [k for k in positions if is_float(self.values[k])]
                if not positions:
                    raise S2sadTypeError(f"{where}: argument '{arg}' ({self.structures[arg].describe()}"
                                    f") holds no float or float array; only those can be "
                                    f"differentiated. Leave it out of wrt.")
            self.groups.append((arg, list(range(len(self.wrt), len(self.wrt) + len(positions)))))
            self.wrt += positions
        self.spans = spans
        self.key = tuple(self.structures.items())
        self.wrt_text = ", ".join(names[w] if isinstance(w, int) else w for w in wrt)

    def tangents(self, where, tangents):
        """The leaf tangents of a jvp (one per item of wrt, each with its
        argument's structure)."""
        out = []
        for (arg, _), t in zip(self.groups, tangents):
            if arg not in self.structures:
                out.append(t)
                continue
            s = self.structures[arg]
            flat = leaves_like(s, t, where, f"the tangent of '{arg}'")
            start = self.names.index(path_text(arg, s.leaf_paths()[0]))
            out += [x for k, x in enumerate(flat) if is_float(self.values[start + k])]
        return out

    def gradients(self, grads):
        """The gradients of the leaves put back into the structures: one
        per item of wrt."""
        out = []
        for arg, indices in self.groups:
            if arg not in self.structures:
                out.append(grads[indices[0]])
                continue
            s = self.structures[arg]
            start = self.names.index(path_text(arg, s.leaf_paths()[0]))
            given = iter(grads[i] for i in indices)
            values = [next(given) if is_float(v) else v if isinstance(v, str)
                      else np.zeros(np.shape(v)) if np.ndim(v)
                      else 0.0 for v in self.values[start:start + len(s.leaf_paths())]]
            leaves_ = self.values[start:start + len(values)]
            values = [cast_like(g, v) for g, v in zip(values, leaves_)]
            out.append(unflatten(s, values, self.args[arg]))
        return out

    def describe(self, fn):
        """A line for the generated module's docstring: which parameter
        holds which leaf."""
        from .transforms.frontend.containers.flatten import flatten_parameters
        from .transforms.frontend.pipeline import parse
        parsed = parse(fn)
        names = flatten_parameters(parsed, self.structures, parse)
        pairs = [f"{path_text(a, p)} -> {n}" for a, s in self.structures.items()
                 for p, n in zip(s.leaf_paths(), names[a])]
        text = "Container arguments are passed as their leaves: " + ", ".join(pairs) + "."
        return "\n\n" + textwrap.fill(text, 79)


def is_float(v):
    if isinstance(v, np.ndarray):
        return v.dtype.kind == "f"
    return isinstance(v, (float, np.floating))
