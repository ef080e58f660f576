"""A helper returning a list it grows, inlined where it is called, so the
caller's reads of the list are those of a list of its own:

    def states(W, xs):                    def loss(W, xs):
        h = np.zeros(3)                       states_W = W
        out = [h]                             states_xs = xs
        for x in xs:                 ->       states_h = np.zeros(3)
            h = np.tanh(W @ h + x)            hs = [states_h]
            out.append(h)                     for states_x in states_xs:
        return out                                ...
                                                  hs.append(states_h)
    def loss(W, xs):                          return np.sum(hs[-1])
        hs = states(W, xs)
        return np.sum(hs[-1])

A list grown by appends (`hs = [h0]; hs.append(h)` in a loop) is one the
caller may index, iterate and stack (containers/growing_lists.py); returned
by a helper, its length is known only when the helper runs and a caller
could not read it but as a stack. Inlined (functions/inlining.py), the list
is the caller's: the helper's name for it is the name the caller assigns
(`hs`), or the helper's renamed (`np.stack(states(W, xs))`: `states_out`).
A call that cannot be inlined (returning before its end, *args,
recursive, in a `while` test; see inlining.py) stays a call, refused
where its list is read other than as a stack."""
import gast

from .inlining import inline_calls
from ...syntax import walk

_GROWING = {"append", "extend", "insert"}


def run(tree, ctx):
    """Inline, in place, the calls of helpers returning a list they grow."""
    return tree if inline_calls(tree, ctx, "lists", _returns_grown_list) else None


def _returns_grown_list(parsed):
    """Whether the helper's final return is a name it binds to a list display
    and grows."""
    body = parsed.tree.body
    if not body or not isinstance(body[-1], gast.Return) \
            or not isinstance(body[-1].value, gast.Name):
        return False
    name = body[-1].value.id
    made = grown = False
    for n in walk(parsed.tree):
        if isinstance(n, gast.Assign) and any(
                isinstance(t, gast.Name) and t.id == name for t in n.targets):
            made = made or isinstance(n.value, gast.List)
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) \
                and n.func.attr in _GROWING and isinstance(n.func.value, gast.Name) \
                and n.func.value.id == name:
            grown = True
    return made and grown
