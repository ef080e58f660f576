"""Integer expressions as affine forms (3 * i + n - 2), and a small prover
for `form >= 0` given facts of the same kind; what the bounds pass reasons
with. A form is written back as an expression tree (`expression`), each
symbol as the expression it stands for."""
import gast

from ..syntax import binop, clone, compare, const, name, number, subscript

# symbol -> the expression it stands for (a name's is the name itself)
_EXPRESSIONS = {}


class Affine:
    """sum(coefficient * symbol) + constant, with integer coefficients.
    Symbols are strings: names, `x.shape[k]` for an array's extent, and a
    product a nest's trip count is written as."""

    __slots__ = ("terms", "const", "_hash")

    def __init__(self, terms=None, const=0):
        self.terms = {s: c for s, c in (terms or {}).items() if c}
        self.const = const
        self._hash = None

    @staticmethod
    def symbol(s, expression=None):
        """The form of symbol `s`, which stands for `expression` (a tree;
        None: `s` is a name)."""
        if expression is not None:
            _EXPRESSIONS.setdefault(s, expression)
        return Affine({s: 1})

    @staticmethod
    def extent(array, axis):
        """The form of `array.shape[axis]`."""
        return Affine.symbol(f"{array}.shape[{axis}]", subscript(
            gast.Attribute(value=name(array), attr="shape", ctx=gast.Load()), const(axis)))

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
        """A text naming the form: `n - 1`, `2 * i + k`, `0` (a symbol for
        a product of forms; `expression` writes the form as code)."""
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

    def expression(self):
        """The form as an expression: `n - 1`, `2 * i + k`, `-k + 3`, `0`."""
        parts = []
        for s, c in self.terms.items():
            symbol = clone(_EXPRESSIONS[s]) if s in _EXPRESSIONS else name(s)
            parts.append((c < 0, abs(c), symbol))
        if self.const or not parts:
            parts.append((self.const < 0, abs(self.const), None))

        def term(c, symbol, negated):
            if symbol is None:
                return number(-c if negated else c)
            if c == 1:
                return gast.UnaryOp(op=gast.USub(), operand=symbol) if negated else symbol
            return binop(number(-c if negated else c), "*", symbol)
        negative, c, symbol = parts[0]
        out = term(c, symbol, negative)
        for negative, c, symbol in parts[1:]:
            out = binop(out, "-" if negative else "+", term(c, symbol, False))
        return out


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


def nonnegative(form):
    """`form >= 0` as a comparison a person would write: `k > q.shape[0]`,
    `t >= l.shape[1]`, `n > 0`, with the fewer constants of the two ways."""
    ways = []
    for strict, f in ((False, form), (True, form.plus(1))):
        left = Affine({s: c for s, c in f.terms.items() if c > 0}, max(f.const, 0))
        right = Affine({s: -c for s, c in f.terms.items() if c < 0}, max(-f.const, 0))
        ways.append((abs(f.const), not strict, strict, left, right))
    _, _, strict, left, right = min(ways, key=lambda w: w[:2])
    if not left.terms and not right.terms:
        return const(form.const >= 0)
    op = ">" if strict else ">="
    if not left.terms:  # a bare constant reads better on the right
        left, right, op = right, left, {">": "<", ">=": "<="}[op]
    return compare(left.expression(), op, right.expression())
