"""The adjoint of a tuple of values of different kinds, one name per item.

A helper given a tuple (or a list the kinds take for one) of an array and a
number, `def mlp(params, x): W, b = params`, adds into the adjoint of its
parameter item by item:

    dparams = zeros_like(params)       dparams_0 = zeros_like(params[0])
    ...                                dparams_1 = zeros_like(params[1])
    dparams[0] += dW             ->    dparams_0 += dW
    dparams[1] += db                   dparams_1 += db
    return (dparams, dx)               return ((dparams_0, dparams_1), dx)

Python runs either; numba has no list of values of different types, so the
left one ran as Python (a NumbaFallbackWarning). Rewritten only where every
use of the adjoint is an item at a constant index or the whole value read."""
import gast

from ..syntax import assign, call, const, name, store, subscript, walk


def run(fdef, kinds, namer):
    """Rewrite `fdef` in place."""
    params = {a.id for a in fdef.args.args}  # (a seed given by the caller stays whole)
    for s in list(fdef.body):
        if not (isinstance(s, gast.Assign) and len(s.targets) == 1
                and isinstance(s.targets[0], gast.Name) and _zeros_of(s.value)):
            continue
        adjoint, value = s.targets[0].id, s.value.args[0].id
        if adjoint in params:
            continue
        kind = kinds.get(value)
        if kind is None or kind.tag != "tuple" or not kind.items:
            continue
        n = len(kind.items)
        if not _only_items(fdef, adjoint, s, n):
            continue
        parts = [namer.fresh(f"{adjoint}_{k}") for k in range(n)]
        _Parts(adjoint, parts).visit(fdef)
        at = fdef.body.index(s)
        fdef.body[at:at + 1] = [
            gast.copy_location(assign(p, call("zeros_like", subscript(value, const(k)))), s)
            for k, p in enumerate(parts)]


def _zeros_of(value):
    return isinstance(value, gast.Call) and isinstance(value.func, gast.Name) \
        and value.func.id == "zeros_like" and len(value.args) == 1 and not value.keywords \
        and isinstance(value.args[0], gast.Name)


def _only_items(fdef, adjoint, init, n):
    """Every use of `adjoint` but its one binding `init`: an item at a
    constant index in range, or the whole value read."""
    parents = {}
    for node in walk(fdef):
        for child in gast.iter_child_nodes(node):
            parents[id(child)] = node
    for node in walk(fdef):
        if not (isinstance(node, gast.Name) and node.id == adjoint):
            continue
        parent = parents.get(id(node))
        if isinstance(parent, gast.Subscript) and parent.value is node:
            index = parent.slice
            if not (isinstance(index, gast.Constant) and type(index.value) is int
                    and 0 <= index.value < n):
                return False
        elif isinstance(node.ctx, gast.Store):
            if parent is not init:
                return False
        elif isinstance(parent, gast.AugAssign) and parent.target is node:
            return False
    return True


class _Parts(gast.NodeTransformer):
    def __init__(self, adjoint, parts):
        self.adjoint, self.parts = adjoint, parts

    def visit_Subscript(self, node):
        if isinstance(node.value, gast.Name) and node.value.id == self.adjoint:
            part = self.parts[node.slice.value]
            return gast.copy_location(store(part) if isinstance(node.ctx, gast.Store)
                                      else name(part), node)
        return self.generic_visit(node)

    def visit_Name(self, node):
        if node.id == self.adjoint and isinstance(node.ctx, gast.Load):
            return gast.copy_location(gast.Tuple(elts=[name(p) for p in self.parts],
                                                 ctx=gast.Load()), node)
        return node
