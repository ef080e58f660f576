"""Statements numba cannot compile, which compute nothing that needs a
gradient, run in numba's object mode: each in a `with numba.objmode(...)`
block declaring the types of what it assigns (from the kinds), as numba
asks. They are:

- a statement using a Python object (objects.py: a random generator, given,
  read from the module or made in the function): its handle is the number
  compiled code holds (`held(rng)` the object, `keep(...)` a new one's
  handle; s2sad/runtime/objects.py);
- `print` with keywords (`print(i, end=" ")`), which numba's print lacks;
- a call of a method no array, number, string or container has
  (`ax.imshow(m)` of a plotting helper's `ax`, None under `if ax:`): a
  Python object's, which numba cannot call (and types even where the
  branch never runs);
- an f-string with a format spec (`f"step{t:03d}.png"`), which numba
  cannot even read: the spec becomes a call of `format`
  (`f"step{format(t, '03d')}.png"`, as Python formats it) in the block;
- a call of a function kept as Python (`inactive_3(...)`, try/except:
  frontend/statements/inactive_blocks.py).

    noise = rng.normal(size=n)     ->   with numba.objmode(noise='float64[:]'):
                                            noise = held(rng).normal(size=n)

As Python (jit=False) the block runs its body: `numba.objmode` does
nothing outside compiled code. A statement whose results have a kind numba
has no type for is left as it is (numba refuses it: the derivative falls
back to Python, with a warning). The activity analysis refuses a value that
needs a gradient computed by such a statement, so what runs here is
constant for the derivative; a copy of an object (`r = rng`) and an object
given to a generated function are its handle, compiled."""
import builtins
from types import ModuleType

import gast
import numpy as np

from ..analysis import kinds as K
from ..names import fresh_name
from ..syntax import assign, call, const, name, walk

_DTYPES = {"f": "float64", "i": "int64", "b": "boolean", "c": "complex128"}


def numba_type(kind):
    """numba's type (as objmode takes it) of a value of `kind`, or None."""
    if kind is None:
        return None
    if kind.tag in ("float", "int", "bool", "complex"):
        return _DTYPES[kind.scalar_dtype]
    if kind.is_array:
        return f"{_DTYPES[kind.dtype]}[{', '.join([':'] * kind.ndim)}]"
    if kind.tag == "object":
        return "int64"  # its handle
    if kind.tag == "tuple" and kind.items:
        items = [numba_type(k) for k in kind.items]
        return None if None in items else f"Tuple({', '.join(items)})"
    return None


def wrap_object_mode(tree, kind_sets, resolve, generated=()):
    """Wrap, in place, the statements of the function `tree` numba cannot
    compile (see the module's text). `kind_sets`: the kinds of its names,
    one dict per specialisation it is compiled for (a statement is wrapped
    when they give its results one type); `resolve(node)` the object a
    callee denotes; `generated`: names of the module's functions (an object
    passed to one is its handle). Returns whether it wrapped any."""
    objects = {n for kinds in kind_sets for n, k in kinds.items()
               if getattr(k, "tag", None) == "object"}
    local = {a.id for a in tree.args.args} | {
        n.id for n in walk(tree) if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store)}
    formats = _format_calls(tree) if "format" not in local else set()
    wrapped = [False]

    def needs_python(s):
        if isinstance(s, gast.Assign) and isinstance(s.value, gast.Name) \
                and s.value.id in local and all(isinstance(t, gast.Name) for t in s.targets):
            return False  # a copy (of a handle)
        for n in walk(s):
            if isinstance(n, gast.Name) and n.id in objects and not _passed(n, s, generated):
                return True
            if id(n) in formats or _object_method(n, objects, resolve):
                return True
            if isinstance(n, gast.Call):
                obj = _safe(resolve, n.func)
                if (obj is builtins.print and n.keywords) or getattr(obj, "__s2sad_python__",
                                                                     False):
                    return True
        return False

    def block(stmts):
        out = []
        for s in stmts:
            if isinstance(s, (gast.For, gast.While, gast.If)):
                s.body = block(s.body)
                s.orelse = block(s.orelse)
            elif isinstance(s, (gast.Assign, gast.AugAssign, gast.Expr, gast.Return)) \
                    and needs_python(s):
                for part in _drawn_first(s, kind_sets, objects, taken):
                    w = _wrapped(part, kind_sets, objects) if part is not s or not isinstance(
                        s, gast.Return) else None
                    wrapped[0] = wrapped[0] or w is not None
                    # (not wrapped: a result of no numba type. numba refuses the
                    # statement and the derivative runs as Python, where an
                    # object made here is its handle too: read through held())
                    out.append(w or (_held(part, objects) if _reads_made(part, objects, generated)
                                     else part))
                continue
            out.append(s)
        return out

    taken = {n.id for n in walk(tree) if isinstance(n, gast.Name)} | set(generated)

    tree.body = block(tree.body)
    return wrapped[0]


def _drawn_first(s, kind_sets, objects, taken):
    """`s`, and before it the calls of objects' methods inside its
    expression (`return x * rng.normal()` in a helper's copy), each assigned
    to a name of its own (`normal = rng.normal()`): what can run in object
    mode alone. (Not one Python might not evaluate: in `a if c else b`,
    after `and`/`or`, in a comprehension.)"""
    value = getattr(s, "value", None)
    if value is None or (isinstance(s, gast.Assign) and _draw(value, objects)):
        return [s]
    skipped = {id(n) for c in walk(value) if isinstance(c, (gast.IfExp, gast.BoolOp,
                                                             gast.ListComp, gast.GeneratorExp,
                                                             gast.Lambda))
               for n in walk(c) if n is not c}
    before = []

    class Draws(gast.NodeTransformer):
        def visit_Call(self, node):
            self.generic_visit(node)
            if id(node) in skipped or not _draw(node, objects):
                return node
            var = fresh_name(node.func.attr, taken)
            for kinds in kind_sets:
                inference = K.KindInference(lambda *a: K.UNKNOWN)
                inference.env = kinds
                kinds[var] = inference.expr(node)
            before.append(gast.copy_location(assign(var, node), s))
            return gast.copy_location(name(var), node)

    s.value = Draws().visit(value)
    return before + [s]


def _draw(node, objects):
    """A call of a method of an object (`rng.normal(...)`)."""
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
        and isinstance(node.func.value, gast.Name) and node.func.value.id in objects


# what a method name may belong to, other than a Python object
_VALUE_TYPES = (np.ndarray, np.float64, list, tuple, dict, str, float, int, complex, set)


def _object_method(node, objects, resolve):
    """`v.m(...)` of a name `v` with a method `m` no array, number, string or
    container has (objects' own are `held`, elsewhere), `v` no module
    (`operator.pow(x, y)`, `cmath.exp(z)`: functions numba may know)."""
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
        and isinstance(node.func.value, gast.Name) and node.func.value.id not in objects \
        and node.func.value.id not in ("np", "math", "numba") \
        and not any(hasattr(t, node.func.attr) for t in _VALUE_TYPES) \
        and not isinstance(_safe(resolve, node.func.value), ModuleType)


def _format_calls(tree):
    """Rewrite (in place) each f-string format spec under `tree`, which numba
    cannot read (`{t:03d}`, `{x!r:>8}`), into a call of `format` (`{format(t,
    '03d')}`): the ids of those calls."""
    calls = set()
    for n in walk(tree):
        if not isinstance(n, gast.FormattedValue) or n.format_spec is None:
            continue
        value = n.value
        conversion = {ord("r"): "repr", ord("s"): "str", ord("a"): "ascii"}.get(n.conversion)
        if conversion:
            value = call(conversion, value)
        spec = n.format_spec
        if isinstance(spec, gast.JoinedStr) and all(isinstance(v, gast.Constant)
                                                    for v in spec.values):
            spec = const("".join(v.value for v in spec.values))
        n.value, n.conversion, n.format_spec = call("format", value, spec), -1, None
        calls.add(id(n.value))
    return calls


def _safe(resolve, node):
    try:
        return resolve(node)
    except Exception:  # noqa: BLE001 - unknown: not a form this pass knows
        return None


def _passed(n, s, generated):
    """Whether the name `n` is an argument of a call of a generated function
    (which takes the handle)."""
    for c in walk(s):
        if isinstance(c, gast.Call) and isinstance(c.func, gast.Name) \
                and c.func.id in generated and any(a is n for a in c.args):
            return True
    return False


def _wrapped(s, kind_sets, objects):
    """`with numba.objmode(<results' types>): <s>`, or None when a result
    has no numba type (or differs between specialisations)."""
    targets = [s.target] if isinstance(s, gast.AugAssign) else \
        (s.targets if isinstance(s, gast.Assign) else [])
    names = []
    for t in targets:
        if isinstance(t, gast.Name):
            names.append(t.id)
        elif isinstance(t, (gast.Tuple, gast.List)) and all(isinstance(e, gast.Name)
                                                            for e in t.elts):
            names += [e.id for e in t.elts]
            if any(e.id in objects for e in t.elts):
                return None  # (an object unpacked: its handle would be made where)
        elif not isinstance(t, gast.Subscript):  # (a write into an array: its memory)
            return None
    types = {}
    for v in names:
        found = {numba_type(kinds.get(v)) for kinds in kind_sets}
        if len(found) != 1 or None in found:
            return None
        types[v] = found.pop()
    body = _held(s, objects)
    if isinstance(s, gast.Assign) and len(names) == 1 and names[0] in objects:
        body.value = call(name("keep"), body.value)  # a new object: its handle
    items = [gast.withitem(context_expr=gast.Call(
        func=gast.Attribute(value=name("numba"), attr="objmode", ctx=gast.Load()), args=[],
        keywords=[gast.keyword(arg=v, value=const(t)) for v, t in types.items()]),
        optional_vars=None)]
    return gast.copy_location(gast.With(items=items, body=[body], type_comment=None), s)


def _reads_made(s, objects, generated):
    """Whether `s` reads an object other than as an argument of a generated
    function (which takes the handle)."""
    return any(isinstance(n, gast.Name) and n.id in objects and isinstance(n.ctx, gast.Load)
               and not _passed(n, s, generated) for n in walk(s))


def _held(s, objects):
    """`s` with every object it reads as `held(name)`."""
    class Held(gast.NodeTransformer):
        def visit_Name(self, node):
            if node.id in objects and isinstance(node.ctx, gast.Load):
                return gast.copy_location(call(name("held"), name(node.id)), node)
            return node
    return Held().visit(s)
