"""The last pass over a generated function: calls of a form the backend
cannot compile become calls of a runtime helper with the same semantics.

The forms come as a table (for numba: s2sad.runtime_forms.FORMS) of
`(function, test on the call node, helper name, how the arguments pass)`:
the call `np.mean(x, axis=0)` resolves to np.mean, whose entry's test
holds, so it reads `mean_axis(x, axis=0)`. It runs on every function of a
module, the user's statements and the adjoint templates' alike, after
everything else, so no other pass ever sees a helper call in their place;
with jit=False the helpers run numpy itself."""
import gast

from ..syntax import walk


def rewrite_forms(tree, forms, resolve):
    """Rewrite the calls under `tree` (in place) that `forms` names;
    `resolve(node)` is the object a callee expression denotes (None if
    unknown). Returns the helper names used."""
    by_function = {}
    for fn, test, helper, passing in forms:
        by_function.setdefault(id(fn), []).append((test, helper, passing))
    used = set()
    for node in walk(tree):
        if not isinstance(node, gast.Call):
            continue
        try:
            entries = by_function.get(id(resolve(node.func)), ())
        except Exception:  # noqa: BLE001 - an unknown callee is left as it is
            continue
        for test, helper, passing in entries:
            if not test(node):
                continue
            node.func = gast.Name(id=helper, ctx=gast.Load(), annotation=None,
                                  type_comment=None)
            if passing == "tuple":  # np.array([a, b]) -> array_of((a, b))
                node.args = [gast.Tuple(elts=node.args[0].elts, ctx=gast.Load())]
            used.add(helper)
            break
    return used


def module_resolver(globals_, modules):
    """A `resolve` for generated code: attribute chains on a module name
    (`np.linalg.norm`), and names the module gets from the caller's."""
    def resolve(node):
        path = []
        while isinstance(node, gast.Attribute):
            path.append(node.attr)
            node = node.value
        if not isinstance(node, gast.Name):
            return None
        obj = modules.get(node.id, globals_.get(node.id))
        for attr in reversed(path):
            obj = getattr(obj, attr, None)
        return obj
    return resolve
