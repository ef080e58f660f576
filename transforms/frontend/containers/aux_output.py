"""`has_aux=True` (as in JAX): the function returns `(output, aux)` and only
the output is differentiated and seeded. The aux leaves the compiled code
as a tuple (numba returns no dicts or lists of mixed values): dict and list
literals in the returned aux become tuples here, and the caller rebuilds
them from the structure recorded (`rebuild_aux`)."""
import gast

from ...analysis import kinds as K
from ...errors import UnsupportedSyntaxError
from ...names import Namer
from .dicts import local_dict_keys
from ...syntax import clone, const, name, own_blocks

HINT = ("With has_aux=True the function returns a pair (output, aux), as in JAX: only "
        "the output is differentiated")


def flatten_aux_returns(tree, location, resolve=lambda node: None):
    """Rewrite the aux of every `return output, aux` of the function (not of
    functions nested in it): a dict or list literal becomes the tuple of its
    values, and so does a local dict (bound once to a literal with constant
    keys, which dicts.py makes variables of: its keys are the literal's)
    returned by name. A `return pair` of any other expression becomes `pair = ...;
    output, aux = pair; return output, aux`. Returns the aux's structure
    (None: returned as it is) and the names given to such pairs, whose
    kinds `check_pair_kinds` checks."""
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
    return (structures[0][0] if structures else None), pairs


def check_pair_kinds(pairs, kinds, location):
    """A `return pair` of a has_aux function (flatten_aux_returns) must
    return a tuple of two values (a helper's pair, a name bound to one); JAX
    refuses anything else, an array of two elements included."""
    for pair, stmt in pairs:
        kind = kinds.get(pair, K.UNKNOWN)
        if kind.tag != "tuple" or len(kind.items) != 2:
            what = f"a tuple of {len(kind.items)} values" if kind.tag == "tuple" else \
                (f"a value of kind {kind}" if kind.known else "a value of unknown kind")
            raise TypeError(f"{location.describe(stmt)}: expected a function with aux output "
                            f"to return a two-element tuple (output, aux), but it returns "
                            f"{what}. {HINT}; return `output, aux`, or differentiate "
                            f"without has_aux.")


def check_pair(spec, parsed):
    """The output to differentiate of a has_aux function: the first of the
    pair it returns. A function not returning a pair gets JAX's TypeError."""
    ret = spec.tree.body[-1]
    if not spec.returns_tuple or len(spec.outputs) != 2:
        what = (f"a tuple of {len(spec.outputs)} values" if spec.returns_tuple
                else "a single value")
        raise TypeError(f"{parsed.location.describe(ret)}: expected a function with aux output "
                        f"to return a two-element tuple (output, aux), but {parsed.name} "
                        f"returns {what}. {HINT}; return `output, aux`, or differentiate "
                        f"without has_aux.")
    out = spec.outputs[0]
    if isinstance(out, gast.Name) and spec.kinds.get(out.id, K.UNKNOWN).tag == "tuple":
        raise UnsupportedSyntaxError(
            "a tuple as the output of the pair a has_aux function returns", parsed.location,
            ret, "Differentiate one float or array output (or a tuple output, without "
            "has_aux); put the rest into the aux")
    return spec.outputs[:1]


def gradients_and_aux(gradients, value):
    """What a has_aux gradient returns as a function (grad inside a
    differentiated function), as jax.grad: `(gradients, aux)`, the aux
    taken from `value`, the returned pair."""
    aux = clone(value.elts[1]) if isinstance(value, gast.Tuple) else gast.Subscript(
        value=clone(value), slice=const(1), ctx=gast.Load())
    return gast.Tuple(elts=[gradients, aux], ctx=gast.Load())


def rebuild_aux(structure, value):
    """The aux as the function returned it, from the tuple the compiled
    code returned."""
    if structure is None:
        return value
    tag, parts = structure[0], structure[-1]
    items = [rebuild_aux(p, v) for p, v in zip(parts, value)]
    if tag == "dict":
        return dict(zip(structure[1], items))
    return items if tag == "list" else tuple(items)


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
