"""A helper returning a slice object, inlined where it is called, so the
slice is the caller's (statements/slice_names.py then indexes with its
bounds):

    def batch(i):                           def loss(w, i):
        k = i % 3                   ->          batch_i = i
        return slice(10 * k, 10 * k + 10)       batch_k = batch_i % 3
                                                idx = slice(10 * batch_k, 10 * batch_k + 10)
    def loss(w, i):                             return np.sum(np.dot(DATA[idx], w))
        idx = batch(i)
        return np.sum(np.dot(DATA[idx], w))

A slice made in a helper is a Python object whose bounds are known only
when the helper runs: the caller could not tell what `DATA[idx]` is. A call
that cannot be inlined (see functions/inlining.py) stays a call."""
import builtins

import gast

from .inlining import inline_calls


def run(tree, ctx):
    """Inline, in place, the calls of helpers returning `slice(...)`."""
    return tree if inline_calls(tree, ctx, "slices", _returns_slice) else None


def _returns_slice(parsed):
    body = parsed.tree.body
    if not body or not isinstance(body[-1], gast.Return) \
            or not isinstance(body[-1].value, gast.Call):
        return False
    try:
        return parsed.resolve(body[-1].value.func) is builtins.slice
    except Exception:  # noqa: BLE001 - a local: not the builtin
        return False
