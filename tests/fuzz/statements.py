"""Statements of the generated language: assignments, buffers and writes,
branches, loops and their exits, tuples, helpers and markers."""
import ast
import re

from .expressions import Expressions
from .model import MAIN, _Fn, _has_variable, _is_tuple, _reads_own_subscript, _Var, is_view, par


class Statements(Expressions):
    """Mixed into the generator: statements and whole functions."""

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
            (2 if depth < 2 and self.ok("sum_loop") else 0, "sum_loop"),
            (2 if depth < 3 and self.ok("while") else 0, "while"),
            (2 if depth < 3 and self.ok("iter_array") else 0, "iter"),
            (2 if self.ok("tuple_assign") and len(scalars) >= 2 and self.tuples_ok() else 0, "swap"),
            (2 if self.ok("tuple_assign") and self.tuples_ok() else 0, "tuple"),
            (2 if self.ok("tuple_helper") and any(_is_tuple(h[2]) for h in self.helpers)
             and self.tuples_ok() else 0, "tuple_call"),
            (1, "intvar"),
            (2 if self.ok("nested_functions") else 0, "nested_fn"),  # nested.py
            (1 if self.ok("nested_functions") else 0, "closure_arg"),  # forms.py, from here
            (3 if self.containers and fn.name == MAIN and self.ok("container_param") else 0,
             "container_arg"),
            (1 if self.ok("container_call") else 0, "container_call"),
            (6 if self.effect_wanted() else 0, "effect"),
            (2 if self.ok("containers") else 0, "container"),  # comprehensions.py
            (self.everyday_weight(), "everyday"),  # everyday.py
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
        if aug and sh != () and fn.loops:
            fn.augmented.add(v.name)
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
        if self.ok("hidden_writes") and self.p(0.2):
            return self._hidden_write(b)
        ellipsis = self.ellipsis_write(b)
        if ellipsis:
            fn.emit(ellipsis)
            return
        if len(sh) == 1:
            target = f"{b.name}[{self.index(sh[0])}]"
        else:
            target = f"{b.name}[{self.index(sh[0])}, {self.index(sh[1])}]"
        if self.ok("broadcast_write") and self.p(0.1):
            return self._broadcast_write(b)
        # (not under stop_recording: the reference twin freezes each value
        # assigned there, `rw = _R.sg(b)`, a copy the write would not reach)
        if self.ok("view_write") and not fn.in_recording \
                and self.p(0.25 if len(sh) == 2 else 0.1):
            # a write through a view of a row, or another name of the whole
            # array (view_writes.py)
            self.use("view_write")
            w = self.fresh("rw")  # (outside.py lets it share memory with b)
            form = self.int(0, 3) if len(sh) == 2 else self.pick([2, 3])
            if form == 3:  # a slice with bounds: w = b[a:c], w = b[i, a:]
                return self._slice_view_write(b, w)
            if form == 0:
                fn.emit(f"for {w} in {b.name}:")
            elif form == 1:
                fn.emit(f"{w} = {b.name}[{self.index(sh[0])}]")
                fn.emit("if True:")
            else:
                fn.emit(f"{w} = {b.name}")
                fn.emit("if True:")
            last = sh[-1] - 1
            first = "0, 0" if form == 2 and len(sh) == 2 else "0"
            fn.emit(self.pick([f"    {w} *= 0.8 + 0.2 * np.tanh({w})",
                               f"    {w} -= 0.5 * np.mean({w})",
                               f"    {w}[{first}] = np.sin({w}[{first[:-1]}{last}]) * {w}[{first}]"]))
            return
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
            if self.ok("view_rewrite") and self.p(0.3):
                # w = b[i]; b[i] = f(w): the reverse sweep reads the view after the
                # write (the name is not read again: that would be refused)
                self.use("view_rewrite")
                w = self.fresh("rw")  # (outside.py lets it share memory with the target)
                fn.emit(f"{w} = {target}")
                fn.emit(f"{target} = 0.5 * np.tanh({w}) * {w} + 0.5 * {par(val)}")
                return
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

    def _slice_view_write(self, b, w):
        """`w = b[a:c]` (`w = b[i, a:]`, `w = b[::2]`), then a write through
        w: in place, one element, or each element in a loop from 0."""
        fn = self.fn
        sh = b.shape
        L = sh[-1]
        a = self.int(0, L - 1)
        c = self.int(a + 1, L)
        row = f"{self.index(sh[0])}, " if len(sh) == 2 else ""
        view, n = self.pick([(f"{b.name}[{row}{a}:{c}]", c - a),
                             (f"{b.name}[{row}{a}:]", L - a),
                             (f"{b.name}[{row}::2]", (L + 1) // 2),
                             (f"{b.name}[{row}{a - L}:]", L - a)])
        fn.emit(f"{w} = {view}")
        form = self.int(0, 2)
        if form == 0:
            fn.emit(f"{w} *= 0.8 + 0.2 * np.tanh({w})")
        elif form == 1:
            fn.emit(f"{w}[{self.int(-n, n - 1)}] = np.sin({w}[{n - 1}]) * {w}[0]")
        else:
            k = self.fresh("k")
            fn.emit(f"for {k} in range({n}):")
            fn.emit(f"    {w}[{k}] = 0.5 * {w}[{k}] + 0.5 * np.tanh({w}[{k} - 1])")

    def _broadcast_write(self, b):
        """A region written or updated from a smaller array or a number, which
        numpy broadcasts into it: `b[:, 1:] -= c[:, None]`, `b[:] = row`,
        `b[1:] = s`."""
        fn = self.fn
        self.use("broadcast_write")
        loops = bool(fn.loops)
        value = (lambda shape: self.squash(shape, 1)) if loops else \
            (lambda shape: self.expr(shape, 2))
        if len(b.shape) == 1:
            L = b.shape[0]
            a = self.int(0, L - 1)
            fn.emit(self.pick([f"{b.name}[{a}:] = {value(())}",
                               f"{b.name}[{a}:] += 0.5 * {par(value(()))}"]))
            return
        R, C = b.shape
        col, row = par(value((R,))), par(value((C,)))
        fn.emit(self.pick([f"{b.name}[:, 1:] -= 0.5 * {col}[:, None]",
                           f"{b.name}[:] = {row}",
                           f"{b.name}[1:] = {row}",
                           f"{b.name}[:, :1] = {col}[:, None]",
                           f"{b.name}[:] = {row}[None, :] * 0.5"]))

    def _hidden_write(self, b):
        """A whole-array write spelled as numpy hides it: a method, out=, or a
        helper writing into its parameter (generator.UPDATERS)."""
        fn = self.fn
        self.use("hidden_writes")
        val = self.squash(b.shape, 1) if fn.loops else self.expr(b.shape, 2)
        scalar = self.squash((), 1) if fn.loops else self.expr((), 2)
        fn.emit(self.pick([
            f"{b.name}[...] = {val}",
            f"np.copyto({b.name}, {val})",
            f"np.multiply({par(val)}, {self.const(0.3, 0.9)}, out={b.name})",
            f"{b.name}.fill({scalar})",
            f"update_add({b.name}, np.copy({val}))",  # (a copy: b itself may be the value)
            f"update_fill({b.name}, {scalar})",
            f"update_scale({b.name}, {par(scalar)} * 0.1 + 1.0)",
            # (writing through another name, or rows' views, of the parameter)
            f"update_through({b.name}, {par(scalar)} * 0.1 + 1.0)",
            f"update_rows({b.name}, {par(scalar)} * 0.1 + 1.0)",
        ]))

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

    def _loop_body(self, kind, loopvar, budget, depth, pre=(), may_skip=False, counter=None,
                   body=None, then=None):
        """The loop's body: `pre` lines, `body()` (a block by default; True
        if it ended with an exit), then `then()` unless it did."""
        fn = self.fn
        fn.seen_loop = True
        fn.loops.append(kind)
        fn.loop_guard.append(False)
        fn.cond_depth += may_skip
        fn.scopes.append({})
        for v in (loopvar, counter):
            if v is not None:
                fn.scopes[-1][v.name] = v
        fn.indent += 1
        for line in pre:
            fn.emit(line)
        ended = body() if body is not None else self.block(budget, depth + 1, scope=False)
        if then is not None and not ended:
            then()
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
        form = self.int(0, 7)
        L = self.length_expr(n)
        outer = self.fn.vars(lambda v: v.is_int and v.role == "loop" and 0 <= v.lo and v.hi < n)
        if form == 6 and outer and self.ok("triangular"):
            # a triangular nest: the range depends on an enclosing counter
            self.use("triangular")
            v = self.pick(outer)
            if self.p(0.5):
                head, lo, hi = f"range({v.name} + 1)", 0, v.hi
            else:
                head, lo, hi = f"range({v.name}, {L})", v.lo, n - 1
        elif form == 7 and self.ok("counter_index"):
            # t = 0 before, t += 1 last in the body: t counts the iterations
            self.use("counter_index")
            t = self.fresh("t")
            self.fn.emit(f"{t} = 0")
            self.fn.emit(f"for {i} in range({L}):")
            self._loop_body("for", _Var(i, None, "loop", 0, n - 1), budget, depth,
                            counter=_Var(t, None, "counter", 0, n - 1),
                            then=lambda: self.fn.emit(f"{t} += 1"))
            return
        elif form <= 2 or form >= 6:
            head, lo, hi = f"range({L})", 0, n - 1
        elif form == 3:
            head, lo, hi = f"range(1, {L})", 1, n - 1
        elif form == 4:
            head, lo, hi = f"range({L} - 1, -1, -1)", 0, n - 1
        else:
            head, lo, hi = f"range(0, {L}, 2)", 0, n - 1
        self.fn.emit(f"for {i} in {head}:")
        self._loop_body("for", _Var(i, None, "loop", lo, hi), budget, depth)

    def st_sum_loop(self, budget, depth):
        """`acc = 0.0` and a loop whose iterations add to it (fused sweeps),
        with at times a loop inside adding to it too (nested ones)."""
        fn = self.fn
        self.use("sum_loop")
        acc = self.fresh("acc")
        fn.emit(f"{acc} = 0.0")
        self._sum_loop(acc, budget, depth, None)
        if fn.out == () and fn.indent == 1 and self.p(0.7):
            fn.sums.append(acc)  # read only by the return, linearly: the sweeps fuse
        else:
            fn.scopes[-1][acc] = _Var(acc, (), "local")  # read after the loop only

    def _sum_loop(self, acc, budget, depth, outer):
        fn = self.fn
        n = self.pick([self.N, 2, 3])
        i = self.fresh("i")
        L = self.length_expr(n)
        if outer is not None and 0 <= outer.lo and outer.hi < n and self.p(0.5):
            head, lo, hi = f"range({outer.name} + 1, {L})", outer.lo + 1, n - 1  # pairs
        else:
            head, lo, hi = f"range({L})", 0, n - 1
        # at times a float no gradient flows through, carried from one
        # iteration to the next (`sg = -sg`): the sweeps still fuse
        carried = self.fresh("sg") if outer is None and self.p(0.3) else None
        if carried:
            fn.emit(f"{carried} = 1.0")
        fn.emit(f"for {i} in {head}:")
        loopvar = _Var(i, None, "loop", lo, hi)

        def body():
            if self.p(0.6):  # each iteration's own values only (scratch)
                for _ in range(self.int(1, 3)):
                    self.st_assign(budget, depth + 1)
                return False
            return self.block(max(1, budget // 2), depth + 1, scope=False)

        def then():
            nested = outer is None and self.p(0.5)
            if nested:
                self._sum_loop(acc, budget // 2, depth + 1, loopvar)
            if not nested or self.p(0.5):
                fn.emit(f"{acc} += {carried} * ({self.expr((), 2)})" if carried
                        else f"{acc} += {self.expr((), 2)}")
            if carried:
                fn.emit(self.pick([f"{carried} = -{carried}",
                                   f"{carried} = 0.5 * {carried} + 0.25"]))

        self._loop_body("for", loopvar, budget, depth, body=body, then=then)

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
            self.in_while_test = True
            c = self.cond(2) if self.ok("active_if") else f"{it} < {cap}"
            self.in_while_test = False
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
        call = f"{name}({self.helper_args(params, lambda s: self.owned(self.expr(s, 1), s))})"
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

    def return_stmt(self, final=False):
        out = self.fn.out
        if _is_tuple(out):
            return "return " + ", ".join(self.expr(s, 3) for s in out)
        sums = "".join(f" + 0.5 * {acc}" for acc in self.fn.sums) if final else ""
        return f"return {self.expr(out, 3)}{sums}"

    # ---- functions -----------------------------------------------------------------
    def function(self, name, params, out, budget, writable=(), signature=None):
        """The function's source; `signature`: its parameter list as written
        (defaults, keyword-only ones), by default the names of `params`."""
        self.fn = fn = _Fn(name, params, out)
        fn.writable.update(writable)
        fn.no_reset = bool(writable)
        self.block(budget, 0, scope=False)
        if self.effect_wanted():
            self.st_effect(budget, 0)
        fn.emit(self.return_stmt(final=True))
        if signature is None:
            signature = ", ".join(p.name for p in params)
        body = "\n".join(fn.lines)
        prelude = [line for line in fn.prelude if re.search(rf"\b{line.split()[0]}\b", body)]
        prelude = self.first_statements() + prelude
        lines = [f"def {name}({signature}):"] + ["    " + line for line in prelude] + fn.lines
        self.fn = None
        return "\n".join(lines)
