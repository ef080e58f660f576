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
import gast

from . import writing_copies
from .helper_effects import resolves, written_positions
from ...analysis.aliases import fresh_value
from ...analysis.helper_results import (returned_parameter, returned_parameters, returns_display,
                                        shared_parameters)
from ...errors import UnsupportedSyntaxError
from ...names import fresh_name
from ...syntax import walk


def run(tree, ctx):
    """Rewrite, in the bound `tree`, the calls of helpers that write into a
    parameter. A helper's `p += e` writes into p only when p is an array:
    such a call is rewritten for the parameters given an array (its
    `_call_key` and the position in `ctx.arrays`), and otherwise marked for
    arrays_written.py to decide once kinds are known.
    A helper's primal copy (`ctx.helper_copy`) rewrites only calls writing
    into a local dict literal: an array written in place needs nothing."""
    taken = {n.id for n in walk(tree) if isinstance(n, gast.Name)}
    arrays = ctx.arrays
    if ctx.helper_copy:
        dicts = {s.targets[0].id for s in walk(tree) if isinstance(s, gast.Assign)
                 and isinstance(s.value, gast.Dict) and len(s.targets) == 1
                 and isinstance(s.targets[0], gast.Name)}
        arrays = ("dicts", frozenset(dicts))
    tree.body = _rewrite_block(tree, tree.body, ctx, taken, arrays)
    return tree


def _call_key(call):
    return call.lineno, call.col_offset


def _rewrite_block(tree, stmts, ctx, taken, arrays):
    out = []
    for s in stmts:
        for field in ("body", "orelse"):
            if isinstance(getattr(s, field, None), list):
                setattr(s, field, _rewrite_block(tree, getattr(s, field), ctx, taken, arrays))
        out += _rewrite_statement(s, ctx, taken, arrays)
    return out


def _fresh(arg):
    """An argument that is a new value (an arithmetic result, np.log1p(x)),
    not a view: what the helper writes into it nobody reads."""
    return isinstance(arg, gast.Constant) or fresh_value(arg)


def _hoistable(s, call, positions):
    """Whether the call can run before the rest of the statement `s`: no
    other part of it reads an array the call writes into."""
    if not isinstance(s, (gast.Assign, gast.Expr, gast.Return)):
        return False
    written = {call.args[p].id for p in positions
               if p < len(call.args) and isinstance(call.args[p], gast.Name)}
    inside = {id(n) for n in walk(call)}
    # (a name stored to is bound after the value is computed: `u, v = h(u, v)`)
    return not any(isinstance(n, gast.Name) and n.id in written and id(n) not in inside
                   and not isinstance(n.ctx, gast.Store) for n in walk(s))


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


def _rewrite_statement(s, ctx, taken, arrays):
    parsed, readable = ctx.parsed, ctx.readable
    calls = [n for e in _own_expressions(s) for n in walk(e) if isinstance(n, gast.Call)]
    found = []
    for c in calls:
        fn = readable(parsed.resolve(c.func)) if resolves(parsed, c.func) else None
        if fn is None or writing_copies.is_copy(fn):
            continue
        always, if_array = written_positions(fn, readable, ctx.parse)
        if isinstance(arrays, tuple):  # only_dicts: calls writing into a local dict literal
            if not always or not all(p < len(c.args) and isinstance(c.args[p], gast.Name)
                                     and c.args[p].id in arrays[1] for p in always):
                continue
            found.append((c, fn, tuple(always)))
            continue
        arrays_given = tuple(p for p in if_array if (_call_key(c), p) in arrays)
        positions = tuple(sorted(always + arrays_given))
        if set(if_array) - set(arrays_given):
            c.s2sad_augmented = (fn.__name__, _call_key(c),
                                 tuple(p for p in if_array if p not in arrays_given))
        if positions:
            found.append((c, fn, positions))
    if not found:
        return [s]
    call, fn, positions = found[0]
    direct = (isinstance(s, gast.Expr) and s.value is call) or (
        isinstance(s, gast.Assign) and s.value is call and len(s.targets) == 1
        and (isinstance(s.targets[0], gast.Name) or (
            isinstance(s.targets[0], gast.Tuple)
            and all(isinstance(t, gast.Name) for t in s.targets[0].elts))))
    if len(found) == 1 and not direct and _hoistable(s, call, positions):
        # y = h(u) + 1 with nothing else in it reading u: the call first
        result = fresh_name(fn.__name__ + "_result", taken)
        _replace(s, call, gast.Name(id=result, ctx=gast.Load(), annotation=None,
                                    type_comment=None))
        first = gast.copy_location(gast.Assign(
            targets=[gast.Name(id=result, ctx=gast.Store(), annotation=None, type_comment=None)],
            value=call, type_comment=None), s)
        return _rewrite_statement(first, ctx, taken, arrays) + [s]
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
    copy = writing_copies.writing_copy(fn, positions, parsed.location, call, ctx.parse)
    ref = next((k for k, v in parsed.namespace.items() if v is copy), None)
    if ref is None:  # (one name for every call of the copy: generated code defines it once)
        ref = fresh_name(copy.__name__, taken)
        parsed.namespace[ref] = copy
    new_call = gast.copy_location(gast.Call(
        func=gast.Name(id=ref, ctx=gast.Load(), annotation=None, type_comment=None),
        args=call.args, keywords=[]), call)
    new_call.s2sad_bound = True
    held = [fresh_name(n + "_written", taken) for n in names]
    same, shares = _result_sharing(fn, positions, call, s, ctx)
    result = [s.targets[0]] if isinstance(s, gast.Assign) and same is None else [gast.Name(
        id=fresh_name(fn.__name__ + "_result", taken), ctx=gast.Store(), annotation=None,
        type_comment=None)] if writing_copies.returns_value(fn, positions) else []  # (a result nothing reads)
    targets = result + [
        gast.Name(id=h, ctx=gast.Store(), annotation=None, type_comment=None) for h in held]
    target = targets[0] if len(targets) == 1 else gast.Tuple(elts=targets, ctx=gast.Store())
    stmts = hoisted + [gast.copy_location(gast.Assign(targets=[target], value=new_call,
                                                      type_comment=None), s)]
    if shares:  # its result may be a view of what it wrote: a second name (aliases.py)
        stmts[-1].s2sad_result_shares = (result[0].id, fn.__name__, shares, tuple(held))
    keys = writing_copies.dict_keys(fn, positions)
    if keys:  # a dict it writes into: its new values by key, assigned back
        held = [fresh_name(f"{n}_{writing_copies.key_name(k)}_written", taken)
                for n, p in zip(names, positions) for k in keys.get(p, ())]
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
    # r = h(u) returning u: r is u, as in Python (aliases.py sees it); so each
    # name of `a, b = h(u, v)` returning (u, v)
    pairs = [] if same is None else same if isinstance(same, list) else [(s.targets[0], same)]
    for target, name in pairs:
        alias = gast.copy_location(gast.Assign(
            targets=[target], value=gast.Name(id=name, ctx=gast.Load(), annotation=None,
                                              type_comment=None), type_comment=None), s)
        alias.s2sad_returned_by = fn.__name__
        stmts.append(alias)
    return stmts


def _result_sharing(fn, positions, call, s, ctx):
    """For `r = fn(...)`: (the caller's name of the written argument fn
    returns as such, or None; the names of the written arguments its result
    may otherwise share memory with). `p += e; return p` returns the
    caller's array: r is that array. A result that may be a view of a
    written argument (`return p[1:]`, or `p[1]` of a matrix) is a second
    name of it; after the rewrite it is a copy, so aliases.py refuses a
    write through either name while the other is read. A tuple holding
    such a result is refused here."""
    shared = set(shared_parameters(fn, ctx.readable, ctx.parse)) & set(positions)
    if not shared or not isinstance(s, gast.Assign):
        return None, ()  # (a call made for its effect: its result is not kept)
    k = returned_parameter(fn, ctx.parse)
    if shared == {k} and isinstance(s.targets[0], gast.Name):
        return call.args[k].id, ()
    returned = returned_parameters(fn, ctx.parse)
    target = s.targets[0]
    if returned is not None and isinstance(target, gast.Tuple) \
            and len(target.elts) == len(returned) \
            and all(isinstance(t, gast.Name) for t in target.elts) \
            and all(k < len(call.args) and isinstance(call.args[k], gast.Name) for k in returned):
        # `u, v = h(u, v)` returning its parameters: each name is the caller's array
        return [(t, call.args[k].id) for t, k in zip(target.elts, returned)], ()
    if returns_display(fn, ctx.parse) or not isinstance(s.targets[0], gast.Name):
        raise UnsupportedSyntaxError(
            f"a call of {fn.__name__}, which writes into an array it is given and returns a "
            f"tuple holding that array or a view of it", ctx.location, call,
            f"Return a copy from {fn.__name__}, or read the array you passed after the call "
            f"instead of the result")
    return None, tuple(sorted(call.args[p].id for p in shared))

