"""The blocks of the loops family (loops.py), each a few lines of `fuzzed`
that add to the energy `e`: here the pieces they share (loop ranges,
boundary handling, uses of an intermediate) and the blocks of neighbour
energies, force assembly, 2-D stencils, triangular and strided loops;
time_blocks.py and index_blocks.py have the others.

Every read is in range for any n >= 4 (2-D: both sizes >= 4), or wraps on
purpose (`x[i - 1]` at i = 0 in a periodic loop); indices computed from
values (`(np.abs(x) * 2.0).astype(int)`) are at most 2 since arguments are
drawn from (-1.5, 1.5)."""
import contextlib

# block name, weight
BLOCKS = (("neighbour_energy", 7), ("force_assembly", 4), ("time_loop", 4), ("leapfrog", 2),
          ("stencil_2d", 2), ("triangular", 2), ("strided", 2), ("unpack", 2),
          ("index_array", 3), ("index_arithmetic", 2), ("product", 2), ("masked_write", 2),
          ("search", 2), ("shifted_counter", 2))

# 1-D stencils: (name of the intermediate, ((offset, coefficient), ...))
STENCILS = (("d", ((1, 1.0), (0, -1.0))), ("d", ((0, 1.0), (-1, -1.0))),
            ("lap", ((-1, 1.0), (0, -2.0), (1, 1.0))), ("g", ((1, 0.5), (-1, -0.5))),
            ("d", ((2, 1.0), (0, -1.0))), ("curv", ((2, 1.0), (1, -2.0), (0, 1.0))))

# uses of an intermediate {d} (k, c: scalar parameters; w: the array parameter);
# True where the intermediate is used more than once (or through a square)
USES = (("{k} * {d} * {d}", True), ("{d} * {d}", False), ("{d} / (1.0 + {d} * {d})", True),
        ("np.exp(-{d} * {d})", True), ("{c} * {d}", False), ("np.sin({d}) * {d}", True),
        ("np.sqrt(1.0 + {d} * {d})", True), ("{w}[i] * {d} * {d}", True), ("{d} ** 2", False),
        ("np.log(1.0 + {d} * {d})", True), ("np.tanh({d})", False),
        ("0.5 * {k} * ({d} - {c}) ** 2", False), ("{d} * {d} * {d}", True),
        ("np.cos({d})", False), ("{k} * {d} * np.exp(-{d} * {d})", True))
EXTRAS = ("np.cos({a}[i])", "{c} * {a}[i] * {a}[i]", "{w}[i] * {a}[i]", "0.1 * {a}[i] ** 3")
FORCES = ("{k} * {d}", "{d} / (1.0 + {d} * {d})", "{k} * {d} * np.exp(-{d} * {d})",
          "np.tanh({d})", "{c} * {d} * {d}")

POTENTIAL = "def {name}(a, b, k):\n    d = b - a\n    return k * d * d / (1.0 + d * d)\n"
ENERGY_FORCE = ("def {name}(a, b, k):\n    d = b - a\n    r = np.sqrt(1.0 + d * d)\n"
                "    return k * (r - 1.0), k * d / r\n")

def _signed(terms, read):
    """`a[i + 1] - 2.0 * a[i] + ...` from (offset, coefficient) pairs."""
    out = ""
    for o, c in terms:
        t = read(o) if abs(c) == 1.0 else f"{abs(c)!r} * {read(o)}"
        out = (("-" if c < 0 else "") + t) if not out else f"{out} {'-' if c < 0 else '+'} {t}"
    return out


def _offset(i, o):
    return i if o == 0 else f"{i} + {o}" if o > 0 else f"{i} - {-o}"


def _compound(text):
    return not (text.isidentifier() or text.lstrip("-").isdigit())


class LoopBlocks:
    """Mixed into loops._Builder (which has the choices, emit, block, arg...)."""

    # ---- pieces ------------------------------------------------------------------
    def range_of(self, start, stop, step=None):
        """`range(...)`; a compound stop of a loop from 0 in a program run
        with parallel=True is bound to a name first where the known bug
        is avoided."""
        if step is None and start == "0" and _compound(stop) and self.parallel:
            if self.ok("parallel_compound_stop"):
                self.use("parallel_compound_stop")
            else:
                m = self.fresh("m")
                self.emit(f"{m} = {stop}")
                stop = m
        if step is not None:
            return f"range({start}, {stop}, {step})"
        return f"range({stop})" if start == "0" and self.p(0.85) else f"range({start}, {stop})"

    @contextlib.contextmanager
    def interior(self, i, lo, hi, n, step=1):
        """`for i in range(lo, n - hi)` (step 1 or -1); a tuple of counters
        and sizes writes a nest. Where the known bug of the gather (an
        optimisation of loops whose body is straight-line code reading
        neighbours) is avoided, the loop runs over the whole range with
        its body under the test `if lo <= i < n - hi:` instead."""
        counters, sizes = (i, n) if isinstance(i, tuple) else ((i,), (n,))
        straight = self.ok("straight_neighbour_loop")
        if straight:
            self.use("straight_neighbour_loop")
        with contextlib.ExitStack() as stack:
            for c, size in zip(counters, sizes):
                if straight and step == 1:
                    header = f"for {c} in {self.range_of(str(lo), self.minus(size, hi))}:"
                elif straight:
                    header = f"for {c} in range({self.minus(size, hi + 1)}, {lo - 1}, -1):"
                else:
                    header = f"for {c} in {self.range_of('0', size)}:" if step == 1 else \
                        f"for {c} in range({self.minus(size, 1)}, -1, -1):"
                stack.enter_context(self.block(header))
            if not straight:
                test = " and ".join(f"{lo} <= {c} < {self.minus(size, hi)}"
                                    for c, size in zip(counters, sizes))
                stack.enter_context(self.block(f"if {test}:"))
            yield

    def minus(self, n, k):
        return n if k == 0 else f"{n} - {k}"

    def fill(self, text, a="x"):
        """A template's {k}, {c}, {w}, {n}, {a} filled (None: it needs w and there is none)."""
        need = {}
        if "{w}" in text:
            w = self.array_param()
            if w is None:
                return None
            need["w"] = w
        if "{k}" in text:
            need["k"] = self.scalar_param()
        if "{c}" in text:
            need["c"] = self.scalar_param()
        return text.format(n=self.size(), a=a, **need, **{k: "{" + k + "}" for k in ("d",)})

    def uses(self, d, count, neighbours=True, by_i=True):
        """`count` uses of the intermediate `d` (distinct templates);
        `by_i`: the loop's counter i indexes 1-D arrays of size n."""
        out = []
        for _ in range(count * 3):
            text, reused = self.pick(USES)
            if "[i]" in text and not by_i:
                continue
            t = self.fill(text)
            if t is None or t.format(d=d) in out:
                continue
            out.append(t.format(d=d))
            if len(out) == count:
                break
        if len(out) > 1 or any(reused for text, reused in USES if text.format(
                d=d, k="k", c="c", w="w") in out):
            self.use("shared")
        return out or [f"{d} * {d}"]

    @contextlib.contextmanager
    def neighbour_loop(self, a, terms, name):
        """A loop over i reading `a` at the stencil's offsets, boundaries
        handled one of four ways; yields (the intermediate's name, the
        value at an offset (text), the index text of an offset, the guards
        a write at an offset needs)."""
        n = self.size()
        lo = -min(o for o, _ in terms)
        hi = max(o for o, _ in terms)
        small = lo <= 1 and hi <= 1
        straight = self.ok("straight_neighbour_loop")   # (see interior)
        mode = self.weighted([(6 if straight else 0, "interior"), (2, "guarded"),
                              (2 if small and straight else 0, "ifexp"), (2, "periodic")])
        if mode in ("interior", "ifexp"):
            self.use("straight_neighbour_loop")
        self.use("neighbours")
        guards = {}
        if mode == "interior":
            start = lo + (1 if self.p(0.15) else 0)
            stop = self.minus(n, hi + (1 if self.p(0.15) else 0))
            header = f"for i in {self.range_of(str(start), stop)}:"
            index = lambda o: _offset("i", o)
            if start or hi:
                self.use("boundary")
        elif mode == "periodic":
            self.use("periodic")
            header = f"for i in {self.range_of('0', n)}:"
            wrap = self.p(0.5)
            index = lambda o: f"({_offset('i', o)}) % {n}" if o > 0 or (o < 0 and wrap) \
                else _offset("i", o)
        else:
            self.use("boundary")
            header = f"for i in {self.range_of('0', n)}:"
            index = lambda o: _offset("i", o)
            for o, _ in terms:
                if o < 0:
                    guards[o] = self.pick([f"i > {-o - 1}", f"i >= {-o}"])
                elif o > 0:
                    guards[o] = self.pick([f"i < {self.minus(n, o)}", f"i + {o} < {n}"])
        with self.block(header):
            if mode == "guarded":
                # (the farthest offset either side)
                ends = {min(o for o, _ in terms), max(o for o, _ in terms)}
                conds = [guards[o] for o in sorted(guards) if o in ends]
                if len(conds) == 2 and self.p(0.5) and conds[0] == "i > 0" \
                        and conds[1] == f"i < {self.minus(n, 1)}":
                    test = f"0 < i < {self.minus(n, 1)}"
                else:
                    test = " and ".join(conds)
                with self.block(f"if {test}:"):
                    read = lambda o: f"{a}[{index(o)}]"
                    self.emit(f"{name} = {_signed(terms, read)}")
                    yield name, read, index, {}
                return
            if mode == "ifexp":
                names = {}
                for o, _ in terms:
                    if o == 0:
                        continue
                    side = "left" if o < 0 else "right"
                    bc = self.pick([f"{a}[i]", "0.0", f"{a}[{n} - 1]" if o < 0 else f"{a}[0]"])
                    self.emit(f"{side} = {a}[{index(o)}] if {guards[o]} else {bc}")
                    names[o] = side
                read = lambda o: names.get(o, f"{a}[i]")
                self.emit(f"{name} = {_signed(terms, read)}")
                yield name, read, index, guards
                return
            read = lambda o: f"{a}[{index(o)}]"
            self.emit(f"{name} = {_signed(terms, read)}")
            yield name, read, index, {}

    def scatter(self, f, terms, s, index, guards):
        """f[...] += coefficient * s at each offset the stencil read."""
        for o, c in terms:
            value = s if abs(c) == 1.0 else f"{abs(c)!r} * {s}"
            line = f"{f}[{index(o)}] {'-' if c < 0 else '+'}= {value}"
            if o in guards:
                with self.block(f"if {guards[o]}:"):
                    self.emit(line)
            else:
                self.emit(line)

    def zeros(self, like):
        n = self.size()
        return self.pick([f"np.zeros({n})", f"np.zeros_like({like})", f"np.zeros({like}.shape[0])"])

    def reduce(self, f):
        w = self.array_param() if self.p(0.3) else None
        if w:
            return f"np.sum({w} * {f})"
        return self.pick([f"np.sum({f} * {f})", f"np.dot({f}, {f})", f"{f} @ {f}",
                          f"0.5 * np.sum({f} ** 2)", f"np.sum(np.sin({f}))"])

    # ---- blocks ------------------------------------------------------------------
    def b_neighbour_energy(self):
        a = self.source_array()
        name, terms = self.pick(STENCILS)
        form = self.weighted([(5, "one"), (2, "two"), (2, "second_total"), (1, "array"),
                              (1, "product"), (1, "helper")])
        if form == "second_total":
            s2 = self.fresh("s")
            self.emit(f"{s2} = 0.0")
            self.returned.append(f"{self.scalar_param()} * {s2}")
        elif form == "array":
            g = self.fresh("g")
            times = self.p(0.3)   # g[i] *= ... into ones
            self.emit(f"{g} = {f'np.ones({self.size()})' if times else self.zeros(a)}")
        elif form == "product":
            pr = self.fresh("p")
            self.emit(f"{pr} = 1.0")
            self.use("product_accumulate")
        with self.neighbour_loop(a, terms, name) as (d, read, index, guards):
            if form == "helper" and len(terms) == 2:
                self.use("helper_in_loop")
                h = self.helper("potential", POTENTIAL)
                self.emit(f"e += {h}({read(terms[1][0])}, {read(terms[0][0])}, "
                          f"{self.scalar_param()})")
                return
            uses = self.uses(d, 1 if form == "one" and self.p(0.4) else 2)
            extra = self.fill(self.pick(EXTRAS), a) if self.p(0.4) else None
            op = "-=" if self.p(0.2) else "+="
            if form in ("one", "helper"):
                self.emit(f"e {op} {' + '.join(uses + ([extra] if extra else []))}")
                return
            self.use("shared_twice")
            self.emit(f"e {op} {uses[0]}" + (f" + {extra}" if extra else ""))
            last = uses[-1] if len(uses) > 1 else f"{d} * {d}"
            if form == "two":
                self.emit(f"e {self.pick(['+=', '-='])} {last}")
            elif form == "second_total":
                self.emit(f"{s2} += {last}")
            elif form == "array":
                self.use("array_accumulate")
                if times:
                    self.use("product_accumulate")
                    self.emit(f"{g}[i] *= 1.0 + 0.1 * np.tanh({last})")
                else:
                    self.emit(f"{g}[i] {self.pick(['+=', '-='])} {last}")
            else:
                self.emit(f"{pr} *= 1.0 + 0.1 * np.tanh({d})")
        if form == "array":
            self.emit(f"e += {self.reduce(g)}")
            self.arrays.append(g)
        elif form == "product":
            self.emit(f"e += {pr}")

    def b_force_assembly(self):
        a = self.source_array()
        name, terms = self.pick(STENCILS)
        f = self.fresh("f")
        self.emit(f"{f} = {self.zeros(a)}")
        self.use("array_accumulate")
        with self.neighbour_loop(a, terms, name) as (d, read, index, guards):
            s = self.fresh("s")
            if len(terms) == 2 and self.p(0.2):
                self.use("helper_in_loop")
                h = self.helper("energy_force", ENERGY_FORCE)
                en = self.fresh("en")
                self.emit(f"{en}, {s} = {h}({read(terms[1][0])}, {read(terms[0][0])}, "
                          f"{self.scalar_param()})")
                self.emit(f"e += {en}")
            else:
                self.use("shared")   # (s is read at each offset)
                self.emit(f"{s} = {self.fill(self.pick(FORCES)).format(d=d)}")
                if self.p(0.3):   # the energy from the same intermediate
                    self.use("shared_twice")
                    self.emit(f"e += {self.uses(d, 1)[0]}")
            self.scatter(f, terms, s, index, guards)
        self.emit(f"e += {self.reduce(f)}")
        self.arrays.append(f)

    def b_stencil_2d(self):
        self.use("stencil_2d", "neighbours")
        A = self.arg("A", (self.R, self.C))
        if self.p(0.5):
            self.emit(f"nr, nc = {A}.shape")
            nr, nc = "nr", "nc"
        else:
            nr, nc = f"{A}.shape[0]", f"{A}.shape[1]"
        kind = self.pick(["laplacian", "gradient", "time", "force", "periodic"])
        k = self.scalar_param()
        if kind == "time":
            self.use("time_loop", "swap")
            self.emit(f"B = {A}.copy()")
            self.emit("Bn = np.zeros_like(B)")
            with self.block(f"for t in range({self.steps()}):"):
                with self.interior(("i", "j"), 1, 1, (nr, nc)):
                    self.emit("Bn[i, j] = B[i, j] + 0.1 * (B[i - 1, j] + B[i + 1, j] + B[i, j - 1]"
                              " + B[i, j + 1] - 4.0 * B[i, j])")
                self.emit(self.pick(["B, Bn = Bn, B", "B[:, :] = Bn", "B = Bn.copy()"]))
            self.emit(f"e += {k} * np.sum(B * B)")
            return
        if kind == "force":
            self.use("array_accumulate")
            self.emit(f"G = np.zeros_like({A})")
        if kind == "periodic":   # (wraps: no test)
            self.use("periodic")
            with self.block(f"for i in range({nr}):"), self.block(f"for j in range({nc}):"):
                self.emit(f"gx = {A}[(i + 1) % {nr}, j] - {A}[i, j]")
                self.emit(f"gy = {A}[i, j - 1] - {A}[i, j]")
                self.emit(f"e += {k} * (gx * gx + gy * gy)")
            return
        with self.interior(("i", "j"), 1 if kind == "laplacian" else 0, 1, (nr, nc)):
            if kind == "laplacian":
                self.emit(f"lap = {A}[i - 1, j] + {A}[i + 1, j] + {A}[i, j - 1] + {A}[i, j + 1]"
                          f" - 4.0 * {A}[i, j]")
                self.emit(f"e += {' + '.join(self.uses('lap', self.int(1, 2), by_i=False))}")
                return
            self.emit(f"gx = {A}[i + 1, j] - {A}[i, j]")
            self.emit(f"gy = {A}[i, j + 1] - {A}[i, j]")
            if kind == "gradient":
                self.emit(self.pick(["e += np.sqrt(1.0 + gx * gx + gy * gy)",
                                     f"e += {k} * (gx * gx + gy * gy)",
                                     "e += gx * gy / (1.0 + gx * gx)"]))
                return
            self.emit(f"G[i, j] -= {k} * (gx + gy)")
            self.emit(f"G[i + 1, j] += {k} * gx")
            self.emit(f"G[i, j + 1] += {k} * gy")
        if kind == "force":
            self.emit("e += np.sum(G * G)")

    def b_triangular(self):
        self.use("triangular")
        n = self.size()
        a = self.source_array()
        kind = self.pick(["pairs", "pairs", "forces", "prefix"])
        if kind == "forces":
            self.use("array_accumulate")
            f = self.fresh("f")
            self.emit(f"{f} = {self.zeros(a)}")
        with self.block(f"for i in {self.range_of('0', n)}:"):
            if kind == "prefix":
                self.emit("part = 0.0")
                with self.block(f"for j in range({self.pick(['i + 1', 'i'])}):"):
                    self.emit(f"part += {a}[j]")
                self.emit(f"e += {self.scalar_param()} * part * part")
                return
            inner = self.pick(["range(i)", f"range(i + 1, {n})"])
            with self.block(f"for j in {inner}:"):
                self.emit(f"r = {a}[i] - {a}[j]")
                self.emit(f"e += {' + '.join(self.uses('r', self.int(1, 2), neighbours=False))}")
                if kind == "forces":
                    self.emit(f"s = {self.scalar_param()} * r / (1.0 + r * r)")
                    self.emit(f"{f}[i] -= s")
                    self.emit(f"{f}[j] += s")
        if kind == "forces":
            self.emit(f"e += {self.reduce(f)}")
            self.arrays.append(f)

    def b_strided(self):
        n = self.size()
        a = self.source_array()
        kind = self.pick(["pairs", "odd", "horner", "back", "backward_diff", "thirds"])
        if kind in ("pairs", "odd", "thirds"):
            self.use("strided")
            start, stop, step, j = {"pairs": ("0", self.minus(n, 1), "2", "i + 1"),
                                    "odd": ("1", n, "2", "i - 1"),
                                    "thirds": ("0", n, "3", "i")}[kind]
            with self.block(f"for i in {self.range_of(start, stop, step)}:"):
                self.emit(f"d = {a}[{j}] - {a}[i]" if j != "i" else f"d = {a}[i]")
                self.emit(f"e += {' + '.join(self.uses('d', 1))}")
            return
        self.use("reversed")
        if kind == "horner":
            self.emit("acc = 0.0")
            with self.block(f"for i in range({self.minus(n, 1)}, -1, -1):"):
                self.emit(f"acc = acc * 0.5 * {self.scalar_param()} + {a}[i]")
            self.emit("e += acc * acc")
        elif kind == "back":
            z = self.fresh("z")
            self.emit(f"{z} = np.zeros({n})")
            self.emit(f"{z}[{self.minus(n, 1)}] = {a}[{self.minus(n, 1)}]")
            with self.interior("i", 0, 1, n, step=-1):
                self.emit(f"{z}[i] = {a}[i] - 0.5 * {self.scalar_param()} * {z}[i + 1]")
            self.emit(f"e += {self.reduce(z)}")
            self.arrays.append(z)
        else:
            with self.interior("i", 1, 0, n, step=-1):
                self.use("neighbours")
                self.emit(f"d = {a}[i] - {a}[i - 1]")
                self.emit(f"e += {' + '.join(self.uses('d', 2))}")
