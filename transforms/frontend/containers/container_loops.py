"""Loops over a container argument, unrolled before it is flattened, and
the questions about one its structure answers (`p.get('a', x)`,
`isinstance(p, dict)`).

The structure of a container argument (its keys, in order) is known when
the derivative is generated (it is specialised per structure), so

    for k, v in p.items():        k = 'a'; v = p['a'] ... (the body, once per key)
        total += np.sum(v) * w[k]

is the body once per entry, with the loop's names replaced by the entry's
key and value (`p['a']`, a constant key the flattening follows). Iterating
over a dict, its .keys(), .values(), .items(), sorted() of its keys or items,
over a list, tuple or NamedTuple argument, and enumerate() of any of these,
is unrolled; the loop's names must not be assigned in the body nor read
after the loop, and the body must not break or continue (refused with the
line otherwise).

A list comprehension or generator over one (`[w * 2 for w in ws]`,
`sum(f(w) for w in ps)`) is the list literal of its element once per
entry (`[ws[0] * 2, ws[1] * 2]`), as Python evaluates it; a generator is
unrolled only where a call consumes it at once (an argument of `sum`,
`tuple`, `np.stack`, ...). Several `for`s over a container and its entries
(`[w for layer in params for w in layer]`) give the entries' elements in
order. One with an `if` or a name bound again inside the element is refused (and a dict comprehension over a
container argument, by dict_comprehensions.py)."""
import gast

from ...syntax import clone, const, walk


def unroll(rewrite, loop):
    """The statements replacing `loop` (a gast.For), or None when it does
    not iterate over a container argument. `rewrite` is the flattening
    (flatten_args._Rewrite): its `part` and `refuse`."""
    entries = _entries(rewrite, loop.iter)
    if entries is None:
        return None
    arg = entries[1]
    targets = {n.id for n in walk(loop.target) if isinstance(n, gast.Name)}
    if loop.orelse or any(isinstance(n, (gast.Break, gast.Continue))
                          for s in loop.body for n in walk(s)):
        rewrite.refuse(loop, "a loop over a container argument with break, continue or else",
                       arg, "Write the loop without them")
    mappings = []
    for entry in entries[0]:
        mappings.append({})
        _bind(rewrite, loop, loop.target, entry, mappings[-1], arg)
    keys = {n for m in mappings for n, e in m.items() if isinstance(e, gast.Constant)}
    if all(_is_leaf(rewrite, e) for m in mappings for e in m.values()) and not any(
            isinstance(n, gast.Name) and n.id in keys and not isinstance(n.ctx, gast.Load)
            for s in loop.body for n in walk(s)):
        # every name the loop binds is a key, a number or an array: assigned
        # per entry as Python does (the last entry's stay after the loop);
        # a key is also written in, for the reads it indexes (params[name])
        out = []
        for m in mappings:
            out += [gast.copy_location(gast.Assign(targets=[gast.Name(
                id=n, ctx=gast.Store(), annotation=None, type_comment=None)], value=clone(e),
                type_comment=None), loop) for n, e in m.items()]
            constants = _Substitute({n: e for n, e in m.items() if n in keys})
            out += [constants.visit(clone(s)) for s in loop.body]
        return out
    if any(isinstance(n, gast.Name) and n.id in targets and not isinstance(n.ctx, gast.Load)
           for s in loop.body for n in walk(s)):
        rewrite.refuse(loop, "assigning to the names of a loop over a container argument", arg,
                       "Give the new value a name of its own")
    inside = {id(n) for n in walk(loop)}
    for other in walk(rewrite.parsed.tree):  # another loop binding the name: its own
        if isinstance(other, gast.For) and other is not loop and targets & {
                n.id for n in walk(other.target) if isinstance(n, gast.Name)}:
            inside |= {id(n) for s in other.body for n in walk(s)}
    if any(isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id in targets
           and id(n) not in inside for n in walk(rewrite.parsed.tree)):
        rewrite.refuse(loop, "a name of a loop over a container argument used outside the loop",
                       arg, "Use a name of its own outside the loop")
    out = []
    for mapping in mappings:
        out += [_Substitute(mapping).visit(clone(s)) for s in loop.body]
    return out


def _is_leaf(rewrite, entry):
    """Whether an entry a loop binds is a constant (a key, a position) or a
    leaf of a container argument (a number or an array)."""
    if isinstance(entry, gast.Constant):
        return True
    part = rewrite.part(entry) if isinstance(entry, (gast.Name, gast.Subscript,
                                                     gast.Attribute)) else None
    return part is not None and part[2].is_leaf


def _entries(rewrite, node):
    """([entry expression per iteration], argument) for an iterable over a
    container argument, else None."""
    if isinstance(node, gast.Call) and not node.keywords and len(node.args) == 1 \
            and isinstance(node.func, gast.Name) and node.func.id in ("enumerate", "sorted"):
        inner = _entries(rewrite, node.args[0])
        if inner is None:
            return None
        entries, arg = inner
        if node.func.id == "enumerate":
            return [gast.Tuple(elts=[const(i), e], ctx=gast.Load())
                    for i, e in enumerate(entries)], arg
        keys = [e.elts[0].value if isinstance(e, gast.Tuple) else getattr(e, "value", None)
                for e in entries]
        if not all(isinstance(e, gast.Constant) or isinstance(e, gast.Tuple) for e in entries):
            rewrite.refuse(node, "sorted() of a container argument's values", arg,
                           "Sort its keys (sorted(p), sorted(p.items()))")
        try:
            order = sorted(range(len(keys)), key=keys.__getitem__)
        except TypeError:
            rewrite.refuse(node, "sorted() of keys that do not compare", arg, "Use str keys")
        return [entries[i] for i in order], arg
    method = None
    if isinstance(node, gast.Call) and not node.args and not node.keywords \
            and isinstance(node.func, gast.Attribute) \
            and node.func.attr in ("keys", "values", "items"):
        method, node = node.func.attr, node.func.value
    if not isinstance(node, (gast.Name, gast.Subscript, gast.Attribute)):
        return None
    part = rewrite.part(node)
    if part is None or part[2].is_leaf:
        return None
    arg, _, structure = part
    if method is not None and structure.node != "dict" or structure.node == "dataclass":
        return None  # (a dataclass is not iterable: refused as a use of the whole)
    if structure.node == "dict":
        method = method or "keys"
    elif structure.node == "namedtuple":
        method = "fields"
    else:
        method = "values"
    entries = []
    for key in structure.keys:
        if method == "fields":
            value = gast.Attribute(value=clone(node), attr=key, ctx=gast.Load())
        else:
            value = gast.Subscript(value=clone(node), slice=const(key), ctx=gast.Load())
        entries.append({"keys": const(key), "fields": value, "values": value,
                        "items": gast.Tuple(elts=[const(key), value], ctx=gast.Load())}[method])
    return entries, arg


def _bind(rewrite, loop, target, entry, mapping, arg):
    if isinstance(target, gast.Name):
        mapping[target.id] = entry
        return
    if isinstance(target, (gast.Tuple, gast.List)) and isinstance(entry, gast.Tuple) \
            and len(target.elts) == len(entry.elts):
        for t, e in zip(target.elts, entry.elts):
            _bind(rewrite, loop, t, e, mapping, arg)
        return
    part = None if isinstance(entry, gast.Tuple) else rewrite.part(entry)
    if isinstance(target, (gast.Tuple, gast.List)) and part is not None \
            and part[2].node in ("list", "tuple", "namedtuple") \
            and len(part[2].keys) == len(target.elts):
        # for W, b in layers: an entry that is itself a tuple, list or
        # NamedTuple unpacks by position into its parts
        for t, key in zip(target.elts, part[2].keys):
            e = gast.Attribute(value=clone(entry), attr=key, ctx=gast.Load()) \
                if part[2].node == "namedtuple" else \
                gast.Subscript(value=clone(entry), slice=const(key), ctx=gast.Load())
            _bind(rewrite, loop, t, e, mapping, arg)
        return
    rewrite.refuse(loop, "this unpacking of a container argument's entries", arg,
                   "Unpack (key, value) pairs of .items(), (i, entry) of enumerate(), or an "
                   "entry that is a tuple, list or NamedTuple of as many parts")


class _Substitute(gast.NodeTransformer):
    def __init__(self, mapping):
        self.mapping = mapping

    def visit_Name(self, node):
        if isinstance(node.ctx, gast.Load) and node.id in self.mapping:
            return gast.copy_location(clone(self.mapping[node.id]), node)
        return node


class StructureQueries(gast.NodeTransformer):
    """`p.get(key, default)` with a constant key is `p[key]` when the dict
    has the key, else `default` (None when not given); `len(p)` is the
    number of its entries; `isinstance(p, T)`
    of a dict, list or tuple argument is a constant (a NamedTuple is a
    tuple; any other class is left, and refused as a use of the whole)."""

    def __init__(self, rewrite):
        self.rewrite = rewrite

    def visit_Call(self, node):
        self.generic_visit(node)
        func = node.func
        if isinstance(func, gast.Attribute) and func.attr == "get" and not node.keywords \
                and 1 <= len(node.args) <= 2 and isinstance(node.args[0], gast.Constant):
            part = self.rewrite.part(func.value) if isinstance(
                func.value, (gast.Name, gast.Subscript, gast.Attribute)) else None
            if part is not None and part[2].node == "dict":
                key = node.args[0].value
                if part[2].child(key) is not None:
                    new = gast.Subscript(value=func.value, slice=const(key), ctx=gast.Load())
                else:
                    new = node.args[1] if len(node.args) == 2 else const(None)
                return gast.copy_location(new, node)
        if isinstance(func, gast.Name) and len(node.args) == 1 and not node.keywords \
                and isinstance(node.args[0], (gast.Name, gast.Subscript, gast.Attribute)) \
                and self.rewrite.parsed.resolve(func) is len:
            part = self.rewrite.part(node.args[0])
            if part is not None and part[2].node in ("dict", "list", "tuple", "namedtuple"):
                return gast.copy_location(const(len(part[2].children)), node)  # len(p)
        if isinstance(func, gast.Name) and len(node.args) == 2 and not node.keywords \
                and self.rewrite.parsed.resolve(func) is isinstance \
                and isinstance(node.args[0], (gast.Name, gast.Subscript, gast.Attribute)):
            part = self.rewrite.part(node.args[0])
            if part is not None and not part[2].is_leaf:
                kinds = node.args[1]
                resolve = self.rewrite.parsed.resolve
                answer = _isinstance(part[2], tuple(resolve(k) for k in kinds.elts)
                                     if isinstance(kinds, gast.Tuple) else resolve(kinds))
                if answer is not None:
                    return gast.copy_location(const(answer), node)
        return node


def _nested_entries(comprehensions, node, entries, arg):
    """The elements of a comprehension with several fors whose first runs
    over a container argument: per entry, those of the comprehension of the
    other fors, which must run over the entry (a container too)."""
    elements = []
    for entry in entries:
        mapping = {}
        _bind(comprehensions.rewrite, node, node.generators[0].target, entry, mapping, arg)
        inner = gast.ListComp(elt=clone(node.elt), generators=[clone(g) for g in
                                                                 node.generators[1:]])
        inner = comprehensions.visit(_Substitute(mapping).visit(inner))
        if not isinstance(inner, gast.List):
            comprehensions.rewrite.refuse(
                node, "a comprehension whose second for does not run over a container "
                "argument's entry", arg, "Write it as nested for loops")
        elements += inner.elts
    return elements


def _isinstance(structure, types_):
    types_ = types_ if isinstance(types_, tuple) else (types_,)
    if not all(isinstance(t, type) for t in types_):
        return None
    own = {"dict": dict, "list": list, "tuple": tuple}.get(structure.node)
    if own is not None:
        return any(issubclass(own, t) for t in types_)
    if any(t is tuple or t is object for t in types_):  # a NamedTuple
        return True
    return None


class Comprehensions(gast.NodeTransformer):
    """Comprehensions over a container argument: the literal of their
    element per entry (see the module's docstring)."""

    def __init__(self, rewrite):
        self.rewrite = rewrite
        self.consumed = set()  # ids of generators given directly to a call

    def visit_Call(self, node):
        self.consumed |= {id(a) for a in node.args if isinstance(a, gast.GeneratorExp)}
        self.generic_visit(node)
        return node

    def visit_ListComp(self, node):
        return self.unrolled(node, lambda elts: gast.List(elts=elts, ctx=gast.Load()))

    def visit_GeneratorExp(self, node):
        return self.unrolled(node, lambda elts: gast.List(elts=elts, ctx=gast.Load()))

    def unrolled(self, node, build):
        self.generic_visit(node)
        entries = _entries(self.rewrite, node.generators[0].iter)
        if entries is None:
            return node
        entries, arg = entries
        what = "a comprehension over a container argument"
        if isinstance(node, gast.GeneratorExp) and id(node) not in self.consumed:
            self.rewrite.refuse(node, f"{what} kept as a generator", arg,
                                "Give it directly to the call consuming it (sum(...)), or "
                                "make it a list comprehension")
        gen = node.generators[0]
        if any(g.ifs for g in node.generators):
            self.rewrite.refuse(node, f"{what} with an if", arg,
                                "Write it as a for loop over the container")
        if len(node.generators) > 1:  # [w for layer in params for w in layer]
            return gast.copy_location(build(_nested_entries(self, node, entries, arg)), node)
        targets = {n.id for n in walk(gen.target) if isinstance(n, gast.Name)}
        parts = [node.elt]
        if any(isinstance(n, gast.NamedExpr) or isinstance(n, gast.Name) and n.id in targets
               and not isinstance(n.ctx, gast.Load) for e in parts for n in walk(e)) or any(
                isinstance(n, gast.comprehension) and targets & {
                    m.id for m in walk(n.target) if isinstance(m, gast.Name)}
                for e in parts for n in walk(e)):
            self.rewrite.refuse(node, f"{what} binding its names again inside", arg,
                                "Use names of their own inside")
        out = []
        for entry in entries:
            mapping = {}
            _bind(self.rewrite, node, gen.target, entry, mapping, arg)
            out.append(_Substitute(mapping).visit(clone(node.elt)))
        return gast.copy_location(build(out), node)
