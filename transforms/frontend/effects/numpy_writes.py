"""Calls run for what they do to an array rather than for their value.

s2sad follows values through assignments, so a write hidden in a call
(`u.fill(0.0)`, `np.copyto(u, v)`, `np.multiply(a, b, out=u)`, `u.sort()`)
would run in the forward sweep and be missed by the reverse one: a wrong
gradient with no error. The forms numpy defines are spelled as the store
they are before calls are bound (`respell_writes`):

    u.fill(v)                       u[...] = v
    np.copyto(u, v)                 u[...] = v
    u.sort()   (also axis=)         u[...] = np.sort(u)
    y = np.multiply(a, b, out=u)    u[...] = np.multiply(a, b); y = u
    np.add.at(u, i, v)              u[...] = np.add.at(u, i, v)   (the call: s2sad's
                                    definition, s2sad/definitions/elementwise.py; also
                                    np.subtract.at)

and any other call made for its effect on an array (a statement of its
own, given an array or with an array's method) is refused once the kinds
are known (effects/calls_for_effect.py): `np.multiply.at`, `np.put`,
`x.resize`, a numba function s2sad cannot read, ...

This module is the respelling (hidden_writes.py runs it over the function;
helper_effects.py and writing_copies.py over helpers' trees) and the
tables of numpy's writing functions and methods."""
import builtins
import sys

import gast
import numpy as np

from ...errors import UnsupportedSyntaxError
from ...expressions import raising
from ...syntax import assign, attr, compare, const, name, subscript, walk
from ...syntax import call as calling  # (`call` names the call being rewritten here)

# methods of an ndarray that write into it (`sort` is spelled as a store)
WRITING_METHODS = {"fill", "sort", "put", "resize", "itemset", "setfield", "partition",
                   "byteswap", "setflags"}
PURE_BUILTINS = {builtins.print, builtins.len, builtins.isinstance}
# ufunc methods that write, spelled as a store of the value s2sad's definition gives
AT_DEFINED = (np.add.at, np.subtract.at)
# numpy functions that write into their first argument, wherever they are called
WRITING_FUNCTIONS = {np.put, np.place, np.putmask, np.fill_diagonal, np.copyto,
                     np.put_along_axis}


def writes_into_argument(obj):
    """Whether `obj` is a numpy function writing into its first argument
    (np.random.shuffle once numpy.random is loaded: it costs 11 ms to import,
    and before it is no function is its shuffle)."""
    random = sys.modules.get("numpy.random")
    return hashable_in(obj, WRITING_FUNCTIONS) or (random is not None and obj is random.shuffle)


def _name(id_, ctx=None):
    return gast.Name(id=id_, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def _whole(name):
    """`name[...]`, stored."""
    return gast.Subscript(value=_name(name), slice=gast.Constant(value=Ellipsis, kind=None),
                          ctx=gast.Store())


def respell_writes(tree, parsed):
    """Rewrite, in `tree` (parsed, not yet bound), the writes numpy hides in
    calls into stores. `parsed.resolve(node)`: the object a name denotes."""
    _Respell(parsed).visit(tree)
    return tree


class _Respell(gast.NodeTransformer):
    def __init__(self, parsed):
        self.parsed = parsed
        self.lists = None  # local name -> length, for names bound once to a list literal

    def list_lengths(self, tree):
        nodes = walk(tree)  # (once for the questions below)
        stores = {}
        for n in nodes:
            if isinstance(n, gast.Name) and not isinstance(n.ctx, gast.Load):
                stores[n.id] = stores.get(n.id, 0) + 1
        self.taken = set(stores) | {n.id for n in nodes if isinstance(n, gast.Name)}
        # (a list that grows, `out.append(v)`, has no length known here: not one)
        grown = {n.value.id for n in nodes if isinstance(n, gast.Attribute)
                 and isinstance(n.value, gast.Name) and n.attr != "sort"}
        self.lists = {}
        for n in nodes:
            if isinstance(n, gast.Assign) and len(n.targets) == 1 \
                    and isinstance(n.targets[0], gast.Name) and isinstance(n.value, gast.List) \
                    and n.value.elts and stores.get(n.targets[0].id) == 1 \
                    and n.targets[0].id not in grown \
                    and not any(isinstance(e, gast.Starred) for e in n.value.elts):
                self.lists[n.targets[0].id] = len(n.value.elts)

    def resolve(self, node):
        try:
            return self.parsed.resolve(node)
        except Exception:  # noqa: BLE001 - not a module-level object
            return None

    def visit_FunctionDef(self, node):
        if getattr(self, "_inside", False):
            return node  # a nested function is read on its own
        self._inside = True
        self.list_lengths(node)
        node.body = self.block(node.body)
        return node

    def visit_Lambda(self, node):
        return node

    def block(self, stmts):
        out = []
        for s in stmts:
            for field in ("body", "orelse"):
                if isinstance(getattr(s, field, None), list):
                    setattr(s, field, self.block(getattr(s, field)))
            out += self.statement(s)
        return out

    def statement(self, s):
        value = s.value if isinstance(s, (gast.Expr, gast.Assign)) else None
        single = isinstance(s, gast.Expr) or (
            isinstance(s, gast.Assign) and len(s.targets) == 1
            and isinstance(s.targets[0], gast.Name))
        nodes = walk(s)  # (once for out= and np.add.at)
        found = [c for c in nodes if c.__class__ is gast.Call and _out_argument(c)]
        if found:
            if len(found) > 1 or found[0] is not value or not single:
                raise UnsupportedSyntaxError(
                    "a call with out= inside an expression", self.parsed.location, found[0],
                    "Call it as a statement of its own, or assign its result "
                    "(u[...] = f(...)) instead of out=")
            return self.without_out(s, value)
        if isinstance(s, gast.Expr) and isinstance(value, gast.Call):
            if self.resolve(value.func) in AT_DEFINED:
                return self.ufunc_at(s, value)
            self.refuse_ufunc_at(nodes)
            return self.method_or_copyto(s, value)
        self.refuse_ufunc_at(nodes)
        return [s]

    def refuse_ufunc_at(self, nodes):
        """np.add.at anywhere but as a statement of its own (`nodes`, a
        statement's walk): its value is None."""
        for c in nodes:
            if c.__class__ is gast.Call and not (c.func.__class__ is gast.Attribute
                                                 and c.func.attr != "at") \
                    and hashable_in(self.resolve(c.func), AT_DEFINED):
                raise UnsupportedSyntaxError(
                    f"{describe_call(c.func)}(...) inside an expression (it writes into its first "
                    f"argument and returns None)", self.parsed.location, c,
                    f"Call it as a statement of its own: {describe_call(c.func)}(u, indices, v)")

    def ufunc_at(self, s, call):
        """`np.add.at(u, i, v)`: `u[...] = np.add.at(u, i, v)`, whose call the
        binder makes the definition returning the new value
        (s2sad/definitions/elementwise.py)."""
        if len(call.args) != 3 or call.keywords or not isinstance(call.args[0], gast.Name) \
                or any(isinstance(a, gast.Starred) for a in call.args):
            raise UnsupportedSyntaxError(
                f"{describe_call(call.func)}(...) into an expression, or without a value to add",
                self.parsed.location, call,
                f"Give it a variable and the values: {describe_call(call.func)}(u, indices, v)")
        return [gast.copy_location(gast.Assign(targets=[_whole(call.args[0].id)], value=call,
                                               type_comment=None), s)]

    def without_out(self, s, call):
        """`y = f(a, out=u)`: `u[...] = f(a); y = u`."""
        out = _out_argument(call)
        if not isinstance(out.value, gast.Name):
            raise UnsupportedSyntaxError(
                "out= given an expression", self.parsed.location, call,
                "Give out= a variable, or assign the result instead")
        call.keywords = [k for k in call.keywords if k is not out]
        stmts = [gast.copy_location(gast.Assign(targets=[_whole(out.value.id)], value=call,
                                                type_comment=None), s)]
        if isinstance(s, gast.Assign):
            stmts.append(gast.copy_location(gast.Assign(
                targets=s.targets, value=_name(out.value.id), type_comment=None), s))
        return stmts

    def method_or_copyto(self, s, call):
        func = call.func
        if self.resolve(func) is np.copyto:
            if len(call.args) != 2 or call.keywords or not isinstance(call.args[0], gast.Name):
                raise UnsupportedSyntaxError(
                    "np.copyto with casting= or where=, or into an expression",
                    self.parsed.location, call, "Write the store: dst[...] = src")
            return [gast.copy_location(gast.Assign(targets=[_whole(call.args[0].id)],
                                                   value=call.args[1], type_comment=None), s)]
        if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Subscript) \
                and func.attr in WRITING_METHODS:
            return self.view_method(s, call)
        if not (isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name)
                and self.resolve(func.value) is None):  # a method of a local variable
            return [s]
        x = func.value.id
        if func.attr == "sort" and x in (self.lists or {}):
            return self.list_sort(s, call, x)
        if func.attr == "fill" and len(call.args) == 1 and not call.keywords:
            return [gast.copy_location(gast.Assign(targets=[_whole(x)], value=call.args[0],
                                                   type_comment=None), s)]
        if func.attr == "sort" and not call.args and all(
                k.arg == "axis" for k in call.keywords):
            np_sort = gast.Attribute(value=_name("np"), attr="sort", ctx=gast.Load())
            if self.resolve(_name("np")) is not np:
                return [s]  # (refused by calls_for_effect.py if x is an array)
            sort = gast.Call(func=np_sort, args=[_name(x)], keywords=call.keywords)
            return [gast.copy_location(gast.Assign(targets=[_whole(x)], value=sort,
                                                   type_comment=None), s)]
        return [s]

    def view_method(self, s, call):
        """`y[1:].fill(v)`, `B[0].sort()`: a writing method of a view, which
        writes into the array viewed: the store `y[1:] = v`, `B[0] =
        np.sort(B[0])`. Only where the index makes a view (numbers, slices,
        `...`): through a fancy index or a mask numpy writes into a copy
        and the array is unchanged, and an index given by a name may be
        either, so that is refused."""
        func, view = call.func, call.func.value
        parts = view.slice.elts if isinstance(view.slice, gast.Tuple) else [view.slice]
        basic = all(_basic_index(p) for p in parts) and isinstance(view.value, gast.Name) \
            and self.resolve(view.value) is None
        store = gast.Subscript(value=_name(view.value.id) if isinstance(view.value, gast.Name)
                               else view.value, slice=view.slice, ctx=gast.Store())
        if basic and func.attr == "fill" and len(call.args) == 1 and not call.keywords:
            return [gast.copy_location(gast.Assign(targets=[store], value=call.args[0],
                                                   type_comment=None), s)]
        if basic and func.attr == "sort" and not call.args and all(
                k.arg == "axis" for k in call.keywords) and self.resolve(_name("np")) is np:
            read = gast.Subscript(value=_name(view.value.id), slice=view.slice, ctx=gast.Load())
            sort = gast.Call(func=gast.Attribute(value=_name("np"), attr="sort",
                                                 ctx=gast.Load()),
                             args=[read], keywords=call.keywords)
            return [gast.copy_location(gast.Assign(targets=[store], value=sort,
                                                   type_comment=None), s)]
        raise UnsupportedSyntaxError(
            f".{func.attr}() of an indexed array" + ("" if basic else
                                                     " (at an index that may not be a view)"),
            self.parsed.location, call,
            "Write the store into the array: x[i] = v for .fill(v), x[i] = np.sort(x[i]) "
            "for .sort(), with an index of numbers and slices")

    def list_sort(self, s, call, x):
        """`L.sort()` of a list literal of numbers: its elements written back
        in np.sort's order, as the per-element variables literals.py makes
        of the list (`reverse=True`: from the end)."""
        reverse = False
        for k in call.keywords:
            if k.arg == "reverse" and isinstance(k.value, gast.Constant) \
                    and isinstance(k.value.value, bool):
                reverse = k.value.value
            else:
                raise UnsupportedSyntaxError(
                    f"{x}.sort() with {k.arg}=", self.parsed.location, call,
                    f"Sort the numbers without a key: {x}.sort() or {x}.sort(reverse=True)")
        if call.args or self.resolve(_name("np")) is not np:
            return [s]
        n = self.lists[x]
        held = next(c for c in (f"{x}_sorted{k or ''}" for k in range(1000))
                    if c not in self.taken)
        self.taken.add(held)
        message = f"{x}.sort() of a list of arrays: Python compares arrays whole"
        out = [assign(held, calling("np.sort", calling("np.asarray", name(x)))),
               gast.If(test=compare(attr(name(held), "ndim"), "!=", const(1)),
                       body=[raising("TypeError", message)], orelse=[])]
        out += [assign(subscript(x, const(k), gast.Store()),
                       subscript(held, const(n - 1 - k if reverse else k))) for k in range(n)]
        for stmt in out:
            for node in walk(stmt):
                if isinstance(node, (gast.stmt, gast.expr)):
                    gast.copy_location(node, s)
        return out


def _basic_index(node):
    """An index part that makes a view: a number, a slice, `...`, None (a
    name may hold an index array or a mask: a copy)."""
    if isinstance(node, gast.Slice):
        return True
    if isinstance(node, gast.Constant):
        return node.value is Ellipsis or node.value is None or type(node.value) is int
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        return _basic_index(node.operand)
    return False


def _out_argument(call):
    """The `out=` keyword of a call, unless it is None (numpy's default)."""
    for k in call.keywords:
        if k.arg == "out" and not (isinstance(k.value, gast.Constant) and k.value.value is None):
            return k
    return None


def hashable_in(obj, group):
    try:
        return obj in group
    except TypeError:
        return False


def is_ufunc_at(obj):
    """`np.add.at` and the like: a bound method `at` of a ufunc."""
    return getattr(obj, "__name__", None) == "at" and isinstance(getattr(obj, "__self__", None),
                                                                np.ufunc)


def describe_call(func):
    if isinstance(func, gast.Attribute):
        return f"{describe_call(func.value)}.{func.attr}"
    return func.id if isinstance(func, gast.Name) else "a call"
