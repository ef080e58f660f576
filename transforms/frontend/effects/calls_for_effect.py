"""Calls made for their effect on an array, other than those numpy defines
as stores (hidden_writes.py) or a Python helper's writes (written_args.py),
refused once the kinds are known: `np.multiply.at`, `np.put`, `x.resize`,
a method of an array on a line of its own, a numba function s2sad cannot
read given an array. s2sad follows values through assignments: such a
write would run in the forward sweep and be missed by the reverse one, a
wrong gradient with no error."""
import gast
import numpy as np

from .numpy_writes import (AT_DEFINED, PURE_BUILTINS, WRITING_METHODS, writes_into_argument,
                           describe_call, hashable_in, is_ufunc_at)
from ...analysis import kinds as K
from ...errors import UnsupportedSyntaxError
from ...syntax import names_stored


def run(tree, ctx):
    """Refuse, in the normalised `tree` with `ctx.kinds`, a call made for its
    effect on an array that s2sad cannot follow. A Python helper's writes are
    followed (written_args.py); a library function with a rule gives only its
    value (`np.sum(u)` on its own line runs, as in Python, and changes
    nothing)."""
    kinds, parsed, readable = ctx.kinds, ctx.parsed, ctx.readable
    local = names_stored(tree.body) | {a.id for a in tree.args.args}
    nodes = ctx.nodes  # (one walk for both questions below: nothing here changes the tree)

    def pure(obj):
        return _has_rule(ctx.registry, obj)

    for call in nodes:  # a writing function or method, even where its value is used
        if not isinstance(call, gast.Call):
            continue
        func = call.func
        method = isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) \
            and func.value.id in local and func.attr in WRITING_METHODS
        try:
            obj = None if method else parsed.resolve(func)
        except Exception:  # noqa: BLE001
            obj = None
        if method or writes_into_argument(obj) or (
                is_ufunc_at(obj) and not hashable_in(obj, AT_DEFINED)):
            raise UnsupportedSyntaxError(
                f"{describe_call(func)}(...), which writes into an array it is given",
                parsed.location, call,
                "Write the new value as an assignment (u[...] = ..., u[idx] += v), or as a "
                "loop for np.add.at")
    for s in nodes:
        if not (isinstance(s, gast.Expr) and isinstance(s.value, gast.Call)):
            continue
        call = s.value
        func = call.func
        if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) \
                and func.value.id in local:
            kind = kinds.get(func.value.id, K.UNKNOWN)
            if func.attr == "append" and kind.tag == "list":
                continue
            if kind.is_array and func.attr not in WRITING_METHODS \
                    and pure(getattr(np, func.attr, None)):
                continue  # u.sum(): np.sum(u)
            if func.attr in WRITING_METHODS or kind.is_array:
                raise UnsupportedSyntaxError(
                    f"{func.value.id}.{func.attr}(...), a method that writes into an array",
                    parsed.location, call,
                    f"Write the new value as an assignment ({func.value.id}[...] = ...)")
            continue
        try:
            obj = parsed.resolve(func)
        except Exception:  # noqa: BLE001
            obj = None
        if obj in PURE_BUILTINS or getattr(obj, "__module__", "") == "s2sad.markers" \
                or readable(obj) is not None or pure(obj):
            continue
        arrays = [a.id for a in call.args + [k.value for k in call.keywords]
                  if isinstance(a, gast.Name) and a.id in local
                  and not kinds.get(a.id, K.UNKNOWN).is_scalar]
        if arrays:
            raise UnsupportedSyntaxError(
                f"a call made for its effect, given the array '{arrays[0]}' (s2sad cannot "
                f"tell whether it writes into it)", parsed.location, call,
                f"Assign the new value instead ({arrays[0]}[...] = ...), or write the "
                f"update as a loop")


def _has_rule(registry, obj):
    """A numpy, scipy or math function with a rule (a gradient or none): its
    value is all it gives (the writing ones, np.copyto and ufuncs' out=, are
    respelled or refused before this is asked). A rule a user registered
    for their own function says nothing of what else it does."""
    module = getattr(obj, "__module__", None) or ""
    library = isinstance(obj, np.ufunc) or module.split(".")[0] in ("numpy", "scipy", "math")
    return library and registry.lookup(obj) is not None
