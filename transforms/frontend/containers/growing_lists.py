"""A list that grows (appended to, or popped, somewhere in the function) is
a stack, whatever it starts with: its literal's elements are its first
appends,

    states = [state]                       states = []
    for t in range(n):                     states.append(state)
        h = step(states[t], x[t])    ->    for t in range(n):
        states.append(h)                       h = step(states[t], x[t])
                                               states.append(h)

so its kind is that of its elements however many there are, and its reads
by index (`states[t]`, `states[-1]`, at an index another array holds),
np.stack of it and loops over it read that stack (list_reads.py, and the
reverse sweep's list of adjoints: reverse/user_stacks.py). An element
that reads the list itself (`states = [states[-1]]`) is evaluated before
the list is rebound, as Python evaluates the literal first.

np.stack, np.array and np.asarray of such a list (along the first axis,
without options) are `stack_list(states)`, a runtime helper (numba's
np.stack takes tuples only) raising numpy's ValueError when the elements'
shapes differ.

A loop over the list that also grows or shrinks it is refused: Python's
iterator reads the length at every step, the counted loop s2sad makes of
it (desugar.py, comprehensions.py for enumerate, zip and reversed) reads it
once."""
import builtins

import gast
import numpy as np

from .common import STACK_LIST, changed_while_iterated, mentions
from ...errors import UnsupportedSyntaxError
from ...syntax import Transformer, assign, call, const, name, walk

_CHANGING = ("append", "pop")
_STACKING = (np.stack, np.array, np.asarray)
# numpy functions that read a list given first as np.asarray of it (np.mean(losses))
_READ_AS_ARRAY = (np.sum, np.mean, np.prod, np.max, np.min, np.amax, np.amin, np.std, np.var,
                  np.median, np.average, np.cumsum, np.cumprod, np.argmax, np.argmin, np.ptp,
                  np.linalg.norm)


def run(fn_tree, ctx):
    nodes = walk(fn_tree)
    grown = {n.func.value.id for n in nodes if _changes(n)}
    if not grown:
        return None  # (no list is appended to or popped: most functions)
    for node in nodes:  # another scope's names (a nested def or lambda) stay
        if isinstance(node, (gast.FunctionDef, gast.Lambda)) and node is not fn_tree:
            grown -= {n.id for n in walk(node) if isinstance(n, gast.Name)}
    for node in nodes:
        if isinstance(node, gast.For):
            _refuse_changed_while_iterated(node, ctx)
    changed = _unfold(fn_tree, grown, ctx.namer)
    nodes = walk(fn_tree) if changed else nodes
    to_lists = {id(s.targets[0]) for s in nodes if isinstance(s, gast.Assign)
                and len(s.targets) == 1 and isinstance(s.value, gast.List)}
    # (a name also bound to anything else may not hold a list)
    lists = grown - {n.id for n in nodes if isinstance(n, gast.Name)
                     and isinstance(n.ctx, gast.Store) and id(n) not in to_lists}
    stacking = _Stacking(lists, ctx)
    stacking.visit(fn_tree)
    if stacking.found:
        helper = ctx.runtime_objects.get(STACK_LIST)
        if ctx.namespace.setdefault(STACK_LIST, helper) is not helper:
            raise UnsupportedSyntaxError(
                f"np.stack of a list in a module with a global named '{STACK_LIST}'",
                ctx.location, fn_tree, f"Rename the global '{STACK_LIST}'")
    return fn_tree if changed or stacking.found else None


class _Stacking(Transformer):
    """np.stack(xs), np.array(xs), np.asarray(xs) of a list: stack_list(xs);
    np.mean(xs) (and the other reductions numpy makes an array for first):
    np.mean(stack_list(xs))."""

    def __init__(self, lists, ctx):
        self.lists, self.ctx = lists, ctx
        self.found = False

    def visit_Call(self, node):
        self.generic_visit(node)
        if not (node.args and isinstance(node.args[0], gast.Name)
                and node.args[0].id in self.lists):
            return node
        obj = self.ctx.safe_resolve(node.func)
        if obj is builtins.sum and len(node.args) == 1 and not node.keywords:
            # sum(losses): the elements added up, as a filled list's sum is (comprehensions.py)
            self.found = True
            return gast.copy_location(gast.Call(
                func=gast.Attribute(value=name("np"), attr="sum", ctx=gast.Load()),
                args=[call(STACK_LIST, name(node.args[0].id))],
                keywords=[gast.keyword(arg="axis", value=const(0))]), node)
        if any(obj is f for f in _READ_AS_ARRAY):
            # np.mean(losses): numpy makes the array first, as stack_list does
            self.found = True
            node.args[0] = gast.copy_location(call(STACK_LIST, name(node.args[0].id)), node)
            return node
        if len(node.args) != 1 or not any(obj is f for f in _STACKING):
            return node
        for k in node.keywords:  # (after binding, the defaults may be spelled out)
            default = {"axis": 0, "dtype": None, "out": None, "like": None, "copy": True,
                       "casting": "same_kind"}.get(k.arg, k)
            if not (isinstance(k.value, gast.Constant) and type(k.value.value) is
                    type(default) and k.value.value == default):
                raise UnsupportedSyntaxError(
                    f"np.{obj.__name__} of the list '{node.args[0].id}' with {k.arg}=",
                    self.ctx.location, node,
                    f"Stack it along the first axis without options "
                    f"(np.stack({node.args[0].id})), then use numpy on the array")
        self.found = True
        return gast.copy_location(call(STACK_LIST, name(node.args[0].id)), node)


def _changes(node, names=None):
    """`xs.append(v)` or `xs.pop(...)` (of a name in `names`, if given)."""
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
        and node.func.attr in _CHANGING and isinstance(node.func.value, gast.Name) \
        and (names is None or node.func.value.id in names)


def _refuse_changed_while_iterated(loop, ctx):
    found = changed_while_iterated(loop, ctx.resolve)
    if found is not None:
        lst, node = found
        raise UnsupportedSyntaxError(
            f"a loop over the list '{lst}' that also changes it ({lst}.{node.func.attr})",
            ctx.location, node,
            f"Loop over the indices it has before the loop (`n = len({lst})`, then "
            f"`for k in range(n):` reading {lst}[k]), or use a while loop over an index")


def _unfold(fn_tree, grown, namer):
    changed = False
    for node in walk(fn_tree):
        for field in ("body", "orelse"):
            stmts = getattr(node, field, None)
            if not isinstance(stmts, list):
                continue
            out = []
            for s in stmts:
                target = _literal_binding(s, grown)
                if target is None:
                    out.append(s)
                    continue
                changed = True
                out += _as_appends(s, target, namer)
            stmts[:] = out
    return changed


def _literal_binding(s, grown):
    """The name `s` binds to a non-empty list literal, for a grown list."""
    if isinstance(s, gast.Assign) and len(s.targets) == 1 \
            and isinstance(s.targets[0], gast.Name) and s.targets[0].id in grown \
            and isinstance(s.value, gast.List) and s.value.elts \
            and not any(isinstance(e, gast.Starred) for e in s.value.elts):
        return s.targets[0].id
    return None


def _as_appends(s, target, namer):
    """`xs = [a, b]`: `xs = []; xs.append(a); xs.append(b)`, the elements
    reading the old list taken first."""
    before, values = [], []
    for k, e in enumerate(s.value.elts):
        if mentions(e, target):
            held = namer.fresh(f"{target}_{k}")
            before.append(assign(held, e, src=s))
            e = name(held)
        values.append(e)
    empty = assign(target, gast.List(elts=[], ctx=gast.Load()), src=s)
    appends = [gast.copy_location(gast.Expr(value=call(gast.Attribute(
        value=name(target), attr="append", ctx=gast.Load()), v)), s) for v in values]
    return before + [empty] + appends
