"""A NamedTuple or dataclass made inside the function and read by its fields
is one variable per field:

    P = collections.namedtuple("P", "a b")     (at module level)

    p = P(a=x, b=y)            ->    p_a = x
    return p.a * p.b                 p_b = y
                                     return p_a * p_b

The constructor's arguments are bound to the fields as Python binds them
(by position, by keyword, the class's constant defaults). A dataclass's
field may be assigned (`p.a = v`, `p.a += v`: `p_a = ...`) unless it is
frozen; a NamedTuple's fields may also be read by a constant index (`p[0]`).

Made with *args or **kwargs, or with arguments that do not bind, it raises
as Python would. An instance used in any other way (passed to a function,
returned, unpacked, compared, bound to another name or again, read inside
its own constructor call, a field of a NamedTuple or frozen dataclass
assigned), a dataclass with `__post_init__`, its own `__init__`, a
`default_factory`, a field with `init=False` or a default that is not a
number, string, bool or None, is left as written: its construction is then
a call s2sad refuses as one with no gradient (naming the line) when a value
that needs a gradient goes into it."""
import dataclasses

import gast

from ...names import fresh_name
from ...syntax import walk
from ...errors import S2sadTypeError


def run(tree, ctx):
    """Rewrite, in place, the records of `tree` (a FunctionDef) made from a
    module-level NamedTuple or dataclass."""
    location, namespace = ctx.location, ctx.namespace
    for s in list(walk(tree)):
        if not (isinstance(s, gast.Assign) and len(s.targets) == 1
                and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Call)):
            continue
        cls = _resolve(s.value.func, namespace)
        kind = _record_kind(cls)
        if kind is None:
            continue
        try:
            _Record(tree, s, cls, kind, location).rewrite()
        except _LeftAsWritten:
            pass
    return tree


class _LeftAsWritten(Exception):
    """A record used in a way this pass does not rewrite: left as written."""


def _resolve(node, namespace):
    if isinstance(node, gast.Name):
        return namespace.get(node.id)
    if isinstance(node, gast.Attribute):
        base = _resolve(node.value, namespace)
        return getattr(base, node.attr, None) if base is not None else None
    return None


def _record_kind(cls):
    if not isinstance(cls, type):
        return None
    if issubclass(cls, tuple) and hasattr(cls, "_fields"):
        return "NamedTuple"
    if dataclasses.is_dataclass(cls):
        return "dataclass"
    return None


class _Record:
    def __init__(self, tree, stmt, cls, kind, location):
        self.tree, self.stmt, self.cls, self.kind = tree, stmt, cls, kind
        self.location = location
        self.var = stmt.targets[0].id
        self.what = f"a local {cls.__name__} ({kind}) '{self.var}'"

    def refuse(self, node, why, hint):
        """Not rewritten (`why`, `hint`: what a refusal would say; the
        construction is refused later, as a call, when it needs a gradient)."""
        raise _LeftAsWritten(f"line {self.location.line_of(node)}: {why}. {hint}")

    def fields(self):
        """[(field, default node or None)] of the class."""
        if self.kind == "NamedTuple":
            defaults = getattr(self.cls, "_field_defaults", {})
            return [(f, self.constant(defaults[f]) if f in defaults else None)
                    for f in self.cls._fields]
        params = getattr(self.cls, "__dataclass_params__", None)
        if hasattr(self.cls, "__post_init__") or (params is not None and not params.init):
            self.refuse(self.stmt, "whose class has __post_init__ or its own __init__",
                        "Compute the values in the function and keep them in variables")
        out = []
        for f in dataclasses.fields(self.cls):
            if not f.init:
                self.refuse(self.stmt, f"whose field '{f.name}' is not set by __init__",
                            "Keep the values in variables")
            if f.default_factory is not dataclasses.MISSING:
                self.refuse(self.stmt, f"whose field '{f.name}' has a default_factory",
                            f"Pass {f.name}= explicitly")
            default = None if f.default is dataclasses.MISSING else self.constant(f.default)
            out.append((f.name, default))
        return out

    def constant(self, value):
        if value is None or isinstance(value, (bool, int, float, str)):
            return gast.Constant(value=value, kind=None)
        self.refuse(self.stmt, f"with the default {value!r}, which is not a number, string, "
                    f"bool or None", "Pass the value explicitly")

    def bind(self, fields):
        call = self.stmt.value
        names = [f for f, _ in fields]
        if any(isinstance(a, gast.Starred) for a in call.args) or any(
                k.arg is None for k in call.keywords):
            self.refuse(call, "made with *args or **kwargs", "Pass each field")
        if len(call.args) > len(names):
            raise S2sadTypeError(f"{self.location.describe(call)}: {self.cls.__name__}() takes "
                            f"{len(names)} arguments but {len(call.args)} were given")
        given = list(zip(names, call.args))
        for k in call.keywords:
            if k.arg not in names or k.arg in dict(given):
                raise S2sadTypeError(f"{self.location.describe(call)}: {self.cls.__name__}() got an "
                                f"unexpected or repeated keyword argument '{k.arg}'")
            given.append((k.arg, k.value))
        bound = dict(given)
        for f, default in fields:
            if f not in bound:
                if default is None:
                    raise S2sadTypeError(f"{self.location.describe(call)}: {self.cls.__name__}() "
                                    f"missing required argument '{f}'")
                given.append((f, default))
        return given  # in the order Python evaluates them

    def rewrite(self):
        fields = self.fields()
        names = [f for f, _ in fields]
        stores = [n for n in walk(self.tree) if isinstance(n, gast.Name) and n.id == self.var
                  and not isinstance(n.ctx, gast.Load)]
        if len(stores) != 1:
            self.refuse(self.stmt, "bound more than once (or also a parameter)",
                        "Give each record a name of its own")
        if any(isinstance(n, gast.Name) and n.id == self.var for n in walk(self.stmt.value)):
            self.refuse(self.stmt, "read inside its own constructor call",
                        "Read the fields into variables first")
        parents = {}
        for n in walk(self.tree):
            for c in gast.iter_child_nodes(n):
                parents[id(c)] = n
        uses = []  # (the field's node, the field): all checked before anything changes
        for n in walk(self.tree):
            if not (isinstance(n, gast.Name) and n.id == self.var
                    and isinstance(n.ctx, gast.Load)):
                continue
            parent = parents.get(id(n))
            field = self.field_of(n, parent, names)
            if isinstance(parent.ctx, (gast.Store, gast.Del)) and (
                    isinstance(parent.ctx, gast.Del) or self.kind == "NamedTuple"
                    or self.cls.__dataclass_params__.frozen):
                self.refuse(parent, "whose field is assigned or deleted", "")
            uses.append((parent, field))
        given = self.bind(fields)
        taken = {n.id for n in walk(self.tree) if isinstance(n, gast.Name)}
        var_of = {f: fresh_name(f"{self.var}_{f}", taken) for f in names}
        for parent, field in uses:
            new = gast.Name(id=var_of[field], ctx=parent.ctx, annotation=None,
                            type_comment=None)
            _replace(parents.get(id(parent)), parent, gast.copy_location(new, parent))
        assigns = [gast.copy_location(gast.Assign(
            targets=[gast.Name(id=var_of[f], ctx=gast.Store(), annotation=None,
                               type_comment=None)], value=v, type_comment=None), self.stmt)
            for f, v in given]
        block = _block_of(self.tree, self.stmt)
        k = next(i for i, s in enumerate(block) if s is self.stmt)
        block[k:k + 1] = assigns

    def field_of(self, n, parent, names):
        if isinstance(parent, gast.Attribute) and parent.value is n:
            if parent.attr in names:
                return parent.attr
            self.refuse(parent, f"read at '.{parent.attr}', which is not one of its fields "
                        f"({', '.join(names)})", "Read its fields")
        if isinstance(parent, gast.Subscript) and parent.value is n \
                and self.kind == "NamedTuple" and isinstance(parent.slice, gast.Constant) \
                and isinstance(parent.slice.value, int) \
                and -len(names) <= parent.slice.value < len(names):
            return names[parent.slice.value]
        self.refuse(n, "used other than by reading its fields (passed, returned, unpacked, "
                    "compared or bound to another name)",
                    f"Read its fields ({self.var}.{names[0]}), or pass them")


def _replace(parent, old, new):
    for field, value in gast.iter_fields(parent):
        if value is old:
            setattr(parent, field, new)
            return
        if isinstance(value, list):
            for i, v in enumerate(value):
                if v is old:
                    value[i] = new
                    return


def _block_of(tree, stmt):
    for n in walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(n, field, None)
            if isinstance(block, list) and any(s is stmt for s in block):
                return block
    raise AssertionError("a statement outside any block")
