"""Forms users write that the rest of the generator does not (issue #33):

* container arguments of `fuzzed` (a dict `p` of {"w": vector, "b": float,
  at times "m": matrix}, or a tuple or list `t` of (vector, float)): read by
  key (`p["w"]`, `p.get("b")`, `t[0]`), looped over (`p.items()`,
  `p.values()`, `sorted(p)`, `enumerate(t)`), unpacked, and passed whole
  to a helper (`predict(p, x)`, JAX style; generator.CONTAINER_HELPERS),
  also by keyword (`predict_get(p, x, scale=s)`);
* a local dict, tuple or list passed whole to a helper;
* imports among a function's first statements;
* Ellipsis in reads and writes (`M[..., j]`, `M[i, ...]`, `b[...] = e`);
* closures over arguments (`def g(u): return u * x`), called by keyword
  at times;
* numpy calls with keyword arguments (`np.sum(a=v)`, `np.dot(v, b=w)`,
  `np.clip(v, a_min=None, a_max=0.8)`, `np.concatenate(..., axis=0)`);
* calls made for their effect that s2sad must refuse (refusals.py), and a
  list of differentiated values used other than as a stack (`stk.reverse()`,
  `stk.pop(0)`, ...), refused too.
"""
from .model import MAIN, par
from .refusals import EXPECTED


class MoreForms:
    """Mixed into the generator (uses Statements' expr, new_var, emit...)."""

    # ---- container arguments ----------------------------------------------------------
    def container_leaves(self, name, tree):
        """The leaves of a container argument as variables (read only)."""
        from .model import _Var
        out = []
        for key, shape in tree.leaves:
            text = f'{name}["{key}"]' if tree.kind == "dict" else f"{name}[{key}]"
            if tree.kind == "dict":
                self.leaf_get[text] = f'{name}.get("{key}")'
            out.append(_Var(text, shape, "leaf"))
        return out

    def leaf_spelling(self, text):
        """`p["w"]`, at times spelled `p.get("w")`."""
        if text in self.leaf_get and self.p(0.3):
            return self.leaf_get[text]
        return text

    def st_container_arg(self, budget, depth):
        fn = self.fn
        self.use("container_param")
        name, tree = self.pick(self.containers)
        vec = lambda: self.owned(self.expr((self.N,), 2), (self.N,))  # noqa: E731
        if tree.kind == "dict":
            form = self.pick(["predict", "predict_get", "items", "values", "keys", "absent"])
        else:
            form = self.pick(["predict_pair", "iterate", "unpack"])
        if form in ("predict", "predict_pair"):
            self.container_helpers.add(form)
            u = vec()  # (every expression before the variable it is bound to exists)
            v = self.new_var(())
            fn.emit(f"{v.name} = {form}({name}, {u})")
        elif form == "predict_get":
            self.container_helpers.add(form)
            u, s = vec(), self.expr((), 1)
            v = self.new_var(())
            fn.emit(f"{v.name} = " + self.pick([f"predict_get({name}, {u}, scale={s})",
                                                f"predict_get({name}, {u})",
                                                f"predict_get(u={u}, params={name})"]))
        elif form == "absent":  # a key the dict does not have: the default, a constant
            e = self.expr((), 1)
            v = self.new_var(())
            fn.emit(f'{v.name} = {name}.get("scale", {self.const(0.5, 1.5)}) * {par(e)}')
        elif form == "unpack":
            w, b = self.fresh("v"), self.fresh("s")
            fn.emit(f"{w}, {b} = {name}")
            from .model import _Var
            fn.scopes[-1][w] = wv = _Var(w, (self.N,), "local")
            wv.view = True
            fn.scopes[-1][b] = _Var(b, (), "local")
        else:
            self._container_loop(name, tree, form)

    def _container_loop(self, name, tree, form):
        """A loop over a container argument (s2sad unrolls it: no exits, the
        loop's names neither assigned nor read after it)."""
        fn = self.fn
        acc, key, leaf, i = self.fresh("acc"), self.fresh("key"), self.fresh("leaf"), self.fresh("j")
        scale = self.expr((), 1)  # (before the loop: the body reads only its own names)
        if form == "items":
            head = self.pick([f"for {key}, {leaf} in {name}.items():",
                              f"for {i}, ({key}, {leaf}) in enumerate({name}.items()):"])
        elif form == "values":
            head = f"for {leaf} in {name}.values():"
        elif form == "keys":
            head = self.pick([f"for {key} in {name}:", f"for {key} in sorted({name}):"])
        else:
            head = self.pick([f"for {leaf} in {name}:", f"for {i}, {leaf} in enumerate({name}):"])
        value = f"{name}[{key}]" if form == "keys" else leaf
        weight = f" * ({i} + 1.0)" if f"{i}," in head else ""
        fn.emit(f"{acc} = 0.0")
        fn.emit(head)
        fn.emit(f"    {acc} = {acc} + np.sum(np.sin({value})){weight} * {par(scale)}")
        v = self.new_var(())
        fn.emit(f"{v.name} = {acc}")

    # ---- local containers passed whole --------------------------------------------------
    def st_container_call(self, budget, depth):
        fn = self.fn
        self.use("container_call")
        w = self.owned(self.expr((self.N,), 2), (self.N,))
        b, u = self.expr((), 1), self.owned(self.expr((self.N,), 1), (self.N,))
        form = self.pick(["dict", "dict_call", "tuple", "list", "inline"])
        # (one sequence kind per program, the first: the reference twin follows
        # a parameter that is sometimes a tuple, sometimes a list, as neither)
        if form in ("tuple", "list", "inline"):
            self.seq_kind = self.seq_kind or ("list" if form == "list" else "tuple")
            if self.seq_kind == "list":
                form = "list"
            elif form == "list":
                form = "tuple"
        helper = "predict" if form.startswith("dict") else "predict_pair"
        self.container_helpers.add(helper)
        v = self.new_var(())
        if form == "inline":
            fn.emit(f"{v.name} = predict_pair(({w}, {b}), {u})")
            return
        prm = self.fresh("prm")
        fn.emit(f"{prm} = " + {"dict": f'{{"w": {w}, "b": {b}}}', "dict_call": f"dict(w={w}, b={b})",
                               "tuple": f"({w}, {b})", "list": f"[{w}, {b}]"}[form])
        fn.emit(f"{v.name} = {helper}({prm}, {u})")

    # ---- imports ------------------------------------------------------------------------
    def first_statements(self):
        """Imports among the function's first statements, at times."""
        if not (self.ok("function_imports") and self.p(0.12)):
            return []
        self.use("function_imports")
        lines = [line for line in ("import numpy as np", "import math", "import numpy")
                 if self.p(0.6)]
        return lines or ["import numpy as np"]

    # ---- Ellipsis -----------------------------------------------------------------------
    def ellipsis_atoms(self, shape):
        """[(weight, text)] reads through `...` of an array of `shape`."""
        if not (self.ok("ellipsis") and self.p(0.15)):
            return []
        fn = self.fn
        out = []
        if len(shape) == 1:
            L = shape[0]
            for v in fn.vars(lambda v: not v.is_int and v.shape == shape):
                out.append((1, f"{v.name}[...]"))
            for v in fn.vars(lambda v: not v.is_int and len(v.shape or ()) == 1 and v.shape[0] > L):
                a = self.int(0, v.shape[0] - L)
                out.append((1, f"{v.name}[..., {a}:{a + L}]"))
            for v in fn.vars(lambda v: not v.is_int and len(v.shape or ()) == 2):
                if v.shape[1] == L:
                    out.append((1, f"{v.name}[{{i{v.shape[0]}}}, ...]"))
                if v.shape[0] == L:
                    out.append((1, f"{v.name}[..., {{i{v.shape[1]}}}]"))
        elif len(shape) == 2:
            for v in fn.vars(lambda v: not v.is_int and v.shape == shape):
                out.append((1, f"{v.name}[...]"))
        return out

    def ellipsis_write(self, b):
        """A write through `...` into the buffer `b`, or None."""
        if not (self.ok("ellipsis") and self.p(0.15)):
            return None
        self.use("ellipsis")
        sh = b.shape
        if len(sh) == 1:
            a = self.int(0, sh[0] - 1)
            c = self.int(a + 1, sh[0])
            target, tshape = self.pick([(f"{b.name}[...]", sh), (f"{b.name}[..., {a}:{c}]", (c - a,))])
        else:
            target, tshape = self.pick([(f"{b.name}[...]", sh),
                                        (f"{b.name}[..., {self.index(sh[1])}]", (sh[0],)),
                                        (f"{b.name}[{self.index(sh[0])}, ...]", (sh[1],))])
        val = self.squash(tshape, 1) if self.fn.loops else self.expr(tshape, 2)
        op = self.pick(["=", "=", "+="])
        return f"{target} {op} {val}"

    # ---- numpy calls with keywords --------------------------------------------------------
    def keyword_scalar(self, d):
        """A scalar from a numpy call given keyword arguments."""
        self.use("numpy_keywords")
        shapes = [(self.N,)] + ([(self.R, self.C)] if self.ok("matrix") and self.use_matrix else [])
        s = self.pick(shapes)
        a = self.expr(s, d)
        opts = [f"np.sum(a={a})", f"np.mean(a={a})", f"np.prod(a=1.0 + 0.2 * np.sin({a}))",
                f"np.linalg.norm(x=np.cos({a}))"]
        if len(s) == 1:
            opts += [f"np.dot({a}, b={self.expr(s, d)})", f"np.sum({a}, axis=0)"]
        if self.ok("kinks"):
            opts += [f"np.max(a={a})"]
        e = self.pick(opts)
        if "np.max" in e:
            self.use("kinks")
        return e

    def keyword_array(self, shape, d):
        """An array from a numpy call given keyword arguments, or None."""
        E = lambda s=shape: self.expr(s, d)  # noqa: E731
        opts = []
        if len(shape) == 1:
            L = shape[0]
            opts += [f"np.cumsum(a={E()})", f"np.linspace(start={self.const()}, stop={self.const()}, "
                     f"num={L})"]
            if L >= 2:
                k = self.int(1, L - 1)
                opts.append(f"np.concatenate(({E((k,))}, {E((L - k,))}), axis=0)")
            if self.ok("kinks"):
                opts += [f"np.clip({E()}, a_min=None, a_max={self.const(0.2, 1.0)})",
                         f"np.clip({E()}, a_min={self.const(-1.0, 0.0)}, a_max=None)"]
        else:
            opts += [f"np.outer(a={E((shape[0],))}, b={E((shape[1],))})",
                     f"np.transpose(a={E((shape[1], shape[0]))})"]
        e = self.pick(opts)
        self.use("numpy_keywords")
        if "np.clip" in e:
            self.use("kinks")
        return e

    # ---- closures over arguments ----------------------------------------------------------
    def st_closure_arg(self, budget, depth):
        """A nested def or lambda reading an argument array of the function
        (late binding: read when called), called by position or keyword."""
        fn = self.fn
        caps = fn.vars(lambda v: not v.is_int and v.shape == (self.N,)
                       and v.role in ("arg", "param", "leaf"))
        if not caps:
            return self.st_nested_fn(budget, depth)
        self.use("nested_functions")
        cap = self.pick(caps).name
        g = self.fresh("g")
        body, out = self.pick([(f"u * {cap}", (self.N,)), (f"np.sin(u) * {cap} + u", (self.N,)),
                               (f"np.sum(u * {cap})", ())])
        if self.p(0.5):
            fn.emit(f"def {g}(u):")
            fn.emit(f"    return {body}")
        else:
            fn.emit(f"{g} = lambda u: {body}")
        arg = self.expr((self.N,), 2)
        call = f"{g}(u={arg})" if self.p(0.4) else f"{g}({arg})"
        if out != () and not self.arrays_ok():
            call, out = f"np.sum({call})", ()
        v = self.new_var(out)
        fn.emit(f"{v.name} = {call}")

    # ---- effects s2sad must refuse --------------------------------------------------------
    def st_effect(self, budget, depth):
        """A fresh array written by a call s2sad does not follow, then read
        into the result (refusals.py)."""
        fn = self.fn
        if not self.arrays_ok():
            return self.st_assign(budget, depth)
        self.use(EXPECTED)
        self.refused = True
        N = self.N
        if self.ok("stack_refusal") and self.p(0.3) and not self.fn.in_recording:
            # (under stop_recording nothing is differentiated: the misuse is accepted)
            return self._stack_misuse()
        matrix = self.ok("matrix") and self.use_matrix and self.p(0.3)
        shape = (self.R, self.C) if matrix else (N,)
        init = self.expr(shape, 2)
        buf = self.new_var(shape, view=True)
        fn.emit(f"{buf.name} = {par(init)} * 1.0")
        if matrix:
            R, C = shape
            effect = self.pick([f"np.fill_diagonal({buf.name}, {self.expr((), 1)})",
                                f"np.multiply({par(self.expr((C,), 1))}, 2.0, out={buf.name}[0])",
                                f"np.sin({self.expr((R,), 1)}, out={buf.name}[:, 0])"])
        else:
            effect = self.pick([
                f"np.putmask({buf.name}, {buf.name} > 0.0, {par(self.expr((N,), 1))})",
                f"np.put({buf.name}, [0, 2], {self.expr((), 1)})",
                f"{buf.name}.put([1], {self.expr((), 1)})",
                f"{buf.name}.resize({N}, refcheck=False)",
                f"np.multiply({par(self.expr((2,), 1))}, 0.5, out={buf.name}[0:2])",
                f"np.copyto({buf.name}, {self.expr((N,), 1)}, where={par(self.expr((N,), 1))} > 0.0)",
            ])
        fn.emit(effect)
        weight = self.expr(shape, 1)
        v = self.new_var(())
        fn.emit(f"{v.name} = np.sum({buf.name} * {par(weight)})")
        if fn.out == () and fn.indent == 1:
            fn.sums.append(v.name)  # (read by the return: the effect matters)

    def _stack_misuse(self):
        """A list of differentiated values used other than as a stack (reversed,
        inserted into, popped from the front, cleared, extended): refused naming
        the line (transforms/reverse/user_stacks.py)."""
        fn = self.fn
        self.use("stack_refusal")
        stk, top = self.fresh("stk"), self.fresh("top")
        first, second, third = self.expr((), 2), self.expr((), 2), self.expr((), 1)
        # (every float argument in the first value: it needs a gradient whatever wrt is)
        for a in fn.vars(lambda v: not v.is_int and v.role in ("arg", "leaf")):
            first += f" + 0.1 * {'np.sum(' + a.name + ')' if a.shape else a.name}"
        fn.emit(f"{stk} = []")
        fn.emit(f"{stk}.append({first})")
        fn.emit(f"{stk}.append({second})")
        misuse = self.pick([f"{stk}.reverse()", f"{stk}.insert(0, {third})",
                            f"{stk}.extend([{third}])", f"{stk}.clear()",
                            f"{stk}.pop(0)"])
        fn.emit(misuse)
        if misuse.endswith("clear()"):
            fn.emit(f"{stk}.append({third})")
        fn.emit(f"{top} = {stk}.pop()")
        v = self.new_var(())
        fn.emit(f"{v.name} = np.sin({top}) * 2.0")
        if fn.out == () and fn.indent == 1:
            fn.sums.append(v.name)  # (read by the return)

    def effect_wanted(self):
        return self.refuse and not self.refused and self.fn.name == MAIN
