"""A container passed whole to a helper (`predict(params, x)`, with
`params` a dict argument flattened into its leaves, flatten_args.py): the
call goes to a copy of the helper whose container parameter is flattened
the same way, so the helper's reads `p["W"]` are its own leaf parameters
and every leaf keeps its gradient:

    def predict(p, x):                    def predict_spread(p_W, p_b, x):
        return p["W"] @ x + p["b"]            return p_W @ x + p_b

    predict(params, x)            ->      predict_spread(params_W, params_b, x)

The container may be passed by keyword (`predict(x, params=p)`: moved to
its position first, flatten_args.py) and the other arguments too; a helper
that uses the container in a way flattening does not follow (writing into
it, passing it by keyword, iterating over it) is refused there, with its
own file and line."""
import ast
import inspect
import itertools
import linecache
import types

import gast

from ...syntax import walk

_COUNT = itertools.count()
_COPIES = {}  # (helper, its source, position, structure) -> the copy


def spread_copy(parsed, call, position, structure, taken=()):
    """The name (bound in `parsed.namespace`) of the copy of the helper
    `call` calls, taking the container at `position` as its leaves; None if
    the callee is not a Python helper s2sad reads. The name is none of
    `taken` (a Namer's names, which it joins when it is a set)."""
    from ..calls.bind import readable_function
    try:
        fn = readable_function(parsed.resolve(call.func))
    except Exception:  # noqa: BLE001 - not a helper: refused by the caller
        return None
    # (keywords name parameters after the container, or keyword-only ones:
    # the copy has them too, under the same names)
    if fn is None or any(k.arg is None for k in call.keywords) \
            or any(isinstance(a, gast.Starred) for a in call.args):
        return None
    copy = _copy(fn, position, structure)
    if copy is None:
        return None
    ref = next((k for k, v in parsed.namespace.items() if v is copy), None)
    if ref is None:
        used = set(parsed.namespace) | set(taken) | {n.id for n in walk(parsed.tree)
                                                     if isinstance(n, gast.Name)}
        ref, k = copy.__name__, 1
        while ref in used:
            ref, k = f"{copy.__name__}{k + 1}", k + 1
        parsed.namespace[ref] = copy
    if isinstance(taken, set):
        taken.add(ref)  # (a temporary named later must not shadow it)
    return ref


def _copy(fn, position, structure):
    try:
        key = (fn, inspect.getsource(fn), position, structure)
    except (OSError, TypeError):
        return None
    if key in _COPIES:
        return _COPIES[key]
    from .flatten_args import flatten_parameters
    from ..read.read import parse_function
    parsed = parse_function(fn)
    params = parsed.tree.args.args
    if position >= len(params) or fn.__closure__:
        return None
    flatten_parameters(parsed, {params[position].id: structure})
    tree = parsed.tree
    name = fn.__name__ + "_spread"
    tree.name = name
    text = ast.unparse(gast.gast_to_ast(gast.Module(body=[tree], type_ignores=[])))
    head, _, body = text.partition(":\n")
    doc = (f"    \"\"\"{fn.__name__} ({fn.__code__.co_filename}:{fn.__code__.co_firstlineno}), "
           f"taking the leaves of its parameter {params[position].id!r}.\"\"\"\n")
    text = head + ":\n" + doc + body + "\n"
    filename = f"<s2sad: {fn.__name__} taking a container's leaves, #{next(_COUNT)}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    code = compile(text, filename, "exec")
    fn_code = next(c for c in code.co_consts if inspect.iscode(c) and c.co_name == name)
    copy = types.FunctionType(fn_code, fn.__globals__, name, _defaults(fn, tree))
    _COPIES[key] = copy
    return copy


def _defaults(fn, tree):
    """The copy's defaults: the helper's, by name, for the run of parameters
    with one at the end of the copy's parameters (source.positional_parameters
    made keyword-only ones plain: `fn.__defaults__` does not line up)."""
    given = {q.name: q.default for q in inspect.signature(fn).parameters.values()
             if q.default is not q.empty}
    tail = []
    for p in reversed(tree.args.args):
        if p.id not in given:
            break
        tail.append(given[p.id])
    return tuple(reversed(tail)) or None
