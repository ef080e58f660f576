"""Integer expressions as affine forms (3 * i + n - 2), and a small prover
for `form >= 0` given facts of the same kind; what the bounds pass reasons
with."""


class Affine:
    """sum(coefficient * symbol) + constant, with integer coefficients.
    Symbols are strings: names, and `x.shape[k]` for an array's extent."""

    __slots__ = ("terms", "const", "_hash")

    def __init__(self, terms=None, const=0):
        self.terms = {s: c for s, c in (terms or {}).items() if c}
        self.const = const
        self._hash = None

    @staticmethod
    def symbol(s):
        return Affine({s: 1})

    @staticmethod
    def _made(terms, const):
        """A form of `terms` that has no zero coefficient (not filtered
        again: the prover makes tens of thousands of forms)."""
        form = _new_affine(Affine)
        form.terms, form.const, form._hash = terms, const, None
        return form

    # (a coefficient that cancels is dropped where it is: the order of the
    # others, which source() reads, is what filtering them afterwards gives)
    def __add__(self, other):
        terms = dict(self.terms)
        get = terms.get
        for s, c in other.terms.items():
            v = get(s, 0) + c
            if v:
                terms[s] = v
            else:
                terms.pop(s, None)
        return Affine._made(terms, self.const + other.const)

    def __sub__(self, other):  # (self + other.scale(-1), in one step)
        terms = dict(self.terms)
        get = terms.get
        for s, c in other.terms.items():
            v = get(s, 0) - c
            if v:
                terms[s] = v
            else:
                terms.pop(s, None)
        return Affine._made(terms, self.const - other.const)

    def scale(self, k):
        if not k:
            return Affine({}, 0)
        return Affine._made({s: c * k for s, c in self.terms.items()}, self.const * k)

    def plus(self, k):
        return Affine._made(dict(self.terms), self.const + k)

    def substitute(self, s, form):
        """This form with symbol `s` replaced by `form`."""
        c = self.terms.get(s, 0)
        if not c:
            return self
        rest = Affine({t: v for t, v in self.terms.items() if t != s}, self.const)
        return rest + form.scale(c)

    def __eq__(self, other):
        return isinstance(other, Affine) and self.terms == other.terms \
            and self.const == other.const

    def __hash__(self):  # (forms are never changed once made)
        if self._hash is None:
            self._hash = hash((frozenset(self.terms.items()), self.const))
        return self._hash

    def __repr__(self):
        return f"Affine({self.terms}, {self.const})"

    def source(self):
        """Python source: `n - 1`, `2 * i + k`, `0`."""
        parts = []
        for s, c in self.terms.items():
            term = s if abs(c) == 1 else f"{abs(c)} * {s}"
            parts.append((c < 0, term))
        if self.const or not parts:
            parts.append((self.const < 0, str(abs(self.const))))
        text = ("-" if parts[0][0] else "") + parts[0][1]
        for negative, term in parts[1:]:
            text += f" - {term}" if negative else f" + {term}"
        return text


_new_affine = object.__new__


def is_extent(symbol):
    """An array's extent (`x.shape[k]`) is never negative."""
    return symbol.endswith("]")


def obviously_non_negative(form):
    if form.const < 0:
        return False
    for s, c in form.terms.items():  # (a loop, not all(): tens of thousands of calls)
        if c <= 0 or not is_extent(s):
            return False
    return True


def provable(goal, facts):
    """Whether `goal >= 0` follows from `facts` (forms known to be >= 0)
    and extents being non-negative: the goal minus at most two facts must
    be a sum of extents and a non-negative constant."""
    if obviously_non_negative(goal):
        return True
    for k, f in enumerate(facts):
        if not f.terms.keys() & goal.terms.keys():
            continue  # cannot cancel anything
        rest = goal - f
        if obviously_non_negative(rest):
            return True
        if any(g.terms.keys() & rest.terms.keys() and obviously_non_negative(rest - g)
               for g in facts[k:]):
            return True
    return False


def nonnegative_source(form):
    """`form >= 0` as a comparison a person would write: `k > q.shape[0]`,
    `t >= l.shape[1]`, `n > 0`, with the fewer constants of the two ways."""
    ways = []
    for strict, f in ((False, form), (True, form.plus(1))):
        left = Affine({s: c for s, c in f.terms.items() if c > 0}, max(f.const, 0))
        right = Affine({s: -c for s, c in f.terms.items() if c < 0}, max(-f.const, 0))
        ways.append((abs(f.const), not strict, strict, left, right))
    _, _, strict, left, right = min(ways, key=lambda w: w[:2])
    if not left.terms and not right.terms:
        return str(form.const >= 0)
    op = ">" if strict else ">="
    if not left.terms:  # a bare constant reads better on the right
        left, right, op = right, left, {">": "<", ">=": "<="}[op]
    return f"{left.source()} {op} {right.source()}"
