"""The blocks of the loops family (loops.py) about names and indices:
helpers whose results are unpacked into names the call reads, index arrays
computed in the function (gathering and scattering through them), indices
computed from the counter or from values, and searches (a loop's else
block, a filtered list). Mixed into loops._Builder with LoopBlocks (whose
pieces they use)."""

PAIR_HELPERS = ("def {name}(b, w):\n    return w, b * w\n",
                "def {name}(b, w):\n    return b + 0.1 * w, w - 0.1 * b\n",
                "def {name}(b, w):\n    s = b * w\n    return 0.5 * (b + w), np.tanh(s)\n")
INDEX_ARRAYS = (  # (text, may repeat, size n)
    ("(np.abs({a}) * 2.0).astype(int)", True, True),
    ("np.floor(np.abs({a}) * 2.0).astype(np.int64)", True, True),
    ("np.argsort({a})", False, True),
    ("np.where({a} > 0.0)[0]", False, False),
    ("(np.arange({n}) * 2) % {n}", True, True),
    ("np.arange({n}) // 2", True, True),
    ("np.minimum((np.abs({a}) * {n} / 1.5).astype(int), {n} - 1)", True, True))
# writes whose index tests, calls or reads the written array h (the in-place
# ReLU): Python evaluates the index once, before the write
MASKED_WRITES = ("{h}[{h} < 0.0] = 0.0", "{h}[{h} > 0.5] -= 0.75", "{h}[{h} < -0.25] *= 0.5",
                 "{h}[np.argmax({h})] = 0.1", "{h}[({h} > -0.5) & ({h} < 0.5)] = 0.0",
                 "{h}[np.argsort({h})[-2:]] = {h}[np.argsort({h})[-2:]] * 0.5",
                 "{h}[np.abs({h}) > 1.0] = np.sign({h}[np.abs({h}) > 1.0])")
# reductions of a filtered list `{k}` (not empty where they are used)
LIST_REDUCTIONS = ("np.mean({k})", "np.sum({k})", "sum({k})", "np.max({k})", "np.std({k})",
                   "{k}[0] * {k}[-1]", "np.sum(np.array({k}) ** 2)")
INDEX_FORMULAS = ("(i * 2) % {n}", "(i + 3) % {n}", "{n} - 1 - i", "(i * i) % {n}", "i // 2",
                  "min(i + 1, {n} - 1)", "int(np.floor(np.abs({a}[i]) * 2.0))")


class IndexBlocks:
    def b_unpack(self):
        self.use("unpack_helper")
        a = self.source_array()
        kind = self.pick(["top", "loop", "loop", "arrays"])
        which = self.int(0, 2)   # (a helper given floats and one given arrays: two helpers)
        h = self.helper(f"pair{which}{kind == 'arrays'}", PAIR_HELPERS[which])
        sa, sb = self.fresh("sa"), self.fresh("sb")
        reads_target = self.ok("unpack_reads_target")
        if reads_target:
            self.use("unpack_reads_target")

        def unpack(first, second, args):
            if reads_target:
                self.emit(f"{first}, {second} = {h}({args})")
                return
            # fresh names for the targets the call reads, then the copies
            read = [t for t in (first, second) if t in args.replace(",", " ").split()]
            new = [f"{t}_new" if t in read else t for t in (first, second)]
            self.emit(f"{new[0]}, {new[1]} = {h}({args})")
            for t in read:
                self.emit(f"{t} = {t}_new")

        if kind == "arrays":
            self.emit(f"{sa} = {a} * 0.5")
            self.emit(f"{sb} = np.cos({a})")
            unpack(sa, sb, f"{sb}, {sa}")
            self.emit(f"e += np.sum({sa} * {sb})")
            return
        self.emit(f"{sa} = 0.0")
        self.emit(f"{sb} = {self.pick(['1.0', f'{a}[0]', self.scalar_param()])}")
        if kind == "top":
            unpack(sa, sb, f"{sb}, {self.scalar_param()}")
            unpack(sa, sb, f"{sb}, {a}[1]")
        else:
            with self.block(f"for i in {self.range_of('0', self.size())}:"):
                unpack(sa, sb, f"{sb}, {a}[i]")
        self.emit(f"e += {sa} + {sb} * {self.scalar_param()}")

    def b_index_array(self):
        self.use("computed_index")
        n = self.size()
        a = self.arg(self.pick(["x", "y"]), (self.n,))
        text, repeats, full = self.pick(INDEX_ARRAYS)
        idx = self.fresh("idx")
        self.emit(f"{idx} = {text.format(a=a, n=n)}")
        b = self.source_array()
        use = self.weighted([(3, "gather"), (2, "gather_loop"), (2, "scatter_loop"),
                             (1, "fancy_scatter"), (2 if full else 0, "sorted_neighbours")])
        if use in ("gather", "sorted_neighbours", "fancy_scatter") and repeats:
            if self.ok("computed_index_repeats"):
                self.use("computed_index_repeats")
            else:   # through its elements, one by one
                use = "scatter_loop" if use == "fancy_scatter" else "gather_loop"
        if use == "gather":
            self.use("index_gather")
            total = self.pick([f"np.sum({b}[{idx}] * {b}[{idx}])", f"np.sum({b}[{idx}])",
                               f"{self.scalar_param()} * np.sum(np.sin({b}[{idx}]))"])
            self.emit(f"e += {total}")
        elif use == "gather_loop":
            self.use("index_gather")
            with self.block(f"for m in range({idx}.shape[0]):"):
                self.emit(f"e += {b}[{idx}[m]] * {self.pick([f'{b}[m]', self.scalar_param()])}")
        elif use == "sorted_neighbours":
            self.use("index_gather", "neighbours")
            s = self.fresh("srt")
            self.emit(f"{s} = {b}[{idx}]")
            with self.interior("i", 0, 1, n):
                self.emit(f"d = {s}[i + 1] - {s}[i]")
                self.emit(f"e += {' + '.join(self.uses('d', 1, neighbours=False))}")
        else:
            self.use("index_scatter")
            h = self.fresh("h")
            self.emit(f"{h} = {self.zeros(b)}")
            if use == "fancy_scatter":
                self.use("fancy_scatter")
                self.emit(f"{h}[{idx}] += {b}[{idx}] * {self.scalar_param()}")
            else:
                with self.block(f"for m in range({idx}.shape[0]):"):
                    self.emit(f"{h}[{idx}[m]] += {b}[m] * {self.scalar_param()}")
            self.emit(f"e += {self.reduce(h)}")
            self.arrays.append(h)

    def b_masked_write(self):
        self.use("masked_write")
        a = self.source_array()
        h = self.fresh("h")
        self.emit(f"{h} = {self.pick([f'{a} * 1.5', f'np.sin({a}) + {a}', f'{a} - 0.2'])}")
        write = self.pick(MASKED_WRITES).format(h=h)
        if self.p(0.4):   # layers: a matrix-free mix, then the write, several times
            with self.block(f"for t in range({self.int(2, 3)}):"):
                self.emit(f"{h} = 0.8 * {h} + 0.3 * np.roll({h}, 1)")
                self.emit(write)
        else:
            self.emit(write)
        self.emit(f"e += {self.pick([f'np.sum({h} * {h})', f'np.sum({h} * {a})'])}")
        self.arrays.append(h)

    def b_index_arithmetic(self):
        self.use("index_arithmetic")
        n = self.size()
        a = self.source_array()
        # (a bin from values: those of an argument, within (-1.5, 1.5))
        j = self.pick(INDEX_FORMULAS).format(n=n, a=self.arg(self.pick(["x", "y"]), (self.n,)))
        scatter = self.p(0.4)
        if scatter:
            self.use("index_scatter", "array_accumulate")
            g = self.fresh("g")
            self.emit(f"{g} = {self.zeros(a)}")
        with self.block(f"for i in {self.range_of('0', n)}:"):
            self.emit(f"j = {j}")
            if scatter:
                self.emit(f"{g}[j] += {a}[i] * {self.scalar_param()}")
                if self.p(0.5):   # cloud in cell: the neighbour cell too
                    self.emit(f"{g}[min(j + 1, {self.minus(n, 1)})] += 0.5 * {a}[i]")
            else:
                self.emit(f"d = {a}[j] - {a}[i]")
                self.emit(f"e += {' + '.join(self.uses('d', self.int(1, 2), neighbours=False))}")
        if scatter:
            self.emit(f"e += {self.reduce(g)}")
            self.arrays.append(g)

    def b_shifted_counter(self):
        """A loop's counter rebound in its body (`i -= 2`, `if a[i] > 0.2: i =
        i - 1`, `i = i + 1` after its use), then read as an index (a negative
        one wraps) and as a number; the element written is the header's."""
        self.use("rebound_counter")
        n = self.size()
        a = self.source_array()
        z = self.fresh("z")
        self.emit(f"{z} = {self.zeros(a)}")
        form = self.pick(["aug", "branch", "after"])
        with self.block(f"for i in range({n}):"):
            self.emit("j = i")
            if form == "aug":
                self.emit(f"i -= {self.int(1, 2)}")
            elif form == "branch":
                with self.block(f"if {a}[i] > {self.pick(['0.2', '-0.3'])}:"):
                    self.emit("i = i - 1")
            self.emit(f"{z}[j] = {a}[i] * (i + 1.5) + {self.scalar_param()} * {a}[j]")
            if form == "after":
                self.emit("i = i + 1")
        self.emit(f"e += {self.reduce(z)}")
        self.arrays.append(z)

    def b_search(self):
        """A search with an else block (`for ... else`, `while ... else`), or a
        list kept by a test and reduced."""
        n = self.size()
        a = self.source_array()
        c = self.scalar_param()
        limit = self.pick(["0.0", "0.3", "-0.2", "0.9"])
        kind = self.pick(["for_else", "while_else", "filtered", "filtered"])
        if kind == "for_else":
            self.use("loop_else")
            with self.block(f"for i in {self.range_of('0', n)}:"):
                with self.block(f"if {a}[i] > {limit}:"):
                    self.emit(f"e += {c} * {a}[i] * {a}[i]")
                    self.emit("break")
            with self.block("else:"):
                self.emit(f"e += 0.5 * np.sum({a})")
        elif kind == "while_else":
            self.use("loop_else")
            self.emit("i = 0")
            with self.block(f"while i < {n}:"):
                with self.block(f"if {a}[i] < {limit}:"):
                    self.emit(f"e += {c} * np.sin({a}[i])")
                    self.emit("break")
                self.emit("i += 1")
            with self.block("else:"):
                self.emit(f"e += {a}[0] * {a}[0]")
        else:
            self.use("filtered_list")
            k = self.fresh("kept")
            elt = self.pick([f"{a}[i] * {a}[i]", f"np.exp(-{a}[i])", f"{c} * {a}[i]"])
            self.emit(f"{k} = [{elt} for i in range({n}) if {a}[i] > {limit}]")
            with self.block(f"if len({k}) > 0:"):
                self.emit(f"e += {self.pick(LIST_REDUCTIONS).format(k=k)} * len({k})")
            if self.p(0.4):
                with self.block(f"for v in {k}:"):
                    self.emit("e += 0.1 * v * v")
