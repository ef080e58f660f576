"""A range stored in a name and looped over later runs as the counted loop
it is, over the range call itself:

    r = range(1, n)               r = range(1, n)
    for t in r:           ->      for t in range(1, n):
        s = s + x[t]                  s = s + x[t]

Python evaluates the range's arguments where it is stored; the call in the
loop gives the same range when they hold the same values there. An
argument that is not a constant or a name bound once (at the top level, or
a parameter never rebound) is evaluated where the range is stored, into a
name of its own (`r = range(1, x.shape[0])`: `r_stop = x.shape[0]; r =
range(1, r_stop)`), which the loops read. The loops are rewritten when the
range is stored once, at the top level of the function, and the name is
used only as loops' iterables. Anything else is left as written (and
refused where the passes cannot type it)."""
import builtins

import gast

from ...names import fresh_name
from ...syntax import clone, walk


def run(tree, ctx):
    if ctx.namespace.get("range") is not builtins.range:
        return None
    nodes = walk(tree)
    if not any(n.__class__ is gast.For and n.iter.__class__ is gast.Name for n in nodes):
        return None  # (most functions: no loop over a name)
    stores, params = {}, {a.id for a in tree.args.args}
    for n in nodes:
        if n.__class__ is gast.Name and not isinstance(n.ctx, (gast.Load, gast.Param)):
            stores[n.id] = stores.get(n.id, 0) + 1
    top = {}  # name -> position of the top-level statement binding it, if that is its one binding
    for k, s in enumerate(tree.body):
        if isinstance(s, gast.Assign):
            for t in s.targets:
                for n in walk(t):
                    if n.__class__ is gast.Name and stores.get(n.id) == 1:
                        top[n.id] = k
    ranges, held = {}, {}  # name -> (range call, position); range call -> its arguments held
    for k, s in enumerate(tree.body):
        call = s.value if isinstance(s, gast.Assign) and len(s.targets) == 1 \
            and isinstance(s.targets[0], gast.Name) else None
        if isinstance(call, gast.Call) and isinstance(call.func, gast.Name) \
                and call.func.id == "range" and "range" not in stores and not call.keywords \
                and 1 <= len(call.args) <= 3 and s.targets[0].id not in params \
                and stores.get(s.targets[0].id) == 1 \
                and not any(isinstance(a, gast.Starred) for a in call.args):
            ranges[s.targets[0].id] = (call, k)
            held[id(call)] = [j for j, a in enumerate(call.args)
                              if not _same_value(a, k, top, stores, params)]
    if not ranges:
        return None
    loops = {}  # id of a loop's iterable -> the loop, for the loops after each statement
    for k, s in enumerate(tree.body):
        for n in walk(s):
            if n.__class__ is gast.For and n.iter.__class__ is gast.Name \
                    and n.iter.id in ranges and ranges[n.iter.id][1] < k:
                loops[id(n.iter)] = n
    for n in nodes:  # a use other than as a later loop's iterable: left as written
        if n.__class__ is gast.Name and n.id in ranges and isinstance(n.ctx, gast.Load) \
                and id(n) not in loops:
            del ranges[n.id]
    if not any(loop.iter.id in ranges for loop in loops.values()):
        return None
    taken = {n.id for n in nodes if n.__class__ is gast.Name}
    body = []
    for s in tree.body:
        call = s.value if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) \
            and s.targets[0].id in ranges else None
        for j in held.get(id(call), ()) if call is not None else ():
            part = ("start", "stop", "step")[j if len(call.args) > 1 else 1]
            var = fresh_name(f"{s.targets[0].id}_{part}", taken)
            body.append(gast.copy_location(gast.Assign(
                targets=[gast.Name(id=var, ctx=gast.Store(), annotation=None, type_comment=None)],
                value=call.args[j], type_comment=None), s))
            call.args[j] = gast.copy_location(gast.Name(id=var, ctx=gast.Load(), annotation=None,
                                                        type_comment=None), call.args[j])
        body.append(s)
    tree.body = body
    for loop in loops.values():
        if loop.iter.id in ranges:
            loop.iter = gast.copy_location(clone(ranges[loop.iter.id][0]), loop.iter)
    return tree


def _same_value(arg, at, top, stores, params):
    """Whether `arg`, read by the top-level statement at position `at`, has
    the same value wherever the function runs after that statement."""
    if isinstance(arg, gast.Constant) or (isinstance(arg, gast.UnaryOp)
                                          and isinstance(arg.operand, gast.Constant)):
        return True
    if not isinstance(arg, gast.Name):
        return False
    if arg.id in params:
        return arg.id not in stores
    return top.get(arg.id, at) < at
