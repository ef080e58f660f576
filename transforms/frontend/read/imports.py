"""`from scipy.special import erf` (or `import math as m`) among a
function's first-level statements binds a name once for good, as a
module-level import would: the statement leaves the tree and the names join
the function's namespace. An import of a name the function also assigns, a
relative or star import, or one inside a branch or loop stays (and the
fence refuses it)."""
import importlib

import gast

from ...syntax import walk


def run(tree, ctx):
    """The imports among the function's first-level statements leave the
    tree; the names they bind join the function's namespace."""
    assigned = {n.id for n in walk(tree) if isinstance(n, gast.Name)
                and isinstance(n.ctx, (gast.Store, gast.Param, gast.Del))}
    imported, body = {}, []
    for s in tree.body:
        names = _imported_names(s)
        if names is None or set(names) & assigned:
            body.append(s)
            continue
        imported.update(names)
    tree.body = body or [gast.Pass()]
    if not imported:
        return None
    ctx.namespace.update(imported)
    return tree


def _imported_names(s):
    """{name: object} an import statement binds, or None (not one that can move)."""
    try:
        if isinstance(s, gast.Import):
            return {(a.asname or a.name.split(".")[0]):
                    importlib.import_module(a.name if a.asname else a.name.split(".")[0])
                    for a in s.names}
        if isinstance(s, gast.ImportFrom) and not s.level \
                and all(a.name != "*" for a in s.names):
            module = importlib.import_module(s.module)
            out = {}
            for a in s.names:
                value = getattr(module, a.name, None)
                if value is None:  # a submodule not yet imported
                    value = importlib.import_module(f"{s.module}.{a.name}")
                out[a.asname or a.name] = value
            return out
    except ImportError:
        return None  # (Python raises it when the function runs; refused here)
    return None
