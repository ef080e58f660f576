"""The fence: what the READ passes leave unlowered is refused here, before any
pass reads the tree for its meaning, with the file, line and construct and
what to write instead (a class, a generator, try/except, a set, ...)."""
import gast

from ..refused_syntax import HINTS as _HINTS, UNSUPPORTED as _UNSUPPORTED
from ...emit.unparse import expr_source
from ...errors import UnsupportedSyntaxError
from ...syntax import walk

_ELSE_HINT = "Keep a flag set before the break and test it after the loop"


def run(tree, ctx):
    """Refuse, with its file and line and what to do, the first construct no
    pass before lowered."""
    location, nested_def_ok = ctx.location, ctx.nested_def_ok
    args = tree.args
    if args.vararg or args.kwarg:
        raise UnsupportedSyntaxError(
            "*args or **kwargs", location, tree,
            "Use plain parameters (a tuple or an array for a varying number of values)")
    if isinstance(tree, gast.AsyncFunctionDef):
        raise UnsupportedSyntaxError("an async function", location, tree,
                                     _HINTS[gast.AsyncFunctionDef])
    for node in walk(tree):
        if node is tree:
            continue
        kind = _UNSUPPORTED.get(type(node))
        if nested_def_ok and isinstance(node, (gast.FunctionDef, gast.Lambda)):
            continue  # a custom gradient's backward (functions/custom.py checks the rest)
        if getattr(node, "s2sad_star_parameter", False):
            continue  # f(*t) of a parameter: its length is known once specialised
        if kind is not None:
            raise UnsupportedSyntaxError(kind, location, node, _HINTS.get(type(node), ""))
        if isinstance(node, gast.Raise) and (node.cause is not None or node.exc is None):
            raise UnsupportedSyntaxError("raise without an exception, or raise ... from",
                                         location, node, "Raise an exception of its own: "
                                         "raise ValueError(\"...\")")
        if isinstance(node, gast.For) and node.orelse:
            raise UnsupportedSyntaxError("for ... else", location, node, _ELSE_HINT)
        if isinstance(node, gast.While) and node.orelse:
            raise UnsupportedSyntaxError("while ... else", location, node, _ELSE_HINT)
        if isinstance(node, (gast.Assign, gast.AugAssign, gast.AnnAssign)):
            targets = node.targets if isinstance(node, gast.Assign) else [node.target]
            for t in targets:
                _check_target(t, location)
    return None


def _check_target(target, location):
    """An assignment through an attribute (`a.real += x`, `a.flat[i] = v`,
    `a.T[0] = v`, `obj.w = v`) writes into memory s2sad cannot follow by name
    (a view of the array, or an object's field): refused, never dropped."""
    if isinstance(target, (gast.Tuple, gast.List)):
        for e in target.elts:
            _check_target(e, location)
        return
    if isinstance(target, gast.Starred):
        return _check_target(target.value, location)
    node = target
    while isinstance(node, gast.Subscript):
        node = node.value
    if isinstance(node, gast.Attribute):
        shown = f"{expr_source(node)} = ..." if node is target else f"{expr_source(node)}[...] = ..."
        raise UnsupportedSyntaxError(
            f"assignment through an attribute ({shown})", location, target,
            "Write into the array itself (a[...] = ..., a[i] = ...), or make a new "
            "array and assign it to a name")
