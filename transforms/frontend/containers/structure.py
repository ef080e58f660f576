"""The structure of a container argument (a pytree: dicts, lists, tuples,
NamedTuples and dataclasses of floats and arrays), shared by the front end
(flatten.py rewrites a function's reads of it) and s2sad/pytrees.py (which
flattens the values and rebuilds the gradients)."""
import re
from dataclasses import dataclass

from ...errors import S2sadError


class PytreeError(S2sadError, TypeError):
    """A container argument used in a way the flattening does not follow."""


@dataclass(frozen=True)
class Structure:
    """The shape of a container argument: `node` is "leaf", "dict", "list",
    "tuple", "namedtuple" or "dataclass"; `keys` are a dict's keys or a
    NamedTuple's or dataclass's fields (positions for a list or tuple);
    `type_name` names the container's type in messages."""
    node: str
    keys: tuple = ()
    children: tuple = ()
    type_name: str = ""

    @property
    def is_leaf(self):
        return self.node == "leaf"

    def leaf_paths(self, prefix=()):
        """Paths (tuples of keys) of the leaves, in order."""
        if self.is_leaf:
            return [prefix]
        return [p for k, c in zip(self.keys, self.children) for p in c.leaf_paths(prefix + (k,))]

    def describe(self):
        return {"dict": "a dict", "list": "a list", "tuple": "a tuple",
                "namedtuple": f"a {self.type_name} (NamedTuple)",
                "dataclass": f"a {self.type_name} (dataclass)"}.get(self.node, "a leaf")

    def child(self, key):
        for k, c in zip(self.keys, self.children):
            if k == key and type(k) is type(key):
                return c
        return None


def path_text(arg, path):
    """`p['a'][0]`, as the user would index it."""
    return arg + "".join(f"[{k!r}]" for k in path)


def leaf_names(arg, structure, taken):
    """Parameter names for the leaves of `arg`: p_a, p_0, p_l1_W; not any
    name in `taken` (which grows)."""
    names = []
    for path in structure.leaf_paths():
        base = "_".join([arg] + [re.sub(r"\W", "_", str(k)) for k in path])
        n, k = base, 1
        while n in taken:
            n, k = f"{base}_{k}", k + 1
        taken.add(n)
        names.append(n)
    return names
