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
        base = base.strip("_") or "t"
        candidate, k = base, 1
        while candidate in self.taken:
            k += 1
            candidate = f"{base}{k}"
        self.taken.add(candidate)
        return candidate

    def reserve(self, name):
        self.taken.add(name)


# Names generated code relies on, plus builtins a temporary must not shadow.
_RESERVED = {"np", "math", "numba", "rt", "sum", "min", "max", "abs", "len", "range",
             "int", "float", "bool", "pow", "round", "list", "tuple", "print",
             "True", "False", "None"}
