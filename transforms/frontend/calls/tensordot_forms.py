"""np.tensordot of arrays whose ranks are known, with constant axes: the
einsum it computes, so one rule (np.einsum's) and one compiled form
(numba has no np.tensordot; s2sad.runtime.einsums has np.einsum) serve
both:

    c = np.tensordot(a, b, axes=1)          c = np.einsum("ab,bc->ac", a, b)
    c = np.tensordot(a, b, ((0, 2), (1, 0)))   (a 3-d, b 2-d)
                                            c = np.einsum("abc,ca->b", a, b)

A call whose ranks or axes are not known here is left to np.tensordot's
own rule."""
import gast

from ...analysis import kinds as K
from ...syntax import const

_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def run(tree, ctx):
    import numpy as np
    changed = False
    for node in ctx.nodes:
        if not (isinstance(node, gast.Call) and ctx.safe_resolve(node.func) is np.tensordot):
            continue
        operands, axes = _arguments(node)
        if operands is None:
            continue
        kinds = [K.of_atom(o, ctx.kinds) for o in operands]
        if not all(k is not None and k.is_array and k.ndim >= 0 for k in kinds):
            continue
        subscripts = _subscripts(kinds[0].ndim, kinds[1].ndim, axes)
        if subscripts is None:
            continue
        node.func = gast.Attribute(value=gast.Name(id="np", ctx=gast.Load(), annotation=None,
                                                   type_comment=None),
                                   attr="einsum", ctx=gast.Load())
        node.args = [const(subscripts)] + operands
        node.keywords = []
        changed = True
    return tree if changed else None


def _arguments(node):
    """([a, b], axes as a Python value) of np.tensordot(a, b[, axes]), or
    (None, None) when the axes are not a constant."""
    given = {k.arg: k.value for k in node.keywords}
    args = list(node.args) + [given.pop(n) for n in ("a", "b", "axes")[len(node.args):]
                              if n in given]
    if given or len(args) not in (2, 3):
        return None, None
    axes = _constant(args[2]) if len(args) == 3 else 2
    return (args[:2], axes) if axes is not None else (None, None)


def _constant(node):
    if isinstance(node, gast.Constant) and isinstance(node.value, int) \
            and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, (gast.Tuple, gast.List)):
        items = [_constant(e) for e in node.elts]
        return None if any(i is None for i in items) else tuple(items)
    return None


def _subscripts(na, nb, axes):
    """The einsum subscripts of np.tensordot of arrays of ranks na and nb
    over `axes` (an int: a's last and b's first axes; a pair of axes or of
    sequences of axes), or None where numpy would refuse them."""
    if isinstance(axes, int):
        if not 0 <= axes <= min(na, nb):
            return None
        left, right = list(range(na - axes, na)), list(range(axes))
    elif len(axes) == 2:
        left, right = ([a] if isinstance(a, int) else list(a) for a in axes)
    else:
        return None
    if len(left) != len(right) or na + nb > len(_LETTERS) \
            or not all(-na <= i < na for i in left) or not all(-nb <= j < nb for j in right):
        return None
    left, right = [i % na for i in left], [j % nb for j in right]
    if len(set(left)) != len(left) or len(set(right)) != len(right):
        return None
    sa, sb = list(_LETTERS[:na]), list(_LETTERS[na:na + nb])
    for i, j in zip(left, right):
        sb[j] = sa[i]
    out = [c for i, c in enumerate(sa) if i not in left] + \
        [c for j, c in enumerate(sb) if j not in right]
    return "".join(sa) + "," + "".join(sb) + "->" + "".join(out)
