"""Which names a reverse statement reads the values of (not only the
shapes): what the forward sweep must keep for it (reverse_mode.py)."""
import gast

from ..analysis.shape_classes import loads_beyond_shapes
from ..syntax import names_loaded


def value_reads(stmts, shape_only):
    """Names whose values `stmts` read. `dv = np.zeros_like(v)` reads only
    the shape of v, which stays as it is when v is bound once (`shape_only`):
    writes into v's elements need not be recorded for it."""
    out = set()
    memo = getattr(shape_only, "reads_of", None)  # (a statement is not changed once made)
    for s in stmts:
        if isinstance(s, (gast.For, gast.While, gast.If)) and not getattr(s, "s2sad_zero", False):
            out |= names_loaded(getattr(s, "iter", None) or s.test)
            out |= value_reads(s.body, shape_only) | value_reads(s.orelse, shape_only)
        elif memo is None:
            out |= statement_value_reads(s, shape_only)
        else:
            held = memo.get(id(s))
            if held is None:
                held = memo[id(s)] = (s, statement_value_reads(s, shape_only))
            out |= held[1]
    return out


def statement_value_reads(s, shape_only):
    if getattr(s, "s2sad_zero", False):
        return names_loaded(s.value) - shape_only - getattr(shape_only, "fixed", set())
    return loads_beyond_shapes(s, getattr(shape_only, "fixed", set()))
