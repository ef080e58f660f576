"""Expressions of the generated language: scalars, arrays of the program's
shapes, and conditions, each valid by construction (see generator)."""
import ast

from .calls import Calls
from .model import _has_variable, is_view, par


class Expressions(Calls):
    """Mixed into the generator: expressions of a given shape and depth."""

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
            opts += self.ellipsis_atoms(shape)
            if self.ok("fancy_index") and self.fancy_sources(shape):
                opts.append((1, "FANCY"))
        else:
            for v in fn.vars(lambda v: not v.is_int and v.shape == (shape[1], shape[0])):
                opts.append((1, f"{v.name}.T"))
                if self.ok("matrix_transpose"):  # (numpy's transpose of the last two axes)
                    opts.append((1, f"{v.name}.mT"))
            if not opts or self.p(0.1):
                opts.append((1, f"{self.const(0.2, 1.5)} * np.ones(({shape[0]}, {shape[1]}))"))
            opts += self.ellipsis_atoms(shape)
            if self.ok("fancy_index") and self.fancy_sources(shape):
                opts.append((1, "FANCY"))
        text = self.leaf_spelling(self.weighted(opts))
        if "..." in text:
            self.use("ellipsis")
        if text.endswith(".mT"):
            self.use("matrix_transpose")
        if text == "FANCY":
            return self.fancy(shape)
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
        """`e`, copied if it is a view of an array written through subscripts,
        or updated in place in a loop, whose next round would write through
        the alias (binding it to a second name would alias the array)."""
        if shape != () and is_view(e):
            names = {n.id for n in ast.walk(ast.parse(e, mode="eval")) if isinstance(n, ast.Name)}
            if names & (self.fn.writable | self.fn.augmented) or "helper_" in e:
                return f"np.copy({e})"
        return e

    def call_helper(self, shape, depth):
        cands = [h for h in self.helpers if h[2] == shape]
        if not cands:
            return None
        name, params, _ = self.pick(cands)
        self.use("helpers")
        return f"{name}({self.helper_args(params, lambda s: self.owned(self.expr(s, depth - 1), s))})"

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
            (4 if self.ok("axis_reductions") else 0, "axis_reduce"),
            (2 if self.ok("norm_ord") else 0, "norm"),
            (1 if self.ok("fancy_index") else 0, "fancy"),
            (1 if self.ok("nested_literal") else 0, "literal"),
            (1 if self.ok("tuple_argument") else 0, "tuple_argument"),
            (1 if self.ok("numpy_keywords") and arrays else 0, "numpy_keywords"),
        ])
        if k == "numpy_keywords":
            return self.keyword_scalar(d)
        if k == "tuple_argument":  # a tuple or list given to a helper (generator.PAIRS)
            self.use("tuple_argument")
            # (one spelling per program: the reference twin follows a
            # parameter that is sometimes a tuple, sometimes a list, as neither)
            if not hasattr(self, "pair_form"):
                self.pair_form = self.pick(["({}, {})", "[{}, {}]"])
            pair = self.pair_form.format(E(), E())
            return f"{self.pick(['pair_product', 'pair_unpacked', 'pair_loop'])}({pair})"
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
                # (Python's sum, max and min of a vector: builtin_reductions.py)
                opts += [f"np.dot({a}, {b})", self.binop(a, "@", b), f"sum({a})"]
            else:
                opts.append(f"np.sum(sum({a}))")  # a matrix: the sum of its rows
            if kinks:
                opts += [f"np.max({a})", f"np.min({a})"]
                if len(s) == 1:
                    opts += [f"max({a})", f"min({a})"]
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
        if k == "axis_reduce":
            return self.axis_scalar(d)
        if k == "norm":
            return self.norm_scalar(d)
        if k == "fancy":
            e = self.fancy_scalar(d)
            if e:
                return e
        if k == "literal":
            r, c = self.pick([(2, 2), (2, 3), (3, 2), (1, 2)])
            M = self.literal((r, c), d)
            return self.pick([f"np.sum({M} @ {self.literal((c,), d)})", f"np.sum(np.sin({M}))",
                              f"np.sum({par(M)} ** 2)", f"np.sum({M} * {self.literal((c,), d)})"])
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
        reductions = self.ok("axis_reductions")
        opts += [(2 if reductions and self.ok("keepdims") else 0, "keepdims"),
                 (1 if self.ok("nested_literal") else 0, "literal"),
                 (1 if self.ok("numpy_keywords") else 0, "numpy_keywords")]
        if len(shape) == 1:
            opts += [(1, "cumsum"), (1, "concat")]
            if self.ok("matrix") and self.use_matrix:
                opts += [(3, "matvec"), (2, "axis_sum")]
        else:
            opts += [(3, "outer"), (2 if self.ok("transpose_axes") else 1, "transpose"), (1, "stack"),
                     (1 if reductions else 0, "cumsum")]
        k = self.weighted(opts)
        if k == "numpy_keywords":
            return self.keyword_array(shape, d)
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
            if self.ok("clip_keywords") and self.p(0.4):
                return self.clip(shape, d)
            return self.pick([f"np.abs({E()})", f"np.maximum({E()}, {E()})",
                              f"np.minimum({E()}, {self.const()})", f"np.clip({E()}, -0.5, 0.8)",
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
        if k == "keepdims":
            return self.keepdims_broadcast(shape, d)
        if k == "literal":
            return self.literal(shape, d)
        if k == "cumsum":
            if len(shape) == 2 or reductions and self.p(0.5):
                return self.cumsum_axis(shape, d)
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
        if k == "axis_sum" and reductions:
            e = self.axis_vector(shape[0], d)
            if e:
                return e
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
            if self.ok("transpose_axes") and self.p(0.7):
                return self.transpose_axes(shape, d)
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
            quantified = self.any_all_cond()   # everyday.py
            if quantified:
                return quantified
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
