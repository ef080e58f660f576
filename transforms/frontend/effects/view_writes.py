"""`for row in X: row /= row.sum()`, `row = Y[i]; row[:] = e`: a write
through a view of an array's row, column or element block, spelled as a
write into the array itself.

The derivative follows values by name, so a write through `row` would not
reach `Y` (aliases.py refuses it). Here `row` becomes a copy, and every
write through it is followed by `Y[i] = row`: the array then holds what
Python's view would have put there, written by its own name.

Another name of the whole array (`C = B`, a dict's entry `p["w"]` of `p =
{"w": w}`, a tuple's item unpacked) is simpler: while neither is rebound,
`C` is `B`, and the statements after `C = B` say `B` instead.

A view is rewritten only where that is the same program: `row = Y[<ints and slices>]`
is the one binding of `row`; each write through it comes after the binding
in the same block (or in statements nested there), with neither `Y` nor
the index's names rebound in between; and no other name writes into Y's
memory while `row` is still used (a view would see that write, a copy
not). Anything else is left to aliases.py, which refuses it with its
line."""
import copy

import gast

from ...analysis.aliases import _Flow, _flatten, _second_names, _through_chains, _written
from ...syntax import assign, call, name, names_loaded, walk
from .blocks import blocks, insert_after


def run(tree, ctx):
    changed = False
    for _ in range(4):  # (x = t0; t0 = b: a round per link of a chain of names)
        renames, _ = _rewrites(tree, ctx)
        if not renames:
            break
        for block, k, end, alias, source in renames:
            for s in block[k + 1:end]:
                _rename(s, alias, source)
        changed = True
    _, rewrites = _rewrites(tree, ctx)
    for made, after, counters in rewrites:
        alias = made.targets[0].id
        view_name = ctx.namer.fresh(alias + "_view")
        source = made.value
        made.targets[0] = gast.Name(id=view_name, ctx=gast.Store(), annotation=None,
                                    type_comment=None)
        copied = assign(alias, call("np.copy", name(view_name)))
        copied.lineno = getattr(made, "lineno", None)
        inserts = {id(made): [copied]}
        for q in after:
            back = _write_back(q, alias, source, counters)
            back.lineno = getattr(q, "lineno", None)
            inserts.setdefault(id(q), []).append(back)
        insert_after(tree, inserts)
    return tree if changed or rewrites else None


def _write_back(q, alias, view, counters=frozenset()):
    """What goes back into the array after `q` wrote through `alias` (the
    view `view`, `Y[i]`): the elements written (`row[j] = e`: `Y[i, j] =
    row[j]`; `inner = Y[1:n - 1]`, `inner[k] = e`: `Y[1 + k] = inner[k]`,
    `k` a counter of `counters`), or the whole view (`row *= s`: `Y[i] =
    row`)."""
    target = q.targets[0] if isinstance(q, gast.Assign) else getattr(q, "target", None)
    if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name) \
            and target.value.id == alias:
        index = _composed(view.slice, target.slice, counters)
        if index is not None:
            part = gast.Subscript(value=name(alias), slice=copy.deepcopy(target.slice),
                                  ctx=gast.Load())
            return gast.Assign(targets=[gast.Subscript(value=copy.deepcopy(view.value),
                                                       slice=index, ctx=gast.Store())],
                               value=part, type_comment=None)
    return gast.Assign(targets=[_as_store(copy.deepcopy(view))], value=name(alias),
                       type_comment=None)


def _composed(view_index, index, counters=frozenset()):
    """The index into the array of `view[index]`, for a view indexed by
    numbers and slices: the slices, then the axes after the view's index,
    take `index`'s parts in order (`Y[:, j][k]` is `Y[k, j]`, `Y[i][j]` is
    `Y[i, j]`, `Y[1:n][k]` is `Y[1 + k]`); None for an ellipsis, and for a
    slice with bounds taking a part that may be negative (`Y[1:n][-1]` is
    `Y[n - 1]`): only a number >= 0 or a name of `counters` (loop counters
    from 0 up) is taken."""
    outer = list(view_index.elts) if isinstance(view_index, gast.Tuple) else [view_index]
    inner = list(index.elts) if isinstance(index, gast.Tuple) else [index]
    if any(isinstance(i, gast.Constant) and i.value is Ellipsis for i in inner):
        return None
    parts = []
    for o in outer:
        if isinstance(o, gast.Slice) and inner:
            part = inner.pop(0)
            if (o.lower, o.upper, o.step) != (None, None, None):
                part = _shifted(o, part, counters)
                if part is None:
                    return None  # (the whole view goes back instead)
            parts.append(copy.deepcopy(part))
        else:
            parts.append(copy.deepcopy(o))
    parts += [copy.deepcopy(i) for i in inner]
    return parts[0] if len(parts) == 1 else gast.Tuple(elts=parts, ctx=gast.Load())


def _shifted(bounded, part, counters):
    """`lower + step * part`, the element of Y that `Y[lower::step][part]`
    is, when that is so for every value `part` can take (`part` >= 0, the
    lower bound a number >= 0 and the step one > 0), else None."""
    lower = bounded.lower if bounded.lower is not None else gast.Constant(value=0, kind=None)
    step = bounded.step if bounded.step is not None else gast.Constant(value=1, kind=None)
    if not (_number(lower) and lower.value >= 0 and _number(step) and step.value > 0):
        return None
    if not (_number(part) and part.value >= 0
            or isinstance(part, gast.Name) and part.id in counters):
        return None
    scaled = part if step.value == 1 else gast.BinOp(
        left=gast.Constant(value=step.value, kind=None), op=gast.Mult(), right=part)
    return scaled if lower.value == 0 else gast.BinOp(
        left=gast.Constant(value=lower.value, kind=None), op=gast.Add(), right=scaled)


def _number(node):
    return isinstance(node, gast.Constant) and isinstance(node.value, int) \
        and not isinstance(node.value, bool)


def _counters(order, bindings):
    """Names stored once in the function, as the target of `for k in
    range(...)` counting up from a number >= 0: never negative. (A loop's
    target the body rebinds is copied first: statements/rebound_counters.py.)"""
    stores = {}
    for s, _ in order:
        parts = [s.target] if isinstance(s, gast.For) else \
            [] if isinstance(s, (gast.If, gast.While)) else [s]
        for part in parts:
            for n in walk(part):
                if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)):
                    stores[n.id] = stores.get(n.id, 0) + 1
    out = set()
    for n, positions in bindings.items():
        s = order[positions[0]][0] if len(positions) == 1 else None
        if stores.get(n) == 1 and isinstance(s, gast.For) and isinstance(s.target, gast.Name) \
                and s.target.id == n \
                and isinstance(s.iter, gast.Call) and isinstance(s.iter.func, gast.Name) \
                and s.iter.func.id == "range" and not s.iter.keywords \
                and 1 <= len(s.iter.args) <= 3 \
                and (len(s.iter.args) == 1 or _number(s.iter.args[0]) and s.iter.args[0].value >= 0) \
                and (len(s.iter.args) < 3 or _number(s.iter.args[2]) and s.iter.args[2].value > 0):
            out.add(n)
    return frozenset(out)


def _rename(node, old, new):
    for n in walk(node):
        if isinstance(n, gast.Name) and n.id == old:
            n.id = new


def _rewrites(tree, ctx):
    """The names to rename, (block, position of `alias = source`, end of
    its region, alias, source), and the views to rewrite, (binding statement, the statements
    writing through it)."""
    kinds = ctx.kinds
    order = []
    _flatten(tree.body, (), order)
    direct = [(p, alias, source, s) for p, (s, _) in enumerate(order)
              for alias, source in _second_names(s, kinds, None)]
    if not direct:
        return [], []
    flow = _Flow(order)
    every = _through_chains(direct, flow)
    memory = {}  # source -> every name of its memory
    for _, alias, source, _ in every:
        memory.setdefault(source, {source}).add(alias)
    writes = [(q, n) for q, (s, _) in enumerate(order) for n in _written(s, kinds)]
    bindings = _bindings(order)
    bound = {}
    for n, positions in bindings.items():
        for r in positions:
            bound.setdefault(r, set()).add(n)
    bindings_at = lambda r: bound.get(r, set())  # noqa: E731
    places = blocks(tree)
    renames, out = [], []
    for p, alias, source, made in direct:
        if id(made) not in places:
            continue
        block, k = places[id(made)]
        if _another_name(made, alias, source, kinds):
            # C = B: until either is rebound, C is B, so the statements up to
            # C's next binding in the block may say B (what C means after
            # that region, aliases.py still checks)
            end = next((j for j in range(k + 1, len(block))
                        if alias in _top_bindings(block[j])), len(block))
            region = {id(n) for s in block[k + 1:end] for n in walk(s)
                      if isinstance(n, gast.stmt)}
            mentioned = any(alias in _mentions(s) for s, _ in order if id(s) in region)
            written = any(n in (alias, source) and id(order[q][0]) in region for q, n in writes)
            if written and mentioned \
                    and not any(bindings_at(r) & {alias, source} for r, (s, _) in enumerate(order)
                                if id(s) in region) \
                    and not any(alias in b[3:] or source in b[3:] for b in renames):
                renames.append((block, k, end, alias, source))
            continue
        if bindings.get(alias) != [p] or not _basic_view(made, alias, source, kinds) \
                or getattr(made, "s2sad_element_of", None):
            continue  # (a list element's: its array is a copy of them, aliases.py decides)
        rest = block[k + 1:]
        inside = {id(n) for s in rest for n in walk(s) if isinstance(n, gast.stmt)}
        through = [q for q, n in writes if n == alias]
        if not through:
            continue  # read-only: aliases.py decides
        if not all(id(order[q][0]) in inside for q in through):
            continue  # a write the binding does not come before in its block
        uses = [r for r, (s, _) in enumerate(order) if alias in _mentions(s)]
        if not all(id(order[r][0]) in inside or r == p for r in uses):
            continue
        pinned = names_loaded(made.value)
        if any(bindings_at(r) & pinned for r, (s, _) in enumerate(order) if id(s) in inside):
            continue  # the array or an index rebound after the binding
        others = memory.get(source, {source}) - {alias}
        if any(n in others and id(order[q][0]) in inside
               and any(r != p and flow.reaches(q, r, {alias}) for r in uses)
               for q, n in writes):
            continue  # another name writes into that memory while the view is used
        out.append((made, [order[q][0] for q in through], _counters(order, bindings)))
    return renames, out


def _another_name(made, alias, source, kinds):
    """`alias = source` of an array."""
    kind = kinds.get(source)
    return isinstance(made, gast.Assign) and len(made.targets) == 1 \
        and isinstance(made.targets[0], gast.Name) and made.targets[0].id == alias \
        and isinstance(made.value, gast.Name) and made.value.id == source \
        and kind is not None and kind.is_array


def _basic_view(made, alias, source, kinds):
    """`alias = source[i, :, j]`, `alias = source[1:n - 1]`: integer (number)
    indices and slices whose bounds are ints."""
    value = made.value
    if not (isinstance(made, gast.Assign) and len(made.targets) == 1
            and isinstance(made.targets[0], gast.Name) and made.targets[0].id == alias
            and isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name)
            and value.value.id == source):
        return False
    kind = kinds.get(source)
    if kind is None or not kind.is_array:
        return False
    index = value.slice.elts if isinstance(value.slice, gast.Tuple) else [value.slice]
    for i in index:
        if isinstance(i, gast.Slice):
            # (bounds: numbers and int names; the write-back is then the whole view)
            if not all(b is None or _int_atom(b, kinds) for b in (i.lower, i.upper, i.step)):
                return False
        elif isinstance(i, gast.Constant):
            if not isinstance(i.value, int) or isinstance(i.value, bool):
                return False
        elif isinstance(i, gast.Name):
            k = kinds.get(i.id)
            if k is None or k.tag != "int":
                return False
        else:
            return False
    return True


def _int_atom(node, kinds):
    """A number, an int name, or -number/±: what a slice's bound may be."""
    if isinstance(node, gast.Constant):
        return isinstance(node.value, int) and not isinstance(node.value, bool)
    if isinstance(node, gast.Name):
        k = kinds.get(node.id)
        return k is not None and k.tag == "int"
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        return _int_atom(node.operand, kinds)
    if isinstance(node, gast.BinOp) and isinstance(node.op, (gast.Add, gast.Sub)):
        return _int_atom(node.left, kinds) and _int_atom(node.right, kinds)
    return False


def _bindings(order):
    """name -> positions of the statements (re)binding it (not in-place)."""
    out = {}
    for p, (s, _) in enumerate(order):
        for n in _top_bindings(s):
            out.setdefault(n, []).append(p)
    return out


def _top_bindings(s):
    """Names the statement itself binds (not in place, not its nested ones)."""
    if isinstance(s, gast.Assign) and not getattr(s, "s2sad_inplace", False):
        return {n.id for t in s.targets for n in walk(t)
                if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
    if isinstance(s, gast.For):
        return {n.id for n in walk(s.target) if isinstance(n, gast.Name)}
    return set()


def _mentions(s):
    """Names a statement itself (not its nested statements) reads or writes."""
    if isinstance(s, gast.For):
        parts = [s.target, s.iter]
    elif isinstance(s, (gast.If, gast.While)):
        parts = [s.test]
    else:
        parts = [s]
    return {n.id for part in parts for n in walk(part) if isinstance(n, gast.Name)}


def _as_store(node):
    node.ctx = gast.Store()
    return node


