"""A range stored in a name and read as a sequence, by index or length
(which numba does not compile), is its arguments:

    r = range(1, n, 2)             r_stop = n
    x0 = x[r[0]]            ->     x0 = x[range_item(1, r_stop, 2, 0)]
    for k in range(len(r)):        for k in range(len(range(1, r_stop, 2))):
        t = r[k]                       t = range_item(1, r_stop, 2, k)

`range_item` is the element as Python gives it: an int index, negative
too, and IndexError out of range (a runtime helper). Loops over the name
reach here as such reads (desugar.py). The arguments are taken where the
range was made, as Python evaluates them there.

Only a range bound once, by a statement at the top level of the function
(after the tests the argument kinds decide are folded: `if r is None: r =
range(n)` is such a statement for a default of None), and read only after
it, by index or len(), is rewritten; anything else is left as written."""
import builtins

import gast

from ...errors import UnsupportedSyntaxError
from ...syntax import Transformer, assign, call, clone, const, name, walk

RANGE_ITEM = "range_item"  # the runtime helper reading a range's element


def run(tree, ctx):
    if ctx.namespace.get("range", builtins.range) is not builtins.range \
            or ctx.namespace.get("len", builtins.len) is not builtins.len:
        return None
    nodes = walk(tree)
    stores = {}
    for n in nodes:
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
            stores[n.id] = stores.get(n.id, 0) + 1
    ranges = {}
    for k, s in enumerate(tree.body):
        r = _stored_range(s, ctx.resolve)
        if r is not None and stores.get(r) == 1 and not any(
                _reads(t, r) for t in tree.body[:k]) and not _reads(s.value, r):
            ranges[r] = k
    ranges = {r: k for r, k in ranges.items() if _only_read_as_sequence(tree, r)}
    if not ranges:
        return None
    body, arguments = list(tree.body), {}
    for r, k in sorted(ranges.items(), key=lambda item: -item[1]):
        s = body[k]
        before, args = [], []
        for a, part in zip(_arguments(s.value), ("start", "stop", "step")):
            if isinstance(a, gast.Constant):
                args.append(a)
                continue
            held = ctx.namer.fresh(f"{r}_{part}")
            before.append(assign(held, a, src=s))
            args.append(name(held))
        arguments[r] = args
        body[k:k + 1] = before
    tree.body = body
    _AsArguments(arguments).visit(tree)
    helper = ctx.runtime_objects.get(RANGE_ITEM)
    if ctx.namespace.setdefault(RANGE_ITEM, helper) is not helper:
        raise UnsupportedSyntaxError(
            f"a range read by index in a module with a global named '{RANGE_ITEM}'",
            ctx.location, tree, f"Rename the global '{RANGE_ITEM}'")
    return tree


def _stored_range(s, resolve):
    """The name `s` binds to a call of range(...), or None."""
    if not (isinstance(s, gast.Assign) and len(s.targets) == 1
            and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Call)):
        return None
    c = s.value
    try:
        is_range = resolve(c.func) is builtins.range
    except Exception:  # noqa: BLE001 - a local or unknown name: not the builtin
        return None
    if is_range and 1 <= len(c.args) <= 3 and not c.keywords \
            and not any(isinstance(a, gast.Starred) for a in c.args):
        return s.targets[0].id
    return None


def _arguments(c):
    """start, stop, step of a range call."""
    args = list(c.args)
    if len(args) == 1:
        return [const(0), args[0], const(1)]
    return args + [const(1)] * (3 - len(args))


def _reads(node, r):
    return any(isinstance(n, gast.Name) and n.id == r and isinstance(n.ctx, gast.Load)
               for n in walk(node))


def _only_read_as_sequence(tree, r):
    """Every load of `r` is `r[i]` (not a slice) or `len(r)`."""
    allowed = set()
    for n in walk(tree):
        if isinstance(n, gast.Subscript) and isinstance(n.value, gast.Name) \
                and n.value.id == r and not isinstance(n.slice, (gast.Slice, gast.Tuple)):
            allowed.add(id(n.value))
        elif isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and n.func.id == "len" \
                and len(n.args) == 1 and isinstance(n.args[0], gast.Name) \
                and n.args[0].id == r and not n.keywords:
            allowed.add(id(n.args[0]))
    return all(id(n) in allowed for n in walk(tree) if isinstance(n, gast.Name)
               and n.id == r and isinstance(n.ctx, gast.Load))


class _AsArguments(Transformer):
    def __init__(self, arguments):
        self.arguments = arguments

    def visit_Subscript(self, node):
        self.generic_visit(node)
        if isinstance(node.value, gast.Name) and node.value.id in self.arguments:
            args = [clone(a) for a in self.arguments[node.value.id]]
            return gast.copy_location(call(RANGE_ITEM, *args, node.slice), node)
        return node

    def visit_Call(self, node):
        self.generic_visit(node)
        if isinstance(node.func, gast.Name) and node.func.id == "len" and len(node.args) == 1 \
                and isinstance(node.args[0], gast.Name) and node.args[0].id in self.arguments:
            args = [clone(a) for a in self.arguments[node.args[0].id]]
            node.args = [call("range", *args)]
        return node
