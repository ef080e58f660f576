"""The loops scientists write, as a family of generated programs
(`python -m tests.fuzz.run --family loops`).

Where the general generator (generator.py) mixes every construct of the
language, this family writes what physics, geometry and numerics codes
write, a few blocks per program (loop_blocks.py, time_blocks.py,
index_blocks.py):

* neighbour reads (i +- 1, i +- 2, 2-D i +- 1 and j +- 1) in loops from 0 or
  1 to n - 1 or n - 2, with boundary conditions on the index (`if i > 0:`,
  `x[i - 1] if i > 0 else 0.0`, periodic `(i + 1) % n` and `x[i - 1]`);
* an intermediate used several times (`d = x[i + 1] - x[i]`, then
  `k * d * d`, `d / (1.0 + d * d)`, `np.exp(-d * d)`...), in one statement
  or in two;
* accumulations into scalars and arrays (`+=`, `-=`, `*=`; force
  assembly `f[i] += s; f[i + 1] -= s`);
* time loops with buffer copies and swaps (`u, un = un, u`, `u[:] = un`,
  `u = un.copy()`), explicit Euler and leapfrog steps, stencil updates;
* triangular (`for j in range(i)`) and strided (`range(0, n - 1, 2)`,
  `range(n - 1, -1, -1)`) loops;
* helpers whose results are unpacked into names the call reads
  (`a, b = helper_0(b, w)`), helpers called inside loops;
* index arrays computed in the function (`astype(int)`, `np.argsort`,
  `np.where(...)[0]`, `(i * 2) % n`, `np.floor`), with repeated entries,
  gathering and scattering;
* parameters (scalars `k`, `c`, an array `w`) differentiated together
  with the state (`x`, `y`, `A`).

Sizes are small (n from 4 to 9) so that many programs run per second.
Programs are valid by construction: every index is in range for the
argument sizes drawn (or wraps on purpose, `x[i - 1]` at i = 0), values
stay moderate (small time steps, damped updates), no array is written
while another name shares its memory, and a name keeps one kind.

Features named in generator.KNOWN_BUGS are avoided unless asked for, as in
the general generator: the block is written another way (a name of its
own for an unpacked result, a loop stop bound to a name) or left out.
"""
import ast
import contextlib

from hypothesis import strategies as st

from .index_blocks import IndexBlocks
from .loop_blocks import BLOCKS, LoopBlocks
from .model import MAIN, Program, _HypothesisChoices, _RandomChoices
from .time_blocks import TimeBlocks

FAMILY = "loops"

FEATURES = (
    "neighbours",        # x[i + 1] - x[i], x[i - 1] - 2.0 * x[i] + x[i + 1], i +- 2
    "boundary",          # if i > 0: / x[i - 1] if i > 0 else 0.0 / loops over part of the range
    "periodic",          # x[(i + 1) % n], x[i - 1] at i = 0
    "shared",            # an intermediate used several times (k * d * d, d / (1.0 + d * d))
    "shared_twice",      # the same intermediate in two statements
    "array_accumulate",  # f[i] += s; f[i + 1] -= s
    "product_accumulate",    # p *= ...
    "time_loop",         # for t in range(steps): ... with buffers
    "swap",              # u, un = un, u
    "copy_back",         # u[:] = un, u = un.copy(), np.copyto(u, un)
    "in_place_sweep",    # u[i] = 0.5 * (u[i - 1] + u[i + 1]) (Gauss-Seidel)
    "leapfrog",          # p += 0.5 * dt * force(q); q += dt * p
    "stencil_2d",        # A[i - 1, j] + A[i + 1, j] + A[i, j - 1] + A[i, j + 1] - 4.0 * A[i, j]
    "triangular",        # for j in range(i) / range(i + 1, n)
    "strided",           # range(0, n - 1, 2), range(1, n, 2)
    "reversed",          # range(n - 1, -1, -1)
    "helper_in_loop",    # e += helper_0(x[i], x[i + 1], k)
    "unpack_helper",     # a, b = helper_0(b, w), the call reading a name it rebinds
    "computed_index",    # idx = (np.abs(x) * 2.0).astype(int), np.argsort, np.where(...)[0]
    "index_gather",      # x[idx], np.sum(x[idx]), x[idx[m]]
    "index_scatter",     # g[idx[m]] += e, g[j] += e with j computed
    "fancy_scatter",     # g[idx] += v (numpy's buffered semantics: repeats do not add)
    "index_arithmetic",  # j = (i * 2) % n, j = n - 1 - i, j = int(np.floor(...))
    "vector_output",     # return an array (the gradient of its sum)
    "masked_write",      # h[h < 0.0] = 0.0, h[np.argmax(h)] = 0.1: an index read from h
    "loop_else",         # for ... else / while ... else around a search with a break
    "filtered_list",     # kept = [e for i in range(n) if x[i] > 0.3], then reduced
    "rebound_counter",   # for i in range(n): j = i; i -= 2 (the counter rebound in the body)
    # finer features, named after the known bugs they trigger (generator.KNOWN_BUGS)
    "straight_neighbour_loop",   # a loop reading neighbours whose body is straight-line code
                                 # (rather than under `if lo <= i < n - hi:`)
    "unpack_reads_target",   # a, b = helper_0(b, w) (rather than into fresh names)
    "computed_index_repeats",    # an index array with repeats computed in the function, read or
                                 # written through whole (x[idx], h[idx] += v)
    "parallel_compound_stop",    # (parallel=True) for i in range(n - 1): a compound stop
    "parallel_array_tape",   # (parallel=True, compiled) a time loop computing arrays
)


class _Builder(LoopBlocks, TimeBlocks, IndexBlocks):
    """The program being written: its arguments (made when first used), the
    lines of `fuzzed`, the helpers, and the arrays blocks may read."""

    def __init__(self, choices, avoid, jit, parallel):
        self.choices = choices
        self.avoid = frozenset(avoid)
        self.jit, self.parallel = jit, parallel
        self.used = set()
        self.count = 0
        self.lines = []
        self.indent = 1
        self.helpers = []          # sources
        self.helper_names = {}     # template key -> name
        self.args = {}             # name -> shape (None: int), in order of first use
        self.int_values = {}
        self.arrays = []           # 1-D float arrays of size n a block may read
        self.returned = []         # terms of the return value

    # ---- choices ---------------------------------------------------------------
    def int(self, lo, hi):
        return self.choices.int(lo, hi)

    def p(self, prob):
        return self.choices.int(0, 999) >= 1000 - int(prob * 1000)

    def pick(self, seq):
        seq = list(seq)
        return seq[self.int(0, len(seq) - 1)]

    def weighted(self, options):
        options = [(w, v) for w, v in options if w > 0]
        r = self.int(0, sum(w for w, _ in options) - 1)
        for w, v in options:
            if r < w:
                return v
            r -= w
        raise AssertionError

    def ok(self, feature):
        return feature not in self.avoid

    def use(self, *features):
        self.used.update(features)

    def fresh(self, prefix):
        self.count += 1
        return f"{prefix}{self.count}"

    # ---- writing -----------------------------------------------------------------
    def emit(self, text):
        self.lines.append("    " * self.indent + text)

    @contextlib.contextmanager
    def block(self, header):
        self.emit(header)
        self.indent += 1
        yield
        self.indent -= 1

    def helper(self, key, template):
        """The name of a module-level helper (written once per program)."""
        if key not in self.helper_names:
            name = f"helper_{len(self.helper_names)}"
            self.helper_names[key] = name
            self.helpers.append(template.format(name=name))
        return self.helper_names[key]

    # ---- arguments -----------------------------------------------------------------
    def arg(self, name, shape, value=None):
        if name not in self.args:
            self.args[name] = shape
            if shape is None:
                self.int_values[name] = value
        return name

    def size(self):
        """The spelling of n, the size of the 1-D arrays."""
        return self.n_spelling

    def scalar_param(self):
        """A scalar parameter: the argument k or c, or a constant."""
        which = self.weighted([(4, "k"), (3, "c"), (2, "constant")])
        return self.pick(["0.7", "1.3", "0.5"]) if which == "constant" else self.arg(which, ())

    def array_param(self):
        """The array parameter w, or None (a block then does without)."""
        return self.arg("w", (self.n,)) if self.p(0.4) else None

    def source_array(self):
        """A 1-D float array of size n to read: an argument or an array an
        earlier block computed."""
        if self.arrays and self.p(0.35):
            return self.pick(self.arrays)
        return self.arg(self.pick(["x", "x", "y"]), (self.n,))


def build(choices, avoid=frozenset(), jit=False, parallel=False, max_blocks=3):
    """A random Program of the family."""
    b = _Builder(choices, avoid, jit, parallel)
    b.n = b.int(4, 9)
    b.R, b.C = b.int(4, 6), b.int(4, 6)
    b.arg("x", (b.n,))
    spelled = b.weighted([(6, "n"), (2, "x.shape[0]"), (1, "len(x)")])
    b.n_spelling = spelled
    if spelled == "n":
        b.emit("n = x.shape[0]")
    b.emit("e = 0.0")
    for _ in range(b.int(1, max_blocks)):
        kind = b.weighted([(w if k != "leapfrog" or b.loop_arrays() else 0, k) for k, w in BLOCKS])
        getattr(b, "b_" + kind)()
    out = " + ".join(["e"] + b.returned)
    if b.arrays and b.ok("vector_output") and b.p(0.08):
        b.use("vector_output")
        out = f"{b.pick(b.arrays)} * ({out})"
    b.emit(f"return {out}")
    names = ["x"] + choices.perm([a for a in b.args if a != "x"])
    fuzzed = f"def {MAIN}({', '.join(names)}):\n" + "\n".join(b.lines) + "\n"
    source = ast.unparse(ast.parse("\n\n".join(b.helpers + [fuzzed])))
    source = source.replace("\ndef ", "\n\n\ndef ") + "\n"
    floats = [i for i, a in enumerate(names) if b.args[a] is not None]
    wrt = tuple(floats)
    if len(floats) > 1 and b.p(0.4):
        # the state (x) with some of the parameters, or the parameters alone
        wrt = tuple(sorted({0} | set(choices.perm(floats)[:b.int(1, len(floats))]))) \
            if b.p(0.8) else tuple(f for f in floats if f != 0) or (0,)
    return Program(source=source, arg_names=tuple(names),
                   arg_shapes=tuple(b.args[a] for a in names),
                   arg_ints=tuple(b.int_values.get(a) for a in names),
                   wrt=wrt, value_seed=b.int(0, 2 ** 31 - 1), features=frozenset(b.used),
                   jit=jit, parallel=parallel)


@st.composite
def programs(draw, avoid=frozenset(), jit=False, parallel=False):
    """The family as a hypothesis strategy."""
    return build(_HypothesisChoices(draw), avoid, jit, parallel)


def program(seed, avoid=frozenset(), jit=False, parallel=False):
    return build(_RandomChoices(seed), avoid, jit, parallel)


def collect(n, seed=0, avoid=frozenset(), jit_fraction=0.0, parallel_fraction=0.0):
    """`n` distinct programs for a seed; `jit_fraction` of them are also
    checked compiled, `parallel_fraction` of the others with parallel=True
    (spread evenly), and every third compiled one compiled with
    parallel=True too."""
    out, seen = [], set()
    i = compiled = 0
    while len(out) < n and i < 10 * n + 100:
        k = len(out)
        jit = int((k + 1) * jit_fraction) > int(k * jit_fraction)
        par = compiled % 3 == 0 if jit else \
            int((k + 1) * parallel_fraction + 0.5) > int(k * parallel_fraction + 0.5)
        prog = program(f"{FAMILY}:{seed}:{i}", avoid, jit=jit, parallel=par)
        i += 1
        key = (prog.source, prog.arg_shapes, prog.wrt)
        if key not in seen:
            seen.add(key)
            out.append(prog)
            compiled += jit
    return out
