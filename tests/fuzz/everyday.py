"""Everyday Python forms in generated programs (issue #44), each drawn with
a small probability and mixed with everything else:

* chained subscripts, C-style: `B[i][j] = v`, `B[i][j] += v`,
  `B[i][a:b] = row` and `B[i][j]` reads on a local 2-D array, and on a list
  of lists from a comprehension (or from appended rows);
* a list used as a stack (straight-line appends, or two per iteration of
  a loop, then as many pops, in a loop or one by one), and lists built by
  appends then read as `np.array(L)`, `sum(L)`, `L[-1]`;
* strings picking a branch (`if mode == "double":`, in `fuzzed` given a
  string argument, or in a helper given a literal or `mode`) and a numpy
  mode (`np.pad(v, 1, mode="edge")`, from a literal or the argument);
* `functools.partial` inside the function, `map(...)` of a lambda, a
  function or a helper of two arguments, `np.r_[...]`;
* loops over literal tuples (`for c in (0.5, 2.0)`, of differentiated
  values too), `for w, b in params` over a local list of pairs,
  `max([...])` / `min((...))`, `a = b = value`;
* `any(...)` / `all(...)` of generators in if conditions (expressions.cond;
  s2sad refuses a comprehension in a while condition, with the line).
"""
from .model import MAIN, _has_variable, _Var, par

# module-level helpers these forms call (added to the program when used)
EVERYDAY_HELPERS = {
    "scaled": """def scaled(u, mode="double"):
    if mode == "double":
        return u * 2.0
    elif mode == "square":
        return u * u
    return u
""",
    "padded": """def padded(u, how):
    return np.pad(u, 1, mode=how)
""",
    "affine": """def affine(w, u, scale=1.0):
    return np.tanh(w * u) * scale
""",
    "plus_product": """def plus_product(p, q):
    return p * q + p
""",
    # recursion ("recursion" feature): two calls of itself, the first's result read
    # after the second (a wrong gradient once: records pushed and popped out of order),
    # a tuple result, divide and conquer over an array, mutual recursion
    "rec_two": """def rec_two(u, n):
    if n <= 1:
        return u
    return rec_two(u, n - 1) * 0.5 + np.sin(rec_two(u, n - 2))
""",
    "rec_pair": """def rec_pair(u, n):
    if n == 0:
        return u, 1.0
    a, b = rec_pair(u * 0.8, n - 1)
    return a + b * np.tanh(u), b * 0.5
""",
    "rec_halves": """def rec_halves(v, lo, hi):
    if hi - lo == 1:
        return math.sin(v[lo]) * v[lo]
    mid = (lo + hi) // 2
    return rec_halves(v, lo, mid) * 0.7 + math.tanh(rec_halves(v, mid, hi))
""",
    "rec_even": """def rec_even(u, n):
    if n == 0:
        return u
    return np.cos(rec_odd(u * 0.9, n - 1))


def rec_odd(u, n):
    if n == 0:
        return u * u
    return rec_even(u, n - 1) + 0.3 * u
""",
}
MODES = ("double", "square", "edge", "constant", "other")   # the string argument's texts
FORMS = ("chained_writes", "list_stack", "string_options", "function_tools",
         "literal_loops", "any_all", "max_of_list", "chained_assign", "array_loops",
         "recursion")


class EverydayForms:
    """Mixed into the generator (uses Statements' expr, new_var, emit...)."""

    def everyday_weight(self):
        return 2 if any(self.ok(f) for f in FORMS if f != "any_all") else 0

    def st_everyday(self, budget, depth):
        fn = self.fn
        vectors = fn.vars(lambda v: not v.is_int and v.shape == (self.N,))
        new_arrays = self.arrays_ok()
        opts = [(3 if self.ok("chained_writes") and new_arrays else 0, "chained"),
                (2 if self.ok("chained_writes") and vectors else 0, "list_of_lists"),
                (3 if self.ok("list_stack") and vectors else 0, "stack"),
                (2 if self.ok("list_stack") else 0, "appends"),
                (3 if self.ok("string_options") and vectors else 0, "strings"),
                (3 if self.ok("function_tools") and vectors else 0, "tools"),
                (3 if self.ok("literal_loops") else 0, "literal_loop"),
                (2 if self.ok("literal_loops") and vectors and self.tuples_ok() else 0, "pairs"),
                (2 if self.ok("array_loops") and vectors else 0, "array_loop"),
                (2 if self.ok("max_of_list") and self.ok("kinks") else 0, "max_list"),
                (2 if self.ok("chained_assign") and self.tuples_ok() else 0, "chained_assign"),
                (2 if self.ok("recursion") else 0, "recursion")]
        if not any(w for w, _ in opts):
            return self.st_assign(budget, depth)
        before = set(fn.scopes[-1])
        getattr(self, "_ev_" + self.weighted(opts))()
        new = [v for n, v in fn.scopes[-1].items() if n not in before and v.shape == ()]
        if new:
            self._result(new[-1])

    def _result(self, v):
        """The form's result `v` is added to the return value, at times (a
        form whose result nothing reads checks nothing of its gradient)."""
        fn = self.fn
        if fn.out == () and fn.indent == 1 and self.p(0.9):
            fn.sums.append(v.name)

    def _scope_ints(self, *ints):
        """A scope holding loop counters (name, length) for the values written."""
        self.fn.scopes.append({n: _Var(n, None, "loop", 0, L - 1) for n, L in ints})

    # ---- chained subscripts --------------------------------------------------------------
    def _ev_chained(self):
        fn = self.fn
        self.use("chained_writes")
        R, C = self.R, self.C
        mats = fn.vars(lambda v: not v.is_int and v.shape == (R, C))
        init = self.pick([f"np.zeros(({R}, {C}))", f"np.ones(({R}, {C}))"]
                         + [f"{m.name}.copy()" for m in mats])
        b = self.new_var((R, C), view=True)   # (read by what follows, never written but here)
        fn.emit(f"{b.name} = {init}")
        i = self.fresh("i")
        fn.emit(f"for {i} in range({R}):")
        fn.indent += 1
        fn.loops.append("for")
        self._scope_ints((i, R))
        for _ in range(self.int(1, 3)):
            form = self.pick(["set", "add", "row", "scale"])
            j = self.index(C)
            if form == "set":
                fn.emit(f"{b.name}[{i}][{j}] = {self.squash((), 2)}")
            elif form == "add":
                fn.emit(f"{b.name}[{i}][{j}] {self.pick(['+=', '-='])} {self.squash((), 2)}")
            elif form == "scale":
                fn.emit(f"{b.name}[{i}][{j}] *= 0.8 + 0.2 * {par(self.squash((), 1))}")
            else:
                a = self.int(0, C - 1)
                c = self.int(a + 1, C)
                fn.emit(f"{b.name}[{i}][{a}:{c}] = {self.squash((c - a,), 1)}")
        fn.scopes.pop()
        fn.loops.pop()
        fn.indent -= 1
        if self.p(0.5):
            fn.emit(f"{b.name}[{self.int(-R, R - 1)}][{self.int(0, C - 1)}] += {self.expr((), 2)}")
        e = f"{b.name}[{self.int(0, R - 1)}][{self.int(-C, C - 1)}] * {par(self.expr((), 1))}"
        v = self.new_var(())   # (after the expression: it must not read itself)
        fn.emit(f"{v.name} = {e} + np.sum(np.tanh({b.name}))")

    def _ev_list_of_lists(self):
        fn = self.fn
        self.use("chained_writes")
        N = self.N
        vec = self.pick(fn.vars(lambda v: not v.is_int and v.shape == (N,))).name
        R = self.pick([2, 3])
        lst, i, j = self.fresh("lst"), self.fresh("i"), self.fresh("j")
        if self.p(0.65):
            body = self.pick([f"{vec}[{j}] * {vec}[{i}]", "0.0", f"np.sin({vec}[{j}]) + {i}"])
            fn.emit(f"{lst} = [[{body} for {j} in range({N})] for {i} in range({R})]")
        else:  # rows appended
            fn.emit(f"{lst} = []")
            fn.emit(f"for {i} in range({R}):")
            fn.emit(f"    {lst}.append({vec} * {vec}[{i}])")
        fn.emit(f"for {i} in range({R}):")
        fn.indent += 1
        fn.loops.append("for")
        self._scope_ints((i, R))
        for _ in range(self.int(1, 2)):
            op = self.pick(["=", "+=", "*="])
            val = self.squash((), 1)
            if op == "*=":
                val = f"0.8 + 0.2 * {par(val)}"
            fn.emit(f"{lst}[{i}][{self.index(N)}] {op} {val}")
        fn.scopes.pop()
        fn.loops.pop()
        fn.indent -= 1
        e = self.expr((), 1)
        v = self.new_var(())
        fn.emit(f"{v.name} = " + self.pick([
            f"{lst}[{self.int(0, R - 1)}][{self.int(0, N - 1)}] * {par(e)}",
            f"np.sum(np.array({lst}) ** 2)",
            f"{lst}[{R - 1}][0] * {lst}[0][{N - 1}] + np.sum(np.array({lst}))"]))

    # ---- lists as stacks, lists built by appends ----------------------------------------
    def _ev_stack(self):
        """Pushes (straight-line, some of constants, or two per iteration of
        a loop), then as many pops, in a loop or one by one (some dropping
        the value). (A loop appending once per
        iteration fills an array, which s2sad then refuses to pop; a read
        `stk[-1]` of a stack is refused too: neither is generated.)"""
        fn = self.fn
        self.use("list_stack")
        N = self.N
        vec = self.pick(fn.vars(lambda v: not v.is_int and v.shape == (N,))).name
        stk, i, acc, top = self.fresh("stk"), self.fresh("i"), self.fresh("acc"), self.fresh("top")
        scale = self.expr((), 1)   # (before the loops: their bodies read their own names)
        fn.emit(f"{stk} = []")
        if self.p(0.5):
            n = self.pick([2, N - 1])
            pushed = 2 * n
            fn.emit(f"for {i} in range({n}):")
            fn.emit(f"    {stk}.append({vec}[{i}] * {par(scale)})")
            fn.emit(f"    {stk}.append(np.sin({vec}[{i} + 1]) + {i})")
        else:
            pushed = self.int(2, 3)
            for _ in range(pushed):  # (sometimes a constant: its adjoint is dropped)
                pushed_value = self.pick([self.expr((), 2), self.expr((), 2), "0.25"])
                fn.emit(f"{stk}.append({pushed_value})")
        fn.emit(f"{acc} = 0.0")
        if self.p(0.7):
            fn.emit(self.pick([f"for {i} in range({pushed}):",
                               f"for {i} in range({pushed} - 1, -1, -1):"]))
            fn.emit(f"    {top} = {stk}.pop()")
            fn.emit(f"    {acc} = {acc}{self.pick([' * 0.5', ''])} + np.sin({top}) * ({i} + 1.0)")
        else:
            for k in range(pushed):
                if k and self.p(0.25):  # a pop for its effect: the value is dropped
                    fn.emit(self.pick([f"{stk}.pop()", f"{self.fresh('dropped')} = {stk}.pop()"]))
                    continue
                fn.emit(f"{top} = {stk}.pop()")
                fn.emit(f"{acc} = {acc} * 0.5 + np.sin({top}) * {k + 1}.0")
        v = self.new_var(())
        fn.emit(f"{v.name} = {acc}")

    def _ev_appends(self):
        fn = self.fn
        self.use("list_stack")
        parts = self.fresh("parts")
        n = self.int(2, 3)
        vals = [self.expr((), 2) for _ in range(n)]
        fn.emit(f"{parts} = []")
        for e in vals:
            fn.emit(f"{parts}.append({e})")
        v = self.new_var(())
        fn.emit(f"{v.name} = " + self.pick([
            f"np.sum(np.array({parts}) ** 2)", f"sum({parts})", f"{parts}[-1] * {parts}[0]",
            f"np.dot(np.array({parts}), np.arange(1.0, {n + 1}.0))"]))

    # ---- strings ----------------------------------------------------------------------
    def _ev_strings(self):
        fn = self.fn
        self.use("string_options")
        N = self.N
        has_mode = fn.name == MAIN and self.mode_text is not None
        u = self.owned(self.expr((N,), 2), (N,))
        form = self.pick(["branch", "helper", "pad"])
        a, b2, c = self.expr((), 2), self.expr((), 2), self.expr((), 1)
        v = self.new_var(())   # (after the expressions: they must not read it)
        if form == "branch":
            test = "mode" if has_mode else None
            if test is None:   # a local string (a constant too)
                test = self.fresh("how")
                fn.emit(f'{test} = "{self.pick(["double", "square"])}"')
            fn.emit(f'if {test} == "double":')
            fn.emit(f"    {v.name} = np.sum({u}) * {par(a)}")
            fn.emit(f'elif {test} == "square":')
            fn.emit(f"    {v.name} = {par(b2)} ** 2")
            fn.emit("else:")
            fn.emit(f"    {v.name} = {c}")
        elif form == "helper":
            self.everyday_helpers.add("scaled")
            how = self.pick(['"double"', '"square"', 'mode="square"', '"other"']
                            + (["mode", "mode=mode"] if has_mode else []))
            fn.emit(f"{v.name} = np.sum(scaled({u}, {how}) ** 2)")
        else:
            how = self.pick(['mode="edge"', 'mode="constant"', '"edge"']
                            + (["mode=mode"] if has_mode and self.mode_text in ("edge", "constant")
                               else []))
            if self.p(0.3):
                self.everyday_helpers.add("padded")
                call = f"padded({u}, {how.split('=', 1)[-1]})"
            else:
                call = f"np.pad({u}, 1, {how})"
            fn.emit(f"{v.name} = np.sum({call} * np.arange({N + 2}.0))")

    # ---- partial, map, np.r_ ------------------------------------------------------------
    def _ev_tools(self):
        fn = self.fn
        self.use("function_tools")
        N = self.N
        vecs = fn.vars(lambda v: not v.is_int and v.shape == (N,))
        w = self.pick(vecs).name
        form = self.pick(["partial", "partial_kw", "map_lambda", "map_fn", "map_pairs", "r_"])
        if form.startswith("partial"):
            self.everyday_helpers.add("affine")
            g = self.fresh("g")
            s = self.expr((), 1)
            bound = f"functools.partial(affine, {w}, scale={s})" if form == "partial_kw" \
                else f"functools.partial(affine, {w})"
            u1, u2 = self.expr((N,), 2), self.expr((N,), 1)
            fn.emit(f"{g} = {bound}")
            v = self.new_var(())
            fn.emit(f"{v.name} = np.sum({g}({u1}) ** 2) + np.sum({g}({u2}, scale={self.const(0.5, 2.0)}))")
            return
        if form == "r_":
            s = self.expr((), 2)
            u = self.expr((N,), 1)
            r = self.fresh("r")
            fn.emit(f"{r} = np.r_[{w}, {par(s)} * 2.0, {par(u)}[0]]")
            v = self.new_var(())
            fn.emit(f"{v.name} = np.sum(np.sin({r}) * np.arange({r}.shape[0]))")
            return
        c = self.expr((), 1)
        v = self.new_var(())
        if form == "map_lambda":
            fn.emit(f"{v.name} = sum(map(lambda q: q * q * {par(c)}, {w}))")
        elif form == "map_fn":
            fn.emit(f"{v.name} = np.sum(np.array(list(map({self.pick(['np.sin', 'np.tanh'])}, {w}))) * {w})")
        else:
            self.everyday_helpers.add("plus_product")
            other = self.pick(vecs).name
            fn.emit(f"{v.name} = sum(map(plus_product, {w}, {other}))")

    # ---- literal loops, for w, b in params ------------------------------------------------
    def _ev_literal_loop(self):
        self.use("literal_loops")
        acc, c = self.fresh("acc"), self.fresh("c")
        if self.p(0.5):
            elts = [self.const(0.2, 2.0) for _ in range(self.int(2, 3))]
        else:   # differentiated values (evaluated before the first iteration)
            elts = [self.expr((), 1) for _ in range(self.int(2, 3))]
        bracket = "()" if self.p(0.7) else "[]"
        self._accumulating_loop(acc, c, f"{bracket[0]}{', '.join(elts)}{bracket[1]}")

    def _accumulating_loop(self, acc, c, header):
        """`acc = 0.0; for c in <header>: acc = acc * 0.5 + c * <term>`, and a
        new scalar holding acc."""
        fn = self.fn
        fn.emit(f"{acc} = 0.0")
        fn.emit(f"for {c} in {header}:")
        fn.scopes.append({c: _Var(c, (), "loopelem")})
        fn.loops.append("for")
        term = self.squash((), 2)
        fn.loops.pop()
        fn.scopes.pop()
        fn.emit(f"    {acc} = {acc} * 0.5 + {c} * {par(term)}")
        v = self.new_var(())
        fn.emit(f"{v.name} = {acc}")

    def _ev_array_loop(self):
        """A loop over an array computed in its header: `x.flat`, a method's
        or a numpy function's result, np.linspace."""
        fn = self.fn
        self.use("array_loops")
        N = self.N
        vec = self.pick(fn.vars(lambda v: not v.is_int and v.shape == (N,))).name
        acc, c = self.fresh("acc"), self.fresh("c")
        header = self.pick([f"{vec}.flat", f"{vec}.ravel()", f"np.sin({vec})",
                            f"np.linspace(0.0, 1.0, {self.int(2, 4)})", f"{vec}[::-1].flat"])
        self._accumulating_loop(acc, c, header)

    def _ev_pairs(self):
        fn = self.fn
        self.use("literal_loops")
        N = self.N
        prm, acc, w, b, k = (self.fresh(p) for p in ("prm", "acc", "w", "b", "k"))
        pairs = [f"({self.owned(self.expr((N,), 1), (N,))}, {self.expr((), 1)})"
                 for _ in range(self.int(1, 3))]
        u = self.expr((N,), 1)
        fn.emit(f"{prm} = [{', '.join(pairs)}]")
        fn.emit(f"{acc} = 0.0")
        if self.p(0.5):
            fn.emit(f"for {w}, {b} in {prm}:")
            fn.emit(f"    {acc} = {acc} + np.sum(np.tanh({w} * {par(u)})) * {b}")
        else:
            fn.emit(f"for {k}, ({w}, {b}) in enumerate({prm}):")
            fn.emit(f"    {acc} = {acc} + np.sum(np.sin({w})) * ({k} + 1.0) + {b}")
        v = self.new_var(())
        fn.emit(f"{v.name} = {acc}")

    # ---- max of a list, a = b = value -----------------------------------------------------
    def _ev_max_list(self):
        self.use("max_of_list")
        self.use("kinks")
        f = self.pick(["max", "min"])
        elts = [self.expr((), 2) for _ in range(self.int(2, 3))]
        text = f"{f}([{', '.join(elts)}])" if self.p(0.6) else f"{f}(({', '.join(elts)}))"
        v = self.new_var(())
        self.fn.emit(f"{v.name} = {text}")

    def _ev_chained_assign(self):
        self.use("chained_assign")
        shape = self.pick(self.new_shapes()[:2])
        e, view = self.rhs(shape, 2)
        if shape == () and not _has_variable(e) and not self.ok("constant_condition"):
            e = self.binop(e, "+", self.atom_var(()))
        # (an array under two names: neither is written in place)
        a, b = self.new_var(shape, view=True), self.new_var(shape, view=True)
        self.fn.emit(f"{a.name} = {b.name} = {e}")

    # ---- any / all in conditions ------------------------------------------------------------
    def any_all_cond(self):
        """`any(e > c for e in v)` and the like, or None."""
        fn = self.fn
        vecs = fn.vars(lambda v: not v.is_int and len(v.shape or ()) == 1)
        if not (vecs and self.ok("any_all") and not self.in_while_test and self.p(0.05)):
            return None
        self.use("any_all")
        v = self.pick(vecs)
        e, k = self.fresh("e"), self.fresh("k")
        f = self.pick(["any", "all"])
        c = self.const(-1.0, 1.0)
        body = self.pick([f"{e} > {c} for {e} in {v.name}",
                          f"{v.name}[{k}] < {c} for {k} in range({v.shape[0]})",
                          f"np.sin({e}) > {c} for {e} in {v.name}"])
        text = f"{f}({body})" if self.p(0.7) else f"{f}([{body}])"
        return text if self.p(0.7) else f"not {text}"

    # ---- recursion ------------------------------------------------------------------------
    def _ev_recursion(self):
        """A call of a recursive helper (EVERYDAY_HELPERS' rec_*) on a scalar
        or a vector, to a depth known only at run time in the helper."""
        fn = self.fn
        self.use("recursion")
        N = self.N
        form = self.pick(["rec_two", "rec_pair", "rec_halves", "rec_even"])
        self.everyday_helpers.add(form)
        shape = self.pick([(), (N,)])
        u = self.squash(shape, 2)
        depth = self.int(0, 4)
        v = self.new_var(())
        total = "" if shape == () else "np.sum"
        if form == "rec_two":
            fn.emit(f"{v.name} = {total}(rec_two({u}, {depth + 1}))")
        elif form == "rec_even":
            fn.emit(f"{v.name} = {total}(rec_even({u}, {depth}))")
        elif form == "rec_pair":
            s, t = self.fresh("s"), self.fresh("t")
            fn.emit(f"{s}, {t} = rec_pair({u}, {depth})")
            fn.emit(f"{v.name} = {total}({s}) * {t}")
        else:
            w = self.owned(self.expr((N,), 2), (N,))
            lo = self.int(0, N - 1)
            fn.emit(f"{v.name} = rec_halves({w}, {lo}, {N})")
