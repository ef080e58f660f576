"""The range a chunk of a parallel loop covers, for the index-check pass
(bounds.py).

parallel.py cuts `for i in range(a, b)` into chunks, one per thread:

    for chunk in prange(n):
        for i in range(a + chunk * (b - a) // n, a + (chunk + 1) * (b - a) // n):

(`chunk * b // n` when a is 0; `b - a` folded when both are constants).
For 0 <= chunk < n and s = b - a, `chunk * s // n >= 0` and `(chunk + 1) *
s // n <= s` when s >= 0, and the chunk is empty when s < 0: every value
of i lies in range(a, b). So the index checks prove an index of the chunk
as they would in the loop the chunks came from. The form is recognised as
it is written in the function, after every pass: a chunk whose bounds were
written otherwise (a lost parenthesis) is not one, and its indices are
checked as any others."""
import gast

from .affine import Affine
from ..syntax import binop, callee_name, structure


def whole_range(node, loops, form):
    """(start, stop) of the range whose chunk the loop range `node` is, or
    None. `loops`: the loops around (nests.Loop); `form(node, proof)` an
    expression's affine form (bounds._Pass.form)."""
    if callee_name(node) != "range" or node.keywords or len(node.args) != 2:
        return None
    first, last = (_chunk_end(e) for e in node.args)
    if first is None or last is None or first[1] != 0 or last[1] != 1 \
            or structure([first[0], first[2], first[3], first[4]]) \
            != structure([last[0], last[2], last[3], last[4]]):
        return None
    start, _, counter, size, n = first
    n_form = form(n, True)
    around = [loop for loop in loops if loop.var == counter]
    if n_form is None or len(around) != 1 or around[0].lo is None or around[0].hi is None:
        return None
    chunks = around[0]
    if chunks.lo != Affine({}, 0) or chunks.hi.plus(1) != n_form:
        return None  # the counter runs over 0 .. n - 1
    if start is None:
        return gast.Constant(value=0, kind=None), size
    return start, binop(start, gast.Add(), size)


def _chunk_end(node):
    """(start or None, k, counter, size, n) for `start + (counter + k) *
    size // n` (k 0 or 1; `(counter + k) * size // n` without a start)."""
    start = None
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Add):
        start, node = node.left, node.right
    if not (isinstance(node, gast.BinOp) and isinstance(node.op, gast.FloorDiv)
            and isinstance(node.left, gast.BinOp) and isinstance(node.left.op, gast.Mult)):
        return None
    k, size, n = node.left.left, node.left.right, node.right
    plus = 0
    if isinstance(k, gast.BinOp) and isinstance(k.op, gast.Add) \
            and isinstance(k.right, gast.Constant) and k.right.value == 1:
        k, plus = k.left, 1
    if not isinstance(k, gast.Name):
        return None
    return start, plus, k.id, size, n
