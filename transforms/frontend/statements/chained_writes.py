"""Chained subscript writes `A[i][j] = v` (normalize.py writes them
`A[i, j] = v` and marks them, chains.py), checked once the kinds are known:
each leading index must be an integer, since after a slice numpy writes at a
shifted position and after an index array or a mask into a copy that is
lost; the base must be an array."""
import gast

from .chains import lost_write, source_of
from ...analysis import kinds as K
from ...errors import UnsupportedSyntaxError


def run(tree, ctx):
    """Refuse a flattened chain whose leading index is not an integer, or
    whose base is not an array (a tuple of arrays: index it with a constant
    first)."""
    kinds, location, call_kind = ctx.kinds, ctx.location, ctx.call_kind
    for stmt in ctx.nodes:  # (breadth first, as gast.walk)
        if not isinstance(stmt, gast.Assign):
            continue
        target = stmt.targets[0]
        chain = getattr(target, "s2sad_chain", None)
        if chain is None:
            continue
        leading, written = chain
        base = kinds.get(target.value.id, K.UNKNOWN)
        if not base.is_array:
            raise UnsupportedSyntaxError(
                f"the chained subscript write `{written} = ...` into `{target.value.id}`, "
                f"which is not an array here (it is {base})",
                location, stmt, "Write into an array, as `A[i, j] = ...`")
        for part in leading:
            kind = K.of_atom(part, kinds, call_kind)
            if kind.is_array and kind.dtype in "ib" or kind.tag == "bool":
                raise lost_write(written, source_of(part), location, stmt)
            if kind.tag != "int":
                raise UnsupportedSyntaxError(
                    f"the chained subscript write `{written} = ...` (the index "
                    f"`{source_of(part)}` before the last one is {kind}, not an integer)",
                    location, stmt,
                    "Write the position in one subscript, e.g. `A[i, j] = ...` with "
                    "integer indices")
    return None
