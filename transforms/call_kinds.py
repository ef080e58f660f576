"""The kind of a call's result, as the program's kind inference asks for it:
a rule's kind (with an explicit dtype=), a helper's return kind, a kept
Python block's, an object a class makes, a custom gradient's primal."""
import gast
import numpy as np

from .analysis import kinds as K
from .analysis.objects import constructed
from .emit.python_code import block_kind
from .ops import resolve_call
from .reverse.checkpoint_loops import is_loop as is_checkpointed_loop, \
    result_kind as checkpointed_kind


def call_kind_of(program, parsed):
    """kind_of(call_node, arg_kinds, kw_kinds) for calls in `parsed`."""
    def kind_of(call_node, arg_kinds, kw_kinds):
        if isinstance(call_node.func, gast.Name) \
                and is_checkpointed_loop(parsed.namespace.get(call_node.func.id)):
            return checkpointed_kind(parsed.namespace[call_node.func.id], arg_kinds)
        try:
            prim = resolve_call(call_node, parsed, program.registry)
        except (LookupError, NameError):
            return K.UNKNOWN
        if prim.rule is not None:
            if getattr(prim.rule, "user", False) and prim.rule.nondiff:
                # (a declared zero gradient: the self-checks do not take it
                # for the derivative; a registered one says so where applied)
                program.surrogates.add(f"{prim.rule.name} declared non-differentiable")
            return _with_dtype(prim.rule.kind(arg_kinds, kw_kinds), call_node, parsed)
        if prim.helper is not None:
            return program.helper_return_kind(prim.helper.function_for(arg_kinds), arg_kinds)
        if getattr(prim.obj, "__s2sad_python__", None):
            return block_kind(prim.obj, arg_kinds, program.call_kind)  # (try ... except)
        made = constructed(prim.obj)  # a class: an object (a random generator)
        if made is not None:
            return K.object_kind(made)
        if getattr(prim.obj, "__s2sad_custom__", None) == "vjp":
            # the primal's (its fwd may call it: JAX's `return f(x), res`)
            return program.helper_return_kind(prim.obj.fn, arg_kinds)
        if getattr(prim.obj, "__s2sad_custom__", None):
            return program.custom_pair(prim.obj, arg_kinds)[2]
        return K.UNKNOWN
    return kind_of


def _with_dtype(kind, call_node, parsed):
    """The kind of a call with an explicit `dtype=` (np.zeros(n, dtype=np.int64)):
    integer and bool arrays are not differentiated, and index other arrays."""
    spec = [k.value for k in call_node.keywords if k.arg == "dtype"]
    if not spec or not kind.is_array:
        return kind
    try:
        obj = parsed.resolve(spec[0])
        code = np.dtype(obj).kind if obj is not None else None
    except Exception:  # noqa: BLE001 - not a static dtype: leave the rule's kind
        return kind
    return K.array(kind.ndim, code) if code and code in "fibc" else kind

