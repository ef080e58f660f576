"""Additions into an array known to be all zeros become assignments.

A gathered stencil adjoint adds each element's total into an adjoint
that holds only zeros there (`du` just after the buffers were swapped,
copy_fold.py):

    dun, du = (du, dun)
    ...
    for k in range(N - 4):
        du[k + 2] += dun2 + dprod3 * 2.0 + dtotal_prev + dtotal_next

Adding to a zero is assigning, and `du[k + 2] = ...` does not read the
old value: one load less per element, and a loop that stores only, as a
person writing the gradient would (measured, minimum CPU time of
interleaved calls: HEAT 1.10x -> 1.03x the hand-written gradient, HEAT2D
1.10x -> 1.00x).

The proof obligation, enforced below: `X[idx] += e` becomes `X[idx] = e`
only when X[idx] is zero whenever the statement runs. That holds when

* X is all zeros at a point of a block: after a swap that copy_fold.py
  made (it proved the array swapped in is all zeros), or after
  `X = np.zeros(...)`/`np.zeros_like(...)` of an array the derivative owns
  (bound once, only indexed: no other name shares its memory, so a
  statement that does not name X does not write it);
* the statement is `X[...] += e` (e does not name X) at the top level of
  the innermost of a nest of `for c in range(a, b)` loops (step 1, `a` an
  int constant, the counter never rebound in the loop, no else), each
  loop at the top level of the one around it, the outermost at the top
  level of that block after the zero point;
* every mention of X inside each loop of the nest indexes one axis with
  that loop's counter plus the same int constant (the counter in no other
  axis), every axis of the statement's index is some loop's counter, and
  no index can be negative (`a` plus the constant >= 0; a negative index
  would count from the end): so distinct iterations write distinct
  elements, and each element is written by one execution of the statement;
* everything that mentions X between the zero point and the outermost
  loop, and before the next loop of the nest in each loop's body, only
  indexes X (or asks for its shape), and along some axis indexes it only
  below where the statement starts along that axis (by constant bounds:
  an int constant, or a counter of an enclosing range with a constant
  stop): those accesses never touch an element the statement writes.

Reads and writes of X after the statement in the same iteration, or
after the nest, are unaffected: the array holds the same values as with
`+=`. Anything not proven this way keeps its `+=`: a conditional write,
a second write to the same element, a read before the write, a nest
whose earlier writes may overlap.
"""
import gast

from ..emit.unparse import expr_source
from ..syntax import names_stored, unit_range, walk

_QUERIES = ("shape", "size", "ndim", "dtype")


def assign_into_zeros(body, owned):
    """Rewrite `X[...] += e` as `X[...] = e` where X is provably zero there
    (see above); `owned` are the derivative's own arrays
    (promote.owned_arrays, before copy_fold's swaps)."""
    memo = {}  # id(statement) -> (it, the names in it): most statements do not name x
    for block in _blocks(body):
        for p, s in enumerate(block):
            x = _zeroed(s, owned)
            if x is not None:
                # (a top-level `x[...] += e` is never a candidate: `fixed` is empty)
                for (stmts, k), _ in _first_writes(block[p + 1:], x, {}, frozenset(), memo):
                    stmts[k] = _assignment(stmts[k])


def _blocks(stmts):
    yield stmts
    for s in stmts:
        for field in ("body", "orelse"):
            inner = getattr(s, field, None)
            if isinstance(inner, list) and inner:
                yield from _blocks(inner)


def _zeroed(s, owned):
    """The array that is all zeros right after statement `s`, or None."""
    x = getattr(s, "s2sad_zeros_after", None)  # (a swap of copy_fold.py)
    if x is not None:
        return x
    if isinstance(s, gast.Assign) and len(s.targets) == 1 \
            and isinstance(s.targets[0], gast.Name) and s.targets[0].id in owned:
        f = s.value
        if isinstance(f, gast.Call) and isinstance(f.func, gast.Attribute) \
                and isinstance(f.func.value, gast.Name) and f.func.value.id == "np" \
                and f.func.attr in ("zeros", "zeros_like"):
            return s.targets[0].id
    return None


def _assignment(stmt):
    """`X[idx] += e` as `X[idx] = e`, with its marks (source line) and a
    comment saying why."""
    new = gast.Assign(targets=[stmt.target], value=stmt.value, type_comment=None)
    new.__dict__.update({k: v for k, v in stmt.__dict__.items()
                         if k not in ("target", "op", "value")})
    said = f"{expr_source(stmt.target)} is still zero here: assigned, not added to"
    old = getattr(stmt, "s2sad_comment", None)
    new.s2sad_comment = f"{old}; {said}" if old else said
    return new


# ---- the nest --------------------------------------------------------------
def _loop_range(loop, memo):
    """(counter, start, stop) of `for c in range(a, b)` with `a` an int
    constant and `c` never rebound inside; None otherwise."""
    bounds = unit_range(loop.iter)
    if bounds is None or not isinstance(loop.target, gast.Name) or loop.orelse:
        return None
    c = loop.target.id
    start = bounds[0]
    if not (isinstance(start, gast.Constant) and type(start.value) is int) \
            or c in _stored_in(loop, memo):
        return None
    return c, start.value, bounds[1]


def _writes_once(loop, x, env, fixed, memo):
    """[((block, position), {axis: lowest element})] for the additions into
    x in the nest that starts at `loop` that write each element once; `env`
    maps the counters of enclosing loops to their ranges, `fixed` are the
    axes the enclosing loops of the nest index."""
    found = _loop_range(loop, memo)
    if found is None:
        return []
    c, start, stop = found
    inner_env = {**env, c: (start, stop)}
    accesses = _accesses(loop.body, x, inner_env, memo)
    if not accesses:
        return []
    axis = _counter_axis(accesses, c)
    if axis is None or axis[0] in fixed or start + axis[1] < 0:
        return []
    a, lowest = axis[0], start + axis[1]
    return [(at, {**lowers, a: lowest})
            for at, lowers in _first_writes(loop.body, x, inner_env, fixed | {a}, memo)]


def _first_writes(stmts, x, env, fixed, memo):
    """What `_writes_once` finds in the loops of `stmts` (and, inside a
    nest, `x[...] += e` statements of `stmts` itself) that nothing earlier
    in `stmts` may touch: an earlier statement must index x, along some
    axis the candidate starts at, only below that start. Each statement's
    bounds are found once; the scan stops at the first statement that
    bounds no axis, or uses x whole (nothing after it can be proven)."""
    out = []
    earlier = []  # per earlier statement touching x: {axis: bound its indices stay below}
    for k, s in enumerate(stmts):
        accesses = _accesses([s], x, env, memo)
        if accesses is None:
            break
        if not accesses:
            continue
        if isinstance(s, gast.AugAssign):
            # (in a nest: every axis is a counter of it, so nothing earlier can be apart)
            if fixed and _is_addition(s, x) and len(_items(s.target)) == len(fixed) \
                    and not earlier:
                out.append(((stmts, k), {}))
        elif isinstance(s, gast.For):
            out += [(at, lowers) for at, lowers in _writes_once(s, x, env, fixed, memo)
                    if all(_apart(b, lowers) for b in earlier)]
        bounds = _bounds(accesses)
        if not bounds:
            break
        earlier.append(bounds)
    return out


def _apart(bounds, lowers):
    """Whether accesses staying below `bounds` miss a region starting at
    `lowers` (both {axis: int})."""
    return any(axis in bounds and bounds[axis] <= lowest for axis, lowest in lowers.items())


def _bounds(accesses):
    """{axis: int} for the axes along which every access stays below a
    constant bound."""
    out = {}
    for axis in range(max(len(_items(sub)) for sub, _ in accesses)):
        ups = [_upper(sub, axis, where) for sub, where in accesses]
        if all(u is not None for u in ups):
            out[axis] = max(ups)
    return out


def _is_addition(s, x):
    t = s.target
    return isinstance(s.op, gast.Add) and isinstance(t, gast.Subscript) \
        and isinstance(t.value, gast.Name) and t.value.id == x \
        and not any(isinstance(n, gast.Name) and n.id == x for n in walk(s.value))


def _counter_axis(accesses, c):
    """(axis, offset) when every access indexes one axis with `c + offset`
    (the same offset) and no other axis names c; else None."""
    found = None
    for sub, _ in accesses:
        items = _items(sub)
        here = [(a, _offset(item, c)) for a, item in enumerate(items)]
        hits = [(a, o) for a, o in here if o is not None]
        if len(hits) != 1:
            return None
        a = hits[0][0]
        if any(c in _names(item) for b, item in enumerate(items) if b != a):
            return None
        if found is not None and found != hits[0]:
            return None
        found = hits[0]
    return found


# ---- what the other statements touch ---------------------------------------------
def _upper(sub, axis, env):
    """An int bound the index of `sub` along `axis` stays below, or None."""
    items = _items(sub)
    if axis >= len(items):
        return None
    item = items[axis]
    if isinstance(item, gast.Constant) and type(item.value) is int:
        return item.value + 1 if item.value >= 0 else None
    for c, (start, stop) in env.items():
        o = _offset(item, c)
        # (not below 0 either: a negative index counts from the end)
        if o is not None and start + o >= 0 and isinstance(stop, gast.Constant) \
                and type(stop.value) is int:
            return stop.value + o
    return None


def _accesses(stmts, x, env, memo):
    """[(subscript of x, ranges of the loops around it)] in `stmts`; None if
    x appears otherwise than indexed or asked for its shape (a rebinding,
    a whole-array use)."""
    out = []
    for s in stmts:
        if x not in _names_in(s, memo):
            continue
        if isinstance(s, gast.For):
            if not _expr_accesses([s.iter, s.target], x, env, out):
                return None
            inner = dict(env)
            if isinstance(s.target, gast.Name):
                inner.pop(s.target.id, None)
                found = _loop_range(s, memo)
                if found is not None:
                    inner[found[0]] = found[1:]
            # (a name an enclosing loop counts with, rebound in here, is no longer bounded)
            for v in _stored_in(s, memo) & set(inner):
                if v != getattr(s.target, "id", None):
                    inner.pop(v)
            for part, where in ((s.body, inner), (s.orelse, env)):
                got = _accesses(part, x, where, memo)
                if got is None:
                    return None
                out += got
        elif isinstance(s, (gast.If, gast.While)):
            if not _expr_accesses([s.test], x, env, out):
                return None
            for part in (s.body, s.orelse):
                got = _accesses(part, x, env, memo)
                if got is None:
                    return None
                out += got
        elif not _expr_accesses([s], x, env, out):
            return None
    return out


def _stored_in(loop, memo):
    """names_stored of a loop's body (memoised per loop)."""
    entry = memo.get(("stored", id(loop)))
    if entry is None or entry[0] is not loop:
        entry = memo[("stored", id(loop))] = (loop, names_stored(loop.body))
    return entry[1]


def _names_in(s, memo):
    """The names anywhere in statement `s` (memoised per statement)."""
    entry = memo.get(id(s))
    if entry is not None and entry[0] is s:  # (the statement kept: its id is not reused)
        return entry[1]
    if isinstance(s, (gast.For, gast.If, gast.While)):
        heads = [s.iter, s.target] if isinstance(s, gast.For) else [s.test]
        found = {n.id for h in heads for n in walk(h) if isinstance(n, gast.Name)}
        for inner in s.body + s.orelse:
            found |= _names_in(inner, memo)
    else:
        found = {n.id for n in walk(s) if isinstance(n, gast.Name)}
    memo[id(s)] = (s, frozenset(found))
    return memo[id(s)][1]


def _expr_accesses(nodes, x, env, out):
    names = indexed = 0
    for root in nodes:
        for n in walk(root):
            if isinstance(n, gast.Name) and n.id == x:
                names += 1
            elif isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name) \
                    and n.value.id == x:
                indexed += 1
                out.append((n, env))
            elif isinstance(n, gast.Attribute) and n.attr in _QUERIES \
                    and isinstance(n.value, gast.Name) and n.value.id == x:
                indexed += 1  # (x.shape: no element read or written)
    return names == indexed


def _items(sub):
    index = sub.slice
    return list(index.elts) if isinstance(index, gast.Tuple) else [index]


def _names(node):
    return {n.id for n in walk(node) if isinstance(n, gast.Name)}


def _offset(index, counter):
    """o for an index `counter`, `counter + o` or `counter - o` (o an int
    constant), else None."""
    if isinstance(index, gast.Name) and index.id == counter:
        return 0
    if isinstance(index, gast.BinOp) and isinstance(index.op, (gast.Add, gast.Sub)) \
            and isinstance(index.left, gast.Name) and index.left.id == counter \
            and isinstance(index.right, gast.Constant) and type(index.right.value) is int:
        return index.right.value if isinstance(index.op, gast.Add) else -index.right.value
    return None
