"""A name started as a number and made an array by its first update in
straight-line code, as a loop over a list unrolls to:

    res = 0                          res = 0 + a
    res = res + a           ->       res = res + b
    res = res + b

Python's `res` is an array from the first addition on; s2sad gives each
variable one kind (numba too), and an int joined with an array is a kind
nobody knows (`sum(res)` then found no rule). The number is put into the
statements that read it before the name is bound again, and its own
assignment dropped, so the name holds arrays throughout. Only names whose
kind is unknown are rewritten; a start read inside a loop or branch (a
loop that is not unrolled) is left as it is (Python runs it; numba cannot
type it and says so)."""
import gast

from ...syntax import clone, names_loaded, names_stored, walk

_BLOCKS = ("body", "orelse", "finalbody")


def run(tree, ctx):
    """Rewrite `tree` (normalised, with `ctx.kinds`) in place; the tree if
    anything changed (its kinds are inferred again)."""
    unknown = {v for v, k in ctx.kinds.items() if isinstance(v, str) and not k.known}
    return tree if unknown and _fold_blocks(tree.body, unknown) else None


def _fold_blocks(block, unknown):
    changed = False
    i = 0
    while i < len(block):
        s = block[i]
        start = _number_start(s, unknown)
        if start is not None and _fold(block, i, start):
            changed = True
            continue  # (block[i] is the next statement now)
        if not isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            for field in _BLOCKS:
                changed |= _fold_blocks(getattr(s, field, None) or [], unknown)
            for handler in getattr(s, "handlers", None) or []:
                changed |= _fold_blocks(handler.body, unknown)
        i += 1
    return changed


def _number_start(s, unknown):
    """The name `s` binds to a number (`res = 0`, `res = 0.0`), if its kind
    is unknown."""
    if isinstance(s, gast.Assign) and len(s.targets) == 1 \
            and isinstance(s.targets[0], gast.Name) and s.targets[0].id in unknown \
            and isinstance(s.value, gast.Constant) \
            and type(s.value.value) in (int, float):
        return s.targets[0].id
    return None


def _fold(block, i, var):
    """Put the number block[i] binds into the reads of `var` up to the next
    statement binding it, and drop block[i]; False (nothing changed) unless
    every such read is in a plain statement of this block and the name is
    bound again in one."""
    reads = []
    for s in block[i + 1:]:
        if any(getattr(s, field, None) for field in _BLOCKS + ("handlers",)) \
                or isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef)):
            if var in names_loaded(s) or var in names_stored(s):
                return False  # read or bound in a loop or branch
            continue
        if any(isinstance(n, gast.Lambda) and var in names_loaded(n.body) for n in walk(s)):
            return False  # (a lambda reads the name when called: a later value)
        reads += [n for n in walk(s) if isinstance(n, gast.Name) and n.id == var
                  and isinstance(n.ctx, gast.Load)]
        if var in names_stored(s):
            rebound = isinstance(s, gast.Assign) and all(
                isinstance(t, gast.Name) and t.id == var for t in s.targets)
            if not rebound:  # (an element write into a number, a tuple target)
                return False
            break
    else:
        return False  # never bound again: its reads keep the name
    number = block[i].value
    for node in reads:
        _replace(block, node, number)
    del block[i]
    return True


def _replace(block, old, number):
    """Put a copy of the constant `number` where the Name `old` is."""
    for s in block:
        for node in walk(s):
            for field, value in gast.iter_fields(node):
                if value is old:
                    setattr(node, field, clone(number))
                    return
                if isinstance(value, list):
                    for k, item in enumerate(value):
                        if item is old:
                            value[k] = clone(number)
                            return

