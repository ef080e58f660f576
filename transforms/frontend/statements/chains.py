"""Chained subscript writes, C-style: `A[i][j] = v` (also `+=`, deeper
chains `A[i][j][k]`, and `A[i][1:3] = v`).

numpy writes into A only when every index but the last gives a view: for
integer indices `A[i][j] = v` is exactly `A[i, j] = v` (j any index: a
slice, a tuple, an index array). After a slice (`A[a:b][j]`) the write
lands at a shifted position, and after an index array or a boolean mask
(`A[idx][j]`) it goes into a copy and is lost. The normaliser writes the
chain as one subscript (`flatten`, here) and marks the statement; once the
kinds are known, chained_writes.py makes sure each leading index is an
integer, and refuses the statement with its line otherwise: the derivative
never guesses which of numpy's meanings the user wanted."""
import ast

import gast

from ...errors import UnsupportedSyntaxError


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
    written = source_of(target)
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
                    f"`{source_of(index)}` before the last one is not an integer)",
                    location, src,
                    "numpy writes through `A[a:b][j]` at a shifted position; write the "
                    "position you mean in one subscript, e.g. `A[a + j] = ...` or "
                    "`A[i, j] = ...`")
            if isinstance(part, (gast.List, gast.Tuple)):
                raise lost_write(written, source_of(index), location, src)
            leading.append(part)
    parts = [p for index in levels for p in _parts(index)]
    flat = gast.Subscript(value=root, slice=gast.Tuple(elts=parts, ctx=gast.Load()),
                          ctx=gast.Store())
    mark = getattr(target.slice, "s2sad_access", None)
    if mark is not None:  # (bounds.py tells the accesses apart by it)
        flat.slice.s2sad_access = mark
    flat.s2sad_chain = (leading, written)
    if (isinstance(value, gast.BinOp) and isinstance(value.op, (gast.Add, gast.Sub))
            and isinstance(value.left, gast.Subscript) and source_of(value.left) == written):
        read = gast.Subscript(value=root, slice=gast.Tuple(elts=list(parts), ctx=gast.Load()),
                              ctx=gast.Load())
        mark = getattr(value.left.slice, "s2sad_access", None)
        if mark is not None:
            read.slice.s2sad_access = mark
        value = gast.BinOp(left=gast.copy_location(read, value.left), op=value.op,
                           right=value.right)
    return flat, value


def lost_write(written, index, location, node):
    return UnsupportedSyntaxError(
        f"the chained subscript write `{written} = ...` (`{index}` is an index array or a "
        f"mask, so numpy writes into a copy and the array is left unchanged)",
        location, node, "Write into the array in one subscript, e.g. `A[idx[j]] = ...`, "
        "or into a copy you keep: `B = A[idx]; B[j] = ...`")


def _parts(index):
    return list(index.elts) if isinstance(index, gast.Tuple) else [index]


def source_of(node):
    """The text of `node`, for a message."""
    try:
        return ast.unparse(gast.gast_to_ast(node))
    except Exception:  # noqa: BLE001 - only for the message
        return "..."
