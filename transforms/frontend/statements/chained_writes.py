"""Chained subscript writes, C-style: `A[i][j] = v` (also `+=`, deeper
chains `A[i][j][k]`, and `A[i][1:3] = v`).

numpy writes into A only when every index but the last gives a view: for
integer indices `A[i][j] = v` is exactly `A[i, j] = v` (j any index: a
slice, a tuple, an index array). After a slice (`A[a:b][j]`) the write
lands at a shifted position, and after an index array or a boolean mask
(`A[idx][j]`) it goes into a copy and is lost. The normaliser writes the
chain as one subscript (`flatten`) and marks the statement; once the kinds
are known, `check_chained_writes` makes sure each leading index is an
integer, and refuses the statement with its line otherwise: the derivative
never guesses which of numpy's meanings the user wanted."""
import ast

import gast

from ...analysis import kinds as K
from ...errors import UnsupportedSyntaxError
from ...syntax import walk


def is_chain(target):
    """`A[i][j]` (and deeper) as an assignment target."""
    return isinstance(target, gast.Subscript) and isinstance(target.value, gast.Subscript)


def flatten(target, value, location, src):
    """(`A[i, j]`, value) for the target `A[i][j]`; a read of the same
    chain as the left operand of `+`/`-` (`A[i][j] += e`, desugared) is
    written the same way, so the increment keeps its form. The new target
    carries `s2sad_chain`: the leading indices that must be integers."""
    levels, root = [], target
    while isinstance(root, gast.Subscript):
        levels.insert(0, root.slice)
        root = root.value
    written = _source(target)
    if not isinstance(root, gast.Name):
        raise UnsupportedSyntaxError(
            f"the chained subscript write `{written} = ...` into a value that is not a variable",
            location, src, "Assign the array to a name and write `A[i, j] = ...`")
    leading = []
    for index in levels[:-1]:
        for part in _parts(index):
            if isinstance(part, gast.Slice) or (isinstance(part, gast.Constant)
                                                and part.value in (None, Ellipsis)):
                raise UnsupportedSyntaxError(
                    f"the chained subscript write `{written} = ...` (the index "
                    f"`{_source(index)}` before the last one is not an integer)",
                    location, src,
                    "numpy writes through `A[a:b][j]` at a shifted position; write the "
                    "position you mean in one subscript, e.g. `A[a + j] = ...` or "
                    "`A[i, j] = ...`")
            if isinstance(part, (gast.List, gast.Tuple)):
                raise _lost_write(written, _source(index), location, src)
            leading.append(part)
    parts = [p for index in levels for p in _parts(index)]
    flat = gast.Subscript(value=root, slice=gast.Tuple(elts=parts, ctx=gast.Load()),
                          ctx=gast.Store())
    mark = getattr(target.slice, "s2sad_access", None)
    if mark is not None:  # (bounds.py tells the accesses apart by it)
        flat.slice.s2sad_access = mark
    flat.s2sad_chain = (leading, written)
    if (isinstance(value, gast.BinOp) and isinstance(value.op, (gast.Add, gast.Sub))
            and isinstance(value.left, gast.Subscript) and _source(value.left) == written):
        read = gast.Subscript(value=root, slice=gast.Tuple(elts=list(parts), ctx=gast.Load()),
                              ctx=gast.Load())
        mark = getattr(value.left.slice, "s2sad_access", None)
        if mark is not None:
            read.slice.s2sad_access = mark
        value = gast.BinOp(left=gast.copy_location(read, value.left), op=value.op,
                           right=value.right)
    return flat, value


def check_chained_writes(tree, kinds, location, call_kind=None, nodes=None):
    """Refuse a flattened chain whose leading index is not an integer, or
    whose base is not an array (a tuple of arrays: index it with a constant
    first). `nodes`: walk(tree), if the caller has it."""
    for stmt in walk(tree) if nodes is None else nodes:  # (breadth first, as gast.walk)
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
                raise _lost_write(written, _source(part), location, stmt)
            if kind.tag != "int":
                raise UnsupportedSyntaxError(
                    f"the chained subscript write `{written} = ...` (the index "
                    f"`{_source(part)}` before the last one is {kind}, not an integer)",
                    location, stmt,
                    "Write the position in one subscript, e.g. `A[i, j] = ...` with "
                    "integer indices")


def _lost_write(written, index, location, node):
    return UnsupportedSyntaxError(
        f"the chained subscript write `{written} = ...` (`{index}` is an index array or a "
        f"mask, so numpy writes into a copy and the array is left unchanged)",
        location, node, "Write into the array in one subscript, e.g. `A[idx[j]] = ...`, "
        "or into a copy you keep: `B = A[idx]; B[j] = ...`")


def _parts(index):
    return list(index.elts) if isinstance(index, gast.Tuple) else [index]


def _source(node):
    try:
        return ast.unparse(gast.gast_to_ast(node))
    except Exception:  # noqa: BLE001 - only for the message
        return "..."
