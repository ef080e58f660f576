"""A buffer copied back every step: its adjoint swaps the two buffers.

A time loop that advances a state in a second buffer and copies it back
(`un[i] = ...; ...; for i in range(N): u[i] = un[i]`) gets in its reverse
sweep the copy's adjoint at the top of every step:

    for i in range(N):
        dun[i] += du[i]
        du[i] = 0.0

a whole pass over both arrays. When `dun` is all zeros there, this moves
`du` into `dun` and leaves zeros in `du`, which is what swapping the two
names does, as a person writing the gradient would (`lam, lam_prev =
lam_prev, lam`):

    dun, du = du, dun

`dun` is all zeros at the top of every step when

* it is the derivative's own array (fresh zeros, bound once, only ever
  indexed: no other name shares its memory; the same for `du`) and
  nothing outside the time loop writes it, so it is zero when the loop
  starts;
* after the copy, the step writes it only with zeros (`dun[i] = 0.0` where
  the reverse sweep has read an element's adjoint), and those writes, in
  loops over ranges with step 1 and at constant offsets, cover every
  element for every size: checked by enumerating the sizes up to past the
  largest offset (beyond that the pattern of covered elements repeats);
* the step has no break, continue or return, the copy is its first
  statement and covers both arrays whole (their shapes are the copy's
  ranges, read off their allocations), and both have one numba type.

Otherwise the copy's adjoint stays as it is.

The copy itself, in the forward sweep, becomes `u, un = un, u` when `un`
is read nowhere but in the copy (not later in the function, not by the
reverse sweep) and the step writes every element of it before the copy
(the same enumeration): what `un` holds after the copy is then never read,
and `u` holds what the copy would have put there. Both arrays are fresh
allocations only ever indexed (or asked for their shape) and of one type."""
import itertools

import gast

from ..syntax import (binding_counts, name, names_stored, store, structure, unit_range, walk,
                      walk_stmts)


def fold_copies(body, owned, kinds, params):
    """Rewrite the loops of `body` (a function's statements); `owned` are the
    derivative's own arrays (promote.owned_arrays), `kinds` the names'
    kinds, `params` the function's parameters."""
    counts = None
    loops = [s for s in walk_stmts(body) if isinstance(s, gast.For)]
    for loop in loops:
        copy = _copy_adjoint(loop.body[0] if loop.body else None)
        if copy is None:
            continue
        counts = binding_counts(body) if counts is None else counts
        dst, src, bounds, line = copy
        if dst == src or not {dst, src} <= owned or kinds.get(dst) != kinds.get(src) \
                or kinds.get(dst) is None:
            continue
        if not all(_shape(a, body, counts, params) == [structure(b) for b in bounds]
                   for a in (dst, src)):
            continue
        if any(_writes(s, dst) and not _is_binding(s, dst) for s in _outside(body, loop)):
            continue  # (then dun might not be zero when the loop starts)
        if not _stays_zero(loop.body[1:], dst, bounds):
            continue
        swap = gast.Assign(targets=[gast.Tuple(elts=[store(dst), store(src)], ctx=gast.Store())],
                           value=gast.Tuple(elts=[name(src), name(dst)], ctx=gast.Load()),
                           type_comment=None)
        swap.s2sad_line = line  # (the copy's source line, as a comment)
        swap.s2sad_comment = f"{dst} is all zeros here: the adjoint of the copy swaps the buffers"
        swap.s2sad_zeros_after = src  # (what zero_writes.py starts from)
        swap.s2sad_same_shapes = True  # (for the index checks: bounds.py)
        loop.body[0] = swap
    copies = [(loop, _copy(loop.body[-1])) for loop in loops if loop.body]
    copies = [(loop, copy) for loop, copy in copies if copy is not None]
    if copies:
        _fold_forward(body, copies, kinds, params)


def _fold_forward(body, copies, kinds, params):
    """The copy itself, the last statement of a loop's body, becomes a swap
    (`u, un = un, u`) when the buffer copied from is read nowhere else and
    the loop's body writes every element of it before the copy: its values
    after the copy are then never read, so it may hold anything."""
    uses = _Uses(body)
    alone = uses.only_indexed()
    for loop, (dst, src, bounds) in copies:
        counts = binding_counts(body)  # (after the swaps before)
        if dst == src or not {dst, src} <= alone or kinds.get(dst) != kinds.get(src) \
                or kinds.get(dst) is None:
            continue
        if not all(_shape(a, body, counts, params) == [structure(b) for b in bounds]
                   for a in (dst, src)):
            continue
        if uses.read_elsewhere(src, loop.body[-1]):
            continue
        if not _stays_zero(loop.body[:-1], src, bounds, zeros=False):
            continue
        swap = gast.Assign(targets=[gast.Tuple(elts=[store(dst), store(src)], ctx=gast.Store())],
                           value=gast.Tuple(elts=[name(src), name(dst)], ctx=gast.Load()),
                           type_comment=None)
        swap.s2sad_line = getattr(loop.body[-1], "s2sad_line", None)
        swap.s2sad_comment = (f"{src} is written whole every step and read only here: "
                              f"the copy swaps the buffers")
        swap.s2sad_same_shapes = True
        loop.body[-1] = swap


class _Uses:
    """One walk over the function: every name node, and which of them only
    index an array, ask for its shape (`x.shape`, `np.zeros_like(x)`: no
    element read) or are the array of an element write."""

    def __init__(self, body):
        self.names, self.indexed, self.queries, self.written = [], set(), set(), set()
        for n in (n for b in body for n in walk(b)):
            cls = n.__class__
            if cls is gast.Name:
                self.names.append(n)
            elif cls is gast.Subscript and n.value.__class__ is gast.Name:
                self.indexed.add(id(n.value))
            elif cls is gast.Attribute and n.attr in ("shape", "size", "ndim", "dtype"):
                self.queries.add(id(n.value))
            elif cls is gast.Call and isinstance(n.func, gast.Attribute) \
                    and n.func.attr in _LIKE and len(n.args) == 1 and not n.keywords:
                self.queries.add(id(n.args[0]))
            if cls is gast.Assign or cls is gast.For:
                for t in (n.targets if cls is gast.Assign else [n.target]):
                    for e in (t.elts if isinstance(t, gast.Tuple) else [t]):
                        if isinstance(e, gast.Subscript):
                            self.written.add(id(e.value))

    def only_indexed(self):
        """Arrays whose name is only ever indexed, bound, or asked for its
        shape: no other name can share their memory."""
        whole = {n.id for n in self.names if isinstance(n.ctx, gast.Load)
                 and id(n) not in self.indexed and id(n) not in self.queries}
        return {n.id for n in self.names} - whole

    def read_elsewhere(self, array, copy):
        """`array`'s elements are read outside the statement `copy` (an
        augmented assignment reads its target)."""
        inside = {id(n) for n in walk(copy)}
        return any(n.id == array and isinstance(n.ctx, gast.Load) and id(n) not in inside
                   and id(n) not in self.written and id(n) not in self.queries
                   for n in self.names)


_LIKE = ("zeros_like", "empty_like", "ones_like")


def _nest(s):
    """(counters, stops, innermost statements) of a nest of loops `for i in
    range(n): for j in range(m): ...` each over its whole range, else None."""
    counters, bounds = [], []
    while isinstance(s, gast.For) and isinstance(s.target, gast.Name) and not s.orelse:
        b = unit_range(s.iter)
        if b is None or not (isinstance(b[0], gast.Constant) and b[0].value == 0):
            return None
        counters.append(s.target.id)
        bounds.append(b[1])
        if len(s.body) != 1 or not isinstance(s.body[0], gast.For):
            break
        s = s.body[0]
    if not counters or len(set(counters)) != len(counters):
        return None
    index = [name(c) for c in counters]
    key = structure(index[0] if len(index) == 1 else gast.Tuple(elts=index, ctx=gast.Load()))
    return key, bounds, s.body


def _copy_adjoint(s):
    """(dst, src, [bounds], source line) for a nest `for i in range(n): for j in
    range(m): dst[i, j] += src[i, j]; src[i, j] = 0.0`, else None."""
    nest = _nest(s)
    if nest is None or len(nest[2]) != 2:
        return None
    key, bounds, (add, zero) = nest
    if not (isinstance(add, gast.AugAssign) and isinstance(add.op, gast.Add)
            and isinstance(zero, gast.Assign) and len(zero.targets) == 1 and _is_zero(zero.value)):
        return None
    parts = [_element(add.target), _element(add.value), _element(zero.targets[0])]
    if any(p is None or structure(p[1]) != key for p in parts) or parts[1][0] != parts[2][0]:
        return None
    return parts[0][0], parts[1][0], bounds, getattr(add, "s2sad_line", None)


def _copy(s):
    """(dst, src, [bounds]) for a nest `for i in range(n): for j in range(m):
    dst[i, j] = src[i, j]`, else None."""
    nest = _nest(s)
    if nest is None or len(nest[2]) != 1:
        return None
    key, bounds, (copy,) = nest
    if not (isinstance(copy, gast.Assign) and len(copy.targets) == 1):
        return None
    parts = [_element(copy.targets[0]), _element(copy.value)]
    if any(p is None or structure(p[1]) != key for p in parts):
        return None
    return parts[0][0], parts[1][0], bounds


def _element(node):
    if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name):
        return node.value.id, node.slice
    return None


def _is_zero(node):
    return isinstance(node, gast.Constant) and not isinstance(node.value, bool) \
        and isinstance(node.value, (int, float)) and node.value == 0


def _shape(array, body, counts, params):
    """The structures of an allocated array's dimensions, following
    `np.zeros_like(x)` to x's allocation; None if unknown."""
    for _ in range(8):
        value = _binding(body, array)
        if counts.get(array) != 1 or value is None or not isinstance(value, gast.Call) \
                or not isinstance(value.func, gast.Attribute) or value.func.attr not in (
                    "zeros", "empty", "ones", "zeros_like", "empty_like", "ones_like") \
                or len(value.args) != 1:
            return None
        arg = value.args[0]
        if value.func.attr.endswith("_like"):
            if not isinstance(arg, gast.Name):
                return None
            array = arg.id
            continue
        dims = arg.elts if isinstance(arg, gast.Tuple) else [arg]
        if not all(_fixed(d, counts, params) for d in dims):
            return None
        return [structure(d) for d in dims]
    return None


def _fixed(expr, counts, params):
    """Names in `expr` are bound at most once (or parameters never rebound),
    so it reads the same wherever it is evaluated after its names' bindings."""
    return all(counts.get(n.id, 0) + (n.id in params) == 1
               for n in walk(expr) if isinstance(n, gast.Name))


def _binding(body, v):
    for s in walk_stmts(body):
        if _is_binding(s, v):
            return s.value
    return None


def _is_binding(s, v):
    return isinstance(s, gast.Assign) and len(s.targets) == 1 \
        and isinstance(s.targets[0], gast.Name) and s.targets[0].id == v


def _outside(body, loop):
    """The statements of `body` (nested ones too) that are not in `loop`."""
    inside = {id(s) for s in walk_stmts([loop])}
    return [s for s in walk_stmts(body) if id(s) not in inside]


def _writes(s, array):
    """`s` itself (not its nested blocks) writes into `array` or rebinds it."""
    targets = s.targets if isinstance(s, gast.Assign) else \
        [s.target] if isinstance(s, (gast.AugAssign, gast.For)) else []
    for t in targets:
        for n in walk(t):
            if isinstance(n, gast.Name) and n.id == array:
                return True
    return False


def _stays_zero(stmts, array, bounds, zeros=True):
    """Every element of `array` (of shape `bounds`) is written by `stmts`,
    which write it with zeros only (with `zeros`; else with anything, but
    by plain assignment of one element)."""
    symbols = {}  # structure of a bound -> its symbol number
    for b in bounds:
        symbols.setdefault(structure(b), len(symbols))
    boxes = []
    for s, loops, certain in _statements(stmts, [], True):
        if isinstance(s, (gast.Break, gast.Continue, gast.Return)):
            return False
        if not _writes(s, array):
            continue
        if not (isinstance(s, gast.Assign) and len(s.targets) == 1
                and (_is_zero(s.value) or not zeros) and _element(s.targets[0]) is not None):
            return False
        if certain:
            box = _box(s.targets[0].slice, loops, bounds, symbols)
            if box is not None:
                boxes.append(box)
    return _covers(boxes, [symbols[structure(b)] for b in bounds], len(symbols))


def _statements(stmts, loops, certain):
    """(statement, enclosing loops [(counter, start, stop)], runs whenever the
    step does) for every statement; only loops over a range with step 1
    keep `certain` (a loop that does not run is accounted for by its range
    being empty)."""
    for s in stmts:
        yield s, loops, certain
        if isinstance(s, gast.For):
            b = unit_range(s.iter)
            ok = b is not None and isinstance(s.target, gast.Name) and not s.orelse \
                and s.target.id not in names_stored(s.body)  # (the counter runs its range)
            inner = loops + [(s.target.id, b[0], b[1])] if ok else loops
            yield from _statements(s.body, inner, certain and ok)
            yield from _statements(s.orelse, loops, False)
        elif isinstance(s, (gast.If, gast.While, gast.With, gast.Try)):
            for field in ("body", "orelse", "handlers", "finalbody"):
                yield from _statements(getattr(s, field, []) or [], loops, False)


def _linear(expr, symbols):
    """(symbol or None, offset) for `c`, `n + c`, `n - c` with n a bound."""
    if isinstance(expr, gast.Constant) and isinstance(expr.value, int) \
            and not isinstance(expr.value, bool):
        return None, expr.value
    if structure(expr) in symbols:
        return symbols[structure(expr)], 0
    if isinstance(expr, gast.BinOp) and isinstance(expr.op, (gast.Add, gast.Sub)) \
            and isinstance(expr.right, gast.Constant) and isinstance(expr.right.value, int):
        inner = _linear(expr.left, symbols)
        if inner is not None:
            sign = 1 if isinstance(expr.op, gast.Add) else -1
            return inner[0], inner[1] + sign * expr.right.value
    return None


def _box(index, loops, bounds, symbols):
    """Per axis, the elements `array[index]` reaches over the enclosing
    loops: ("point", linear) or ("range", start, stop, offset); None when
    an axis is anything else (the write then counts for nothing)."""
    parts = index.elts if isinstance(index, gast.Tuple) else [index]
    if len(parts) != len(bounds):
        return None
    ranges = {c: (a, b) for c, a, b in loops}
    used, box = set(), []
    for p in parts:
        counter, offset = _counter_offset(p)
        if counter in ranges and counter not in used:
            used.add(counter)
            a, b = (_linear(e, symbols) for e in ranges[counter])
            if a is None or b is None:
                return None
            box.append(("range", a, b, offset))
            continue
        point = _linear(p, symbols)
        if point is None:
            return None
        box.append(("point", point))
    return box


def _counter_offset(expr):
    if isinstance(expr, gast.Name):
        return expr.id, 0
    if isinstance(expr, gast.BinOp) and isinstance(expr.op, (gast.Add, gast.Sub)) \
            and isinstance(expr.left, gast.Name) and isinstance(expr.right, gast.Constant) \
            and isinstance(expr.right.value, int):
        return expr.left.id, expr.right.value * (1 if isinstance(expr.op, gast.Add) else -1)
    return None, 0


def _covers(boxes, axes, nsymbols):
    """The boxes cover [0, size_0) x ... for every value of the sizes."""
    offsets = [0]
    for box in boxes:
        for part in box:
            if part[0] == "point":
                offsets.append(part[1][1])
            else:
                offsets += [part[1][1], part[2][1], part[3]]
    top = 2 * max(abs(o) for o in offsets) + 3
    if top ** nsymbols > 20000:
        return False

    def value(lin, sizes):
        sym, c = lin
        return c + (sizes[sym] if sym is not None else 0)

    for sizes in itertools.product(range(top + 1), repeat=nsymbols):
        shape = [sizes[a] for a in axes]
        covered = set()
        for box in boxes:
            spans = []
            for part in box:
                if part[0] == "point":
                    v = value(part[1], sizes)
                    spans.append(range(v, v + 1))
                else:
                    spans.append(range(value(part[1], sizes) + part[3],
                                       value(part[2], sizes) + part[3]))
            if all(len(sp) for sp in spans):
                covered.update(itertools.product(*spans))
        for cell in itertools.product(*(range(n) for n in shape)):
            if cell not in covered:
                return False
    return True
