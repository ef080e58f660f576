"""Random programs in the language s2sad differentiates, as hypothesis
strategies.

A program is a module-level source text (helpers, then `fuzzed`), the
argument kinds and values, and the arguments to differentiate: straight-line
scalar and broadcasting array code, if/elif/else on differentiated values
and on integers, counted loops, `for row in A`, while loops (counted, with a
float counter, data-dependent, `while True`), break/continue/early return,
subscript reads and writes into local buffers and arguments, helpers
(returning values or tuples), conditional expressions, and the markers.

`programs()` is the hypothesis strategy (every choice drawn from hypothesis,
so failures shrink); `program(seed)` and `collect(n, seed)` drive the same
generator with random.Random, which is faster and never repeats a program.

Programs are valid by construction:

* every variable has one kind (float, int, array of a shape) for its whole
  life, is defined before it is used and only used in the block that
  defined it (or a nested one);
* subscripts are in range (loop bounds are known numbers);
* loops terminate (every `while` has an iteration cap);
* values stay moderate (updates inside loops are damped and squashed;
  `exp`, `log`, `sqrt`, `**` and division only see safe arguments);
* no array is written in place (`b[i] = ...`, `v += ...`) while another name
  may share its memory: s2sad does not track writes through a second name;
* functions calling `reset_recording` do not write their arguments (whether
  an argument written before the reset is "computed before" is left open);
* what numba itself cannot compile is left out: `np.clip` of a scalar,
  rebinding a 2-D variable (a transpose is F-ordered and numba cannot then
  compute with a variable that is sometimes C-ordered).

Kinks (branches, `abs`/`min`/`max`/`np.where`/`%`... on differentiated
values) are allowed: `reference` traces them so that finite differences are
only trusted where no kink is crossed.

`KNOWN_BUGS` names features that trigger a known, open compiler bug (each
with an xfail test in tests/test_fuzz_regressions.py). Avoiding one either
changes what is generated (no array bound in a branch, no early return of a
tuple, ...) or rewrites a spelling (`t = s` becomes `t = 1.0 * s`); the
in-suite run and the long run avoid them, so that they stay green and keep
looking for new bugs (`--all-features` does not).
"""
import ast
import dataclasses
import math
import random
import re

import numpy as np
from hypothesis import strategies as st

MAIN = "fuzzed"
HEADER = ("import math\n\nimport numpy as np\n\nimport s2sad\n"
          "from s2sad import reset_recording, stop_gradient, stop_recording\n")

# feature name -> regression test documenting the bug (see test_fuzz_regressions.py)
KNOWN_BUGS = {
}

FEATURES = (
    "kinks",            # abs, min, max, np.maximum, np.where, np.clip, ...
    "active_if",        # branches on differentiated values
    "inactive_if",      # branches on loop counters and int arguments
    "for",              # counted loops
    "while",            # while loops (counted, float counter, data-dependent, while True)
    "break", "continue", "return",   # early exits
    "buffers",          # local arrays written through subscripts
    "slice_write",      # buf[1:] = ..., B[i] = row, B[:, j] = column
    "arg_write",        # writes into argument arrays
    "helpers",          # calls to other generated functions
    "tuple_helper",     # helpers returning a tuple
    "stop_gradient", "stop_recording", "reset_recording",
    "matrix",           # 2-D arrays, @, outer, axis reductions
    "ifexp",            # conditional expressions
    "tuple_assign",     # a, b = ..., swaps
    "iter_array",       # for row in A / for e in v
    "vector_output", "tuple_output",
    "mod",              # % on differentiated values
    # finer features, named after the bugs they trigger (see KNOWN_BUGS)
    "branch_local_array",   # an array bound where the code may not run (a branch, after an exit)
    "tuple_early_return",   # an early return in a function returning a tuple
    "neg_const_pow",        # (-1.5) ** 2
    "stop_gradient_attr",   # s2sad.stop_gradient(...) rather than stop_gradient(...)
    "copy_after_loop",      # t = s, w = np.copy(v), a, b = b, a (plain copies)
    "tuple_output_subscript",   # return x[i], v
    "array_output_restored",    # return b, b written through subscripts
    "element_self_copy",    # b[i] = b[j] (i == j at run time)
    "chained_subscript",    # A[:, j][i]
    "constant_condition",   # if 0.5 > 1.0: (numba prunes the branch)
    "tuple_helper_array",   # a helper returning (scalar, array)
    "reset_in_helper",      # reset_recording() in a helper (its locals become constants)
    "recording_subscript_write",    # b[i] = ... inside `with stop_recording():`
    "self_subscript_rebind",    # v = v[3] * x (an array rebound from its own elements)
)


@dataclasses.dataclass
class Program:
    """A generated program: `source` defines the helpers and `fuzzed`."""
    source: str
    arg_names: tuple
    arg_shapes: tuple     # () float, (n,) / (r, c) arrays, None an int argument
    arg_ints: tuple       # the int arguments' values (None for floats)
    wrt: tuple            # positions differentiated
    value_seed: int
    features: frozenset = frozenset()
    jit: bool = False     # also check jit=True (and jit against Python)

    def args(self):
        """Fresh argument values (the function may write into arrays)."""
        rng = np.random.default_rng(self.value_seed)
        out = []
        for shape, iv in zip(self.arg_shapes, self.arg_ints):
            if shape is None:
                out.append(int(iv))
            elif shape == ():
                out.append(float(rng.uniform(-1.5, 1.5)))
            else:
                out.append(rng.uniform(-1.5, 1.5, shape))
        return out

    def call_text(self):
        """The argument values as Python source (for regression tests)."""
        parts = []
        for v in self.args():
            if isinstance(v, np.ndarray):
                parts.append(f"np.array({np.round(v, 3).tolist()!r})")
            elif isinstance(v, float):
                parts.append(repr(round(v, 3)))
            else:
                parts.append(repr(v))
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
        self.no_reset = False         # rebinds or writes an argument
        self.has_reset = False
        self.in_recording = False     # inside `with stop_recording()`
        self.frozen = set()           # sequences of enclosing `for e in seq` loops
        self.cond_depth = 0           # inside a branch (or a loop that may not run)
        self.loop_guard = []          # per enclosing loop: after a conditional break/continue
        self.after_return = False     # after a conditional return
        self.seen_loop = False        # a loop was written

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


class _Gen:
    def __init__(self, choices, avoid=frozenset()):
        self.choices = choices
        self.avoid = frozenset(avoid)
        self.used = set()
        self.count = 0
        self.helpers = []             # (name, param shapes, out shape or tuple)
        self.fn = None

    # ---- choices ---------------------------------------------------------------
    def int(self, lo, hi):
        return self.choices.int(lo, hi)

    def p(self, prob):
        """True with probability `prob` (shrinks to False)."""
        return self.choices.int(0, 999) >= 1000 - int(prob * 1000)

    def pick(self, seq):
        seq = list(seq)
        return seq[self.int(0, len(seq) - 1)]

    def weighted(self, options):
        """options: [(weight, value)], weight 0 = unavailable; the first
        available option is what it shrinks to."""
        options = [(w, v) for w, v in options if w > 0]
        total = sum(w for w, _ in options)
        r = self.int(0, total - 1)
        for w, v in options:
            if r < w:
                return v
            r -= w
        raise AssertionError

    def ok(self, feature):
        return feature not in self.avoid

    def use(self, feature):
        self.used.add(feature)

    def fresh(self, prefix):
        self.count += 1
        return f"{prefix}{self.count}"

    def const(self, lo=-1.5, hi=1.5):
        return repr(round(lo + (hi - lo) * self.int(0, 20) / 20.0, 2))

    # ---- shapes -----------------------------------------------------------------
    def conditional(self):
        """Whether statements here may not run (a branch, the rest of a loop
        body after a conditional break, ...): desugaring puts them in a branch."""
        fn = self.fn
        return fn.cond_depth > 0 or fn.after_return or any(fn.loop_guard)

    def arrays_ok(self):
        """Whether a new array variable may be bound here."""
        if not self.conditional():
            return True
        if self.ok("branch_local_array"):
            self.use("branch_local_array")
            return True
        return False

    def tuples_ok(self):
        """Tuple assignments are normalised into copies (t = a; a = b; b = t):
        with copy_after_loop avoided, only before the function's first loop."""
        if not (self.fn.loops or self.fn.seen_loop):
            return True
        if self.ok("copy_after_loop"):
            self.use("copy_after_loop")
            return True
        return False

    def new_shapes(self):
        """Shapes for a new variable here."""
        return self.shape_options() if self.arrays_ok() else [()]

    def shape_options(self):
        shapes = [(), (self.N,)]
        if self.ok("matrix") and self.use_matrix:
            shapes.append((self.R, self.C))
        return shapes

    # ---- integers (indices, loop bounds) ---------------------------------------
    def index(self, length):
        """An int expression in [0, length)."""
        fn = self.fn
        opts = [(3, repr(self.int(0, length - 1)))]
        opts.append((1, repr(-self.int(1, length))))
        for v in fn.vars(lambda v: v.is_int and v.role in ("loop", "counter", "intarg", "len")):
            lo, hi = v.lo, v.hi
            if 0 <= lo and hi < length:
                opts.append((6, v.name))
                opts.append((1, f"{length - 1} - {v.name}"))
            if 1 <= lo and hi - 1 < length:
                opts.append((3, f"{v.name} - 1"))
            if 0 <= lo and hi + 1 < length:
                opts.append((3, f"{v.name} + 1"))
            if lo >= 0 and hi >= length:
                opts.append((2, f"{v.name} % {length}"))
        return self.weighted(opts)

    def length_expr(self, n):
        """An int expression whose value is n (a loop bound)."""
        opts = [(3, repr(n))]
        for v in self.fn.vars(lambda v: not v.is_int and v.shape != ()):
            if v.shape[0] == n:
                opts.append((2, f"{v.name}.shape[0]"))
                if len(v.shape) == 1:
                    opts.append((1, f"len({v.name})"))
            if len(v.shape) == 2 and v.shape[1] == n:
                opts.append((1, f"{v.name}.shape[1]"))
        for v in self.fn.vars(lambda v: v.is_int and v.role in ("intarg", "len")):
            if v.lo == v.hi == n:
                opts.append((3, v.name))
        return self.weighted(opts)

    # ---- expressions --------------------------------------------------------------
    def expr(self, shape, depth):
        if depth <= 0 or self.p(0.25):
            return self.atom(shape)
        if shape == ():
            return self.scalar(depth)
        return self.array(shape, depth)

    def squash(self, shape, depth):
        """A value in [-1, 1] (or so)."""
        e = self.expr(shape, depth)
        m = "math" if shape == () and self.p(0.5) else "np"
        return self.pick([f"{m}.tanh({e})", f"{m}.sin({e})", f"{m}.cos({e})",
                          f"{par(e)} / (1.0 + {par(e)} ** 2)"])

    def atom(self, shape):
        fn = self.fn
        opts = []
        same = fn.vars(lambda v: v.shape == shape)
        for v in same:
            opts.append((4, v.name))
        if shape == ():
            opts.append((2, self.const()))
            for v in fn.vars(lambda v: not v.is_int and len(v.shape or ()) == 1):
                opts.append((4, f"{v.name}[{{i{v.shape[0]}}}]"))
            for v in fn.vars(lambda v: not v.is_int and len(v.shape or ()) == 2):
                opts.append((2, f"{v.name}[{{i{v.shape[0]}}}, {{i{v.shape[1]}}}]"))
            for v in fn.vars(lambda v: v.is_int and v.role in ("loop", "counter")):
                opts.append((1, f"{self.const(0.1, 0.5)} * {v.name}"))
        elif len(shape) == 1:
            L = shape[0]
            for v in fn.vars(lambda v: not v.is_int and len(v.shape or ()) == 1 and v.shape[0] > L):
                L2 = v.shape[0]
                a = self.int(0, L2 - L)
                opts.append((2, f"{v.name}[{a}:{a + L}]"))
                if (L2 + 1) // 2 == L:
                    opts.append((1, f"{v.name}[::2]"))
            for v in fn.vars(lambda v: not v.is_int and len(v.shape or ()) == 2):
                if v.shape[1] == L:
                    opts.append((2, f"{v.name}[{{i{v.shape[0]}}}]"))
                if v.shape[0] == L:
                    opts.append((2, f"{v.name}[:, {{i{v.shape[1]}}}]"))
            if not opts or self.p(0.1):
                opts.append((1, f"np.linspace({self.const()}, {self.const()}, {L})"))
        else:
            for v in fn.vars(lambda v: not v.is_int and v.shape == (shape[1], shape[0])):
                opts.append((1, f"{v.name}.T"))
            if not opts or self.p(0.1):
                opts.append((1, f"{self.const(0.2, 1.5)} * np.ones(({shape[0]}, {shape[1]}))"))
        text = self.weighted(opts)
        while "{i" in text:   # fill in indices
            start = text.index("{i")
            end = text.index("}", start)
            text = text[:start] + self.index(int(text[start + 2:end])) + text[end + 1:]
        return text

    def atom_var(self, shape):
        """A variable of this shape (or an element of an argument)."""
        vs = self.fn.vars(lambda v: v.shape == shape)
        if vs:
            return self.pick(vs).name
        arr = self.fn.vars(lambda v: not v.is_int and v.shape is not None and len(v.shape) == 1)
        return f"{self.pick(arr).name}[0]" if arr else "1.0"

    def owned(self, e, shape):
        """`e`, copied if it is a view of an array written through subscripts
        (binding it to a second name would alias the array)."""
        if shape != () and is_view(e):
            names = {n.id for n in ast.walk(ast.parse(e, mode="eval")) if isinstance(n, ast.Name)}
            if names & self.fn.writable or "helper_" in e:
                return f"np.copy({e})"
        return e

    def call_helper(self, shape, depth):
        cands = [h for h in self.helpers if h[2] == shape]
        if not cands:
            return None
        name, params, _ = self.pick(cands)
        self.use("helpers")
        return f"{name}({', '.join(self.owned(self.expr(s, depth - 1), s) for s in params)})"

    def branch(self, make):
        """An expression evaluated only on one side of a condition."""
        self.fn.cond_depth += 1
        try:
            return make()
        finally:
            self.fn.cond_depth -= 1

    def binop(self, a, op, b):
        return f"{par(a)} {op} {par(b)}"

    def scalar(self, depth):
        d = depth - 1
        E = lambda: self.expr((), d)  # noqa: E731
        P = lambda: par(self.expr((), d))  # noqa: E731
        kinks = self.ok("kinks")
        arrays = [s for s in self.shape_options() if s != ()]
        m = "math" if self.p(0.6) else "np"
        k = self.weighted([
            (12, "binop"), (3, "div"), (10, "unary"), (2, "pow"), (8, "reduce"),
            (2 if kinks else 0, "kink"), (1 if self.ok("ifexp") else 0, "ifexp"),
            (3 if self.ok("helpers") and any(h[2] == () for h in self.helpers) else 0, "helper"),
            (1 if self.ok("stop_gradient") else 0, "stop_gradient"),
            (1 if self.ok("mod") else 0, "mod"),
            (1, "subscript_of_expr"),
        ])
        if k == "binop":
            return self.binop(E(), self.pick(['+', '-', '*', '*', '+']), E())
        if k == "div":
            return self.pick([f"{P()} / ({self.const(1.0, 2.0)} + {P()} ** 2)",
                              f"{P()} / (2.0 + {m}.sin({E()}))",
                              f"{P()} / {self.pick(['2.0', '3.0', '-1.5', '0.5'])}"])
        if k == "unary":
            e = E()
            return self.pick([
                f"-{par(e)}", f"{m}.sin({e})", f"{m}.cos({e})", f"{m}.tanh({e})",
                f"np.arctan({e})" if m == "np" else f"math.atan({e})",
                f"{m}.exp({m}.sin({e}))", f"{m}.log(1.0 + {par(e)} ** 2)",
                f"{m}.sqrt(1.0 + {par(e)} * {par(e)})", f"{m}.log1p({par(e)} ** 2)",
                f"math.erf({e})", f"{m}.sinh({m}.tanh({e}))", f"{m}.cosh({m}.sin({e}))",
                f"{m}.expm1({m}.tanh({e}))", f"np.square({e})", f"float({e})",
                f"math.hypot({e}, 1.0 + {P()} ** 2)", f"math.atan2({e}, 1.5 + {P()} ** 2)",
                f"np.cbrt(1.0 + {par(e)} ** 2)", f"np.exp2(np.tanh({e}))",
                f"np.logaddexp({e}, {E()})", f"math.log10(1.5 + math.cos({e}))",
                f"math.log2(1.5 + math.sin({e}))", f"np.reciprocal(1.5 + np.sin({e}))",
            ])
        if k == "pow":
            e = par(E())
            return self.pick([f"{e} ** 2", f"{e} ** 3", f"(1.0 + {e} ** 2) ** 0.5",
                              f"(1.5 + math.sin({e})) ** {P()}", f"2.0 ** math.tanh({e})",
                              f"math.pow(1.2 + math.cos({e}), 1.5)"])
        if k == "reduce" and arrays:
            s = self.pick(arrays)
            a = self.expr(s, d)
            opts = [f"np.sum({a})", f"np.mean({a})", f"{par(a)}.sum()",
                    f"np.prod(1.0 + 0.2 * np.sin({a}))", f"np.linalg.norm(np.cos({a}))"]
            if len(s) == 1:
                b = self.expr(s, d)
                opts += [f"np.dot({a}, {b})", self.binop(a, "@", b)]
            if kinks:
                opts += [f"np.max({a})", f"np.min({a})"]
            return self.pick(opts)
        if k == "kink":
            self.use("kinks")
            # (numba has no np.clip for scalars: that is outside the language)
            return self.pick([f"abs({E()})", f"min({E()}, {E()})", f"max({E()}, {E()})",
                              f"np.maximum({E()}, {self.const()})", f"math.fabs({E()})",
                              f"np.abs({E()})", f"np.minimum({E()}, {self.const()})"])
        if k == "ifexp":
            self.use("ifexp")
            return f"({self.branch(E)} if {self.cond(d)} else {self.branch(E)})"
        if k == "helper":
            call = self.call_helper((), depth)
            if call:
                return call
        if k == "stop_gradient":
            self.use("stop_gradient")
            return self.pick([f"stop_gradient({E()})", f"s2sad.stop_gradient({E()})"])
        if k == "mod":
            self.use("mod")
            return f"{P()} % {self.pick(['1.7', '0.9', '2.3'])}"
        if k == "subscript_of_expr" and arrays and self.arrays_ok():   # (a temporary array)
            return f"{par(self.expr((self.N,), d))}[{self.index(self.N)}]"
        return self.binop(E(), "*", E())

    def array(self, shape, depth):
        d = depth - 1
        E = lambda s=shape: self.expr(s, d)  # noqa: E731
        P = lambda s=shape: par(self.expr(s, d))  # noqa: E731
        kinks = self.ok("kinks")
        opts = [(12, "binop"), (4, "broadcast"), (10, "unary"), (2, "div"),
                (2 if kinks else 0, "kink"), (1 if self.ok("ifexp") else 0, "ifexp"),
                (3 if self.ok("helpers") and any(h[2] == shape for h in self.helpers) else 0, "helper"),
                (1 if self.ok("stop_gradient") else 0, "stop_gradient")]
        if len(shape) == 1:
            opts += [(1, "cumsum"), (1, "concat")]
            if self.ok("matrix") and self.use_matrix:
                opts += [(3, "matvec"), (2, "axis_sum")]
        else:
            opts += [(3, "outer"), (1, "transpose"), (1, "stack")]
        k = self.weighted(opts)
        if k == "binop":
            return self.binop(E(), self.pick(['+', '-', '*']), E())
        if k == "broadcast":
            op = self.pick(['+', '-', '*'])
            other = (shape[1],) if len(shape) == 2 and self.p(0.5) else ()
            return self.binop(E(other), op, E()) if self.p(0.5) else self.binop(E(), op, E(other))
        if k == "div":
            return self.pick([f"{P()} / (1.0 + {P()} ** 2)", f"{P()} / (2.0 + np.cos({E()}))",
                              f"{P()} / {self.pick(['2.0', '-3.0', '1.5'])}"])
        if k == "unary":
            e = E()
            return self.pick([
                f"-{par(e)}", f"np.sin({e})", f"np.cos({e})",
                f"np.tanh({e})", f"np.arctan({e})", f"np.exp(np.sin({e}))",
                f"np.log(1.0 + {par(e)} ** 2)", f"np.sqrt(1.0 + {par(e)} * {par(e)})",
                f"np.square({e})", f"{par(e)} ** 2", f"np.log1p({par(e)} ** 2)",
                f"np.power(1.5 + np.sin({e}), 2.0)", f"np.negative({e})",
                f"{par(e)} / (1.0 + {par(e)} ** 2)", f"np.copy({e})",
            ])
        if k == "kink":
            self.use("kinks")
            return self.pick([f"np.abs({E()})", f"np.maximum({E()}, {E()})",
                              f"np.minimum({E()}, {self.const()})",
                              f"np.clip({E()}, -0.5, 0.8)",
                              f"np.where({P()} > {self.const()}, {E()}, {E()})"])
        if k == "ifexp":
            self.use("ifexp")
            return (f"({self.owned(self.branch(E), shape)} if {self.cond(d)} "
                    f"else {self.owned(self.branch(E), shape)})")
        if k == "helper":
            call = self.call_helper(shape, depth)
            if call:
                return call
        if k == "stop_gradient":
            self.use("stop_gradient")
            return f"stop_gradient({self.owned(E(), shape)})"
        if k == "cumsum":
            return f"np.cumsum({E()})"
        if k == "concat" and shape[0] >= 2:
            a = self.int(1, shape[0] - 1)
            return f"np.concatenate(({E((a,))}, {E((shape[0] - a,))}))"
        if k == "matvec":
            L, R, C = shape[0], self.R, self.C
            opts = []
            if L == R:
                opts += [self.binop(E((R, C)), "@", E((C,))), f"np.dot({E((R, C))}, {E((C,))})"]
            if L == C:
                opts += [self.binop(E((R,)), "@", E((R, C))),
                         self.binop(f"{par(E((R, C)))}.T", "@", E((R,)))]
            if opts:
                self.use("matrix")
                return self.pick(opts)
        if k == "axis_sum":
            L = shape[0]
            opts = []
            if L == self.C:
                opts += [f"np.sum({E((self.R, self.C))}, axis=0)"]
            if L == self.R:
                opts += [f"np.sum({E((self.R, self.C))}, axis=1)",
                         f"{par(E((self.R, self.C)))}.sum(axis=1)"]
            if opts:
                self.use("matrix")
                return self.pick(opts)
        if k == "outer":
            self.use("matrix")
            return f"np.outer({E((shape[0],))}, {E((shape[1],))})"
        if k == "transpose":
            self.use("matrix")
            return f"np.transpose({E((shape[1], shape[0]))})"
        if k == "stack" and shape[0] == 2:
            self.use("matrix")
            return f"np.stack(({E((shape[1],))}, {E((shape[1],))}))"
        return self.binop(E(), "*", E())

    def cond(self, depth):
        """A condition: on differentiated values (a kink) or on integers."""
        ints = self.fn.vars(lambda v: v.is_int)
        opts = [(3 if self.ok("active_if") else 0, "active"),
                (3 if ints and self.ok("inactive_if") else 0, "inactive")]
        if not any(w for w, _ in opts):
            return "True"
        k = self.weighted(opts)
        if k == "active":
            self.use("active_if")
            e = self.expr((), min(depth, 2))
            if not _has_variable(e):
                if self.ok("constant_condition"):
                    self.use("constant_condition")
                else:
                    e = self.binop(e, "+", self.atom_var(()))
            c = f"{e} {self.pick(['>', '<', '>=', '<='])} {self.const(-1.0, 1.0)}"
            if self.p(0.2):
                e2 = self.expr((), 1)
                if not _has_variable(e2):
                    if self.ok("constant_condition"):
                        self.use("constant_condition")
                    else:
                        e2 = self.binop(e2, "+", self.atom_var(()))
                c2 = f"{e2} > {self.const(-1.0, 1.0)}"
                c = self.pick([f"{c} and {c2}", f"{c} or {c2}", f"not {c2}"])
            return c
        self.use("inactive_if")
        v = self.pick(ints)
        return self.pick([f"{v.name} % 2 == 0", f"{v.name} > {self.int(v.lo, max(v.lo, v.hi - 1))}",
                          f"{v.name} == {self.int(v.lo, v.hi)}", f"{v.name} < {self.int(v.lo + 1, v.hi + 1)}",
                          f"{v.name} != {self.int(v.lo, v.hi)}"])

    # ---- statements ------------------------------------------------------------
    def block(self, budget, depth, scope=True):
        """Statements into the current function; returns True if the block
        ended with an exit (return/break/continue), after which nothing more
        may follow."""
        fn = self.fn
        if scope:
            fn.scopes.append({})
        n = self.int(1, max(1, budget))
        ended = False
        for _ in range(n):
            if self.statement(budget // 2 + 1, depth):
                ended = True
                break
        if scope:
            fn.scopes.pop()
        return ended

    def new_var(self, shape, role="local", view=False):
        prefix = {0: "s", 1: "v", 2: "m"}[len(shape)] if role != "buffer" else "b"
        v = _Var(self.fresh(prefix), shape, role)
        v.view = view
        self.fn.scopes[-1][v.name] = v
        return v

    def rhs(self, shape, depth):
        """(expression, is a view) to bind to a name. The arrays it may be a
        view of are marked too: neither may be written in place any more."""
        e = self.owned(self.expr(shape, depth), shape)
        view = shape != () and is_view(e)
        if view:
            self.mark_views(e)
        return e, view

    def mark_views(self, e):
        names = {n.id for n in ast.walk(ast.parse(e, mode="eval")) if isinstance(n, ast.Name)}
        for v in self.fn.vars(lambda v: v.name in names and not v.is_int):
            v.view = True

    def updatable(self):
        fn = self.fn
        # (2-D variables are not rebound: a transpose is F-ordered, and numba
        # cannot then compute with the variable, in the primal too)
        return fn.vars(lambda v: not v.is_int and v.role == "local" and v.name not in fn.frozen
                       and len(v.shape) < 2)

    def statement(self, budget, depth):
        fn = self.fn
        in_loop = bool(fn.loops)
        scalars = fn.vars(lambda v: v.shape == () and v.role == "local" and v.name not in fn.frozen)
        buffers = fn.vars(lambda v: v.name in fn.writable)
        can_exit = not fn.in_recording
        opts = [
            (10, "assign"),
            (8 if self.updatable() else 0, "update"),
            (3 if self.ok("buffers") else 0, "buffer"),
            (10 if buffers and (not fn.in_recording or self.ok("recording_subscript_write")) else 0,
             "write"),
            (6 if depth < 3 and (self.ok("active_if") or self.ok("inactive_if")) else 0, "if"),
            (6 if depth < 3 and self.ok("for") else 0, "for"),
            (2 if depth < 3 and self.ok("while") else 0, "while"),
            (2 if depth < 3 and self.ok("iter_array") else 0, "iter"),
            (2 if self.ok("tuple_assign") and len(scalars) >= 2 and self.tuples_ok() else 0, "swap"),
            (2 if self.ok("tuple_assign") and self.tuples_ok() else 0, "tuple"),
            (2 if self.ok("tuple_helper") and any(_is_tuple(h[2]) for h in self.helpers)
             and self.tuples_ok() else 0, "tuple_call"),
            (1, "intvar"),
            (1 if self.ok("stop_recording") and not fn.in_recording else 0, "recording"),
            (1 if self.ok("reset_recording") and not fn.no_reset
             and (fn.name == MAIN or self.ok("reset_in_helper")) else 0, "reset"),
            (3 if in_loop and can_exit and (self.ok("break") or self.ok("continue")) else 0,
             "loop_exit"),
            (2 if can_exit and self.ok("return") and (not _is_tuple(fn.out) or self.ok("tuple_early_return"))
             else 0, "return"),
        ]
        k = self.weighted(opts)
        return getattr(self, "st_" + k)(budget, depth)

    def st_assign(self, budget, depth):
        shape = self.pick(self.new_shapes())
        e, view = self.rhs(shape, 3 if shape == () else 2)
        if shape == () and not _has_variable(e):
            # numba propagates the constant into conditions on the variable
            # and prunes branches (see constant_condition)
            if self.ok("constant_condition"):
                self.use("constant_condition")
            else:
                e = self.binop(e, "+", self.atom_var(()))
        v = self.new_var(shape, view=view)
        self.fn.emit(f"{v.name} = {e}")

    def st_intvar(self, budget, depth):
        arrays = self.fn.vars(lambda v: not v.is_int and v.shape != ())
        if not arrays:
            return self.st_assign(budget, depth)
        a = self.pick(arrays)
        ax = self.int(0, len(a.shape) - 1)
        n = self.fresh("n")
        self.fn.emit(f"{n} = {self.pick([f'{a.name}.shape[{ax}]'] + ([f'len({a.name})'] if ax == 0 else []))}")
        self.fn.scopes[-1][n] = _Var(n, None, "len", a.shape[ax], a.shape[ax])

    def st_update(self, budget, depth):
        fn = self.fn
        v = self.pick(self.updatable())
        for _ in range(8):
            mark = len(fn.lines)
            self._update(v)
            if v.shape == () or not _reads_own_subscript(fn.lines[-1], v.name):
                return
            if self.ok("self_subscript_rebind"):
                self.use("self_subscript_rebind")
                return
            del fn.lines[mark:]
        fn.emit(f"{v.name} = np.tanh({v.name} * 0.5)")

    def _update(self, v):
        fn = self.fn
        sh = v.shape
        if not fn.loops and self.p(0.4):
            e, view = self.rhs(sh, 2)
            v.view = v.view or view     # (once maybe a view, always: it may be in a branch)
            if sh == () and not _has_variable(e) and not self.ok("constant_condition"):
                e = self.binop(e, "+", self.atom_var(()))
            fn.emit(f"{v.name} = {e}")
            return
        sq = self.squash(sh, 2)
        form = self.int(0, 6)
        # `v += e` on an array that may be a view would write through it
        aug = sh == () or not v.view
        if form == 0:
            fn.emit(f"{v.name} = {sq}")
        elif form == 1:
            fn.emit(f"{v.name} = {self.const(0.3, 0.9)} * {v.name} + {sq}")
        elif form == 2:
            fn.emit(f"{v.name} += {sq}" if aug else f"{v.name} = {v.name} + {sq}")
        elif form == 3:
            fn.emit(f"{v.name} -= {self.const(0.1, 1.0)} * {par(sq)}" if aug else
                    f"{v.name} = {v.name} - {self.const(0.1, 1.0)} * {par(sq)}")
        elif form == 4:
            fn.emit(f"{v.name} *= 0.8 + 0.2 * {par(sq)}" if aug else
                    f"{v.name} = {v.name} * (0.8 + 0.2 * {par(sq)})")
        elif form == 5:
            fn.emit(f"{v.name} = np.tanh({v.name} * {par(self.expr(sh, 1))})")
        else:
            fn.emit(f"{v.name} /= 1.5 + {par(sq)}" if aug else
                    f"{v.name} = {v.name} / (1.5 + {par(sq)})")

    def st_buffer(self, budget, depth):
        fn = self.fn
        if not self.arrays_ok():
            return self.st_assign(budget, depth)
        self.use("buffers")
        shapes = [(self.N,)] + ([(self.R, self.C)] if self.ok("matrix") and self.use_matrix else [])
        sh = self.pick(shapes)
        same = fn.vars(lambda v: not v.is_int and v.shape == sh)
        size = repr(sh[0]) if len(sh) == 1 else f"({sh[0]}, {sh[1]})"
        opts = [f"np.zeros({size})", f"np.ones({size})"]
        if len(sh) == 1:
            opts.append(f"np.zeros({self.length_expr(sh[0])})")
        if same:
            src = self.pick(same).name
            opts += [f"np.zeros_like({src})", f"{src}.copy()", f"np.copy({src})"]
        init = self.pick(opts + ["EMPTY"])
        fill = self.expr(sh, 1) if init == "EMPTY" else None
        v = self.new_var(sh, role="buffer")
        fn.writable.add(v.name)
        if init == "EMPTY":
            fn.emit(f"{v.name} = np.empty({size})")
            fn.emit(f"{v.name}[:] = {fill}")
        else:
            fn.emit(f"{v.name} = {init}")

    def st_write(self, budget, depth):
        fn = self.fn
        if fn.in_recording:
            self.use("recording_subscript_write")
        b = self.pick(fn.vars(lambda v: v.name in fn.writable))
        if b.role == "arg":
            self.use("arg_write")
        sh = b.shape
        if len(sh) == 1:
            target = f"{b.name}[{self.index(sh[0])}]"
        else:
            target = f"{b.name}[{self.index(sh[0])}, {self.index(sh[1])}]"
        if self.ok("slice_write") and self.p(0.25):
            self.use("slice_write")
            if len(sh) == 1:
                L = sh[0]
                a = self.int(0, L - 1)
                c = self.int(a + 1, L)
                forms = [(f"{b.name}[{a}:{c}]", (c - a,)), (f"{b.name}[:]", (L,)),
                         (f"{b.name}[::2]", ((L + 1) // 2,))]
                target, tshape = self.pick(forms)
            else:
                target, tshape = self.pick([(f"{b.name}[{self.index(sh[0])}]", (sh[1],)),
                                            (f"{b.name}[:, {self.index(sh[1])}]", (sh[0],))])
            val = self.squash(tshape, 1) if fn.loops else self.expr(tshape, 2)
            fn.emit(f"{target} = {val}")
            return
        form = self.int(0, 4) if fn.loops else self.int(0, 1)
        if form <= 1:
            fn.emit(f"{target} = {self.expr((), 2)}" if not fn.loops else f"{target} = {self.squash((), 2)}")
        elif form == 2:
            fn.emit(f"{target} += {self.squash((), 2)}")
        elif form == 3:
            fn.emit(f"{target} = {self.const(0.3, 0.9)} * {target} + {self.squash((), 2)}")
        else:
            fn.emit(f"{target} *= 0.8 + 0.2 * {par(self.squash((), 1))}")

    def sub_block(self, budget, depth):
        """A branch's body."""
        self.fn.indent += 1
        self.fn.cond_depth += 1
        self.block(budget, depth + 1)
        self.fn.cond_depth -= 1
        self.fn.indent -= 1

    def st_if(self, budget, depth):
        fn = self.fn
        fn.emit(f"if {self.cond(2)}:")
        self.sub_block(budget, depth)
        k = self.int(0, 3)
        while k == 3 and self.p(0.5):
            fn.emit(f"elif {self.cond(2)}:")
            self.sub_block(budget, depth)
        if k >= 2:
            fn.emit("else:")
            self.sub_block(budget, depth)

    def _loop_body(self, kind, loopvar, budget, depth, pre=(), may_skip=False):
        fn = self.fn
        fn.seen_loop = True
        fn.loops.append(kind)
        fn.loop_guard.append(False)
        fn.cond_depth += may_skip
        fn.scopes.append({})
        if loopvar is not None:
            fn.scopes[-1][loopvar.name] = loopvar
        fn.indent += 1
        for line in pre:
            fn.emit(line)
        self.block(budget, depth + 1, scope=False)
        fn.indent -= 1
        fn.scopes.pop()
        fn.loops.pop()
        fn.loop_guard.pop()
        fn.cond_depth -= may_skip

    def st_for(self, budget, depth):
        self.use("for")
        n = self.pick([self.N, self.N, 2, 3] + ([self.R, self.C] if self.use_matrix else [])
                      + ([self.K] if self.K else []))
        i = self.fresh("i")
        form = self.int(0, 5)
        L = self.length_expr(n)
        if form <= 2:
            head, lo, hi = f"range({L})", 0, n - 1
        elif form == 3:
            head, lo, hi = f"range(1, {L})", 1, n - 1
        elif form == 4:
            head, lo, hi = f"range({L} - 1, -1, -1)", 0, n - 1
        else:
            head, lo, hi = f"range(0, {L}, 2)", 0, n - 1
        self.fn.emit(f"for {i} in {head}:")
        self._loop_body("for", _Var(i, None, "loop", lo, hi), budget, depth)

    def st_iter(self, budget, depth):
        fn = self.fn
        seqs = fn.vars(lambda v: not v.is_int and v.shape != () and v.name not in fn.writable
                       and (len(v.shape) == 1 or self.arrays_ok()))
        if not seqs:
            return self.st_for(budget, depth)
        self.use("iter_array")
        s = self.pick(seqs)
        e = _Var(self.fresh("row" if len(s.shape) == 2 else "e"), s.shape[1:], "loopelem")
        fn.emit(f"for {e.name} in {s.name}:")
        # rebinding the sequence inside the loop would change what `for` reads
        was_frozen = s.name in fn.frozen
        fn.frozen.add(s.name)
        self._loop_body("for", e, budget, depth)
        if not was_frozen:
            fn.frozen.discard(s.name)
        s.view = True   # the last row stays bound to a view of it

    def st_while(self, budget, depth):
        fn = self.fn
        self.use("while")
        form = self.int(0, 3)
        cap = self.int(2, 5)
        if form == 1:
            t = self.fresh("t")
            step = self.pick(["0.3", "0.25", "0.4"])
            fn.emit(f"{t} = 0.0")
            fn.emit(f"while {t} < 1.0:")
            self._loop_body("while", None, budget, depth, pre=[f"{t} += {step}"])
            return
        it = self.fresh("it")
        fn.emit(f"{it} = 0")
        counter = _Var(it, None, "counter", 1, cap)
        if form == 0:
            fn.emit(f"while {it} < {cap}:")
            self._loop_body("while", counter, budget, depth, pre=[f"{it} += 1"])
        elif form == 2:
            c = self.cond(2) if self.ok("active_if") else f"{it} < {cap}"
            fn.emit(f"while {par(c)} and {it} < {cap}:")
            self._loop_body("while", counter, budget, depth, pre=[f"{it} += 1"], may_skip=True)
        else:
            fn.emit("while True:")
            self._loop_body("while", counter, budget, depth,
                            pre=[f"if {it} >= {cap}:", "    break", f"{it} += 1"])

    def st_swap(self, budget, depth):
        fn = self.fn
        self.use("tuple_assign")
        cands = fn.vars(lambda v: v.shape == () and v.role == "local" and v.name not in fn.frozen)
        a, b = self.choices.perm(cands)[:2]
        fn.emit(f"{a.name}, {b.name} = {b.name}, {a.name}")

    def st_tuple(self, budget, depth):
        self.use("tuple_assign")
        sh1, sh2 = self.pick(self.new_shapes()), self.pick(self.new_shapes())
        (e1, w1), (e2, w2) = self.rhs(sh1, 2), self.rhs(sh2, 2)
        v1, v2 = self.new_var(sh1, view=w1), self.new_var(sh2, view=w2)
        self.fn.emit(f"{v1.name}, {v2.name} = {e1}, {e2}")

    def st_tuple_call(self, budget, depth):
        self.use("tuple_helper")
        cands = [h for h in self.helpers if _is_tuple(h[2])]
        name, params, outs = self.pick(cands)
        if any(o != () for o in outs) and not self.arrays_ok():
            return self.st_assign(budget, depth)
        call = f"{name}({', '.join(self.owned(self.expr(s, 1), s) for s in params)})"
        vs = [self.new_var(s, view=s != ()) for s in outs]
        self.mark_views(call)
        self.fn.emit(f"{', '.join(v.name for v in vs)} = {call}")

    def st_recording(self, budget, depth):
        fn = self.fn
        self.use("stop_recording")
        fn.emit(self.pick(["with stop_recording():", "with s2sad.stop_recording():"]))
        fn.indent += 1
        fn.in_recording = True
        # no new scope: names bound in the block are used after it (as constants)
        self.block(max(1, budget // 2), depth + 1, scope=False)
        fn.in_recording = False
        fn.indent -= 1

    def st_reset(self, budget, depth):
        self.use("reset_recording")
        if self.fn.name != MAIN:
            self.use("reset_in_helper")
        self.fn.has_reset = True
        self.fn.emit(self.pick(["reset_recording()", "s2sad.reset_recording()"]))

    def st_loop_exit(self, budget, depth):
        fn = self.fn
        k = self.pick([k for k in ("break", "continue") if self.ok(k)])
        self.use(k)
        fn.emit(f"if {self.cond(2)}:")
        fn.indent += 1
        fn.cond_depth += 1
        if self.p(0.4):
            self.block(1, depth + 1)
        fn.cond_depth -= 1
        fn.emit(k)
        fn.indent -= 1
        if self.p(0.3):
            fn.emit("else:")
            self.sub_block(budget, depth)
        fn.loop_guard[-1] = True

    def st_return(self, budget, depth):
        fn = self.fn
        self.use("return")
        if _is_tuple(fn.out):
            self.use("tuple_early_return")
        fn.emit(f"if {self.cond(2)}:")
        fn.indent += 1
        fn.cond_depth += 1
        fn.emit(self.return_stmt())
        fn.cond_depth -= 1
        fn.indent -= 1
        fn.after_return = True

    def return_stmt(self):
        out = self.fn.out
        if _is_tuple(out):
            return "return " + ", ".join(self.expr(s, 3) for s in out)
        return f"return {self.expr(out, 3)}"

    # ---- functions -----------------------------------------------------------------
    def function(self, name, params, out, budget, writable=()):
        self.fn = fn = _Fn(name, params, out)
        fn.writable.update(writable)
        fn.no_reset = bool(writable)
        self.block(budget, 0, scope=False)
        fn.emit(self.return_stmt())
        lines = [f"def {name}({', '.join(p.name for p in params)}):"] + fn.lines
        self.fn = None
        return "\n".join(lines)


def _scaled(e):
    """`1.0 * e`: the same value, in fresh memory, and not a plain copy."""
    return ast.BinOp(left=ast.Constant(1.0), op=ast.Mult(), right=e)


_INT_NAME = re.compile(r"(i|it|n)\d+$|k$")     # the generator's int variables


def _constant_value(e):
    """The value of an expression without variables (after folding), or None."""
    if any(isinstance(n, ast.Name) and n.id not in ("np", "math", "stop_gradient", "s2sad")
           for n in ast.walk(e)):
        return None
    try:
        v = eval(compile(ast.Expression(ast.fix_missing_locations(e)), "<const>", "eval"),
                 {"np": np, "math": math, "stop_gradient": lambda v: v,
                  "s2sad": type("s2sad", (), {"stop_gradient": staticmethod(lambda v: v)})})
    except Exception:
        return None
    return float(v) if np.ndim(v) == 0 else None


def _is_copy(e):
    """A plain copy: a name, `np.copy(...)`, `a.copy()`."""
    if isinstance(e, ast.Name):
        return True
    if isinstance(e, ast.Call):
        f = ast.unparse(e.func)
        return f == "np.copy" or (f.endswith(".copy") and not e.args)
    return False


def _uncopied(e):
    if isinstance(e, ast.Name):
        return _scaled(e)
    if isinstance(e.func, ast.Attribute) and e.func.attr == "copy" and not e.args:
        return _scaled(e.func.value)
    return _scaled(e.args[0])


class _Spellings(ast.NodeTransformer):
    """Features that are spellings of otherwise generated code: each one
    either kept (and recorded as used) or rewritten away when avoided."""

    def __init__(self, g):
        self.g = g
        self.written = set()   # arrays written through subscripts in this function

    def feature(self, name):
        if self.g.ok(name):
            self.g.use(name)
            return True
        return False

    def visit_FunctionDef(self, node):
        self.written = {t.value.id for n in ast.walk(node) if isinstance(n, (ast.Assign, ast.AugAssign))
                        for t in (n.targets if isinstance(n, ast.Assign) else [n.target])
                        if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name)}
        self.generic_visit(node)
        return node

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Pow):
            base = _constant_value(node.left)
            if base is not None and base < 0 and not self.feature("neg_const_pow"):
                node.left = ast.Constant(-base)
        if isinstance(node.op, (ast.Add, ast.Sub, ast.Mod)):
            # `s + c` gives s the adjoint of the sum as is: a copy
            for side in (("left", "right") if not isinstance(node.op, ast.Mod) else ("left",)):
                v = getattr(node, side)
                if isinstance(v, ast.Name) and not _INT_NAME.match(v.id) \
                        and not self.feature("copy_after_loop"):
                    setattr(node, side, _scaled(getattr(node, side)))
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        f = ast.unparse(node.func)
        if f == "s2sad.stop_gradient" and not self.feature("stop_gradient_attr"):
            node.func = ast.Name(id="stop_gradient", ctx=ast.Load())
        if f.startswith("helper_") or f == "float":
            # the argument's adjoint is the vjp's result (or the seed) as is: a copy
            for i, a in enumerate(node.args):
                if isinstance(a, ast.Name) and not _INT_NAME.match(a.id) \
                        and not self.feature("copy_after_loop"):
                    node.args[i] = _scaled(a)
        return node

    def visit_IfExp(self, node):
        self.generic_visit(node)
        for side in ("body", "orelse"):
            v = getattr(node, side)
            if isinstance(v, ast.Name) and not _INT_NAME.match(v.id) \
                    and not self.feature("copy_after_loop"):
                setattr(node, side, _scaled(v))
        return node

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if isinstance(node.value, ast.Subscript) and isinstance(node.ctx, ast.Load) \
                and not self.feature("chained_subscript"):
            node.value = _scaled(node.value)
        return node

    def visit_Assign(self, node):
        self.generic_visit(node)
        t = node.targets[0]
        values = node.value.elts if isinstance(t, ast.Tuple) and isinstance(node.value, ast.Tuple) \
            else [node.value]
        new = []
        for v in values:
            if _is_copy(v) and not self.feature("copy_after_loop"):
                v = _uncopied(v)
            new.append(v)
        if isinstance(t, ast.Tuple) and isinstance(node.value, ast.Tuple):
            node.value.elts = new
        else:
            node.value = new[0]
        if isinstance(t, ast.Subscript) and isinstance(node.value, ast.Subscript) \
                and isinstance(t.value, ast.Name) and isinstance(node.value.value, ast.Name) \
                and t.value.id == node.value.value.id and not self.feature("element_self_copy"):
            node.value = _scaled(node.value)
        return node

    def visit_Return(self, node):
        self.generic_visit(node)
        elts = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
        for i, e in enumerate(elts):
            if isinstance(node.value, ast.Tuple) and isinstance(e, ast.Subscript) \
                    and not self.feature("tuple_output_subscript"):
                elts[i] = _scaled(e)
            elif isinstance(e, ast.Name) and e.id in self.written \
                    and not self.feature("array_output_restored"):
                elts[i] = _scaled(e)
        if not isinstance(node.value, ast.Tuple):
            node.value = elts[0]
        return node


def _postprocess(g, tree):
    tree = ast.fix_missing_locations(_Spellings(g).visit(tree))
    return ast.unparse(tree).replace("\ndef ", "\n\n\ndef ") + "\n"


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


def build(choices, avoid=frozenset(), max_statements=8, max_helpers=2, jit=False):
    """A random Program from a source of choices."""
    g = _Gen(choices, avoid)
    g.N = g.int(3, 5)
    g.use_matrix = g.ok("matrix") and g.p(0.35)
    g.R, g.C = g.pick([(2, 3), (3, 2), (2, 4), (3, 4)])
    g.K = g.pick([0, 2, 3, 4])
    # arguments
    args = []   # (name, shape, int value)
    for nm, sh in (("x", (g.N,)), ("a", ()), ("y", (g.N,)), ("c", ())):
        if not args or g.p(0.5):
            args.append((nm, sh, None))
    if g.use_matrix:
        args.append(("A", (g.R, g.C), None))
    if g.K:
        args.append(("k", None, g.K))
    args = choices.perm(args)
    writable = set()
    if g.ok("arg_write") and g.p(0.15):
        arrays = [nm for nm, sh, _ in args if sh not in (None, ())]
        if arrays:
            writable.add(g.pick(arrays))
    # helpers
    sources = []
    for h in range(g.int(0, max_helpers) if g.ok("helpers") else 0):
        pshapes = [g.pick([(), (), (g.N,)]) for _ in range(g.int(1, 3))]
        params = [_Var(f"p{j}", s, "param") for j, s in enumerate(pshapes)]
        if g.ok("tuple_helper") and g.p(0.15):
            out = ((), g.pick([(), (g.N,)] if g.ok("tuple_helper_array") else [()]))
            if out[1]:
                g.use("tuple_helper_array")
        else:
            out = g.pick([(), (), (g.N,)])
        name = f"helper_{h}"
        sources.append(g.function(name, params, out, max(1, max_statements // 2)))
        g.helpers.append((name, pshapes, out))
    # main
    params = [_Var(nm, None, "intarg", iv, iv) if sh is None else _Var(nm, sh, "arg")
              for nm, sh, iv in args]
    out = ()
    if g.ok("vector_output") and g.p(0.1):
        g.use("vector_output")
        out = (g.N,)
    elif g.ok("tuple_output") and g.p(0.08):
        g.use("tuple_output")
        out = ((), (g.N,))
    sources.append(g.function(MAIN, params, out, max_statements, writable))
    floats = [i for i, (_, sh, _) in enumerate(args) if sh is not None]
    wrt = tuple(floats)
    if len(floats) > 1 and g.p(0.2):
        wrt = tuple(sorted(choices.perm(floats)[:g.int(1, len(floats))]))
    seed = g.int(0, 2 ** 31 - 1)
    source = _postprocess(g, ast.parse("\n\n\n".join(sources)))
    return Program(source=source, arg_names=tuple(a[0] for a in args),
                   arg_shapes=tuple(a[1] for a in args), arg_ints=tuple(a[2] for a in args),
                   wrt=wrt, value_seed=seed, features=frozenset(g.used), jit=jit)


@st.composite
def programs(draw, avoid=frozenset(), max_statements=8, max_helpers=2, jit=False):
    """The hypothesis strategy: a random Program, every choice drawn from
    hypothesis (so failures shrink). `avoid`: features not to generate."""
    return build(_HypothesisChoices(draw), avoid, max_statements, max_helpers, jit)


def program(seed, avoid=frozenset(), max_statements=8, max_helpers=2, jit=False):
    """The program for a seed: the same generator, choices from random.Random."""
    return build(_RandomChoices(seed), avoid, max_statements, max_helpers, jit)


def collect(n, seed=0, avoid=frozenset(), jit_fraction=0.0, **kwargs):
    """`n` distinct programs, reproducibly for a seed; `jit_fraction` of
    them (spread evenly) are also checked with jit=True.

    The choices come from random.Random rather than from hypothesis's
    example generation: for this strategy that repeats about 60% of the
    programs and costs 40 ms a program; `programs()` is the same generator
    as a hypothesis strategy."""
    out, seen = [], set()
    i = 0
    while len(out) < n and i < 10 * n + 100:
        jit = int((len(out) + 1) * jit_fraction) > int(len(out) * jit_fraction)
        prog = program(f"{seed}:{i}", avoid, jit=jit, **kwargs)
        i += 1
        key = (prog.source, prog.arg_shapes, prog.wrt)
        if key not in seen:
            seen.add(key)
            out.append(prog)
    return out


def from_dict(d):
    """A Program from its dataclasses.asdict form (the run's .jsonl file)."""
    d = dict(d)
    d["arg_shapes"] = tuple(None if s is None else tuple(s) for s in d["arg_shapes"])
    for k in ("arg_names", "arg_ints", "wrt"):
        d[k] = tuple(d[k])
    d["features"] = frozenset(d.get("features", ()))
    return Program(**d)
