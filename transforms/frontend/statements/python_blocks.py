"""`try ... except` around code that computes nothing needing a gradient
runs as written: the statement becomes a function of its own, kept as
Python, called with the values it reads and returning those it assigns:

    try:                                   n = try_block(x, n)
        n = int(x.shape[0] // 2)    ->
    except (ValueError, TypeError):        def try_block(x, n):
        n = 0                                  try:
                                                   n = int(x.shape[0] // 2)
                                               except (ValueError, TypeError):
                                                   n = 0
                                               return n

Compiled, the call runs in numba's object mode (emit/objmode.py), which
catches exceptions by type as Python does. The function is s2sad's
(`__s2sad_python__`): never read or differentiated, the kinds of its
results inferred from its body. A value that needs a gradient computed in
it is refused where it would be differentiated (the activity analysis
knows which arguments it reads as values, not only for their shape).

Refused, with the line: a try ... except that returns, breaks or
continues out of the block, assigns through an index or an attribute, or
changes a list or dict (its changes would be invisible to s2sad), or
defines a function. (try ... finally alone is statement_forms.py's.)"""
import gast

from ..functions.lifted import function_of, loaded
from ...errors import UnsupportedSyntaxError
from ...names import fresh_name
from ...ops import ARRAY_METADATA
from ...syntax import walk

_MUTATING = {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault",
             "sort", "reverse", "popitem", "add", "discard", "fill", "resize", "put"}
_HINT = ("Keep only code that computes no value needing a gradient inside try ... except "
         "(it runs as Python), and assign its results to names")


def run(tree, ctx):
    if not any(isinstance(n, gast.Try) and n.handlers for n in walk(tree)):
        return None
    params = [a.id for a in tree.args.args]
    local = set(params) | {n.id for n in walk(tree) if isinstance(n, gast.Name)
                           and not isinstance(n.ctx, gast.Load)}
    closure = set(getattr(ctx.fn, "__code__", None) and ctx.fn.__code__.co_freevars or ())
    taken = set(ctx.namespace) | local
    _Blocks(tree, ctx, local | closure, taken).block(tree.body)
    return tree


class _Blocks:
    def __init__(self, tree, ctx, local, taken):
        self.tree, self.ctx, self.local, self.taken = tree, ctx, local, taken

    def block(self, stmts):
        for k, s in enumerate(stmts):
            if isinstance(s, gast.Try) and s.handlers:
                stmts[k] = self.lifted(s)
                continue
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(s, field, None)
                if isinstance(inner, list) and not isinstance(s, gast.FunctionDef):
                    self.block(inner)

    def refuse(self, what, node):
        raise UnsupportedSyntaxError(f"try ... except {what}", self.ctx.location, node, _HINT)

    def lifted(self, s):
        """The call of a function holding `s`, assigning what `s` assigns
        that the function reads elsewhere."""
        self.check(s)
        caught = {h.name.id for h in s.handlers if isinstance(getattr(h, "name", None), gast.Name)}
        stored = {n.id for n in walk(s) if isinstance(n, gast.Name)
                  and isinstance(n.ctx, gast.Store)} - caught
        inside = {id(n) for n in walk(s)}
        read_elsewhere = {n.id for n in walk(self.tree) if isinstance(n, gast.Name)
                          and isinstance(n.ctx, gast.Load) and id(n) not in inside}
        outputs = sorted(stored & read_elsewhere)
        bound_before = {n for n in stored if n in self.local and self._bound_elsewhere(n, inside)}
        inputs = sorted((loaded([s]) & self.local) | (set(outputs) & bound_before))
        fname = fresh_name("try_block", self.taken)
        body = [s, gast.Return(value=_names(outputs) if len(outputs) != 1 else _name(outputs[0]))]
        fdef = gast.FunctionDef(
            name=fname, args=gast.arguments(args=[_name(p, gast.Param()) for p in inputs],
                                            posonlyargs=[], vararg=None, kwonlyargs=[],
                                            kw_defaults=[], kwarg=None, defaults=[]),
            body=body, decorator_list=[], returns=None, type_comment=None)
        gast.copy_location(fdef, s)
        for n in walk(fdef):
            if not hasattr(n, "lineno") and isinstance(n, (gast.stmt, gast.expr)):
                gast.copy_location(n, s)
        fn = function_of(fdef, self.ctx.fn, self.ctx.location)
        fn.__s2sad_python__ = "try ... except"
        # what the kinds and the activity analysis read (program.py, ops.py):
        # its tree, where it is, and the arguments it reads as values
        fn.__s2sad_block__ = (fdef, self.ctx.location,
                              tuple(k for k, p in enumerate(inputs) if _read_as_value(s, p)))
        self.ctx.namespace[fname] = fn
        call = gast.Call(func=_name(fname), args=[_name(p) for p in inputs], keywords=[])
        if not outputs:
            new = gast.Expr(value=call)
        else:
            target = _name(outputs[0], gast.Store()) if len(outputs) == 1 else gast.Tuple(
                elts=[_name(o, gast.Store()) for o in outputs], ctx=gast.Store())
            new = gast.Assign(targets=[target], value=call, type_comment=None)
        for n in walk(new):
            gast.copy_location(n, s)
        return new

    def check(self, s):
        for n in walk(s):
            if isinstance(n, (gast.Return, gast.Yield, gast.YieldFrom)):
                self.refuse("that returns out of the function", n)
            if isinstance(n, (gast.Break, gast.Continue)) and not _in_own_loop(n, s):
                self.refuse("that breaks or continues a loop around it", n)
            if isinstance(n, (gast.FunctionDef, gast.Lambda, gast.ClassDef)):
                self.refuse("that defines a function", n)
            if isinstance(n, (gast.Global, gast.Nonlocal, gast.Delete)):
                self.refuse("with global, nonlocal or del", n)
            if isinstance(n, (gast.Subscript, gast.Attribute)) \
                    and isinstance(n.ctx, (gast.Store, gast.Del)):
                self.refuse("that assigns through an index or an attribute (a change s2sad "
                            "would not see)", n)
            if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) \
                    and n.func.attr in _MUTATING and isinstance(n.func.value, gast.Name) \
                    and n.func.value.id in self.local:
                self.refuse(f"that changes '{n.func.value.id}' in place (a change s2sad would "
                            f"not see)", n)

    def _bound_elsewhere(self, var, inside):
        return var in {a.id for a in self.tree.args.args} or any(
            isinstance(n, gast.Name) and n.id == var and isinstance(n.ctx, gast.Store)
            and id(n) not in inside for n in walk(self.tree))


def _in_own_loop(jump, s):
    """Whether a break or continue leaves a loop inside `s` (not one around it)."""
    for loop in walk(s):
        if isinstance(loop, (gast.For, gast.While)) and any(n is jump for n in walk(loop)):
            return True
    return False


def _read_as_value(s, var):
    """Whether `s` reads `var` other than for its shape (x.shape, x.ndim, ...)."""
    metadata = {id(n.value) for n in walk(s) if isinstance(n, gast.Attribute)
                and n.attr in ARRAY_METADATA}
    return any(isinstance(n, gast.Name) and n.id == var and isinstance(n.ctx, gast.Load)
               and id(n) not in metadata for n in walk(s))


def _name(v, ctx=None):
    return gast.Name(id=v, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def _names(vs):
    return gast.Tuple(elts=[_name(v) for v in vs], ctx=gast.Load())
