"""Lists, tuples and comprehensions in generated programs (issue #19): list
and tuple literals of differentiated values read at constant and run-time
indices, sum() of generators, np.array / np.stack of list comprehensions
(over range, enumerate, zip and tuples), lists built by appending in a
loop, builtin sum of a list of arrays, numpy functions of list literals,
dicts with constant keys, and for loops over enumerate, zip and reversed. Kept apart from the other statement
kinds."""


class ContainerStatements:
    """Mixed into the generator (uses Statements' expr, new_var, emit...)."""

    def st_container(self, budget, depth):
        fn = self.fn
        self.use("containers")
        vectors = fn.vars(lambda v: not v.is_int and len(v.shape or ()) == 1)
        forms = [(3, "literal"), (2, "literal_runtime"), (2, "np_of_literal")]
        forms += [(2, "dict_literal")]
        if vectors:
            forms += [(3, "sum_generator"), (3, "array_comprehension"), (1, "enumerate_zip"),
                      (1, "stack_comprehension"), (1, "sum_of_arrays"), (2, "append_loop"),
                      (3, "iterator_loop")]
        form = self.weighted(forms)
        k = self.fresh("k")
        if form in ("literal", "literal_runtime"):
            lst = self.fresh("lst")
            n = self.int(2, 4)
            elts = [self.expr((), 2) if self.p(0.7) else self.pick(["1", "2", "0.5"])
                    for _ in range(n)]
            bracket = "[]" if self.p(0.5) else "()"
            fn.emit(f"{lst} = {bracket[0]}{', '.join(elts)}{bracket[1]}")
            if bracket == "[]" and self.p(0.4):
                j = self.int(0, n - 1)
                fn.emit(f"{lst}[{j}] = {lst}[{j}] * 1.0 * {self.expr((), 1)}")
            if form == "literal":
                i, j = self.int(-n, n - 1), self.int(0, n - 1)
                # (* 1.0: two int elements must not make an int variable)
                value = f"{lst}[{i}] * {lst}[{j}] * 1.0 + len({lst})"
            else:
                loops = fn.vars(lambda v: v.is_int and v.role == "loop")
                index = f"{self.pick(loops).name} % {n}" if loops else f"{self.int(0, n - 1)}"
                value = f"{lst}[{index}] * 1.0 * {self.expr((), 1)}"
            v = self.new_var(())
            fn.emit(f"{v.name} = {value}")
            return False
        if form == "np_of_literal":
            f = self.pick(["np.sum", "np.mean", "np.prod", "np.max"])
            elts = [self.expr((), 2) for _ in range(self.int(2, 3))] + [self.pick(["1", "2.0"])]
            v = self.new_var(())
            fn.emit(f"{v.name} = {f}([{', '.join(elts)}])")
            return False
        if form == "dict_literal":  # one variable per key (transforms/frontend/containers/dicts.py)
            d = self.fresh("d")
            a, b = self.expr((), 2), self.expr((), 1)
            fn.emit(f"{d} = " + (f'{{"a": {a}, "b": {b}, "c": 2.0}}' if self.p(0.6)
                                  else f"dict(a={a}, b={b}, c=2.0)"))
            if self.p(0.5):
                fn.emit(f'{d}["a"] = {d}["a"] * {d}["c"] + {self.expr((), 1)}')
            v = self.new_var(())
            fn.emit(f'{v.name} = {d}["a"] * {d}["b"] - {d}["c"]')
            return False
        vec = self.pick(vectors)
        L = vec.shape[0]
        if form == "iterator_loop":  # for over enumerate / zip / reversed / rows
            acc, u, w = self.fresh("acc"), self.fresh("u"), self.fresh("w")
            other = self.pick(vectors)
            loops = [f"for {k}, {u} in enumerate({vec.name}{self.pick(['', ', 1'])}):",
                     f"for {u} in reversed({vec.name}):",
                     f"for {k} in reversed(range({L})):"]
            if other.shape == vec.shape:
                loops.append(f"for {u}, {w} in zip({vec.name}, {other.name}):")
            head = self.pick(loops)
            scale = self.expr((), 1)  # (before the loop: the body reads only its own names)
            fn.emit(f"{acc} = 0.0")
            fn.emit(head)
            fn.indent += 1
            term = (f"{u} * {w}" if f"{w} in" in head else f"{u} * {k}" if "enumerate" in head
                    else f"np.sin({u})" if f"{u} in" in head else f"{vec.name}[{k}] * {k}")
            fn.emit(f"{acc} = {acc} * 0.5 + {term} * {scale}")
            fn.indent -= 1
            v = self.new_var(())
            fn.emit(f"{v.name} = {acc}")
            return False
        if form == "sum_generator":
            cond = f" if {k} % 2 == 0" if self.p(0.3) else ""
            body = self.pick([f"{vec.name}[{k}] * {vec.name}[{k}]",
                              f"np.sin({vec.name}[{k}]) * {self.expr((), 1)}",
                              f"{vec.name}[{k}] * {k}"])
            brackets = ("[", "]") if self.p(0.3) else ("", "")
            v = self.new_var(())
            fn.emit(f"{v.name} = sum({brackets[0]}{body} for {k} in range({L}){cond}{brackets[1]})")
            return False
        if form == "array_comprehension":
            body = self.pick([f"{vec.name}[{k}] * {self.expr((), 1)}",
                              f"np.tanh({vec.name}[{k}]) + {k}",
                              f"{vec.name}[{k}] ** 2"])
            it = self.pick([f"range({L})", f"range(len({vec.name}))"])
            v = self.new_var((L,))
            fn.emit(f"{v.name} = np.array([{body} for {k} in {it}])")
            return False
        if form == "enumerate_zip":
            u = self.fresh("u")
            other = self.pick(vectors)
            if other.shape == vec.shape and self.p(0.5):
                w = self.fresh("w")
                body, it = f"{u} * {w}", f"zip({vec.name}, {other.name})"
                target = f"{u}, {w}"
            else:
                body, it, target = f"{u} * {k}", f"enumerate({vec.name})", f"{k}, {u}"
            v = self.new_var((L,))
            fn.emit(f"{v.name} = np.array([{body} for {target} in {it}])")
            return False
        if form == "stack_comprehension":
            c = self.fresh("c")
            weight = self.expr((L,), 1)  # (before the new variable exists)
            v = self.new_var(())
            fn.emit(f"{v.name} = np.sum(np.stack([{vec.name} * {c} for {c} in (1.0, 2.0, 0.5)]) "
                    f"* {weight})")
            return False
        if form == "append_loop":
            out, t = self.fresh("out"), self.fresh("t")
            fn.emit(f"{out} = []")
            fn.emit(f"for {k} in range({L}):")
            fn.indent += 1
            fn.emit(f"{t} = {vec.name}[{k}] * {self.expr((), 1)}")
            fn.emit(f"{out}.append(np.sin({t}) + {k})")
            fn.indent -= 1
            v = self.new_var(())
            fn.emit(f"{v.name} = " + self.pick([f"np.sum(np.array({out}) ** 2)", f"sum({out})",
                                                f"{out}[{self.int(0, L - 1)}] * len({out})"]))
            return False
        # sum_of_arrays: Python's sum of a list of arrays is elementwise
        other = self.expr((L,), 1)
        v = self.new_var((L,))
        fn.emit(f"{v.name} = sum([{vec.name}, {other}, {vec.name} * {vec.name}])")
        return False
