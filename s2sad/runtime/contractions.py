"""Run-time helpers for the gradients of numpy's contractions (np.einsum,
np.tensordot, np.inner, np.kron) and of np.gradient.

Like s2sad.runtime (which re-exports every name here), this module needs
numpy and numba only: exported derivatives copy it in.
"""
import numpy as np
from s2sad.lazy_numba import overload, register_jitable

__all__ = ["einsum_grad", "einsum_one", "einsum_two", "einsum_three", "einsum_grad_one",
           "einsum_grad_left", "einsum_grad_right", "einsum_grad_first", "einsum_grad_second",
           "einsum_grad_third", "tensordot_subscripts", "inner_subscripts",
           "unkron_left", "unkron_right", "ungradient"]


# ---- contractions: einsum, tensordot, inner -----------------------------------------

def _parse_subscripts(subscripts, operands):
    """(input subscripts, output subscripts) of an einsum of `operands`."""
    return spell_subscripts(subscripts, [np.ndim(o) for o in operands])


def spell_subscripts(subscripts, ndims):
    """(input subscripts, output subscripts) of an einsum of operands with
    `ndims` axes, with each '...' spelled out in letters the subscripts do
    not use (right-aligned, as numpy aligns the axes it stands for); an
    implicit output is the ellipsis' axes, then the indices seen once, in
    alphabetical order."""
    text = subscripts.replace(" ", "")
    inputs, arrow, output = text.partition("->")
    parts = inputs.split(",")
    if not arrow:
        letters = "".join(parts).replace(".", "")
        output = ("..." if "..." in inputs else "") + "".join(
            sorted(c for c in set(letters) if letters.count(c) == 1))
    if "..." not in text:
        return parts, output
    free = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" if c not in text]
    counts = [n - (len(p) - 3) if "..." in p else 0 for p, n in zip(parts, ndims)]
    ellipsis = "".join(free[:max(counts, default=0)])

    def spelled(p, n):
        return p.replace("...", ellipsis[len(ellipsis) - n:] if n else "")
    return [spelled(p, n) for p, n in zip(parts, counts)], spelled(output, len(ellipsis))


def einsum_grad(g, subscripts, operands, k):
    """The cotangent of operand k of np.einsum(subscripts, *operands): the
    einsum of g with the other operands, spread over the axes only operand k
    has (summed in the product), onto its diagonal where operand k repeats an
    index, and summed over the axes where it broadcasts (size 1)."""
    parts, output = _parse_subscripts(subscripts, operands)
    others = [output] + [p for j, p in enumerate(parts) if j != k]
    arrays = [g] + [o for j, o in enumerate(operands) if j != k]
    present = set("".join(others))
    target = parts[k]
    unique = "".join(c for i, c in enumerate(target) if c not in target[:i])
    kept = "".join(c for c in unique if c in present)
    r = np.einsum(",".join(others) + "->" + kept, *arrays)
    sizes = dict(zip(target, np.shape(operands[k])))
    # axes of size 1 in operand k that the product broadcast: summed back
    broadcast = tuple(i for i, c in enumerate(kept) if sizes[c] == 1 and r.shape[i] != 1)
    if broadcast:
        r = np.sum(r, axis=broadcast, keepdims=True)
    missing = tuple(i for i, c in enumerate(unique) if c not in present)
    if missing:
        r = np.expand_dims(r, missing)
    if unique == target:
        return np.array(np.broadcast_to(r, np.shape(operands[k])), dtype=float)
    out = np.zeros(np.shape(operands[k]))
    # a repeated index reads a diagonal: the cotangent goes onto it (einsum's
    # diagonal of an array is a writable view of it)
    np.einsum(target + "->" + unique, out)[...] = r
    return out


# One helper per operand count, so each is linear in the cotangent and in each other
# operand as a separate argument (their reverse rules: s2sad/rules/transposes.py); the
# subscripts may be computed (np.tensordot's), which np.einsum's rule does not take.

def einsum_one(subscripts, a):
    """np.einsum(subscripts, a)."""
    return np.einsum(subscripts, a)


def einsum_two(subscripts, a, b):
    """np.einsum(subscripts, a, b)."""
    return np.einsum(subscripts, a, b)


def einsum_three(subscripts, a, b, c):
    """np.einsum(subscripts, a, b, c)."""
    return np.einsum(subscripts, a, b, c)


def einsum_grad_one(g, subscripts, a):
    """The cotangent of a in np.einsum(subscripts, a) (linear in g only: a's
    values are not used)."""
    return einsum_grad(g, subscripts, (a,), 0)


def einsum_grad_left(g, subscripts, a, b):
    """The cotangent of a in np.einsum(subscripts, a, b) (linear in g and b)."""
    return einsum_grad(g, subscripts, (a, b), 0)


def einsum_grad_right(g, subscripts, a, b):
    """The cotangent of b in np.einsum(subscripts, a, b) (linear in g and a)."""
    return einsum_grad(g, subscripts, (a, b), 1)


def einsum_grad_first(g, subscripts, a, b, c):
    """The cotangent of a in np.einsum(subscripts, a, b, c) (linear in g, b and c)."""
    return einsum_grad(g, subscripts, (a, b, c), 0)


def einsum_grad_second(g, subscripts, a, b, c):
    """The cotangent of b in np.einsum(subscripts, a, b, c) (linear in g, a and c)."""
    return einsum_grad(g, subscripts, (a, b, c), 1)


def einsum_grad_third(g, subscripts, a, b, c):
    """The cotangent of c in np.einsum(subscripts, a, b, c) (linear in g, a and b)."""
    return einsum_grad(g, subscripts, (a, b, c), 2)


def tensordot_subscripts(a, b, axes=2):
    """np.tensordot(a, b, axes) as an einsum (its subscripts)."""
    na, nb = np.ndim(a), np.ndim(b)
    if np.ndim(axes) == 0:
        left, right = list(range(na - axes, na)), list(range(axes))
    else:
        left, right = axes
        left = [left] if np.ndim(left) == 0 else list(left)
        right = [right] if np.ndim(right) == 0 else list(right)
    left = [x % na for x in left]
    right = [x % nb for x in right]
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    sa = [next(letters) for _ in range(na)]
    sb = [next(letters) for _ in range(nb)]
    for i, j in zip(left, right):
        sb[j] = sa[i]
    out = [c for i, c in enumerate(sa) if i not in left] + \
        [c for j, c in enumerate(sb) if j not in right]
    return "".join(sa) + "," + "".join(sb) + "->" + "".join(out)


def inner_subscripts(a, b):
    """np.inner(a, b) of arrays as an einsum (over their last axes)."""
    na, nb = np.ndim(a), np.ndim(b)
    sa = "abcdefghij"[:na - 1] + "z"
    sb = "klmnopqrst"[:nb - 1] + "z"
    return sa + "," + sb + "->" + sa[:-1] + sb[:-1]


def _kron_blocks(g, a, b):
    """g as blocks G[i0, j0, i1, j1, ...] = g[i0 * m0 + j0, ...], with a's
    index i and b's index j (the shorter shape padded with ones in front)."""
    nd = max(np.ndim(a), np.ndim(b))
    sa = (1,) * (nd - np.ndim(a)) + np.shape(a)
    sb = (1,) * (nd - np.ndim(b)) + np.shape(b)
    blocks = np.reshape(g, [d for pair in zip(sa, sb) for d in pair])
    letters = "abcdefgh"[:nd], "ABCDEFGH"[:nd]
    pairs = "".join(x + y for x, y in zip(*letters))
    return blocks, sa, sb, pairs, letters


def unkron_left(g, a, b):
    """The cotangent of a in np.kron(a, b)."""
    blocks, sa, sb, pairs, (la, lb) = _kron_blocks(g, a, b)
    r = np.einsum(pairs + "," + lb + "->" + la, blocks, np.reshape(b, sb))
    return np.reshape(r, np.shape(a))


def unkron_right(g, a, b):
    """The cotangent of b in np.kron(a, b)."""
    blocks, sa, sb, pairs, (la, lb) = _kron_blocks(g, a, b)
    r = np.einsum(pairs + "," + la + "->" + lb, blocks, np.reshape(a, sa))
    return np.reshape(r, np.shape(b))


def ungradient(g, f, axis=None):
    """The cotangent of np.gradient(f, axis=axis) (unit spacing, first-order
    edges: differences forward at the start, backward at the end, central
    between)."""
    axis = 0 if axis is None else axis
    h = np.moveaxis(np.asarray(g, dtype=float), axis, -1)
    out = np.zeros(h.shape)
    out[..., 1] += h[..., 0]
    out[..., 0] -= h[..., 0]
    out[..., -1] += h[..., -1]
    out[..., -2] -= h[..., -1]
    out[..., 2:] += 0.5 * h[..., 1:-1]
    out[..., :-2] -= 0.5 * h[..., 1:-1]
    return np.moveaxis(out, -1, axis).copy()


@register_jitable
def _kron_2d_grads(g, a2, b2):
    """The cotangents of a2 and b2 in np.kron(a2, b2) of matrices."""
    m1, n1 = a2.shape
    m2, n2 = b2.shape
    blocks = np.ascontiguousarray(g).reshape((m1, m2, n1, n2))
    ga, gb = np.zeros((m1, n1)), np.zeros((m2, n2))
    for i in range(m1):
        for j in range(m2):
            for k in range(n1):
                for m in range(n2):
                    ga[i, k] += blocks[i, j, k, m] * b2[j, m]
                    gb[j, m] += blocks[i, j, k, m] * a2[i, k]
    return ga, gb


def _kron_overload(which):
    def make(g, a, b):
        def impl(g, a, b):
            a2 = np.ascontiguousarray(a).reshape((1, a.size)) if a.ndim == 1 else a
            b2 = np.ascontiguousarray(b).reshape((1, b.size)) if b.ndim == 1 else b
            grads = _kron_2d_grads(g, a2 * 1.0, b2 * 1.0)
            return grads[which].reshape((a if which == 0 else b).shape)
        return impl
    return make


overload(unkron_left)(_kron_overload(0))
overload(unkron_right)(_kron_overload(1))
