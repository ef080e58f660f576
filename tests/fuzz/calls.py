"""Calls beyond plain positional ones, bound by the compiler to the callee's
signature (transforms/frontend/calls/bind.py): helpers called with keywords, relying on
defaults and with keyword-only parameters; numpy reductions with an axis
(by position or keyword, negative, a tuple) and keepdims, and their method
spellings; np.cumsum with an axis, np.transpose with axes, np.clip with
a_min=/a_max=, np.linalg.norm with ord and axis; np.array of (nested) lists
of differentiated scalars; repeated fancy indices (x[[0, 0, 2]], x[idx]).

A program checked with jit leaves out what numba cannot compile in the
primal itself: mean/max/min/prod and norm over an axis, a norm's "fro", an
explicit axis=None but for np.sum, and indices given as lists
(numba takes index arrays). keepdims is not left out: the compiler lowers
it before numba sees the call."""
from .model import par

# the reducers: name, whether it has kinks
REDUCERS = (("sum", False), ("mean", False), ("prod", False), ("max", True), ("min", True))
NORM_ORDS = ("1", "2", "3", "1.5", "2.5", "None")


class _Param:
    """A helper's parameter: name, shape, default (source text or None),
    keyword-only."""
    __slots__ = ("name", "shape", "default", "kwonly")

    def __init__(self, name, shape, default=None, kwonly=False):
        self.name, self.shape, self.default, self.kwonly = name, shape, default, kwonly


class Calls:
    """Mixed into the generator (uses Expressions' expr, const, index...)."""

    # ---- helpers ---------------------------------------------------------------------
    def helper_params(self, shapes):
        """Parameters of a helper: some of the trailing scalar positional ones
        with a (float) default, at times keyword-only ones (`*, p2=1.5`)."""
        params = [_Param(f"p{j}", s) for j, s in enumerate(shapes)]
        if not (self.ok("helper_keywords") and self.p(0.6)):
            return params
        self.use("helper_keywords")
        n = len(params)
        kw = self.weighted([(4, 0), (4, 1), (1, min(2, n))]) if n > 1 else self.int(0, 1)
        for p in params[n - kw:]:
            p.kwonly = True
            if p.shape == () and self.p(0.6):
                p.default = self.const(0.5, 2.5)
        positional = params[:n - kw]
        trailing = 0
        for p in reversed(positional):
            if p.shape != ():
                break
            trailing += 1
        for p in positional[len(positional) - self.int(0, trailing):]:
            p.default = self.const(-1.5, 2.5)
        return params

    @staticmethod
    def signature(params):
        parts, star = [], False
        for p in params:
            if p.kwonly and not star:
                parts.append("*")
                star = True
            parts.append(p.name if p.default is None else f"{p.name}={p.default}")
        return ", ".join(parts)

    def helper_args(self, params, make):
        """The arguments of a call: a positional prefix, the rest by keyword
        in any order, defaults at times left out, and at times an argument
        given again for another parameter of the same shape (h(a, v=a))."""
        given = []    # (param, text)
        keywords = self.ok("helper_keywords") and (
            any(p.kwonly or p.default for p in params) or self.p(0.3))
        for p in params:
            if keywords and p.default is not None and self.p(0.4):
                continue
            same = [t for q, t in given if q.shape == p.shape]
            if keywords and same and self.p(0.25):
                given.append((p, self.pick(same)))
            else:
                given.append((p, make(p.shape)))
        if not keywords:
            return ", ".join(t for _, t in given)
        self.use("helper_keywords")
        # positional: a prefix of the positional parameters, none left out before it
        prefix = 0
        for p in params:
            if p.kwonly or not any(q is p for q, _ in given):
                break
            prefix += 1
        cut = self.int(0, prefix)
        pos = [t for _, t in given[:cut]]
        kws = self.choices.perm([f"{p.name}={t}" for p, t in given[cut:]])
        return ", ".join(pos + kws)

    # ---- axes --------------------------------------------------------------------------
    def axis_value(self, ax, ndim):
        """An axis (int or tuple of ints), at times spelled negative."""
        if isinstance(ax, tuple):
            items = [str(a - ndim if self.p(0.3) else a) for a in self.choices.perm(ax)]
            return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
        return str(ax - ndim if self.p(0.35) else ax)

    def reduce_args(self, ax, ndim, keepdims=None):
        """`, axis=...` (or `, 0`; nothing or `axis=None` for None) and keepdims."""
        parts = []
        if ax is not None:
            v = self.axis_value(ax, ndim)
            parts.append(v if self.p(0.35) else f"axis={v}")
        elif self.p(0.15) and not self.jit:
            parts.append("axis=None")
        if keepdims is not None:
            parts.append(f"keepdims={keepdims}")
        return "".join(", " + p for p in parts)

    def reducer(self, ax):
        """A reduction's name, numba's limits and kinks respected."""
        opts = [(6, "sum")]
        if ax is None or not self.jit:
            opts += [(2, "mean"), (1, "prod")]
            if self.ok("kinks"):
                opts += [(1, "max"), (1, "min")]
        f = self.weighted(opts)
        if f in ("max", "min"):
            self.use("kinks")
        return f

    def reduction(self, a, shape, ax, keepdims=None, method_ok=True):
        """`np.f(a, axis...)` or `a.f(axis...)` for a random reducer f."""
        f = self.reducer(ax)
        if f == "prod":
            a = f"1.0 + 0.2 * np.sin({a})"
        rest = self.reduce_args(ax, len(shape), keepdims)
        if method_ok and self.p(0.3) and "axis=None" not in rest:
            return f"{par(a)}.{f}({rest[2:]})"
        return f"np.{f}({a}{rest})"

    def full_axes(self, ndim):
        """An axis that reduces a `ndim`-dim array to a scalar."""
        return self.pick([None, 0, (0,)] if ndim == 1 else [None, (0, 1)])

    # ---- reductions as expressions -------------------------------------------------------
    def axis_scalar(self, d):
        """A scalar reduced from an array over axes (or a norm, or a literal)."""
        self.use("axis_reductions")
        shapes = [(self.N,)]
        if self.ok("matrix") and self.use_matrix:
            shapes.append((self.R, self.C))
        literal = self.ok("nested_literal")
        if literal:
            shapes.append("literal")
        s = self.pick(shapes)
        if s == "literal":
            s = self.pick([(2, 2), (1, 3), (3, 1), (2, 3), (2,), (3,)])
            a = self.literal(s, d)
        else:
            a = self.expr(s, d)
        form = self.int(0, 3) if len(s) == 2 else self.int(0, 2)
        if form == 2 and not self.ok("keepdims"):
            form = 3 if len(s) == 2 else 0
        if form <= 1:          # over every axis at once
            return self.reduction(a, s, self.full_axes(len(s)), self.pick([None, None, False]))
        if form == 2:          # kept dimensions, broadcast against the array
            b = self.expr(s, d) if s in ((self.N,), (self.R, self.C)) else a
            keep = self.reduction(a, s, self.pick([None, 0] if len(s) == 1 else [0, 1, (0, 1)]),
                                  True)
            self.use("keepdims")
            return f"np.sum({par(b)} * {par(keep)})"
        # over one axis, then over the rest
        inner = self.reduction(a, s, self.int(0, 1), self.pick([None, None, False]))
        return self.pick([f"np.sum({inner})", f"np.sum({par(inner)} ** 2)",
                          f"np.mean(np.sin({inner}))"])

    def axis_vector(self, L, d):
        """A 1-D array of length L reduced from a matrix over one axis."""
        axes = ([0] if L == self.C else []) + ([1] if L == self.R else [])
        if not axes:
            return None
        self.use("axis_reductions")
        self.use("matrix")
        ax = self.pick(axes)
        M = self.expr((self.R, self.C), d)
        if self.ok("norm_ord") and not self.jit and self.p(0.2):
            return self.norm(M, (self.R, self.C), ax)
        return self.reduction(M, (self.R, self.C), ax, self.pick([None, None, False]))

    def keepdims_broadcast(self, shape, d):
        """An array combined with a reduction of an array of its shape kept
        to its number of dimensions (x - np.mean(x, axis=1, keepdims=True))."""
        self.use("axis_reductions")
        self.use("keepdims")
        ax = self.pick([None, 0] if len(shape) == 1 else [None, 0, 1, (0, 1)])
        a = self.expr(shape, d)
        if self.ok("norm_ord") and not self.jit and self.p(0.2):
            keep = self.norm(a, shape, ax if ax is not None else (0 if len(shape) == 1 else (0, 1)),
                             keepdims=True)
            return f"{par(self.expr(shape, d))} / (0.5 + {keep})"
        keep = self.reduction(a, shape, ax, True)
        op = self.pick(["+", "-", "*"])
        if self.p(0.5):
            return f"{par(self.expr(shape, d))} {op} {par(keep)}"
        return f"{par(keep)} {op} {par(self.expr(shape, d))}"

    def cumsum_axis(self, shape, d):
        self.use("axis_reductions")
        a = self.expr(shape, d)
        ax = self.int(0, len(shape) - 1)
        rest = self.reduce_args(ax, len(shape))
        if self.p(0.25):
            return f"{par(a)}.cumsum({rest[2:]})"
        return f"np.cumsum({a}{rest})"

    def transpose_axes(self, shape, d):
        """np.transpose of an array of the transposed shape, axes given."""
        self.use("transpose_axes")
        self.use("matrix")
        a = self.expr((shape[1], shape[0]), d)
        axes = self.pick(["(1, 0)", "(1, 0)", "(-1, 0)", "(1, -2)", "None"])
        return self.pick([f"np.transpose({a}, axes={axes})", f"np.transpose({a}, {axes})"])

    def clip(self, shape, d):
        """np.clip with its bounds by keyword (at times a differentiated
        bound, kept on its side of the other)."""
        self.use("kinks")
        self.use("clip_keywords")
        lo, hi = self.const(-1.0, 0.0), self.const(0.2, 1.0)
        if self.p(0.3):
            hi = f"{hi} + {par(self.expr((), 1))} ** 2"
        elif self.p(0.2):
            lo = f"{lo} - {par(self.expr((), 1))} ** 2"
        a = self.expr(shape, d)
        return self.pick([f"np.clip({a}, a_min={lo}, a_max={hi})", f"np.clip({a}, {lo}, a_max={hi})",
                          f"np.clip({a}, a_max={hi}, a_min={lo})",
                          f"np.clip(a={a}, a_min={lo}, a_max={hi})"])

    # ---- norms --------------------------------------------------------------------------
    def norm(self, a, shape, ax, keepdims=None):
        """np.linalg.norm of `a` over `ax` (None: every element); a vector
        p-norm (p >= 1) where the rule has one: over an int axis or of a 1-D
        array."""
        self.use("norm_ord")
        vector = isinstance(ax, int) or len(shape) == 1
        o = self.pick(NORM_ORDS) if vector else self.pick(["None", "None", "'fro'"])
        if o == "1":
            if not self.ok("kinks"):
                o = "2"
            self.use("kinks")
        parts = []
        if o != "None" or self.p(0.2):
            parts.append(("ord", o))
        if ax is not None:
            parts.append(("axis", self.axis_value(ax, len(shape))))
        if keepdims is not None:
            parts.append(("keepdims", repr(keepdims)))
        # by position as long as nothing before is left out
        text, positional = [], self.p(0.4)
        names = [n for n, _ in parts]
        for i, (n, v) in enumerate(parts):
            if positional and names[:i + 1] == ["ord", "axis", "keepdims"][:i + 1] and n != "keepdims":
                text.append(v)
            else:
                positional = False
                text.append(f"{n}={v}")
        return f"np.linalg.norm({a}{''.join(', ' + t for t in text)})"

    def norm_scalar(self, d):
        self.use("norm_ord")
        shapes = [(self.N,)]
        if self.ok("matrix") and self.use_matrix and not self.jit:
            shapes.append((self.R, self.C))
        s = self.pick(shapes)
        a = self.expr(s, d)
        a = self.pick([a, f"np.cos({a})", f"1.0 + {par(a)} ** 2"])
        if len(s) == 1:
            ax = self.pick([None, None] + ([0] if not self.jit else []))
            return self.norm(a, s, ax)
        return self.norm(a, s, self.pick([None, (0, 1)]))

    # ---- array literals -------------------------------------------------------------------
    def literal(self, shape, d):
        """np.array of a list (or nested lists) of scalar expressions."""
        self.use("nested_literal")
        e = lambda: self.expr((), min(d, 1))  # noqa: E731
        if len(shape) == 1:
            return "np.array([" + ", ".join(e() for _ in range(shape[0])) + "])"
        rows = ["[" + ", ".join(e() for _ in range(shape[1])) + "]" for _ in range(shape[0])]
        return "np.array([" + ", ".join(rows) + "])"

    # ---- fancy indices ----------------------------------------------------------------------
    def repeated(self, L, n):
        """L indices into a length-n axis, at least one repeated."""
        idx = [self.int(0, n - 1) for _ in range(L)]
        if len(set(idx)) == L:
            idx[self.int(1, L - 1)] = idx[0]
        return [i - n if self.p(0.2) else i for i in idx]

    def index_array(self, idx):
        """`[0, 0, 2]` (not with jit), `np.array([0, 0, 2])`, or a variable
        bound to it at the top of the function."""
        text = "[" + ", ".join(map(str, idx)) + "]"
        k = self.weighted([(0 if self.jit else 3, "list"), (2, "array"), (2, "name")])
        if k == "list":
            return text
        if k == "array":
            return f"np.array({text})"
        fn = self.fn
        for name, value in fn.index_arrays:
            if value == idx:
                return name
        name = self.fresh("idx")
        fn.index_arrays.append((name, idx))
        fn.prelude.append(f"{name} = np.array({text})")
        return name

    def fancy_sources(self, shape):
        """(variable, axis, length of that axis) that a fancy index of
        `shape` may read: elements of a vector, rows of a matrix. (Not
        columns: the compiler refuses an index array after a slice,
        `A[:, idx]`, with UnsupportedSyntaxError; it is outside the language.)"""
        fn = self.fn
        out = []
        if len(shape) == 1 and shape[0] >= 2:
            for v in fn.vars(lambda v: not v.is_int and len(v.shape or ()) == 1 and v.shape[0] >= 2):
                out.append((v.name, 0, v.shape[0]))
        elif len(shape) == 2:
            for v in fn.vars(lambda v: not v.is_int and v.shape == shape):
                out.append((v.name, 0, shape[0]))
        return out

    def fancy(self, shape):
        """An array of `shape` read through a repeated fancy index, or None."""
        opts = self.fancy_sources(shape)
        if not opts:
            return None
        self.use("fancy_index")
        name, axis, n = self.pick(opts)
        idx = self.index_array(self.repeated(shape[axis], n))
        return f"{name}[{idx}]"

    def fancy_scalar(self, d):
        """A scalar from a repeated fancy read of a vector (np.sum(x[[0, 0, 2]] ** 2))."""
        L = self.int(2, 5)
        a = self.fancy((L,))
        if a is None:
            return None
        b = self.pick([a, self.fancy((L,)), f"np.sin({self.fancy((L,))})"])
        return self.pick([f"np.sum({a} ** 2)", f"np.dot({a}, {b})", f"np.sum({a} * {b})",
                          f"np.prod(1.0 + 0.2 * np.sin({a}))"])
