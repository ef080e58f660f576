"""`zip` of sequences whose lengths the source says, taken apart or looped
over, is the tuples it makes:

    a, b = zip(*t)       (t a tuple argument     a, b = ((t_0_0, t_1_0),
                          of two pairs: t_0_0,           (t_0_1, t_1_1))
                          t_0_1, t_1_0, t_1_1)
    for p, q in zip(u, v)  (u, v bound to          for p, q in ((u[0], v[0]),
                            pairs written out)                  (u[1], v[1])):

(as long as the shortest, as zip stops), so the passes that follow a tuple
written out follow it. A sequence's length is known when it is written
out, is a name bound once to one written out (star_forms.py's rule), or an
element of such a name at a constant index; a container argument is
written out by then (flatten_args.py). This holds where zip's result is
used once, as Python's iterator can be: unpacked, looped over, or given to
`list` or `tuple`. A tuple written out as an argument with elements
computed there (`zip((x, 2.0), (3.0, x * x))`) is bound to a name just
before the statement, so each element is evaluated once, in Python's
order (where the call is evaluated conditionally or repeatedly, only
arithmetic elements, none of them left out, are taken).

A star of a parameter (`f(*t)`) left by star_forms.py for this stage is
refused here when the argument is not a tuple or list of known structure
(an array: its length is known only when the function runs)."""
import gast

from ...errors import UnsupportedSyntaxError
from ...names import fresh_name
from ...syntax import clone, parents_of, walk


def run(tree, ctx):
    """Rewrite `tree` in place (the tree if it changed)."""
    for n in walk(tree):
        where = getattr(n, "s2sad_star_parameter", None)
        if where:
            raise UnsupportedSyntaxError(
                f"star-unpacking in {where} of a value whose length is known only when the "
                f"function runs (an array, or a list that changes)", ctx.location, n,
                "Pass a tuple (its length is then known), or pass the array whole and index "
                "it, write the elements out (f(x[0], x[1])), or build the array with "
                "np.concatenate((x, [y]))")
    zips = [n for n in walk(tree) if isinstance(n, gast.Call) and _is_zip(n, ctx)]
    if not zips:
        return None
    lengths = _Lengths(tree)
    parents = parents_of(tree)
    taken = set(ctx.namespace) | {n.id for n in walk(tree) if isinstance(n, gast.Name)}
    changed = False
    for call in zips:
        parent = parents.get(id(call))
        if isinstance(parent, gast.Call) and isinstance(parent.func, gast.Name) and \
                parent.func.id in ("list", "tuple") and parent.args == [call] \
                and not parent.keywords and parent.func.id not in ctx.parsed.local_names:
            target, kind = parent, gast.List if parent.func.id == "list" else gast.Tuple
        elif (isinstance(parent, gast.Assign) and parent.value is call and isinstance(
                parent.targets[0], (gast.Tuple, gast.List))) or (
                isinstance(parent, (gast.For, gast.comprehension)) and parent.iter is call):
            target, kind = call, gast.Tuple
        else:
            continue  # (used as an iterator: kept)
        _hoist(call, parents, lengths, taken)
        made = _zipped(call, lengths)
        if made is None:
            continue
        _replace(parents, target, gast.copy_location(kind(elts=made, ctx=gast.Load()), call))
        changed = True
    return tree if changed else None


def _is_zip(call, ctx):
    return isinstance(call.func, gast.Name) and ctx.namespace.get(call.func.id) is zip \
        and call.func.id not in ctx.parsed.local_names and not call.keywords \
        and not any(isinstance(a, gast.Starred) for a in call.args)


def _hoist(call, parents, lengths, taken):
    """A tuple written out as zip's argument, with elements computed there
    (`zip((x, 2.0), (3.0, x * x))`), bound to a name of its own just before
    the statement: evaluated once, in Python's order. Not where the call is
    evaluated conditionally or repeatedly (in a comprehension, a branch of
    a conditional expression, a while loop's test)."""
    computed = [a for a in call.args if _display(a) and not all(_pure(e) for e in a.elts)]
    if not computed:
        return
    up, child = parents.get(id(call)), call
    while up is not None and not isinstance(up, gast.stmt):
        if isinstance(up, (gast.ListComp, gast.GeneratorExp, gast.SetComp, gast.DictComp,
                           gast.Lambda, gast.IfExp, gast.BoolOp)):
            return
        up, child = parents.get(id(up)), up
    if up is None or (isinstance(up, gast.While) and child is up.test):
        return
    block = next((v for _, v in gast.iter_fields(parents.get(id(up)))
                  if isinstance(v, list) and any(e is up for e in v)), None)
    if block is None:
        return
    at = next(k for k, e in enumerate(block) if e is up)
    for a in computed:
        held = fresh_name("zipped", taken)
        block.insert(at, gast.copy_location(gast.Assign(
            targets=[gast.Name(id=held, ctx=gast.Store(), annotation=None, type_comment=None)],
            value=a, type_comment=None), up))
        at += 1
        lengths.bound[held] = a
        call.args = [gast.copy_location(gast.Name(id=held, ctx=gast.Load(), annotation=None,
                                                  type_comment=None), a) if e is a else e
                     for e in call.args]


def _replace(parents, old, new):
    parent = parents[id(old)]
    for field, value in gast.iter_fields(parent):
        if value is old:
            setattr(parent, field, new)
        elif isinstance(value, list):
            value[:] = [new if v is old else v for v in value]


class _Lengths:
    """The displays the names bound once to one hold."""

    def __init__(self, tree):
        stores, self.bound = {}, {}
        for n in walk(tree):
            if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
                stores[n.id] = stores.get(n.id, 0) + 1
            if isinstance(n, gast.Assign) and len(n.targets) == 1 and isinstance(
                    n.targets[0], gast.Name) and _display(n.value):
                self.bound[n.targets[0].id] = n.value
        for n in walk(tree):
            if isinstance(n, gast.Attribute) and isinstance(n.value, gast.Name):
                self.bound.pop(n.value.id, None)  # (a method may change its length)
            if isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name):
                self.bound.pop(n.target.id, None)
        self.bound = {v: d for v, d in self.bound.items() if stores.get(v) == 1}

    def elements(self, node):
        """Expressions of the elements of `node` (a sequence), or None when
        its length is not known from the source."""
        if _display(node):
            return list(node.elts)
        display, path = self.display_of(node)
        if display is None:
            return None
        return [_index(clone(node), k) for k in range(len(display.elts))]

    def display_of(self, node):
        """(the display a name, or an element of one at constant indices,
        holds, the path) or (None, None)."""
        if isinstance(node, gast.Name):
            d = self.bound.get(node.id)
            return (d, ()) if d is not None else (None, None)
        if isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Constant) \
                and type(node.slice.value) is int:
            d, path = self.display_of(node.value)
            if d is None or not -len(d.elts) <= node.slice.value < len(d.elts):
                return None, None
            inner = d.elts[node.slice.value]
            return (inner, path + (node.slice.value,)) if _display(inner) else (None, None)
        return None, None


def _display(node):
    return isinstance(node, (gast.Tuple, gast.List)) and not any(
        isinstance(e, gast.Starred) for e in node.elts)


def _index(base, k):
    return gast.Subscript(value=base, slice=gast.Constant(value=k, kind=None), ctx=gast.Load())


def _zipped(call, lengths):
    """The tuples zip(*call.args) makes, or None."""
    columns = [lengths.elements(a) for a in call.args]
    if not columns or any(c is None for c in columns):
        return None
    n = min(len(c) for c in columns)
    for a in call.args:
        # (an element computed in a display is evaluated once, as Python does,
        # and in another order: arithmetic only, and none left out)
        computed = [(k, e) for k, e in enumerate(a.elts if _display(a) else ()) if not _pure(e)]
        if any(k >= n or any(isinstance(x, (gast.Call, gast.NamedExpr, gast.Yield))
                             for x in walk(e)) for k, e in computed):
            return None
    return [gast.Tuple(elts=[c[k] for c in columns], ctx=gast.Load()) for k in range(n)]


def _pure(node):
    """A read: a name, a constant, an element of a name at a constant index,
    a display of those."""
    if isinstance(node, (gast.Name, gast.Constant)):
        return True
    if isinstance(node, gast.Subscript):
        return _pure(node.value) and isinstance(node.slice, gast.Constant)
    if isinstance(node, (gast.Tuple, gast.List)):
        return all(_pure(e) for e in node.elts)
    return False
