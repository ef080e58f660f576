"""Variables holding a tuple (a helper's or a primitive's several results,
`r = h(x)`, `s = np.linalg.slogdet(A)`) become one variable per element,
once kinds are known:

    r = h(x)                 r_0, r_1 = h(x)
    y = r[1] * r[0]    ->    y = r_1 * r_0

so each element has an adjoint of its own (a tuple has no adjoint that
`+=` could add into). A list display of values of different kinds is a
tuple to the kinds: split too, an item replaced at a constant index (`lst[1]
= v`) being its part rebound, unless the list gets another name or goes to
a helper that writes into it. A tuple variable used in any other way
(written through an index, a loop target, returned whole) is left as it is."""
import gast

from ...syntax import Transformer, assign, name, names_stored, parents_of, store, walk


def run(tree, ctx):
    """Rewrite `tree` in place (the tree if anything changed: its kinds are
    inferred again)."""
    kinds, namer = ctx.kinds, ctx.namer
    args = {a.id for a in walk(tree.args) if isinstance(a, gast.Name)}
    # (only tuples that carry a gradient: a shape stays `n = shape[0]`, which the
    # bounds prover reads; only the function's own variables: the elements of a
    # module-level tuple have no names in the generated module)
    own = names_stored(tree.body)
    candidates = {v: len(k.items) for v, k in kinds.items() if isinstance(v, str)
                  and k.tag == "tuple" and v not in args and v in own and k.items
                  and k.differentiable}
    if not candidates:
        return None
    parents = parents_of(tree)
    lists = {t.id for s in walk(tree) if isinstance(s, gast.Assign)
             and isinstance(s.value, gast.List) for t in s.targets if isinstance(t, gast.Name)}
    for node in walk(tree):
        if isinstance(node, gast.Name) and node.id in candidates:
            if not _understood(node, parents, candidates[node.id], node.id in lists) or (
                    node.id in lists and _list_may_change(node, parents, ctx)):
                del candidates[node.id]
    if not candidates:
        return None
    parts = {v: [namer.fresh(f"{v}_{j}") for j in range(n)] for v, n in candidates.items()}
    _Split(parts).visit(tree)
    return tree


def _understood(node, parents, arity, a_list):
    up = parents.get(id(node))
    while up is not None:  # an output, also inside a returned tuple: the tuple itself
        if isinstance(up, gast.Return):
            return False
        up = parents.get(id(up))
    parent = parents.get(id(node))
    if isinstance(node.ctx, gast.Store):  # t = <value>: the whole target
        return isinstance(parent, gast.Assign) and parent.targets == [node]
    if isinstance(parent, gast.Subscript) and parent.value is node:
        if _constant(parent.slice, arity) is None:
            return False
        if isinstance(parent.ctx, gast.Store):  # lst[1] = v (a list's item replaced)
            above = parents.get(id(parent))
            return a_list and isinstance(above, gast.Assign) and above.targets == [parent]
        return isinstance(parent.ctx, gast.Load)
    if isinstance(parent, gast.Assign) and parent.value is node:
        target = parent.targets[0]
        return isinstance(target, gast.Name) or (isinstance(target, gast.Tuple)
                                                 and len(target.elts) == arity)
    return isinstance(parent, (gast.Call, gast.Tuple))


def _list_may_change(node, parents, ctx):
    """A list of values of different kinds (a tuple to the kinds) may be
    written into through this use: given another name (`w = v; w[0] = x`)
    or to a helper that writes into it. Such a list stays whole."""
    from ..effects.helper_effects import resolves, written_positions
    parent = parents.get(id(node))
    if isinstance(parent, gast.Assign) and parent.value is node:
        return isinstance(parent.targets[0], gast.Name)
    if isinstance(parent, gast.Call) and node in parent.args:
        parsed = ctx.parsed
        fn = ctx.readable(parsed.resolve(parent.func)) if resolves(parsed, parent.func) else None
        if fn is None:
            return True
        always, if_array = written_positions(fn, ctx.readable, ctx.parse)
        return parent.args.index(node) in always + if_array
    return False


def _constant(index, arity):
    value = index.value if isinstance(index, gast.Constant) else (
        -index.operand.value if isinstance(index, gast.UnaryOp) and isinstance(index.op, gast.USub)
        and isinstance(index.operand, gast.Constant)
        and isinstance(index.operand.value, int) else None)
    if isinstance(value, bool) or not isinstance(value, int) or not -arity <= value < arity:
        return None
    return value % arity


class _Split(Transformer):
    def __init__(self, parts):
        self.parts = parts

    def elements(self, v):
        return gast.Tuple(elts=[name(p) for p in self.parts[v]], ctx=gast.Load())

    def visit_Assign(self, node):
        target = node.targets[0]
        value = node.value
        if isinstance(target, gast.Name) and target.id in self.parts:
            parts = self.parts[target.id]
            if isinstance(value, gast.Name) and value.id in self.parts:  # t = s: element-wise
                return [gast.copy_location(assign(p, name(q)), node)
                        for p, q in zip(parts, self.parts[value.id])]
            if isinstance(value, (gast.Tuple, gast.List)) and len(value.elts) == len(parts):
                # (a list of values of different kinds is a tuple to the kinds)
                return [gast.copy_location(assign(p, self.visit(e)), node)
                        for p, e in zip(parts, value.elts)]
            node.targets = [gast.Tuple(elts=[store(p) for p in parts], ctx=gast.Store())]
            node.value = self.visit(value)
            return node
        if isinstance(value, gast.Name) and value.id in self.parts and isinstance(
                target, gast.Tuple):  # a, b = t
            return [gast.copy_location(assign(e, name(p)), node)
                    for e, p in zip(target.elts, self.parts[value.id])]
        return self.generic_visit(node)

    def visit_Subscript(self, node):
        if isinstance(node.value, gast.Name) and node.value.id in self.parts:
            parts = self.parts[node.value.id]
            part = parts[_constant(node.slice, len(parts))]
            return gast.copy_location(store(part) if isinstance(node.ctx, gast.Store)
                                      else name(part), node)
        return self.generic_visit(node)

    def visit_Name(self, node):
        if node.id in self.parts and isinstance(node.ctx, gast.Load):
            return gast.copy_location(self.elements(node.id), node)
        return node
