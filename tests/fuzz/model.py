"""The pieces a generated program is made of: the Program record, the
variables and function being written, and the sources of random choices."""
import ast
import dataclasses
import random

import numpy as np
from hypothesis import strategies as st


MAIN = "fuzzed"


@dataclasses.dataclass(frozen=True)
class Tree:
    """The shape of a container argument: a dict, tuple or list of leaves,
    each a float (shape ()) or an array (`leaves`: ((key, shape), ...), keys
    0, 1, ... for a tuple or list)."""
    kind: str
    leaves: tuple

    def build(self, values):
        if self.kind == "dict":
            return {k: v for (k, _), v in zip(self.leaves, values)}
        return tuple(values) if self.kind == "tuple" else list(values)


@dataclasses.dataclass
class Program:
    """A generated program: `source` defines the helpers and `fuzzed`."""
    source: str
    arg_names: tuple
    arg_shapes: tuple     # () float, (n,) / (r, c) arrays, None an int argument, a Tree a container,
                          # "str" a string argument
    arg_ints: tuple       # the int (and string) arguments' values (None for floats)
    wrt: tuple            # positions differentiated
    value_seed: int
    features: frozenset = frozenset()
    jit: bool = False     # also check jit=True (and jit against Python)
    parallel: bool = False    # also check parallel=True (compiled too when jit) against serial

    def args(self):
        """Fresh argument values (the function may write into arrays)."""
        rng = np.random.default_rng(self.value_seed)

        def value(shape):
            if shape == ():
                return float(rng.uniform(-1.5, 1.5))
            return rng.uniform(-1.5, 1.5, shape)
        out = []
        for shape, iv in zip(self.arg_shapes, self.arg_ints):
            if shape is None:
                out.append(int(iv))
            elif shape == "str":
                out.append(iv)
            elif isinstance(shape, Tree):
                out.append(shape.build([value(s) for _, s in shape.leaves]))
            else:
                out.append(value(shape))
        return out

    def call_text(self):
        """The argument values as Python source (for regression tests)."""
        def text(v):
            if isinstance(v, np.ndarray):
                return f"np.array({np.round(v, 3).tolist()!r})"
            if isinstance(v, float):
                return repr(round(v, 3))
            if isinstance(v, dict):
                return "{" + ", ".join(f"{k!r}: {text(e)}" for k, e in v.items()) + "}"
            if isinstance(v, (tuple, list)):
                inner = ", ".join(text(e) for e in v) + ("," if len(v) == 1 else "")
                return f"({inner})" if isinstance(v, tuple) else f"[{inner}]"
            return repr(v)
        parts = [text(v) for v in self.args()]
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


def par(e):
    """`e`, parenthesised unless it is a name, number, call or subscript."""
    node = ast.parse(e, mode="eval").body
    if isinstance(node, (ast.Name, ast.Call, ast.Subscript, ast.Attribute)) or (
            isinstance(node, ast.Constant) and not e.startswith("-")):
        return e
    return f"({e})"


def is_view(e):
    """Whether the array `e` may share memory with a variable (a name, a
    subscript, a transpose, or a marker/helper/branch that may return one)."""
    node = ast.parse(e, mode="eval").body

    def view(n):
        if isinstance(n, (ast.Name, ast.Subscript)):
            return True
        if isinstance(n, ast.Attribute):
            return n.attr == "T"
        if isinstance(n, ast.IfExp):
            return view(n.body) or view(n.orelse)
        if isinstance(n, ast.Call):
            f = ast.unparse(n.func)
            if f in ("stop_gradient", "s2sad.stop_gradient", "np.transpose") or f.startswith("helper_"):
                return True
        return False
    return view(node)


class _Var:
    __slots__ = ("name", "shape", "role", "lo", "hi", "view")

    def __init__(self, name, shape, role, lo=0, hi=0):
        self.name, self.shape, self.role, self.lo, self.hi = name, shape, role, lo, hi
        self.view = False     # may share memory with another array

    @property
    def is_int(self):
        return self.shape is None


class _Fn:
    """The function being written."""

    def __init__(self, name, params, out):
        self.name, self.params, self.out = name, params, out
        self.scopes = [{p.name: p for p in params}]
        self.loops = []               # "for" / "while" of the enclosing loops
        self.lines = []
        self.indent = 1
        self.writable = set()         # arrays written through subscripts
        self.augmented = set()        # arrays updated in place (v += e) inside a loop
        self.sums = []                # totals of top-level sum loops, added to the return
        self.no_reset = False         # rebinds or writes an argument
        self.has_reset = False
        self.in_recording = False     # inside `with stop_recording()`
        self.frozen = set()           # sequences of enclosing `for e in seq` loops
        self.cond_depth = 0           # inside a branch (or a loop that may not run)
        self.loop_guard = []          # per enclosing loop: after a conditional break/continue
        self.after_return = False     # after a conditional return
        self.seen_loop = False        # a loop was written
        self.prelude = []             # lines before the body (index arrays)
        self.index_arrays = []        # (name, values) bound in the prelude

    def vars(self, pred=lambda v: True):
        seen = {}
        for scope in self.scopes:
            for n, v in scope.items():
                seen[n] = v
        return [v for v in seen.values() if pred(v)]

    def emit(self, text):
        self.lines.append("    " * self.indent + text)


class _HypothesisChoices:
    """Choices drawn from hypothesis (shrinkable)."""

    def __init__(self, draw):
        self.draw = draw

    def int(self, lo, hi):
        return self.draw(st.integers(lo, hi))

    def perm(self, seq):
        return list(self.draw(st.permutations(list(seq))))


class _RandomChoices:
    """The same choices from random.Random: fast, and no repeated programs."""

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def int(self, lo, hi):
        return self.rng.randint(lo, hi)

    def perm(self, seq):
        seq = list(seq)
        self.rng.shuffle(seq)
        return seq


def _has_variable(e):
    return any(isinstance(n, ast.Name) and n.id not in ("np", "math", "s2sad")
               for n in ast.walk(ast.parse(e, mode="eval")))


def _reads_own_subscript(line, name):
    """Whether an assignment to `name` reads `name[...]` (v = v[3] * x)."""
    node = ast.parse(line.strip()).body[0]
    value = node.value
    return any(isinstance(n, ast.Subscript) and isinstance(n.value, ast.Name) and n.value.id == name
               for n in ast.walk(value))


def _is_tuple(out):
    """Whether a function's output kind is a tuple of shapes."""
    return isinstance(out, tuple) and bool(out) and isinstance(out[0], tuple)
