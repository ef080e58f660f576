"""A helper returning a dict literal (results by name), inlined where it is
called, so the dict is the caller's and its entries are variables
(containers/dicts.py):

    def terms(u):                              def energy(u):
        kin = 0.5 * np.sum(np.diff(u) ** 2)        terms_u = u
        return {"kin": kin,              ->        terms_kin = 0.5 * np.sum(np.diff(terms_u) ** 2)
                "pot": np.sum(np.cos(u))}          r = {'kin': terms_kin, 'pot': np.sum(np.cos(terms_u))}
                                                   return r['kin'] - r['pot']
    def energy(u):
        r = terms(u)
        return r["kin"] - r["pot"]

A dict is no value numba or s2sad's passes follow across a call; made where
it is read, it is a local dict with constant keys. Also a helper returning
a name it bound to a dict literal (`out = {...}; out["b"] = v; return out`).
A call that cannot be inlined (see functions/inlining.py) stays a call."""
import gast

from .inlining import inline_calls


def run(tree, ctx):
    """Inline, in place, the calls of helpers returning a dict literal."""
    return tree if inline_calls(tree, ctx, "dicts", _returns_dict) else None


def _returns_dict(parsed):
    body = parsed.tree.body
    if not body or not isinstance(body[-1], gast.Return):
        return False
    value = body[-1].value
    if isinstance(value, gast.Name):  # return out, of out = {...} bound once in the helper
        bound = [s for s in gast.walk(parsed.tree) if isinstance(s, gast.Assign)
                 and any(isinstance(t, gast.Name) and t.id == value.id for t in s.targets)]
        value = bound[0].value if len(bound) == 1 else None
    return isinstance(value, gast.Dict) and all(
        isinstance(k, gast.Constant) and isinstance(k.value, str) for k in value.keys)
