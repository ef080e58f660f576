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

A view is rewritten only where that is the same program: `row = Y[<ints and full slices>]`
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
    for made, after in rewrites:
        alias = made.targets[0].id
        view_name = ctx.namer.fresh(alias + "_view")
        source = made.value
        made.targets[0] = gast.Name(id=view_name, ctx=gast.Store(), annotation=None,
                                    type_comment=None)
        copied = assign(alias, call("np.copy", name(view_name)))
        copied.lineno = getattr(made, "lineno", None)
        inserts = {id(made): [copied]}
        for q in after:
            back = _write_back(q, alias, source)
            back.lineno = getattr(q, "lineno", None)
            inserts.setdefault(id(q), []).append(back)
        insert_after(tree, inserts)
    return tree if changed or rewrites else None


def _write_back(q, alias, view):
    """What goes back into the array after `q` wrote through `alias` (the
    view `view`, `Y[i]`): the elements written (`row[j] = e`: `Y[i, j] =
    row[j]`), or the whole view (`row *= s`: `Y[i] = row`)."""
    target = q.targets[0] if isinstance(q, gast.Assign) else getattr(q, "target", None)
    if isinstance(target, gast.Subscript) and isinstance(target.value, gast.Name) \
            and target.value.id == alias:
        index = _composed(view.slice, target.slice)
        if index is not None:
            part = gast.Subscript(value=name(alias), slice=copy.deepcopy(target.slice),
                                  ctx=gast.Load())
            return gast.Assign(targets=[gast.Subscript(value=copy.deepcopy(view.value),
                                                       slice=index, ctx=gast.Store())],
                               value=part, type_comment=None)
    return gast.Assign(targets=[_as_store(copy.deepcopy(view))], value=name(alias),
                       type_comment=None)


def _composed(view_index, index):
    """The index into the array of `view[index]`, for a view indexed by
    numbers and whole axes: the whole axes, then the axes after the view's
    index, take `index`'s parts in order (`Y[:, j][k]` is `Y[k, j]`,
    `Y[i][j]` is `Y[i, j]`); None for an ellipsis."""
    outer = list(view_index.elts) if isinstance(view_index, gast.Tuple) else [view_index]
    inner = list(index.elts) if isinstance(index, gast.Tuple) else [index]
    if any(isinstance(i, gast.Constant) and i.value is Ellipsis for i in inner):
        return None
    parts = []
    for o in outer:
        if isinstance(o, gast.Slice) and inner:
            parts.append(copy.deepcopy(inner.pop(0)))
        else:
            parts.append(copy.deepcopy(o))
    parts += [copy.deepcopy(i) for i in inner]
    return parts[0] if len(parts) == 1 else gast.Tuple(elts=parts, ctx=gast.Load())


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
        out.append((made, [order[q][0] for q in through]))
    return renames, out


def _another_name(made, alias, source, kinds):
    """`alias = source` of an array."""
    kind = kinds.get(source)
    return isinstance(made, gast.Assign) and len(made.targets) == 1 \
        and isinstance(made.targets[0], gast.Name) and made.targets[0].id == alias \
        and isinstance(made.value, gast.Name) and made.value.id == source \
        and kind is not None and kind.is_array


def _basic_view(made, alias, source, kinds):
    """`alias = source[i, :, j]`: integer (number) indices and full slices."""
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
            if i.lower is not None or i.upper is not None or i.step is not None:
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


