"""Copies that keep the derivative's writes off the caller's arrays: an
argument array the function writes into is copied at the top, and arrays
written in place that a result returns are copied where they are kept."""
import gast

from ..analysis import kinds as K
from ..analysis.aliases import memory_sources, written_memory
from ..syntax import assign, base_name, call, const, name, subscript, walk, walk_stmts


def copy_written_args(tree, args):
    """Arrays the function writes into are copied, so neither the
    primal writes nor the reverse sweep's restores reach the caller's."""
    written = written_memory(tree)  # through a second name too (buf = x)
    return [assign(a, call(gast.Attribute(value=name(a), attr="copy", ctx=gast.Load())))
            for a in args if a in written]


def written_in_place(stmts):
    """Names of arrays an element or slice of which the statements assign."""
    out = set()
    for node in walk(gast.Module(body=stmts, type_ignores=[])):
        if isinstance(node, gast.Subscript) and isinstance(node.ctx, gast.Store):
            base = base_name(node)
            if base is not None:
                out.add(base)
    return out


def with_aliases(arrays, stmts):
    """`arrays` and every name bound to one of them by a value that may share
    its memory: `a = b`, a view `a = b[i]`, `a = b.T`, `np.reshape(b, s)`,
    and any other call of b (a helper may return its argument, or a view of
    it: reshape_like)."""
    pairs = [(s.targets[0].id, source) for s in walk_stmts(stmts)
             if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)
             for source in memory_sources(s.value, lambda _: False, True)]
    out = set(arrays)
    while True:
        more = {a for a, b in pairs if b in out} | {b for a, b in pairs if a in out}
        if more <= out:
            return out
        out |= more


def copying(value, written, kinds):
    """`value` (a name or a tuple of atoms) with each array in `written` copied."""
    if isinstance(value, gast.Tuple):
        return gast.Tuple(elts=[copying(e, written, kinds) for e in value.elts], ctx=gast.Load())
    kind = kinds.get(value.id, K.UNKNOWN) if isinstance(value, gast.Name) else None
    if kind is not None and value.id in written and kind.tag == "tuple":
        # (the cotangent of a tuple: a list of arrays of different shapes, copied by item)
        return gast.Tuple(elts=[call("np.copy", subscript(value.id, const(k))) if item.is_array
                                else subscript(value.id, const(k))
                                for k, item in enumerate(kind.items)], ctx=gast.Load())
    if kind is not None and value.id in written and not kind.is_scalar:
        return call("np.copy", name(value.id))
    return value
