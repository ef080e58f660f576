"""Scalar accumulators for array elements a loop keeps adding to.

In the reverse sweep of a triangular or matrix loop, an adjoint element
that does not depend on the inner counter is added to at every inner
iteration:

    for row in range(col + 1, d):
        dl[c, t] += dLxc[row] * xc[col]
        dxc[col] += dLxc[row] * l[c, t]

numba cannot keep `dxc[col]` in a register (for all it knows `dl` and `dxc`
share memory), so every iteration loads and stores it. A person writes

    dxc_col = dxc[col]
    for row in range(col + 1, d):
        ...
        dxc_col += dLxc[row] * l[c, t]
    dxc[col] = dxc_col

which is what this pass does, for arrays the derivative allocates itself
(their zeros are made once, and no other name refers to them), when the
loop touches the array only through that one `+=` at an index the loop
does not change."""
import gast

from ..syntax import (assign, base_name, binding_counts, name, names_stored, store, structure, walk,
                     walk_stmts)
from ..reverse.tapes import unparse


def promote_accumulators(body, namer, owned=None):
    """Rewrite the loops of `body` (a function's statements); `namer` gives
    fresh names; `owned`, if given, is `owned_arrays(body)`."""
    owned = _owned_arrays(body) if owned is None else owned
    if owned:
        _block(body, owned, namer)


def owned_arrays(body):
    return _owned_arrays(body)


def _owned_arrays(body):
    """Arrays bound once, to fresh zeros, and otherwise only indexed (or
    returned at the end): no other name can refer to their memory."""
    counts = binding_counts(body)
    zeros = {s.targets[0].id for s in walk_stmts(body)
             if isinstance(s, gast.Assign) and len(s.targets) == 1
             and isinstance(s.targets[0], gast.Name) and _is_zeros(s.value)}
    whole = _whole_reads(body[:-1] if body and isinstance(body[-1], gast.Return) else body)
    return {v for v in zeros if counts.get(v) == 1 and v not in whole}


def _is_zeros(expr):
    return isinstance(expr, gast.Call) and isinstance(expr.func, gast.Attribute) \
        and isinstance(expr.func.value, gast.Name) and expr.func.value.id == "np" \
        and expr.func.attr in ("zeros", "zeros_like")


def _whole_reads(stmts):
    """Names read other than as the array of a subscript."""
    indexed, loaded = set(), []
    for n in walk(gast.Module(body=stmts, type_ignores=[])):  # (one walk: a tenth of _clean)
        if n.__class__ is gast.Subscript and n.value.__class__ is gast.Name:
            indexed.add(id(n.value))
        elif n.__class__ is gast.Name and n.ctx.__class__ is gast.Load:
            loaded.append(n)
    return {n.id for n in loaded if id(n) not in indexed}


def _block(stmts, owned, namer):
    k = 0
    while k < len(stmts):
        s = stmts[k]
        for field in ("body", "orelse"):
            if isinstance(getattr(s, field, None), list):
                _block(getattr(s, field), owned, namer)
        if isinstance(s, gast.For):
            before, after = _promote(s, owned, namer)
            stmts[k:k + 1] = before + [s] + after
            k += len(before) + len(after)
        k += 1


def _promote(loop, owned, namer):
    """(loads before, stores after) for the accumulators of `loop`."""
    if not any(isinstance(s, gast.AugAssign) and isinstance(s.op, gast.Add)
               and isinstance(s.target, gast.Subscript) and isinstance(s.target.value, gast.Name)
               and s.target.value.id in owned for s in walk_stmts(loop.body)):
        return [], []  # no accumulator (a nest's loops are not each walked for nothing)
    changing = names_stored([loop])  # the counter and everything the loop assigns
    rebound = {t.id for s in walk_stmts(loop.body) if isinstance(s, gast.Assign)
               for t in s.targets if isinstance(t, gast.Name)}
    sites = {}  # array -> list of subscript nodes in the loop
    updates = {}  # array -> the AugAssign statements adding to it
    nodes = walk(loop)
    for n in nodes:
        if isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name) \
                and n.value.id in owned:
            sites.setdefault(n.value.id, []).append(n)
    for s in walk_stmts(loop.body):
        if isinstance(s, gast.AugAssign) and isinstance(s.op, gast.Add) \
                and isinstance(s.target, gast.Subscript) and base_name(s.target) in sites \
                and isinstance(s.target.value, gast.Name):  # (not dA[-1][i]: an element of a view)
            updates.setdefault(base_name(s.target), []).append(s)
    mentions = {}  # array -> how often the loop names it at all
    for n in nodes:  # (nothing above changed the loop)
        if isinstance(n, gast.Name) and n.id in sites:
            mentions[n.id] = mentions.get(n.id, 0) + 1
    before, after = [], []
    for array, nodes in sorted(sites.items()):
        adds = updates.get(array, [])
        if not adds or len(adds) != len(nodes) or array in rebound or mentions[array] != len(nodes):
            continue  # read, written otherwise (dx += e on all of it), or made anew in the loop
        index = structure(nodes[0].slice)
        if any(structure(n.slice) != index for n in nodes) or \
                _reads(nodes[0].slice) & changing:
            continue
        acc = namer.fresh(f"{array}_{_suffix(unparse(nodes[0].slice))}")
        targets = [s.target for s in adds]
        for s in adds:
            s.target = store(acc)
        load = assign(acc, gast.Subscript(value=name(array), slice=nodes[0].slice,
                                          ctx=gast.Load()))
        write = assign(gast.Subscript(value=name(array), slice=nodes[0].slice,
                                      ctx=gast.Store()), name(acc))
        load.s2sad_promotion = Promotion(load, write, adds, targets)
        before.append(load)
        after.append(write)
    return before, after


class Promotion:
    """An accumulator this pass made. Its load before the loop and store
    after it touch the element even where the loop does not run or does not
    reach the add (`if`): the index-check pass (bounds.py) undoes it where
    it cannot prove the index in range there."""
    __slots__ = ("load", "store", "adds", "targets")

    def __init__(self, load, store, adds, targets):
        self.load, self.store, self.adds, self.targets = load, store, adds, targets

    def undo(self, block):
        """The adds into the array again; the load and the store leave
        `block` (which holds them)."""
        for s, target in zip(self.adds, self.targets):
            s.target = target
        self.store.s2sad_undone = True
        block[:] = [s for s in block if s is not self.load and s is not self.store]


def _reads(expr):
    return {n.id for n in walk(expr) if isinstance(n, gast.Name)}


def _suffix(index):
    """`col` for dxc[col], `c_j` for dq[c, j], `i1` for x[i + 1]."""
    text = "".join(ch if ch.isalnum() else "_" for ch in index)
    return "_".join(p for p in text.split("_") if p) or "at"
