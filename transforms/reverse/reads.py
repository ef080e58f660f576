"""Record an array's elements where the reverse sweep reads them, when that
is cheaper than restoring the array through its writes.

The reverse sweep needs the values its templates read as they were when the
forward sweep used them; by default an array is restored write by write.
For an array written more often than its values are read, e.g. Lxc in

    for j in range(d): Lxc[j] = qdiag[j] * xc[j]         # d writes
    for col in range(d - 1):
        for row in range(col + 1, d):
            Lxc[row] += l[t] * xc[col]                    # d*(d-1)/2 writes
    for j in range(d): sq += Lxc[j] * Lxc[j]              # d values read

it is cheaper to keep each value read, as a person would: the read becomes
`Lxc_j = Lxc[j]`, a loop value recorded like any other, and the writes to
Lxc need no recording at all.

Costs are counted statically: a statement inside k loops weighs TRIP**k.
"""
import gast

from ..analysis import kinds as K
from ..syntax import assign, base_name, clone, name, names_loaded, structure, walk

TRIP = 10  # the weight of one loop level (trip counts are not known here)

# operations whose adjoint reads the values of their operands
_VALUE_READING = (gast.Mult, gast.Div, gast.Pow, gast.Mod)


def record_reads_where_cheaper(tree, kinds, active, namer):
    """Rewrite `tree` in place; returns the names of the temporaries made."""
    sites, writes, whole = {}, {}, set()
    _survey(tree.body, 0, kinds, active, sites, writes, whole)
    chosen = {v for v, cost in sites.items()
              if v not in whole and cost < writes.get(v, 0)}
    if not chosen:
        return set()
    made = set()
    _rewrite(tree.body, chosen, kinds, active, namer, made)
    return made


def _element_reads(value, kinds, active=None):
    """The subscript operands of `value` whose values its adjoint may read
    (given `active`: those it reads; a product reads an operand only for the
    other operand's adjoint)."""
    if isinstance(value, gast.BinOp) and isinstance(value.op, _VALUE_READING):
        operands = [value.left, value.right]
        if active is not None and isinstance(value.op, gast.Mult):
            operands = [a for a, other in ((value.left, value.right), (value.right, value.left))
                        if _is_active(other, active)]
    elif isinstance(value, gast.Call):
        operands = list(value.args)
    else:
        return []
    return [a for a in operands if _is_element(a, kinds)]


def _is_active(atom, active):
    return isinstance(atom, (gast.Name, gast.Subscript)) and base_name(atom) in active


def _is_element(atom, kinds):
    """`v[i]` or `v[i, j]` naming one float element of an array `v`."""
    if not (isinstance(atom, gast.Subscript) and isinstance(atom.value, gast.Name)):
        return False
    kind = kinds.get(atom.value.id, K.UNKNOWN)
    if not kind.is_array or kind.dtype != "f":
        return False
    parts = atom.slice.elts if isinstance(atom.slice, gast.Tuple) else [atom.slice]
    # (v[idx] with an index array, or a part of unknown kind, is no element)
    return len(parts) == kind.ndim and all(
        not isinstance(p, gast.Slice) and K.of_atom(p, kinds).tag == "int" for p in parts)


def _survey(stmts, depth, kinds, active, sites, writes, whole):
    weight = TRIP ** depth
    for s in stmts:
        if isinstance(s, (gast.For, gast.While)):
            _survey(s.body, depth + 1, kinds, active, sites, writes, whole)
            continue
        if isinstance(s, gast.If):
            _survey(s.body, depth, kinds, active, sites, writes, whole)
            _survey(s.orelse, depth, kinds, active, sites, writes, whole)
            continue
        if not isinstance(s, gast.Assign):
            whole |= names_loaded(s)
            continue
        target = s.targets[0]
        if isinstance(target, gast.Subscript):
            v = base_name(target)
            writes[v] = writes.get(v, 0) + weight
        for key in {_key(a) for a in _element_reads(s.value, kinds, active)}:
            sites[key[0]] = sites.get(key[0], 0) + weight
        # any other use of an array (whole, sliced, or as an index) keeps it
        # restored through its writes
        element_nodes = {id(a.value) for a in _element_reads(s.value, kinds)}
        for n in walk(s.value):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) \
                    and id(n) not in element_nodes and kinds.get(n.id, K.UNKNOWN).is_array:
                if not _plain_element_read(s.value, n):
                    whole.add(n.id)


def _plain_element_read(value, node):
    """Whether `node` is the array of an element read `v[i]` that is the
    whole value or an operand of an add, a subtraction or a negation (whose
    adjoints read no values)."""
    candidates = [value]
    if isinstance(value, gast.BinOp) and isinstance(value.op, (gast.Add, gast.Sub)):
        candidates = [value.left, value.right]
    elif isinstance(value, gast.UnaryOp):
        candidates = [value.operand]
    return any(isinstance(c, gast.Subscript) and c.value is node for c in candidates)


def _key(atom):
    return (atom.value.id, structure(atom.slice))


def _rewrite(stmts, chosen, kinds, active, namer, made):
    k = 0
    while k < len(stmts):
        s = stmts[k]
        for field in ("body", "orelse"):
            block = getattr(s, field, None)
            if isinstance(block, list):
                _rewrite(block, chosen, kinds, active, namer, made)
        if isinstance(s, gast.Assign):
            temps = {}
            for atom in _element_reads(s.value, kinds, active):
                if atom.value.id not in chosen:
                    continue
                key = _key(atom)
                if key not in temps:
                    temps[key] = _temporary(atom, namer)
                    made.add(temps[key])
                    kinds[temps[key]] = K.FLOAT
                    active.add(temps[key])
                    stmts.insert(k, assign(temps[key], clone(atom), src=s))
                    k += 1
                _replace(s.value, atom, temps[key])
        k += 1


def _temporary(atom, namer):
    index = atom.slice
    parts = index.elts if isinstance(index, gast.Tuple) else [index]
    if all(isinstance(p, gast.Name) for p in parts):
        return namer.fresh(atom.value.id + "_" + "".join(p.id for p in parts))
    return namer.fresh(atom.value.id + "_item")


def _replace(value, atom, temp):
    for node in walk(value):
        for field, child in gast.iter_fields(node):
            if child is atom:
                setattr(node, field, name(temp))
            elif isinstance(child, list):
                for j, c in enumerate(child):
                    if c is atom:
                        child[j] = name(temp)
