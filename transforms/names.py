"""Fresh, readable variable names that never collide with the user's."""
import gast

from .syntax import walk


class Namer:
    def __init__(self, taken=()):
        self.taken = set(taken)

    @classmethod
    def for_function(cls, tree, extra=()):
        taken = {n.id for n in walk(tree) if isinstance(n, gast.Name)}
        return cls(taken | set(extra) | _RESERVED)

    def fresh(self, base):
        return fresh_name(base.strip("_") or "t", self.taken)

    def reserve(self, name):
        self.taken.add(name)


def fresh_name(base, taken, sep=""):
    """`base`, or `base2`, `base3`, ... (`sep` between): the first not in
    `taken`, which it joins."""
    candidate, k = base, 1
    while candidate in taken:
        k += 1
        candidate = f"{base}{sep}{k}"
    taken.add(candidate)
    return candidate


# The runtime helpers every generated module may call (s2sad.runtime): a
# lifted nested function is not named like one.
RUNTIME_NAMES = ("unbroadcast", "zeros_like", "sum_to", "scatter_sum", "scatter_sum_axis",
                 "unreduce", "value_copy")

# Names generated code relies on, plus builtins a temporary must not shadow.
_RESERVED = {"np", "math", "numba", "prange", "rt", "sum", "min", "max", "abs", "len", "range",
             "int", "float", "bool", "pow", "round", "list", "tuple", "print",
             "True", "False", "None"}
