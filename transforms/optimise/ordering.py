"""Ascending reverse loops.

The reverse sweep of `for i in range(a, b)` runs its iterations from b - 1
down to a. When those iterations are independent of each other, they may
run in any order, and they run ascending: the loop reads like the primal's,
and memory read in ascending order is what the hardware prefetches and
vectorises best (a 1-D stencil's gradient runs about 1.4x faster so).

The reverse iterations of a loop are independent when, within its body,
every name or array is one of:

* only read;
* only added to (`dv += e`, `dx[k] += e`): additions commute (up to
  rounding, as in any reduction whose order a compiler chooses);
* local: a name assigned at the top of the iteration before any read of
  it, and not read after the loop (a loop counter's value after the loop
  is never read by the reverse sweep, which restores it where needed);
* an array each iteration reads and writes only at one element that the
  counter picks (`dun[i]`, `q[i + 1, j]`), or only in one row that it
  picks (`dun[i, 0]` and `dun[i, j]`, an inner loop's counter j).

Arrays written or added to must not share memory with another name (a view
`row = A[i]`, a second name `B = A`) anywhere in the function.

Anything else (list tapes popped in order, a carried adjoint `ds = ds * a`,
calls that may write their arguments) keeps the loop descending."""
import gast

from ..analysis.aliases import memory_sources
from ..syntax import base_name, names_loaded, structure, walk, walk_stmts

_PURE_MODULES = ("np", "math")
_PURE_BUILTINS = {"min", "max", "abs", "float", "int", "range", "len", "bool"}


def ascend_independent_loops(body, ndim):
    """Let every reversed loop of `body` (a function's statements) whose
    iterations are independent run ascending; `ndim(name)` is a variable's
    number of dimensions (0 for a scalar), or None if unknown."""
    loads = _Loads()
    aliased = _aliased(body, ndim)
    places = _places(body)
    for loop in [s for s in walk_stmts(body) if getattr(s, "s2sad_ascending", None)]:
        # (what is read after the loop: found only if the loop has locals)
        after = lambda loop=loop: _reads_after(loop, places, loads)  # noqa: E731
        if _independent(loop, after, aliased, loads):
            loop.iter = loop.s2sad_ascending
        loop.s2sad_ascending = None


class _Loads(dict):
    """names_loaded of statements, each walked once (by identity)."""

    def of(self, stmts):
        out = set()
        for s in stmts:
            if id(s) not in self:
                self[id(s)] = (s, names_loaded(s))
            out |= self[id(s)][1]
        return out

    def outside(self, s):
        """Names read by the compound statement `s` (that holds no loop asked
        about), found once."""
        key = (id(s), "outside")
        if key not in self:
            head = [s.iter] if isinstance(s, gast.For) else [s.test]
            self[key] = (s, names_loaded(head) | _loads_except(s.body + s.orelse, None, self))
        return self[key][1]


def _places(body):
    """id(statement) -> (the statement whose block holds it, or None at the
    top; that block), for every statement of `body`."""
    out = {}

    def visit(stmts, parent):
        for s in stmts:
            out[id(s)] = (parent, stmts)
            for field in ("body", "orelse"):
                block = getattr(s, field, None)
                if block:
                    visit(block, s)
    visit(body, None)
    return out


def _reads_after(loop, places, loads):
    """Names that statements after `loop` may read (an enclosing loop's
    next iteration included)."""
    holding, parent = set(), places[id(loop)][0]
    while parent is not None:
        holding.add(id(parent))
        parent = places[id(parent)][0]
    out, node = set(), loop
    while True:
        parent, block = places[id(node)]
        k = next(k for k, s in enumerate(block) if s is node)
        out |= loads.of(block[k + 1:])
        if parent is None:
            return out
        if not isinstance(parent, (gast.For, gast.While, gast.If)):
            return set()  # (not a block this pass looks into)
        if isinstance(parent, (gast.For, gast.While)):
            out |= _loads_except([parent], loop, loads, holding)
        node = parent


def _loads_except(stmts, loop, loads, holding=frozenset()):
    """Names read by `stmts` outside `loop` (whose own reads are of its locals
    or of what the loop itself may read in any order); `holding` has the
    ids of the statements around `loop` (those of the others are kept)."""
    out = set()
    for s in stmts:
        if s is loop:
            continue
        if isinstance(s, (gast.For, gast.While, gast.If)):
            if id(s) not in holding:
                out |= loads.outside(s)
                continue
            head = [s.iter] if isinstance(s, gast.For) else [s.test]
            out |= names_loaded(head) | _loads_except(s.body + s.orelse, loop, loads, holding)
        else:
            out |= loads.of([s])
    return out


def _aliased(body, ndim):
    """Arrays that may share memory with another name: both sides of every
    assignment that may bind a view or another name of an array (`v = A[i]`,
    `v = w`, `v = A.T`, `v = helper(A)`)."""
    out = set()
    for s in walk_stmts(body):
        if isinstance(s, gast.Assign) and len(s.targets) == 1 \
                and isinstance(s.targets[0], gast.Name) and ndim(s.targets[0].id) != 0:
            sources = memory_sources(s.value, lambda n: (ndim(n) or 0) > 0, calls_share=True)
            if sources:
                out |= sources | {s.targets[0].id}
    return out


def _independent(loop, outside, aliased, loads):
    stmts = list(walk_stmts(loop.body))
    counters = {loop.target.id} | {s.target.id for s in stmts if isinstance(s, gast.For)}
    if not all(isinstance(s, (gast.Assign, gast.AugAssign, gast.For, gast.If, gast.Pass))
               for s in stmts):
        return False  # while loops, calls for their effect, breaks, returns
    inner = [s for s in stmts if isinstance(s, gast.For)]
    if any(not isinstance(f.target, gast.Name) or f.target.id == loop.target.id for f in inner):
        return False
    if any(_read_unbound(loop.body, f.target.id) for f in inner):
        return False  # after a loop with no trips, the value of an earlier iteration
    local = _locals(loop.body, counters, loads)
    if local and local & outside():
        return False
    accesses = {}  # base -> list of (kind, index); kind "read", "write" or "add"
    for s in stmts:
        if not _pure_calls(s):
            return False
        for kind, node in _accesses(s):
            base = base_name(node)
            if base is None:
                return False
            if isinstance(node, gast.Subscript) and not isinstance(node.value, gast.Name):
                return False  # x[i][j]: the element a view picks
            index = node.slice if isinstance(node, gast.Subscript) else None
            accesses.setdefault(base, []).append((kind, index))
    for base, uses in accesses.items():
        kinds = {k for k, _ in uses}
        if base in aliased and kinds != {"read"}:
            return False  # a write to memory another name may read
        if kinds <= {"read"} or kinds == {"add"} or base in counters or base in local:
            continue
        indices = [i for _, i in uses]
        if None in indices or not _one_slot(indices, loop.target.id):
            return False
    return True


def _one_slot(indices, counter):
    """Whether every index picks the element (or, in one axis, the row)
    that the counter picks, the same in all: `dun[i]`; `dun[i, 0]`, `dun[i,
    j]` and `dun[i, n - 1]` (distinct iterations, distinct rows)."""
    if len({structure(i) for i in indices}) == 1 and _picks(indices[0], counter):
        return True
    if not all(isinstance(i, gast.Tuple) for i in indices) \
            or len({len(i.elts) for i in indices}) != 1:
        return False
    for axis in range(len(indices[0].elts)):
        parts = [i.elts[axis] for i in indices]
        if len({structure(p) for p in parts}) == 1 and _picks(parts[0], counter):
            return True
    return False


def _read_unbound(stmts, counter):
    """Whether `stmts` read `counter` outside the loops that bind it."""
    for s in stmts:
        if isinstance(s, gast.For) and s.target.id == counter:
            if counter in names_loaded(s.iter):
                return True
        elif isinstance(s, (gast.For, gast.If, gast.While)):
            head = [s.iter] if isinstance(s, gast.For) else [s.test]
            if counter in names_loaded(head) or _read_unbound(s.body + s.orelse, counter):
                return True
        elif counter in names_loaded(s):
            return True
    return False


def _locals(body, counters, loads):
    """Names assigned at the top level of `body` before anything reads them."""
    seen, local = set(), set()
    for s in body:
        inner = _inner_locals(body, s, counters, loads) if isinstance(s, gast.For) else set()
        reads = loads.of([s])  # a target's index is read before the value is stored
        if isinstance(s, gast.AugAssign):
            reads |= {base_name(s.target)}
        seen |= reads - local - inner
        if isinstance(s, gast.Assign):
            for t in s.targets:
                if isinstance(t, gast.Name) and t.id not in seen:
                    local.add(t.id)
        if isinstance(s, (gast.For, gast.If)):
            seen |= _stored_anywhere(s) - local - inner
            local |= inner - seen
    return local - counters


def _inner_locals(body, loop, counters, loads):
    """Locals of an inner loop's iterations that nothing else in `body`
    reads: locals of the outer iteration too (if the inner loop does not
    run, nothing reads them)."""
    others = names_loaded([loop.iter]) | loads.of([s for s in body if s is not loop])
    return _locals(loop.body, counters, loads) - others


def _stored_anywhere(s):
    out = set()
    for t in walk_stmts([s]):
        if isinstance(t, gast.Assign):
            out |= {base_name(x) for x in t.targets}
        elif isinstance(t, gast.AugAssign):
            out.add(base_name(t.target))
    return out


def _accesses(s):
    """(kind, node) for every name or subscript `s` reads or writes itself
    (not in nested statements)."""
    if isinstance(s, gast.Assign):
        yield from _reads(s.value)
        for t in s.targets:
            if isinstance(t, gast.Subscript):
                yield from _reads(t.slice)
            yield "write", t
    elif isinstance(s, gast.AugAssign):
        yield from _reads(s.value)
        if isinstance(s.target, gast.Subscript):
            yield from _reads(s.target.slice)
        additive = isinstance(s.op, (gast.Add, gast.Sub))
        yield ("add" if additive else "write"), s.target
    elif isinstance(s, gast.For):
        yield from _reads(s.iter)
    elif isinstance(s, gast.If):
        yield from _reads(s.test)


def _reads(expr):
    """The outermost names and subscripts of names read in `expr`."""
    if isinstance(expr, gast.Name):
        yield "read", expr
    elif isinstance(expr, gast.Subscript) and isinstance(expr.value, gast.Name):
        yield "read", expr
        yield from _reads(expr.slice)
    elif isinstance(expr, gast.Attribute):
        if not (isinstance(expr.value, gast.Name) and expr.value.id in _PURE_MODULES):
            yield from _reads(expr.value)
    elif isinstance(expr, gast.AST):
        for field in expr._fields:
            child = getattr(expr, field, None)
            for c in child if isinstance(child, list) else [child]:
                if isinstance(c, gast.AST):
                    yield from _reads(c)


def _pure_calls(s):
    """Every call `s` makes itself is to numpy, math or a pure builtin."""
    heads = [s.value] if isinstance(s, (gast.Assign, gast.AugAssign)) else \
        [s.iter] if isinstance(s, gast.For) else [s.test] if isinstance(s, gast.If) else []
    for head in heads:
        for n in walk(head):
            if not isinstance(n, gast.Call):
                continue
            f = n.func
            if isinstance(f, gast.Name) and f.id in _PURE_BUILTINS:
                continue
            if isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name) \
                    and f.value.id in _PURE_MODULES and not n.keywords:
                continue  # np.exp(x), math.tanh(x); no out=
            return False
    return True


def _picks(index, counter):
    """Whether the index has a component `counter`, `counter + c` or
    `counter - c` (c an integer constant): distinct iterations, distinct
    elements."""
    parts = index.elts if isinstance(index, gast.Tuple) else [index]
    for p in parts:
        if isinstance(p, gast.Name) and p.id == counter:
            return True
        if isinstance(p, gast.BinOp) and isinstance(p.op, (gast.Add, gast.Sub)) \
                and isinstance(p.left, gast.Name) and p.left.id == counter \
                and isinstance(p.right, gast.Constant) and isinstance(p.right.value, int):
            return True
    return False
