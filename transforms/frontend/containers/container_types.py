"""Type questions asked of a container argument, answered before it is
flattened: its structure says whether it is a list, a tuple or a dict, so
`isinstance(p, (list, tuple))` is a constant, and the branch Python does not
take is dropped (the leaves of a list have no `sorted(p)` of a dict branch
to follow). A helper recursing into a container's parts (autograd's
flatten) is written this way:

    def leaves(v):                           def leaves(v):      (v a list)
        if isinstance(v, (list, tuple)):  ->     return np.concatenate(...)
            return np.concatenate(...)
        if isinstance(v, dict):
            return ...sorted(v)...
        return np.ravel(v)

Asked of a parameter the function binds again, or of a type that is not
list, tuple or dict, the question is left as it is."""
import builtins

import gast

from ...syntax import names_stored, walk

# the Python types a structure's node is an instance of (among list, tuple, dict)
_INSTANCE_OF = {"list": {list}, "tuple": {tuple}, "dict": {dict}, "namedtuple": {tuple},
                "dataclass": set()}


def fold_type_questions(tree, structures, resolve):
    """Answer, in place, `isinstance(p, T)` for the parameters of `tree` in
    `structures` (name -> Structure), and drop the branches never taken;
    whether anything changed."""
    return _fold(tree, {p: _INSTANCE_OF[s.node] for p, s in structures.items()
                 if s.node in _INSTANCE_OF}, resolve)


def _fold(tree, asked, resolve):
    stored = names_stored(tree.body)
    asked = {p: types for p, types in asked.items() if p not in stored}
    if not asked:
        return False
    changed = False
    for node in walk(tree):
        for field, value in gast.iter_fields(node):
            if isinstance(value, gast.Call):
                answer = _answer(value, asked, resolve)
                if answer is not None:
                    setattr(node, field, gast.copy_location(
                        gast.Constant(value=answer, kind=None), value))
                    changed = True
    if changed:
        _drop_untaken(tree)
    return changed


def _answer(call, asked, resolve):
    if not (isinstance(call.func, gast.Name) and len(call.args) == 2 and not call.keywords
            and isinstance(call.args[0], gast.Name) and call.args[0].id in asked):
        return None
    if _safe(resolve, call.func) is not builtins.isinstance:
        return None
    spelled = call.args[1].elts if isinstance(call.args[1], gast.Tuple) else [call.args[1]]
    types = [_safe(resolve, t) for t in spelled]
    if not all(t in (list, tuple, dict) for t in types):
        return None
    return any(t in asked[call.args[0].id] for t in types)


def _safe(resolve, node):
    try:
        return resolve(node)
    except Exception:  # noqa: BLE001 - a local or unresolvable name: not a type here
        return None


def _drop_untaken(tree):
    for node in walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block:
                setattr(node, field, _taken(block) or [gast.Pass()])


def _taken(block):
    out = []
    for s in block:
        if isinstance(s, gast.If) and isinstance(s.test, gast.Constant) \
                and isinstance(s.test.value, bool):
            out += _taken(s.body if s.test.value else s.orelse)
        else:
            out.append(s)
        if out and isinstance(out[-1], (gast.Return, gast.Raise)):
            break  # (what follows never runs)
    return out
