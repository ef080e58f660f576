"""Nested functions in generated programs (issue #19): a `def` or a lambda
bound to a name inside the function, closing over its variables (read when
it is called: late binding), called right after it, at times twice, also
inside loops. Kept apart from the other statement kinds."""


class NestedFunctions:
    """Mixed into the generator (uses Statements' expr, new_var, emit...)."""

    def st_nested_fn(self, budget, depth):
        fn = self.fn
        self.use("nested_functions")
        g = self.fresh("g")
        captured = self.expr((), 2)  # the outer variables it reads, when called
        form = self.weighted([(3, "def"), (2, "lambda"), (1, "default")])
        body = self.pick([f"u * ({captured})", f"np.sin(u) * ({captured}) + u * u",
                          f"np.tanh(u + {captured})"])
        if form == "def":
            fn.emit(f"def {g}(u):")
            fn.indent += 1
            fn.emit(f"return {body}")
            fn.indent -= 1
        elif form == "lambda":
            fn.emit(f"{g} = lambda u: {body}  # noqa: E731")
        else:  # a default: evaluated where the lambda is made
            d = self.fresh("d")  # (a name of its own: it must not shadow what it captures)
            early = self.expr((), 1)
            fn.emit(f"{g} = lambda u, {d}={early}: ({body}) * {d}  # noqa: E731")
        shape = self.pick(self.new_shapes())
        call = f"{g}({self.expr(shape, 2)})"
        if self.p(0.4):
            call = f"{call} + {g}({self.expr(shape, 2)})"
        v = self.new_var(shape)
        fn.emit(f"{v.name} = {call}")
