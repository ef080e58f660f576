"""np.vectorize(f, otypes=[float]) as builtin_forms.py spells it: which
calls it accepts, the names a function binds to one, and the refusal."""
import builtins

import gast
import numpy as np

from ...errors import UnsupportedSyntaxError
from ...syntax import walk


def float_vectorizer(maker, forms):
    """The function of `np.vectorize(f, otypes=[float])` (or np.float64, 'd'),
    or None: without otypes numpy takes the result type from the first
    element's result (an int there truncates every other), which s2sad
    does not guess."""
    given = {k.arg: k.value for k in maker.keywords}
    if len(maker.args) != 1 or set(given) != {"otypes"}:
        return None
    otypes = given["otypes"]
    if isinstance(otypes, (gast.List, gast.Tuple)) and len(otypes.elts) == 1:
        otypes = otypes.elts[0]
    if isinstance(otypes, gast.Constant):
        ok = otypes.value in ("d", "f8", "float64")
    else:
        ok = forms.is_(otypes, builtins.float) or forms.is_(otypes, np.float64)
    return maker.args[0] if ok else None


def named_vectorizers(fn, forms):
    """{name: its np.vectorize(...) call} for names a statement of the
    function's own body binds once to one (that statement leaves; calls of
    the name are rewritten)."""
    stores = {}
    for n in walk(fn):
        if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
            stores[n.id] = stores.get(n.id, 0) + 1
    found, body = {}, []
    for s in fn.body:
        if isinstance(s, gast.Assign) and len(s.targets) == 1 \
                and isinstance(s.targets[0], gast.Name) and stores[s.targets[0].id] == 1 \
                and isinstance(s.value, gast.Call) and forms.is_(s.value.func, np.vectorize) \
                and float_vectorizer(s.value, forms) is not None:
            found[s.targets[0].id] = s.value
            continue
        body.append(s)
    if found:
        if any(isinstance(n, gast.Name) and n.id in found and isinstance(n.ctx, gast.Load)
               and not _called(n, fn) for n in walk(fn)):
            return {}  # (used other than called: refused where the call to np.vectorize is)
        fn.body = body
    return found


def _called(name, fn):
    return any(isinstance(c, gast.Call) and c.func is name for c in walk(fn))


def vectorize_refused(node, location):
    return UnsupportedSyntaxError(
        "np.vectorize(...) without otypes=[float], or with other options, or not called",
        location, node,
        "Give otypes=[float] (numpy otherwise takes the result type from the first "
        "element's result, which s2sad does not guess), or apply the function in a "
        "comprehension: np.array([f(v) for v in x.ravel()]).reshape(x.shape)")
