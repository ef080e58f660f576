"""Helpers that write into an array they are given (`step(u, out, k)` filling
`out`, numba style): the write changes the caller's array, which a
derivative that treats a call as a function of its arguments would miss.
Such a call is rewritten to one of a copy of the helper that writes into
copies of those arrays and returns them, and the caller writes them back:

    def step(u, out, k):              def step_writing(u, out, k):
        out[1] = u[0] * k                 out = out.copy()
                                          out[1] = u[0] * k
                                          return out

    step(u, un, k)              ->    un[:] = step_writing(u, un, k)
    c = fill(z)                 ->    c, z_written = fill_writing(z); z[:] = z_written

The array keeps its identity (other names bound to it see the write, as in
Python), and the copy is an ordinary helper with a result. A written
argument that is not a plain name, the same name given twice, a helper
that also rebinds the parameter, or a call inside an expression is refused."""
import ast
import inspect
import itertools
import linecache
import types

import gast

from ...errors import SourceLocation, UnsupportedSyntaxError
from ...names import fresh_name
from ..containers.added_keys import create_added_keys
from .effects import respell_writes
from ...analysis.helper_results import returned_parameter, returns_display, shared_parameters
from ...syntax import base_name, clone, walk

_COUNT = itertools.count()
_WRAPPERS = {}  # ((helper, its source), written positions) -> (copy, positions, whether it
#                  also returns a value)


def rewrite_writing_calls(tree, parsed, readable, arrays=frozenset(), only_dicts=False):
    """Rewrite, in the bound `tree` of `parsed`, the calls of helpers that
    write into a parameter. `readable(obj)`: the Python function s2sad reads
    for a callee, or None. A helper's `p += e` writes into p only when p is an
    array: such a call (its `call_key`) is rewritten when it is in `arrays`,
    and otherwise marked for `arrays_written` to decide once kinds are known.
    `only_dicts`: rewrite only calls writing into a local dict literal (for
    a helper's primal copy, where an array written in place needs nothing)."""
    taken = {n.id for n in walk(tree) if isinstance(n, gast.Name)}
    if only_dicts:
        dicts = {s.targets[0].id for s in walk(tree) if isinstance(s, gast.Assign)
                 and isinstance(s.value, gast.Dict) and len(s.targets) == 1
                 and isinstance(s.targets[0], gast.Name)}
        arrays = ("dicts", frozenset(dicts))
    create_added_keys(tree, parsed, readable, written_positions)  # d = {}; fill(d, x)
    tree.body = _rewrite_block(tree, tree.body, parsed, readable, taken, arrays)


def call_key(call):
    return call.lineno, call.col_offset


def arrays_written(tree, kinds, call_kind, location, nodes=None):
    """The `call_key`s of marked calls (see rewrite_writing_calls) whose
    argument for a `p += e` parameter is an array. `nodes`: walk(tree), if
    the caller has it."""
    from ...analysis import kinds as K
    keys = set()
    for call in walk(tree) if nodes is None else nodes:
        marked = getattr(call, "s2sad_augmented", None)
        if not isinstance(call, gast.Call) or marked is None:
            continue
        helper, key, positions = marked
        for p in positions:
            kind = K.of_atom(call.args[p], kinds, call_kind) if p < len(call.args) else None
            if kind is None or kind.is_scalar:
                continue
            if not kind.known:
                raise UnsupportedSyntaxError(
                    f"a call of {helper}, which updates a parameter in place (+=, ...), "
                    f"given a value that may or may not be an array", location, call,
                    "Give it a value of one kind (an array, or a number)")
            keys.add(key)
    return keys


def _key(fn):
    """A helper as it reads now (an edited file gives a new copy)."""
    try:
        return fn, inspect.getsource(fn)
    except (OSError, TypeError):
        return fn, None


_WRITES = {}  # _key(helper) -> its written positions: (always, when an array)


def written_positions(fn, readable, _seen=None):
    """Positions of the parameters `fn` writes into: (those it always writes
    into, by subscript or slice stores or passing them on to a helper that
    does; those it updates with `p += e`, a write only for an array)."""
    if _key(fn) in _WRITES:
        return _WRITES[_key(fn)]
    _seen = set() if _seen is None else _seen
    if fn in _seen:
        return (), ()
    _seen.add(fn)
    from ..read.read import parse_function
    try:
        parsed = parse_function(fn)
    except Exception:  # noqa: BLE001 - reported where the helper is differentiated
        return (), ()
    params = [a.id for a in parsed.tree.args.args]
    written, augmented = set(), set()
    for node in walk(respell_writes(clone(parsed.tree), parsed)):  # (u.fill(v): u[...] = v)
        targets = node.targets if isinstance(node, gast.Assign) else \
            [node.target] if isinstance(node, gast.AugAssign) else []
        for t in targets:
            for sub in walk(t):
                if isinstance(sub, gast.Subscript) and isinstance(sub.ctx, gast.Store) \
                        and base_name(sub) in params:
                    written.add(base_name(sub))
        if isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name) \
                and node.target.id in params:
            augmented.add(node.target.id)
        if isinstance(node, gast.Call):
            callee = readable(parsed.resolve(node.func)) if _safe(parsed, node.func) else None
            if callee is not None and callee is not fn:
                always, if_array = written_positions(callee, readable, _seen)
                for positions, into in ((always, written), (if_array, augmented)):
                    for pos in positions:
                        if pos < len(node.args) and isinstance(node.args[pos], gast.Name) \
                                and node.args[pos].id in params:
                            into.add(node.args[pos].id)
    result = (tuple(k for k, p in enumerate(params) if p in written),
              tuple(k for k, p in enumerate(params) if p in augmented - written))
    _WRITES[_key(fn)] = result
    return result


def _safe(parsed, func):
    try:
        parsed.resolve(func)
        return True
    except Exception:  # noqa: BLE001
        return False


def _rewrite_block(tree, stmts, parsed, readable, taken, arrays):
    out = []
    for s in stmts:
        for field in ("body", "orelse"):
            if isinstance(getattr(s, field, None), list):
                setattr(s, field, _rewrite_block(tree, getattr(s, field), parsed, readable,
                                                 taken, arrays))
        out += _rewrite_statement(s, parsed, readable, taken, arrays)
    return out


def _fresh(arg):
    """An argument that is a new value (an arithmetic result), not a view."""
    return isinstance(arg, (gast.BinOp, gast.UnaryOp, gast.Constant))


def _hoistable(s, call, positions):
    """Whether the call can run before the rest of the statement `s`: no
    other part of it reads an array the call writes into."""
    if not isinstance(s, (gast.Assign, gast.Expr, gast.Return)):
        return False
    written = {call.args[p].id for p in positions
               if p < len(call.args) and isinstance(call.args[p], gast.Name)}
    inside = {id(n) for n in walk(call)}
    return not any(isinstance(n, gast.Name) and n.id in written and id(n) not in inside
                   for n in walk(s))


def _replace(tree, old, new):
    for node in walk(tree):
        for field, value in gast.iter_fields(node):
            if value is old:
                setattr(node, field, new)
            elif isinstance(value, list) and any(v is old for v in value):
                setattr(node, field, [new if v is old else v for v in value])


def _own_expressions(s):
    """The expressions of `s` itself (a loop's or branch's header, not its body)."""
    if isinstance(s, (gast.For, gast.While, gast.If)):
        return [getattr(s, "iter", None) or s.test]
    if isinstance(s, gast.With):
        return [item.context_expr for item in s.items]
    return [s]


def _rewrite_statement(s, parsed, readable, taken, arrays):
    calls = [n for e in _own_expressions(s) for n in walk(e) if isinstance(n, gast.Call)]
    copies = {w[0] for w in _WRAPPERS.values()}
    found = []
    for c in calls:
        fn = readable(parsed.resolve(c.func)) if _safe(parsed, c.func) else None
        if fn is None or fn in copies:
            continue
        always, if_array = written_positions(fn, readable)
        if isinstance(arrays, tuple):  # only_dicts: calls writing into a local dict literal
            if not always or not all(p < len(c.args) and isinstance(c.args[p], gast.Name)
                                     and c.args[p].id in arrays[1] for p in always):
                continue
            found.append((c, fn, tuple(always)))
            continue
        positions = tuple(sorted(always + (if_array if call_key(c) in arrays else ())))
        if if_array and call_key(c) not in arrays:
            c.s2sad_augmented = (fn.__name__, call_key(c), if_array)
        if positions:
            found.append((c, fn, positions))
    if not found:
        return [s]
    call, fn, positions = found[0]
    direct = (isinstance(s, gast.Expr) and s.value is call) or (
        isinstance(s, gast.Assign) and s.value is call and len(s.targets) == 1
        and isinstance(s.targets[0], gast.Name))
    if len(found) == 1 and not direct and _hoistable(s, call, positions):
        # y = h(u) + 1 with nothing else in it reading u: the call first
        result = fresh_name(fn.__name__ + "_result", taken)
        _replace(s, call, gast.Name(id=result, ctx=gast.Load(), annotation=None,
                                    type_comment=None))
        first = gast.copy_location(gast.Assign(
            targets=[gast.Name(id=result, ctx=gast.Store(), annotation=None, type_comment=None)],
            value=call, type_comment=None), s)
        return _rewrite_statement(first, parsed, readable, taken, arrays) + [s]
    if len(found) > 1 or not direct:
        raise UnsupportedSyntaxError(
            f"a call of {fn.__name__}, which writes into an array it is given, inside an "
            f"expression", parsed.location, call,
            f"Call {fn.__name__}(...) as a statement of its own (x = {fn.__name__}(...))")
    hoisted = []
    for p in positions:  # h(u * 2): the value made for the call gets a name
        if p < len(call.args) and _fresh(call.args[p]):
            held = fresh_name("arg", taken)
            hoisted.append(gast.copy_location(gast.Assign(
                targets=[gast.Name(id=held, ctx=gast.Store(), annotation=None, type_comment=None)],
                value=call.args[p], type_comment=None), s))
            call.args[p] = gast.Name(id=held, ctx=gast.Load(), annotation=None, type_comment=None)
    args = [call.args[p] if p < len(call.args) else None for p in positions]
    names = [a.id if isinstance(a, gast.Name) else None for a in args]
    others = [a.id for k, a in enumerate(call.args) if k not in positions
              and isinstance(a, gast.Name)]
    if None in names or len(set(names)) != len(names) or set(names) & set(others):
        raise UnsupportedSyntaxError(
            f"a call of {fn.__name__} giving an array it writes into as an expression, or "
            f"also as another argument", parsed.location, call,
            f"Pass the array {fn.__name__} writes into as a variable, once")
    copy = _writing_copy(fn, positions, parsed.location, call)
    ref = next((k for k, v in parsed.namespace.items() if v is copy), None)
    if ref is None:  # (one name for every call of the copy: generated code defines it once)
        ref = fresh_name(copy.__name__, taken)
        parsed.namespace[ref] = copy
    new_call = gast.copy_location(gast.Call(
        func=gast.Name(id=ref, ctx=gast.Load(), annotation=None, type_comment=None),
        args=call.args, keywords=[]), call)
    new_call.s2sad_bound = True
    held = [fresh_name(n + "_written", taken) for n in names]
    same, shares = _result_sharing(fn, positions, call, s, parsed, readable)
    result = [s.targets[0]] if isinstance(s, gast.Assign) and same is None else [gast.Name(
        id=fresh_name(fn.__name__ + "_result", taken), ctx=gast.Store(), annotation=None,
        type_comment=None)] if _WRAPPERS[_key(fn), positions][2] else []  # (a result nothing reads)
    targets = result + [
        gast.Name(id=h, ctx=gast.Store(), annotation=None, type_comment=None) for h in held]
    target = targets[0] if len(targets) == 1 else gast.Tuple(elts=targets, ctx=gast.Store())
    stmts = hoisted + [gast.copy_location(gast.Assign(targets=[target], value=new_call,
                                                      type_comment=None), s)]
    if shares:  # its result may be a view of what it wrote: a second name (aliases.py)
        stmts[-1].s2sad_result_shares = (result[0].id, fn.__name__, shares, tuple(held))
    keys = _WRAPPERS[_key(fn), positions][3]
    if keys:  # a dict it writes into: its new values by key, assigned back
        held = [fresh_name(f"{n}_{_key_name(k)}_written", taken) for n, p in zip(names, positions)
                for k in keys.get(p, ())]
        targets = result + [gast.Name(id=h, ctx=gast.Store(), annotation=None, type_comment=None)
                            for h in held]
        target = targets[0] if len(targets) == 1 else gast.Tuple(elts=targets, ctx=gast.Store())
        stmts[-1].targets = [target]
        names = [n for n, p in zip(names, positions) for k in keys.get(p, ())]
    slots = [gast.Constant(value=k, kind=None) for p in positions for k in keys.get(p, ())] \
        if keys else [None] * len(names)
    for n, h, key in zip(names, held, slots):  # written back: the caller's array keeps its identity
        slot = gast.Subscript(value=gast.Name(id=n, ctx=gast.Load(), annotation=None,
                                              type_comment=None),
                              slice=key if key is not None else gast.Slice(
                                  lower=None, upper=None, step=None),
                              ctx=gast.Store())
        stmts.append(gast.copy_location(gast.Assign(
            targets=[slot], value=gast.Name(id=h, ctx=gast.Load(), annotation=None,
                                            type_comment=None), type_comment=None), s))
    if same is not None:  # r = h(u) returning u: r is u, as in Python (aliases.py sees it)
        alias = gast.copy_location(gast.Assign(
            targets=[s.targets[0]], value=gast.Name(id=same, ctx=gast.Load(), annotation=None,
                                                    type_comment=None), type_comment=None), s)
        alias.s2sad_returned_by = fn.__name__
        stmts.append(alias)
    return stmts


def _result_sharing(fn, positions, call, s, parsed, readable):
    """For `r = fn(...)`: (the caller's name of the written argument fn
    returns as such, or None; the names of the written arguments its result
    may otherwise share memory with). `p += e; return p` returns the
    caller's array: r is that array. A result that may be a view of a
    written argument (`return p[1:]`, or `p[1]` of a matrix) is a second
    name of it; after the rewrite it is a copy, so aliases.py refuses a
    write through either name while the other is read. A tuple holding
    such a result is refused here."""
    shared = set(shared_parameters(fn, readable)) & set(positions)
    if not shared or not isinstance(s, gast.Assign):
        return None, ()  # (a call made for its effect: its result is not kept)
    k = returned_parameter(fn)
    if shared == {k} and isinstance(s.targets[0], gast.Name):
        return call.args[k].id, ()
    if returns_display(fn) or not isinstance(s.targets[0], gast.Name):
        raise UnsupportedSyntaxError(
            f"a call of {fn.__name__}, which writes into an array it is given and returns a "
            f"tuple holding that array or a view of it", parsed.location, call,
            f"Return a copy from {fn.__name__}, or read the array you passed after the call "
            f"instead of the result")
    return None, tuple(sorted(call.args[p].id for p in shared))


def _writing_copy(fn, positions, location, call):
    """A Python function: `fn` writing into copies of the parameters at
    `positions` and returning them (after its own result, if it has one)."""
    if (_key(fn), positions) in _WRAPPERS:
        return _WRAPPERS[_key(fn), positions][0]
    from ..read.read import parse_function
    parsed = parse_function(fn)
    if fn.__closure__:
        raise UnsupportedSyntaxError(
            f"a call of {fn.__name__}, a nested function that writes into an array it is "
            f"given", location, call, f"Define {fn.__name__} at module level")
    tree = respell_writes(parsed.tree, parsed)  # (np.copyto(u, v): u[...] = v, which numba runs)
    params = [a.id for a in tree.args.args]
    written = [params[p] for p in positions]
    _pass_dicts_on(tree, written, parsed)  # update(d, x) calling fill(d, x)
    keyed = dict_writes(tree, written, parsed.location)
    if keyed:  # params["w"] = v into a dict it is given: a variable per key, returned
        return _dict_writing_copy(fn, tree, positions, written, keyed)
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
    tail = [gast.Name(id=w, ctx=gast.Load(), annotation=None, type_comment=None)
            for w in written]
    for r in returns:
        elts = ([r.value] if valued else []) + [gast.Name(id=w, ctx=gast.Load(), annotation=None,
                                                          type_comment=None) for w in written]
        r.value = elts[0] if len(elts) == 1 else gast.Tuple(elts=elts, ctx=gast.Load())
    if not valued:
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
    copy = types.FunctionType(fn_code, fn.__globals__, name)
    _WRAPPERS[_key(fn), positions] = (copy, positions, valued, {})
    return copy


def _pass_dicts_on(tree, written, parsed):
    """A helper passing a dict it is given on to a helper that assigns into it
    at constant keys (`fill(d, x)` inside `update(d, x)`): the call gets a
    local dict of the keys that helper uses, assigned back after it

        d_passed = {'y': d['y']}
        fill(d_passed, x)
        d['y'] = d_passed['y']

    so this helper reads and assigns `d['key']` itself (dict_writes), and the
    inner call is one of a helper writing into a local dict, which the
    derivative of this helper's copy follows."""
    from ..calls.bind import readable_function
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
        always, _ = written_positions(callee, readable_function)
        hits = [p for p in always if p < len(call.args) and isinstance(call.args[p], gast.Name)
                and call.args[p].id in written]
        if not hits or hits != list(always):
            return None
        _writing_copy(callee, tuple(always), parsed.location, call)
        keys = _WRAPPERS[_key(callee), tuple(always)][3]
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


def _key_name(key):
    return "".join(c if c.isalnum() else "_" for c in key) or "key"


def _dict_writing_copy(fn, tree, positions, written, keyed):
    """`fn` with each key of a dict it writes into held in a variable of its
    own (read from the dict first), the variables returned after its own
    result: `params["w"] = v` is `params_w = v`, and the caller assigns
    `p["w"]` the returned value."""
    taken = {n.id for n in walk(tree) if isinstance(n, gast.Name)}
    local = {(p, k): fresh_name(f"{p}_{_key_name(k)}", taken) for p in keyed for k in keyed[p]}

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
    copy = types.FunctionType(fn_code, fn.__globals__, name)
    _WRAPPERS[_key(fn), positions] = (copy, positions, valued,
                                      {p: keyed[w] for p, w in zip(positions, written)
                                       if w in keyed})
    return copy


def without_own_copies(tree, fn):
    """The derivative of a writing copy (`fn`, made by _writing_copy) starts
    without its `w = w.copy()` lines: a derivative copies the arrays its
    function writes into anyway (program.py, argument_copies.py), and a
    second copy would read as one too many. (The primal copy keeps them.)"""
    for (_, positions), (copy, _, _, _) in _WRAPPERS.items():
        if copy is fn:
            break
    else:
        return tree
    written = {tree.args.args[p].id for p in positions}
    first = 1 if tree.body and isinstance(tree.body[0], gast.Expr) \
        and isinstance(tree.body[0].value, gast.Constant) else 0  # (after the docstring)
    while len(tree.body) > first and _copies_itself(tree.body[first], written):
        written.discard(tree.body[first].targets[0].id)
        del tree.body[first]
    return tree


def _copies_itself(s, names):
    """`w = w.copy()` for a w in `names`."""
    return (isinstance(s, gast.Assign) and len(s.targets) == 1
            and isinstance(s.targets[0], gast.Name) and s.targets[0].id in names
            and isinstance(s.value, gast.Call) and not s.value.args
            and isinstance(s.value.func, gast.Attribute) and s.value.func.attr == "copy"
            and isinstance(s.value.func.value, gast.Name)
            and s.value.func.value.id == s.targets[0].id)
