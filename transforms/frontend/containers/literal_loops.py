"""A loop over a tuple or list written out in the loop,

    for w in (w1, w2 * 2.0, w3):          w = w1
        total = total + np.sum(w ** 2)    total = total + np.sum(w ** 2)
                                    ->    w = w2 * 2.0
                                          total = total + np.sum(w ** 2)
                                          ...

is its body once per element, the loop's target assigned each element as
the loop would assign it (so the target keeps the last element after the
loop, as in Python). The elements are values of different names, maybe of
different kinds, which no array holds; unrolled, each is a variable with its
own gradient. Python evaluates the tuple once, before the first iteration:
when the body assigns a name an element reads, the elements are first taken
into variables of their own.

A loop over `.items()`, `.keys()` or `.values()` of a local dict with
constant keys (dicts.py) is such a loop over its entries, `(("a", d["a"]),
("b", d["b"]))`: the keys are fixed, and each value is read when its
iteration starts, as a dict's view reads it.

A loop over a local name bound once to a tuple or list literal and only
read (`params = [(w1, b1), (w2, b2)]` then `for w, b in params:`, also
`enumerate(params)`) is the loop over its elements `(params[0],
params[1])` (`((0, params[0]), ...)`), each read when its iteration
starts, as Python's iterator reads the list. So is a loop over a slice of
it with constant bounds (`for w, b in params[:-1]`: `(params[0],)`), the
elements Python's slice would give.

A loop over constants only (`for c in (1.0, 2.0)`) stays a loop, and so
does one with `break`, `continue` or `else` (refused later if its elements
need a gradient)."""
import gast

from .common import constant_slice, iterated
from .dict_keys import local_dict_keys
from ...syntax import assign, clone, name, walk

_MOST_ELEMENTS = 32  # (longer ones stay loops: the body would be repeated that often)


def run(fn_tree, ctx):
    dict_keys = local_dict_keys(fn_tree, ctx.resolve).get  # (a local dict's loops too)
    sequences = _read_only_literals(fn_tree)
    fn_tree.body = _block(fn_tree.body, ctx.namer, dict_keys, sequences)
    return fn_tree


def _read_only_literals(fn_tree):
    """{name: length} of the names bound once, to a tuple or list literal,
    and otherwise only iterated, read at a constant index or given to len."""
    if not any(n.__class__ is gast.Assign and n.value.__class__ in (gast.Tuple, gast.List)
               for n in walk(fn_tree)):
        return {}  # (no literal is bound to a name: skip the map of parents)
    bound, other = {}, set()
    parents = {}
    for node in walk(fn_tree):
        for child in gast.iter_child_nodes(node):
            parents[id(child)] = node
    for node in walk(fn_tree):
        if isinstance(node, (gast.FunctionDef, gast.Lambda)) and node is not fn_tree:
            other |= {n.id for n in walk(node) if isinstance(n, gast.Name)}
        if not isinstance(node, gast.Name):
            continue
        parent = parents.get(id(node))
        if isinstance(node.ctx, gast.Store):
            ok = isinstance(parent, gast.Assign) and parent.targets == [node] and isinstance(
                parent.value, (gast.Tuple, gast.List)) and not any(
                isinstance(e, gast.Starred) for e in parent.value.elts)
            if ok and node.id not in bound:
                bound[node.id] = len(parent.value.elts)
            else:
                other.add(node.id)
        elif isinstance(parent, gast.For) and parent.iter is node:
            continue
        elif isinstance(parent, gast.Subscript) and parent.value is node and isinstance(
                parent.ctx, gast.Load) and constant_slice(parent.slice) is not None \
                and iterated(parent, parents):
            continue
        elif isinstance(parent, gast.Subscript) and parent.value is node and isinstance(
                parent.ctx, gast.Load) and _constant_index(parent.slice):
            continue
        elif isinstance(parent, gast.Call) and isinstance(parent.func, gast.Name) \
                and parent.args == [node] and not parent.keywords and (
                    parent.func.id == "len" or (parent.func.id == "enumerate" and isinstance(
                        parents.get(id(parent)), gast.For)
                        and parents[id(parent)].iter is parent)):
            continue
        else:
            other.add(node.id)
    return {v: n for v, n in bound.items() if v not in other}


def _block(stmts, namer, dict_keys, sequences):
    out = []
    for s in stmts:
        if isinstance(s, (gast.FunctionDef, gast.Lambda)):
            out.append(s)  # (another scope, unrolled when it is differentiated)
            continue
        for field in ("body", "orelse"):
            inner = getattr(s, field, None)
            if isinstance(inner, list):
                setattr(s, field, _block(inner, namer, dict_keys, sequences))
        if isinstance(s, gast.For):
            _dict_entries(s, dict_keys)
            it = s.iter
            counted = isinstance(it, gast.Call) and isinstance(it.func, gast.Name) \
                and it.func.id == "enumerate" and len(it.args) == 1 and not it.keywords
            seq = it.args[0] if counted else it
            indices = None
            if isinstance(seq, gast.Name) and seq.id in sequences:
                indices = range(sequences[seq.id])
            elif isinstance(seq, gast.Subscript) and isinstance(seq.value, gast.Name) \
                    and seq.value.id in sequences and constant_slice(seq.slice) is not None:
                indices = range(sequences[seq.value.id])[constant_slice(seq.slice)]
                seq = seq.value
            if indices is not None and not len(indices) and not s.orelse:
                continue  # (a loop over an empty slice, layers[5:] of 3: its body never runs)
            if indices is not None and len(indices):
                def element(j, k):
                    read = gast.Subscript(value=name(seq.id), slice=gast.Constant(value=k, kind=None),
                                          ctx=gast.Load())
                    return gast.Tuple(elts=[gast.Constant(value=j, kind=None), read],
                                      ctx=gast.Load()) if counted else read
                s.iter = gast.copy_location(gast.Tuple(
                    elts=[element(j, k) for j, k in enumerate(indices)], ctx=gast.Load()), it)
                if not _unrollable(s):
                    s.iter = it
        out += _unrolled(s, namer) if _unrollable(s) else [s]
    return out


def _constant_index(node):
    """An int constant, or a negative one (`-1`)."""
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        node = node.operand
    return isinstance(node, gast.Constant)


def _dict_entries(loop, dict_keys):
    it = loop.iter
    if not (isinstance(it, gast.Call) and not it.args and not it.keywords
            and isinstance(it.func, gast.Attribute) and isinstance(it.func.value, gast.Name)
            and it.func.attr in ("items", "keys", "values")):
        return
    keys = dict_keys(it.func.value.id)
    if not keys:
        return
    d, view = it.func.value.id, it.func.attr

    def value(k):
        return gast.Subscript(value=name(d), slice=gast.Constant(value=k, kind=None),
                              ctx=gast.Load())
    entries = [gast.Constant(value=k, kind=None) if view == "keys" else value(k)
               if view == "values" else gast.Tuple(elts=[gast.Constant(value=k, kind=None),
                                                         value(k)], ctx=gast.Load())
               for k in keys]
    loop.iter = gast.copy_location(gast.Tuple(elts=entries, ctx=gast.Load()), it)


def _unrollable(s):
    if not (isinstance(s, gast.For) and isinstance(s.iter, (gast.Tuple, gast.List))
            and not s.orelse and 0 < len(s.iter.elts) <= _MOST_ELEMENTS):
        return False
    elts = s.iter.elts
    if any(isinstance(e, gast.Starred) for e in elts) or all(
            isinstance(n, gast.Constant) or (isinstance(n, gast.Tuple) and all(
                isinstance(c, gast.Constant) for c in n.elts)) for n in elts):
        return False
    return not any(isinstance(n, (gast.Break, gast.Continue)) for b in s.body for n in walk(b))


def _unrolled(loop, namer):
    elts = list(loop.iter.elts)
    read = {n.id for e in elts for n in walk(e) if isinstance(n, gast.Name)}
    stored = {n.id for b in loop.body for n in walk(b)
              if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load)}
    stored |= {n.id for n in walk(loop.target) if isinstance(n, gast.Name)}
    out = []
    if read & stored:  # the body changes what an element reads: evaluate them first
        for k, e in enumerate(elts):
            if not isinstance(e, gast.Constant):
                t = namer.fresh("element")
                out.append(assign(t, e, src=loop))
                elts[k] = name(t)
    for e in elts:
        out += _assign_each(loop.target, e, loop)
        out += [clone(b) for b in loop.body]
    return out


def _assign_each(target, value, loop):
    """`target = value`, a tuple target given a tuple written out (`k, (w, b)
    = 0, params[0]`) as one assignment per part, when no part reads a name
    another assigns (Python evaluates the value first)."""
    if not (isinstance(target, gast.Tuple) and isinstance(value, (gast.Tuple, gast.List))
            and len(target.elts) == len(value.elts)
            and not any(isinstance(e, gast.Starred) for e in target.elts + value.elts)):
        return [assign(clone(target), clone(value), src=loop)]
    stored = {n.id for n in walk(target) if isinstance(n, gast.Name)}
    if any(isinstance(n, gast.Name) and n.id in stored for e in value.elts for n in walk(e)):
        return [assign(clone(target), clone(value), src=loop)]
    return [a for t, v in zip(target.elts, value.elts) for a in _assign_each(t, v, loop)]
