"""The blocks of the loops family (loops.py) that step in time: diffusion,
advection and reaction updates with buffer swaps and copies, Gauss-Seidel
sweeps, leapfrog and explicit Euler steps, and products accumulated over
a loop or over time. Mixed into loops._Builder with LoopBlocks (whose
pieces they use)."""

FORCE_FIELDS = ("def {name}(q, k):\n    f = np.zeros_like(q)\n    for i in range(q.shape[0] - 1):\n"
                "        d = q[i + 1] - q[i]\n        f[i] += k * d\n        f[i + 1] -= k * d\n"
                "    return f\n",
                "def {name}(q, k):\n    return -k * q - 0.1 * np.sin(q)\n")
# (the first, its loop's body under a test: see LoopBlocks.interior)
GUARDED_FIELD = ("def {name}(q, k):\n    f = np.zeros_like(q)\n    for i in range(q.shape[0]):\n"
                 "        if i + 1 < q.shape[0]:\n            d = q[i + 1] - q[i]\n"
                 "            f[i] += k * d\n            f[i + 1] -= k * d\n    return f\n")


class TimeBlocks:
    def loop_arrays(self):
        """Whether a time loop may compute arrays (in a program compiled
        with parallel=True where the known bug is avoided, it may not:
        numba's parallel array analysis then takes the arrays the
        derivative records in the loop for the empty placeholder its tape
        starts with, and raises "Sizes of ... do not match")."""
        return not (self.jit and self.parallel) or self.ok("parallel_array_tape")
    def steps(self):
        if self.p(0.3):
            return self.arg("steps", None, self.int(1, 3))
        return str(self.int(1, 3))

    def b_time_loop(self):
        self.use("time_loop")
        n = self.size()
        a = self.source_array()
        u, un = self.fresh("u"), self.fresh("un")
        copy = self.pick([f"{a}.copy()", f"np.copy({a})", f"1.0 * {a}", f"np.array({a})"])
        self.emit(f"{u} = {copy}")
        kind = self.weighted([(4, "heat"), (2, "advect"), (2, "reaction"), (1, "nonlinear"),
                              (1, "coefficient"), (2 if self.loop_arrays() else 0, "vector"),
                              (2, "sweep"), (2, "periodic")])
        dt = self.pick(["0.1", "0.05", f"0.05 * {self.scalar_param()}"])
        self.emit(f"dt = {dt}")
        if kind == "sweep":   # Gauss-Seidel: in place, no second buffer
            self.use("in_place_sweep")
            with self.block(f"for t in range({self.steps()}):"):
                with self.interior("i", 1, 1, n):
                    self.emit(f"{u}[i] = {u}[i] + 0.5 * (0.5 * ({u}[i - 1] + {u}[i + 1]) - {u}[i])"
                              + self.pick(["", f" + dt * np.sin({u}[i])"]))
            self.emit(f"e += {self.reduce(u)}")
            self.arrays.append(u)
            return
        boundary = "none" if kind == "periodic" else self.pick(["copy", "dirichlet", "none"])
        alloc = [f"np.zeros_like({u})", f"np.zeros({n})", f"{u}.copy()"]
        if boundary != "none":
            alloc.append(f"np.empty({n})")
        self.emit(f"{un} = {self.pick(alloc)}")
        swap = self.pick(["swap", "swap", "slice", "copy", "copyto"])
        if kind == "vector" and self.jit and self.parallel:
            self.use("parallel_array_tape")
        with self.block(f"for t in range({self.steps()}):"):
            if kind == "vector":
                self.emit(f"{un}[1:-1] = {u}[1:-1] + dt * ({u}[:-2] - 2.0 * {u}[1:-1] + {u}[2:])")
            else:
                periodic = kind == "periodic"
                right = f"{u}[(i + 1) % {n}]" if periodic else f"{u}[i + 1]"
                with self.block(f"for i in {self.range_of('0', n)}:") if periodic else \
                        self.interior("i", 1, 1, n):
                    if kind in ("heat", "periodic") and self.p(0.5):
                        self.use("shared")
                        self.emit(f"lap = {u}[i - 1] - 2.0 * {u}[i] + {right}")
                        update = "lap - 0.1 * lap * lap" if self.p(0.5) else "lap"
                    else:
                        update = {
                            "heat": f"{u}[i - 1] - 2.0 * {u}[i] + {right}",
                            "periodic": f"{u}[i - 1] - 2.0 * {u}[i] + {right}",
                            "advect": f"-{self.scalar_param()} * ({u}[i] - {u}[i - 1])",
                            "reaction": f"{u}[i - 1] - 2.0 * {u}[i] + {right}"
                                        f" + {u}[i] * (1.0 - {u}[i])",
                            "nonlinear": f"np.sin({right} - {u}[i]) - np.sin({u}[i] - {u}[i - 1])",
                            "coefficient": None}[kind]
                        if update is None:
                            w = self.array_param() or a
                            update = (f"{w}[i] * ({right} - {u}[i])"
                                      f" - {w}[i - 1] * ({u}[i] - {u}[i - 1])")
                    self.emit(f"{un}[i] = {u}[i] + dt * ({update})")
            if boundary == "copy":
                self.emit(f"{un}[0] = {u}[0]")
                self.emit(f"{un}[{self.pick([f'{n} - 1', '-1'])}] = {u}[{self.minus(n, 1)}]")
            elif boundary == "dirichlet":
                self.emit(f"{un}[0] = 0.0")
                self.emit(f"{un}[-1] = 0.0")
            if swap == "swap":
                self.use("swap")
                self.emit(self.pick([f"{u}, {un} = {un}, {u}", f"{un}, {u} = {u}, {un}"]))
            else:
                self.use("copy_back")
                self.emit({"slice": f"{u}[:] = {un}", "copy": f"{u} = {un}.copy()",
                           "copyto": f"np.copyto({u}, {un})"}[swap])
        self.emit(f"e += {self.reduce(u)}")
        self.arrays.append(u)

    def force_of(self, q, f):
        """f = the force on positions q (a helper, a vector expression or a loop)."""
        k = self.scalar_param()
        form = self.pick(["helper", "vector", "loop"])
        if form == "helper":
            self.use("helper_in_loop")
            which = self.int(0, 1)
            template = FORCE_FIELDS[which] if which or self.ok("straight_neighbour_loop") \
                else GUARDED_FIELD
            if template == FORCE_FIELDS[0]:
                self.use("straight_neighbour_loop")
            h = self.helper(f"field{which}", template)
            self.emit(f"{f} = {h}({q}, {k})")
        elif form == "vector":
            field = self.pick([f"-{k} * {q}", f"-np.sin({q})", f"-{q} - 0.1 * {q} ** 3"])
            self.emit(f"{f} = {field}")
        else:
            self.use("array_accumulate")
            self.emit(f"{f} = np.zeros_like({q})")
            with self.interior("i", 0, 1, f"{q}.shape[0]"):
                self.emit(f"d = {q}[i + 1] - {q}[i]")
                self.emit(f"{f}[i] += {k} * d")
                self.emit(f"{f}[i + 1] -= {k} * d")

    def b_leapfrog(self):
        self.use("leapfrog", "time_loop")
        if self.jit and self.parallel:
            self.use("parallel_array_tape")
        a = self.source_array()
        q, p, f = self.fresh("q"), self.fresh("v"), self.fresh("fq")
        self.emit(f"{q} = {a}.copy()")
        y = self.arg("y", (self.n,)) if self.p(0.5) else None
        self.emit(f"{p} = {f'{y}.copy()' if y else f'np.zeros_like({q})'}")
        self.emit("h = 0.1")
        in_place = self.p(0.5)
        with self.block(f"for t in range({self.steps()}):"):
            if self.p(0.6):   # leapfrog (kick, drift, kick)
                self.force_of(q, f)
                self.emit(f"{p} += 0.5 * h * {f}" if in_place else f"{p} = {p} + 0.5 * h * {f}")
                self.emit(f"{q} += h * {p}" if in_place else f"{q} = {q} + h * {p}")
                self.force_of(q, f)
                self.emit(f"{p} += 0.5 * h * {f}" if in_place else f"{p} = {p} + 0.5 * h * {f}")
            else:   # explicit Euler
                self.force_of(q, f)
                self.emit(f"{q} = {q} + h * {p}")
                self.emit(f"{p} = {p} + h * {f}")
        self.emit(f"e += 0.5 * np.sum({p} * {p}) + {self.reduce(q)}")
        self.arrays.append(q)

    def b_product(self):
        self.use("product_accumulate")
        n = self.size()
        a = self.source_array()
        kind = self.pick(["scalar", "ode", "recurrence"] + ["vector"] * self.loop_arrays())
        if kind == "scalar":
            self.emit("pr = 1.0")
            with self.block(f"for i in {self.range_of('0', n)}:"):
                self.emit(f"pr *= 1.0 + 0.1 * np.tanh({a}[i] * {self.scalar_param()})")
            self.emit("e += pr")
        elif kind == "ode":
            self.use("time_loop")
            self.emit(f"s = {self.pick([f'{a}[0]', '1.0', self.scalar_param()])}")
            with self.block(f"for t in range({self.steps()}):"):
                self.emit(f"s = s + 0.1 * (-{self.scalar_param()} * s + np.sin(s))")
            self.emit("e += s")
        elif kind == "recurrence":
            g = self.fresh("g")
            self.emit(f"{g} = np.ones({n})")
            with self.interior("i", 1, 0, n):
                self.emit(f"{g}[i] = {g}[i - 1] * (1.0 + 0.1 * {a}[i])")
            self.emit(f"e += {self.reduce(g)}")
            self.arrays.append(g)
        else:
            if self.jit and self.parallel:
                self.use("parallel_array_tape")
            g = self.fresh("g")
            self.emit(f"{g} = np.ones({n})")
            with self.block(f"for t in range({self.steps()}):"):
                self.emit(f"{g} *= 1.0 + 0.1 * np.sin({a})")
            self.emit(f"e += {self.reduce(g)}")
            self.arrays.append(g)
