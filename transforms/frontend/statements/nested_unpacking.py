"""Unpacking into nested targets, `a, (b, c) = value`, as Python does it:

    a, (b, c) = x, (y, z)      ->  a, b, c = x, y, z     (every value first)
    a, (b, c) = nest(x)        ->  a, b, c = nest_flat(x)
    a, (b, c) = r              ->  a, r_1 = r; b, c = r_1

A helper (module-level, or nested and lifted) whose every `return` is a
tuple or list display of the target's nesting (`return a, (b, c)`) is
called as a copy returning the flat tuple (`return a, b, c`), so no tuple
holding values that need a gradient is ever built. Any other value is
unpacked level by level through a variable, which holds a tuple of
numbers or arrays (a helper returning a nested tuple not written out is
refused where it builds it). Starred names in a nested target stay refused."""
import ast
import inspect
import itertools
import linecache
import textwrap
import types

import gast

from ...names import fresh_name
from ...syntax import clone, walk
from ..functions.lifted import LIFTED, Lifted

_COUNT = itertools.count()
_COPIES = {}  # (helper, its source, shape) -> its flat copy


def run(tree, ctx):
    namespace = ctx.namespace
    taken = {n.id for n in walk(tree) if isinstance(n, gast.Name)} | set(namespace)

    def block(stmts):
        out = []
        for s in stmts:
            for field in ("body", "orelse", "finalbody"):
                if isinstance(getattr(s, field, None), list):
                    setattr(s, field, block(getattr(s, field)))
            out += _rewritten(s, namespace, taken) if _nested(s) else [s]
        return out

    tree.body = block(tree.body)
    return tree


def _nested(s):
    return isinstance(s, gast.Assign) and len(s.targets) == 1 \
        and isinstance(s.targets[0], (gast.Tuple, gast.List)) \
        and any(isinstance(e, (gast.Tuple, gast.List)) for e in s.targets[0].elts) \
        and not any(isinstance(n, gast.Starred) for n in walk(s.targets[0]))


def _shape(target):
    """None for a single target, else the tuple of its elements' shapes."""
    if isinstance(target, (gast.Tuple, gast.List)):
        return tuple(_shape(e) for e in target.elts)
    return None


def _matches(shape, value):
    if shape is None:
        return True
    return isinstance(value, (gast.Tuple, gast.List)) and len(value.elts) == len(shape) \
        and not any(isinstance(e, gast.Starred) for e in value.elts) \
        and all(_matches(s, e) for s, e in zip(shape, value.elts))


def _flat(shape, node):
    if shape is None:
        return [node]
    return [x for s, e in zip(shape, node.elts) for x in _flat(s, e)]


def _flat_target(target):
    if isinstance(target, (gast.Tuple, gast.List)):
        return [x for e in target.elts for x in _flat_target(e)]
    return [target]


def _rewritten(s, namespace, taken):
    target, value = s.targets[0], s.value
    shape = _shape(target)

    def assign(targets, val):
        return gast.copy_location(gast.Assign(
            targets=[gast.Tuple(elts=targets, ctx=gast.Store())], value=val,
            type_comment=None), s)

    if _matches(shape, value):
        return [assign(_flat_target(target), gast.Tuple(elts=_flat(shape, value),
                                                         ctx=gast.Load()))]
    copy = _flat_copy_of(value, shape, namespace)
    if copy is not None:
        ref = next((k for k, v in namespace.items() if v is copy), None)
        if ref is None:
            ref = fresh_name(copy.__name__, taken)
            namespace[ref] = copy
        call = gast.copy_location(gast.Call(
            func=gast.Name(id=ref, ctx=gast.Load(), annotation=None, type_comment=None),
            args=value.args, keywords=value.keywords), value)
        return [assign(_flat_target(target), call)]
    # level by level: a, (b, c) = r  ->  a, r_1 = r; b, c = r_1
    outer, inner = [], []
    for e in target.elts:
        if isinstance(e, (gast.Tuple, gast.List)):
            held = fresh_name(f"{value.id}_part" if isinstance(value, gast.Name) else "part",
                              taken)
            outer.append(gast.Name(id=held, ctx=gast.Store(), annotation=None,
                                   type_comment=None))
            nested = gast.copy_location(gast.Assign(
                targets=[e], value=gast.Name(id=held, ctx=gast.Load(), annotation=None,
                                             type_comment=None), type_comment=None), s)
            inner += _rewritten(nested, namespace, taken) if _nested(nested) else [nested]
        else:
            outer.append(e)
    return [assign(outer, value)] + inner


def _flat_copy_of(value, shape, namespace):
    """The copy of the helper `value` calls that returns its nested tuple
    flat, or None (not a call of a helper whose every return is written out
    in this shape)."""
    if not (isinstance(value, gast.Call) and isinstance(value.func, gast.Name)):
        return None
    fn = namespace.get(value.func.id)
    if not inspect.isfunction(fn) or fn.__closure__:
        return None
    lifted = LIFTED.get(fn)
    if lifted is not None:
        fdef, source = clone(lifted.tree), None
    else:
        try:
            source = textwrap.dedent(inspect.getsource(fn))
        except (OSError, TypeError):
            return None
        module = gast.parse(source)
        fdef = module.body[0] if module.body else None
        if not isinstance(fdef, gast.FunctionDef) or fdef.name != fn.__name__:
            return None
    key = (fn, source if lifted is None else id(lifted), shape)
    if key in _COPIES:
        return _COPIES[key]
    returns = [n for n in _own_nodes(fdef) if isinstance(n, gast.Return)]
    if not returns or not all(_matches(shape, r.value) for r in returns):
        return None
    for r in returns:
        r.value = gast.Tuple(elts=_flat(shape, r.value), ctx=gast.Load())
    fdef.decorator_list = []
    fdef.name = fn.__name__ + "_flat"
    text = ast.unparse(gast.gast_to_ast(gast.Module(body=[fdef], type_ignores=[]))) + "\n"
    filename = f"<s2sad: {fn.__name__} returning its nested tuple flat, #{next(_COUNT)}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    code = compile(text, filename, "exec")
    fn_code = next(c for c in code.co_consts if inspect.iscode(c) and c.co_name == fdef.name)
    copy = types.FunctionType(fn_code, fn.__globals__, fdef.name)
    if lifted is not None:  # read as the nested function it comes from is
        LIFTED[copy] = Lifted(fdef, lifted.location, lifted.source, lifted.root,
                              lifted.siblings)
    _COPIES[key] = copy
    return copy


def _own_nodes(fdef):
    """Nodes of a function's body, not inside its nested functions or lambdas."""
    todo = list(fdef.body)
    while todo:
        n = todo.pop()
        yield n
        if isinstance(n, (gast.FunctionDef, gast.Lambda)):
            continue
        todo.extend(gast.iter_child_nodes(n))
