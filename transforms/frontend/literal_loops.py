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

A loop over constants only (`for c in (1.0, 2.0)`) stays a loop, and so
does one with `break`, `continue` or `else` (refused later if its elements
need a gradient)."""
import gast

from ..syntax import assign, clone, name, walk

_MOST_ELEMENTS = 32  # (longer ones stay loops: the body would be repeated that often)


def unroll_literal_loops(fn_tree, namer, dict_keys=None):
    """`dict_keys(name)`: the keys of the dict literal a local name is bound
    to once, or None."""
    fn_tree.body = _block(fn_tree.body, namer, dict_keys or (lambda v: None))
    return fn_tree


def _block(stmts, namer, dict_keys):
    out = []
    for s in stmts:
        if isinstance(s, (gast.FunctionDef, gast.Lambda)):
            out.append(s)  # (another scope, unrolled when it is differentiated)
            continue
        for field in ("body", "orelse"):
            inner = getattr(s, field, None)
            if isinstance(inner, list):
                setattr(s, field, _block(inner, namer, dict_keys))
        if isinstance(s, gast.For):
            _dict_entries(s, dict_keys)
        out += _unrolled(s, namer) if _unrollable(s) else [s]
    return out


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
        out.append(assign(clone(loop.target), clone(e), src=loop))
        out += [clone(b) for b in loop.body]
    return out
