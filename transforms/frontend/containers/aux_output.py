"""`has_aux=True` (as in JAX): the function returns `(output, aux)` and only
the output is differentiated and seeded. The aux leaves the compiled code
as a tuple (numba returns no dicts or lists of mixed values): dict and list
literals in the returned aux become tuples here, and the caller rebuilds
them from the structure recorded (aux.py, `rebuild_aux`)."""
import gast

from .dict_keys import local_dict_keys
from ...errors import UnsupportedSyntaxError
from ...names import Namer
from ...syntax import const, name, own_blocks

def run(tree, ctx):
    """Rewrite the aux of every `return output, aux` of a has_aux function
    (not of functions nested in it): a dict or list literal becomes the
    tuple of its values, and so does a local dict (bound once to a literal
    with constant keys, which dicts.py makes variables of: its keys are the
    literal's) returned by name. A `return pair` of any other expression
    becomes `pair = ...; output, aux = pair; return output, aux`. Sets
    `ctx.aux_structure` (None: returned as it is) and `ctx.aux_pairs`, the
    names given to such pairs, whose kinds aux_pairs.py checks."""
    if not ctx.has_aux:
        return None
    location, resolve = ctx.location, ctx.safe_resolve
    structures, pairs = [], []
    namer = Namer.for_function(tree)
    dicts = local_dict_keys(tree, resolve)
    for block in own_blocks(tree.body):
        for i in range(len(block) - 1, -1, -1):
            s = block[i]
            if not isinstance(s, gast.Return) or s.value is None:
                continue
            if not _is_pair(s.value):
                pair, output, aux = (namer.fresh(n) for n in ("pair", "output", "aux"))
                pairs.append((pair, s))
                first = gast.Assign(targets=[name(pair, gast.Store())], value=s.value,
                                    type_comment=None)
                split = gast.Assign(targets=[gast.Tuple(elts=[name(output, gast.Store()),
                                                              name(aux, gast.Store())],
                                                        ctx=gast.Store())],
                                    value=name(pair), type_comment=None)
                for new in (first, split):
                    gast.copy_location(new, s)
                s.value = gast.Tuple(elts=[name(output), name(aux)], ctx=gast.Load())
                block[i:i] = [first, split]
                continue
            aux = s.value.elts[1]
            if isinstance(aux, gast.Name) and aux.id in dicts:  # aux = {...}; return out, aux
                aux = gast.Dict(keys=[const(k) for k in dicts[aux.id]],
                                values=[gast.Subscript(value=name(aux.id), slice=const(k),
                                                       ctx=gast.Load()) for k in dicts[aux.id]])
            aux, structure = _flatten(aux, location, s)
            s.value.elts[1] = aux
            structures.append((structure, s))
    for structure, s in structures[1:] + [(None, s) for _, s in pairs]:
        if structures and structure != structures[0][0]:
            raise UnsupportedSyntaxError(
                "returning aux values of different structures (dict keys, tuple lengths) "
                "from different return statements", location, s,
                "Return an aux of the same structure from every return statement")
    ctx.aux_structure = structures[0][0] if structures else None
    ctx.aux_pairs = pairs
    return tree


def _is_pair(value):
    return isinstance(value, gast.Tuple) and len(value.elts) == 2


def _flatten(node, location, stmt):
    """(node with its dict and list literals as tuples, its structure)."""
    if isinstance(node, gast.Dict):
        if any(k is None for k in node.keys):
            raise UnsupportedSyntaxError("unpacking a dict (**) into the aux dict", location,
                                         stmt, "Write the aux dict's keys out")
        if not all(isinstance(k, gast.Constant) for k in node.keys):
            raise UnsupportedSyntaxError("an aux dict with keys that are not constants",
                                         location, stmt, "Use constant keys (\"loss\": ...)")
        keys = tuple(k.value for k in node.keys)
        if len(set(keys)) != len(keys):
            raise UnsupportedSyntaxError("an aux dict with a repeated key", location, stmt,
                                         "Give each key once")
        values, parts = _flatten_all(node.values, location, stmt)
        return gast.Tuple(elts=values, ctx=gast.Load()), ("dict", keys, parts)
    if isinstance(node, (gast.Tuple, gast.List)):
        if any(isinstance(e, gast.Starred) for e in node.elts):
            raise UnsupportedSyntaxError("a starred item in the aux", location, stmt,
                                         "Write the aux's items out")
        values, parts = _flatten_all(node.elts, location, stmt)
        tag = "list" if isinstance(node, gast.List) else "tuple"
        if tag == "tuple" and all(p is None for p in parts):
            return node, None  # a tuple of plain values comes back as it is
        return gast.Tuple(elts=values, ctx=gast.Load()), (tag, tuple(parts))
    return node, None


def _flatten_all(nodes, location, stmt):
    pairs = [_flatten(n, location, stmt) for n in nodes]
    return [p[0] for p in pairs], tuple(p[1] for p in pairs)
