"""Copies of helpers that write into arrays (or dicts) they are given,
writing into copies of those and returning them (written_args.py calls
them, and writes the returned values back into the caller's arrays):

    def step(u, out, k):              def step_writing(u, out, k):
        out[1] = u[0] * k                 out = out.copy()
                                          out[1] = u[0] * k
                                          return out

A dict written at constant keys gets a variable per key, returned; a helper
passing a dict it is given on to one that writes into it passes a local
dict of those keys. Each copy is made once per helper (as its source reads
now) and set of written positions."""
import ast
import builtins
import inspect
import itertools
import linecache
import types

import gast

from .helper_effects import helper_key, written_positions
from .numpy_writes import respell_writes
from ...analysis.helper_results import returned_parameters
from ..read.read import readable_function
from ...errors import SourceLocation, UnsupportedSyntaxError
from ..functions.lifted import LIFTED, Lifted, NestedLocation, root_of
from ...names import fresh_name
from ...syntax import assign, call, clone, name, walk

_COUNT = itertools.count()
_WRAPPERS = {}  # ((helper, its source), written positions) -> (copy, positions, whether it
#                  also returns a value)
_BEING_COPIED = set()  # keys of the copies under construction (a recursive helper calls itself)


def writing_copy(fn, positions, location, call, parse):
    """A Python function: `fn` writing into copies of the parameters at
    `positions` and returning them (after its own result, if it has one).
    `parse(fn)` reads it as the front end reads a function."""
    if (helper_key(fn), positions) in _WRAPPERS:
        copy = _WRAPPERS[helper_key(fn), positions][0]
        if copy.__globals__ is not fn.__globals__:  # (a copy of them: as they are now)
            copy.__globals__.update(fn.__globals__)
        return copy
    parsed = parse(fn)
    _BEING_COPIED.add((helper_key(fn), positions))
    try:
        return _writing_copy(fn, positions, location, call, parse, parsed)
    finally:
        _BEING_COPIED.discard((helper_key(fn), positions))


def _writing_copy(fn, positions, location, call, parse, parsed):
    if fn.__closure__:
        raise UnsupportedSyntaxError(
            f"a call of {fn.__name__}, a nested function that writes into an array it is "
            f"given", location, call, f"Define {fn.__name__} at module level")
    tree = respell_writes(parsed.tree, parsed)  # (np.copyto(u, v): u[...] = v, which numba runs)
    params = [a.id for a in tree.args.args]
    written = [params[p] for p in positions]
    _pass_dicts_on(tree, written, parsed, parse)  # update(d, x) calling fill(d, x)
    keyed = dict_writes(tree, written, parsed.location)
    if keyed:  # params["w"] = v into a dict it is given: a variable per key, returned
        return _dict_writing_copy(fn, parsed, tree, positions, written, keyed)
    updated = {id(n.target) for n in walk(tree) if isinstance(n, gast.AugAssign)}
    if any(isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store) and n.id in written
           and id(n) not in updated for n in walk(tree)):  # (p += e: in place, on the copy)
        raise UnsupportedSyntaxError(
            f"a call of {fn.__name__}, which both rebinds and writes into its parameter",
            location, call, "Write into the array it is given, or into a copy it returns")
    returns = [n for n in walk(tree) if isinstance(n, gast.Return)]
    valued = any(r.value is not None for r in returns)
    if valued and not (tree.body and isinstance(tree.body[-1], gast.Return)):
        raise UnsupportedSyntaxError(
            f"a call of {fn.__name__}, which writes into an array it is given and may end "
            f"without a return", location, call, "End it with a return statement")
    if returned_parameters(fn, parse) is not None:
        valued = False  # `return u, v` of its parameters: the caller names its own arrays
    tail = [gast.Name(id=w, ctx=gast.Load(), annotation=None, type_comment=None)
            for w in written]
    for r in returns:
        elts = ([r.value] if valued else []) + [gast.Name(id=w, ctx=gast.Load(), annotation=None,
                                                          type_comment=None) for w in written]
        r.value = elts[0] if len(elts) == 1 else gast.Tuple(elts=elts, ctx=gast.Load())
    if not (tree.body and isinstance(tree.body[-1], gast.Return)):  # (falls off its end)
        tree.body.append(gast.Return(value=tail[0] if len(tail) == 1 else
                                     gast.Tuple(elts=tail, ctx=gast.Load())))
    copies = [f"    {w} = {w}.copy()\n" for w in written]
    name = fn.__name__ + "_writing"
    tree.name = name
    text = ast.unparse(gast.gast_to_ast(gast.Module(body=[tree], type_ignores=[])))
    head, _, rest = text.partition(":\n")
    body_lines = rest
    doc = (f"    \"\"\"{fn.__name__} ({fn.__code__.co_filename}:{fn.__code__.co_firstlineno}), "
           f"writing into copies of {', '.join(written)} it returns.\"\"\"\n")
    text = head + ":\n" + doc + "".join(copies) + body_lines + "\n"
    filename = f"<s2sad: {fn.__name__} writing into copies, #{next(_COUNT)}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    code = compile(text, filename, "exec")
    fn_code = next(c for c in code.co_consts if inspect.iscode(c) and c.co_name == name)
    # (calls are bound positionally before this runs: no defaults needed)
    copy = types.FunctionType(fn_code, _globals_of(fn, parsed, fn_code), name)
    _read_as_lifted(copy, fn, tree, written, parsed)
    _WRAPPERS[helper_key(fn), positions] = (copy, positions, valued, {})
    return copy


def _read_as_lifted(copy, fn, tree, written, parsed):
    """The reader reads the copy as its tree, with the line numbers of fn's
    own source (a refusal in it names the user's file and line, not the
    copy's text)."""
    lifted = clone(tree)
    lifted.body = [gast.copy_location(assign(w, call(gast.Attribute(
        value=name(w), attr="copy", ctx=gast.Load()))), tree) for w in written] + lifted.body
    for node in walk(lifted):  # (the appended return: at the last line)
        if isinstance(node, gast.stmt) and getattr(node, "lineno", None) is None:
            gast.copy_location(node, lifted.body[-2] if len(lifted.body) > 1 else tree)
    location = parsed.location
    extra = {n: v for n, v in copy.__globals__.items() if fn.__globals__.get(n, v) is not v
             or n not in fn.__globals__}
    LIFTED[copy] = Lifted(lifted, NestedLocation(location.filename, location.first_line,
                                                 f"{fn.__name__} (writing into copies of "
                                                 f"{', '.join(written)})",
                                                 location.line_of(tree) or location.first_line),
                          parsed.source, root_of(fn), extra)


def _globals_of(fn, parsed, code):
    """The copy's globals: fn's, with the names its tree reads that fn's
    module does not define (a nested function or lambda the reader lifted
    out of fn, `helper_g4`), in a copy of them."""
    names = set()
    stack = [code]
    while stack:
        c = stack.pop()
        names.update(c.co_names)
        stack += [k for k in c.co_consts if inspect.iscode(k)]
    extra = {n: parsed.namespace[n] for n in names
             if n not in fn.__globals__ and n in parsed.namespace
             and not hasattr(builtins, n)}
    return {**fn.__globals__, **extra} if extra else fn.__globals__


def _pass_dicts_on(tree, written, parsed, parse):
    """A helper passing a dict it is given on to a helper that assigns into it
    at constant keys (`fill(d, x)` inside `update(d, x)`): the call gets a
    local dict of the keys that helper uses, assigned back after it

        d_passed = {'y': d['y']}
        fill(d_passed, x)
        d['y'] = d_passed['y']

    so this helper reads and assigns `d['key']` itself (dict_writes), and the
    inner call is one of a helper writing into a local dict, which the
    derivative of this helper's copy follows."""
    taken = {n.id for n in walk(tree) if isinstance(n, gast.Name)}

    def block(stmts):
        out = []
        for s in stmts:
            for field in ("body", "orelse"):
                if isinstance(getattr(s, field, None), list):
                    setattr(s, field, block(getattr(s, field)))
            out += _passed_on(s) or [s]
        return out

    def _passed_on(s):
        call = s.value if isinstance(s, (gast.Expr, gast.Assign)) else None
        if not isinstance(call, gast.Call) or call.keywords:
            return None
        try:
            callee = readable_function(parsed.resolve(call.func))
        except Exception:  # noqa: BLE001
            return None
        if callee is None:
            return None
        always, _ = written_positions(callee, readable_function, parse)
        hits = [p for p in always if p < len(call.args) and isinstance(call.args[p], gast.Name)
                and call.args[p].id in written]
        if not hits or hits != list(always):
            return None
        if (helper_key(callee), tuple(always)) in _BEING_COPIED:
            return None  # (a recursive call: its dicts are this copy's own, the array path)
        writing_copy(callee, tuple(always), parsed.location, call, parse)
        keys = _WRAPPERS[helper_key(callee), tuple(always)][3]
        if set(keys) != set(hits):
            return None  # (it writes into them as arrays: the array path)
        before, after = [], []
        for p in hits:
            d = call.args[p].id
            local = fresh_name(f"{d}_passed", taken)
            before.append(gast.copy_location(gast.Assign(
                targets=[gast.Name(id=local, ctx=gast.Store(), annotation=None,
                                   type_comment=None)],
                value=gast.Dict(keys=[gast.Constant(value=k, kind=None) for k in keys[p]],
                                values=[_at(d, k) for k in keys[p]]), type_comment=None), s))
            after += [gast.copy_location(gast.Assign(
                targets=[_at(d, k, gast.Store())], value=_at(local, k), type_comment=None), s)
                for k in keys[p]]
            call.args[p] = gast.Name(id=local, ctx=gast.Load(), annotation=None,
                                     type_comment=None)
        return before + [s] + after

    tree.body = block(tree.body)


def _at(d, key, ctx=None):
    return gast.Subscript(value=gast.Name(id=d, ctx=gast.Load(), annotation=None,
                                          type_comment=None),
                          slice=gast.Constant(value=key, kind=None), ctx=ctx or gast.Load())


def dict_writes(tree, written, location):
    """{parameter: its keys} of the written parameters `tree` uses as dicts
    (`p["w"] = v` with constant string keys), or {}. Such a parameter may
    only be read and assigned at constant keys."""
    keyed = {}
    for n in walk(tree):
        if isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store) and isinstance(
                n.value, gast.Name) and n.value.id in written and isinstance(
                n.slice, gast.Constant) and isinstance(n.slice.value, str):
            keyed.setdefault(n.value.id, [])
    if not keyed:
        return {}
    parents = {}
    for n in walk(tree):
        for c in gast.iter_child_nodes(n):
            parents[id(c)] = n
    for n in walk(tree):
        if not (isinstance(n, gast.Name) and n.id in keyed) or isinstance(n.ctx, gast.Param):
            continue
        parent = parents.get(id(n))
        at_key = isinstance(parent, gast.Subscript) and parent.value is n and isinstance(
            parent.slice, gast.Constant) and isinstance(parent.slice.value, str)
        if not at_key or isinstance(parents.get(id(parent)), gast.AugAssign) and \
                parents[id(parent)].target is parent:
            raise UnsupportedSyntaxError(
                f"a helper writing into the dict '{n.id}' it is given, and using it other than "
                f"as {n.id}['key'] read or assigned", location, n,
                f"Read and assign {n.id}['key'] with constant keys only (write "
                f"{n.id}['k'] = {n.id}['k'] + v for +=), or return the new values")
        if parent.slice.value not in keyed[n.id]:
            keyed[n.id].append(parent.slice.value)
    return keyed


def key_name(key):
    return "".join(c if c.isalnum() else "_" for c in key) or "key"


def _dict_writing_copy(fn, parsed, tree, positions, written, keyed):
    """`fn` with each key of a dict it writes into held in a variable of its
    own (read from the dict first), the variables returned after its own
    result: `params["w"] = v` is `params_w = v`, and the caller assigns
    `p["w"]` the returned value."""
    taken = {n.id for n in walk(tree) if isinstance(n, gast.Name)}
    local = {(p, k): fresh_name(f"{p}_{key_name(k)}", taken) for p in keyed for k in keyed[p]}

    class Keys(gast.NodeTransformer):
        def visit_Subscript(self, node):
            self.generic_visit(node)
            if isinstance(node.value, gast.Name) and (node.value.id, getattr(
                    node.slice, "value", None)) in local:
                return gast.copy_location(gast.Name(id=local[node.value.id, node.slice.value],
                                                    ctx=node.ctx, annotation=None,
                                                    type_comment=None), node)
            return node

    Keys().visit(tree)
    order = [local[p, k] for p in written for k in keyed.get(p, ())]
    returns = [n for n in walk(tree) if isinstance(n, gast.Return)]
    valued = any(r.value is not None for r in returns)
    if valued and not (tree.body and isinstance(tree.body[-1], gast.Return)):
        raise UnsupportedSyntaxError(
            f"a call of {fn.__name__}, which writes into a dict it is given and may end "
            f"without a return", SourceLocation(fn.__code__.co_filename,
                                               fn.__code__.co_firstlineno, fn.__name__),
            tree, "End it with a return statement")

    def tail():
        return [gast.Name(id=v, ctx=gast.Load(), annotation=None, type_comment=None)
                for v in order]
    for r in returns:
        elts = ([r.value] if valued else []) + tail()
        r.value = elts[0] if len(elts) == 1 else gast.Tuple(elts=elts, ctx=gast.Load())
    if not valued:
        t = tail()
        tree.body.append(gast.Return(value=t[0] if len(t) == 1 else
                                     gast.Tuple(elts=t, ctx=gast.Load())))
    reads = [f"    {local[p, k]} = {p}[{k!r}]\n" for p in written for k in keyed.get(p, ())]
    name = fn.__name__ + "_writing"
    tree.name = name
    text = ast.unparse(gast.gast_to_ast(gast.Module(body=[tree], type_ignores=[])))
    head, _, rest = text.partition(":\n")
    doc = (f"    \"\"\"{fn.__name__} ({fn.__code__.co_filename}:{fn.__code__.co_firstlineno}), "
           f"returning the new values of the keys it assigns.\"\"\"\n")
    text = head + ":\n" + doc + "".join(reads) + rest + "\n"
    filename = f"<s2sad: {fn.__name__} writing into copies, #{next(_COUNT)}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    code = compile(text, filename, "exec")
    fn_code = next(c for c in code.co_consts if inspect.iscode(c) and c.co_name == name)
    copy = types.FunctionType(fn_code, _globals_of(fn, parsed, fn_code), name)
    _WRAPPERS[helper_key(fn), positions] = (copy, positions, valued,
                                      {p: keyed[w] for p, w in zip(positions, written)
                                       if w in keyed})
    return copy


def made_by(fn):
    """The written positions of `fn` if it is a writing copy made here, else None."""
    for (_, positions), (copy, _, _, _) in _WRAPPERS.items():
        if copy is fn:
            return positions
    return None


def is_copy(fn):
    return any(w[0] is fn for w in _WRAPPERS.values())


def returns_value(fn, positions):
    """Whether the writing copy of `fn` for `positions` also returns fn's result."""
    return _WRAPPERS[helper_key(fn), positions][2]


def dict_keys(fn, positions):
    """{position: keys} of the dicts the writing copy of `fn` returns by key."""
    return _WRAPPERS[helper_key(fn), positions][3]
