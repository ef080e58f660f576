"""A helper's body run where it is called (the front end's inlining passes:
functions/drawing_helpers.py, functions/returned_lists.py):

    v = h(a, b)        ->    h_x = a; h_y = b; <h's body, its names renamed>; v = <returned>

The body runs before the statement holding the call (as Python makes the
call before the rest of the statement), its parameters bound to the
call's arguments in the order Python evaluates them, its own names renamed
(`h_mean`), the names it reads from its module or closure bound to the
same objects in the caller's namespace, its lines those of the call. The
call's place holds the value of its final `return`; `v = h(...)` of a
helper returning a name of its own binds that name as `v`, and elsewhere
its renamed name holds the value (a list it grew stays one list). A call in the element of a list comprehension makes the
comprehension the loop it stands for. Left as a call: one in a `while`
test, a ternary's branch, after `and`/`or`, in a lambda or another
comprehension, after a draw in the same statement; of a helper returning
before its end, with *args or **kwargs, or recursive; a custom gradient."""
import functools

import gast
import numpy as np

from .lifted import params_of, stored
from ...analysis.objects import generator_classes
from ..read import read
from ...errors import S2sadError
from ...names import fresh_name
from ...syntax import clone, walk



@functools.cache
def draw_methods():
    """The methods of numpy's generators that draw or change their state
    (numpy.random imported when first asked: 11 ms)."""
    return frozenset(
        m for cls in (np.random.RandomState, np.random.Generator) for m in dir(cls)
        if not m.startswith("_") and callable(getattr(cls, m, None))
        and m not in ("get_state", "set_state", "spawn", "bit_generator"))


# (pass, function) whose helpers are being looked at: a recursive call is left
_READING = set()


def inline_calls(tree, ctx, label, wanted, where=None, names_for_reads=False):
    """Inline, in place, the calls in `tree` of the helpers whose parsed
    tree `wanted(parsed)` accepts (and, with `where`, only the calls
    `where(call)` accepts); whether any was. `label` names the pass (its
    recursion guard). `names_for_reads`: a parameter the helper never
    assigns, given a name, is that name in the body (no second name for the
    caller's array, which later passes would copy)."""
    key = (label, ctx.fn)
    if ctx.nested_def_ok or key in _READING:
        return False
    _READING.add(key)
    try:
        inliner = _Inliner(tree, ctx, label, wanted, where)
        inliner.names_for_reads = names_for_reads
        tree.body = inliner.block(tree.body)
        if inliner.changed:
            ctx.parsed.__dict__.pop("_locals", None)  # (its local names: read again)
    finally:
        _READING.discard(key)
    return inliner.changed


def draws(tree, resolve):
    """Whether the statements of `tree` draw random numbers themselves (see
    the module's text; a generator method of a local name is taken for a
    draw)."""
    for n in walk(tree):
        if not isinstance(n, gast.Call):
            continue
        try:
            obj = resolve(n.func)
        except Exception:  # noqa: BLE001 - not resolvable: a local
            obj = None
        if obj is None or read.is_missing(obj):
            base = n.func.value if isinstance(n.func, gast.Attribute) else None
            if isinstance(base, gast.Name) and n.func.attr in draw_methods():
                try:
                    owner = resolve(base)
                except Exception:  # noqa: BLE001
                    owner = None
                if owner is None or read.is_missing(owner):
                    return True
            continue
        if getattr(obj, "__module__", None) in ("numpy.random", "numpy.random.mtrand") \
                and not isinstance(obj, type) \
                or isinstance(getattr(obj, "__self__", None), generator_classes()):
            return True
    return False




def _eval_order(node, conditional=False, out=None):
    """(call, whether it runs at most once, unconditionally) for the calls of
    an expression, in the order Python makes them (arguments before the
    call); a list comprehension is yielded before what its element calls."""
    out = [] if out is None else out
    if isinstance(node, gast.Lambda):
        return out
    if isinstance(node, (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp)):
        _eval_order(node.generators[0].iter, conditional, out)
        if isinstance(node, gast.ListComp):
            out.append((node, not conditional))
        for part in [g for g in node.generators] + [getattr(node, f) for f in
                                                     ("elt", "key", "value") if hasattr(node, f)]:
            for n in walk(part):
                if isinstance(n, gast.Call):
                    out.append((n, False))
        return out
    if isinstance(node, gast.IfExp):
        _eval_order(node.test, conditional, out)
        _eval_order(node.body, True, out)
        _eval_order(node.orelse, True, out)
        return out
    if isinstance(node, gast.BoolOp):
        _eval_order(node.values[0], conditional, out)
        for v in node.values[1:]:
            _eval_order(v, True, out)
        return out
    if isinstance(node, gast.Assign):
        _eval_order(node.value, conditional, out)
        for t in node.targets:
            _eval_order(t, conditional, out)
        return out
    for _, value in gast.iter_fields(node):
        for child in value if isinstance(value, list) else [value]:
            if isinstance(child, gast.AST):
                _eval_order(child, conditional, out)
    if isinstance(node, gast.Call):
        out.append((node, not conditional))
    return out


def _name(id_, store=False):
    return gast.Name(id=id_, ctx=gast.Store() if store else gast.Load(), annotation=None,
                     type_comment=None)


def _assign(target, value, at):
    return gast.copy_location(gast.Assign(targets=[target], value=value, type_comment=None), at)


def _located(node, at):
    for n in walk(node):
        if hasattr(n, "lineno"):
            gast.copy_location(n, at)
    return node


class _Inliner:
    def __init__(self, tree, ctx, label, wanted, where=None):
        self.ctx, self.label, self.wanted, self.where = ctx, label, wanted, where
        self.taken = {n.id for n in walk(tree) if isinstance(n, gast.Name)} | \
            {a.id for a in params_of(tree.args)} | set(ctx.namespace)
        self.changed = False
        self.names_for_reads = False
        self._helpers = {}

    # ---- which calls -----------------------------------------------------------
    def helper(self, call):
        """(function, its parsed tree) of a helper `call` calls that draws, or None."""
        if self.where is not None and not self.where(call):
            return None
        obj = self.ctx.safe_resolve(call.func)
        if obj is None or getattr(obj, "__s2sad_custom__", None):
            return None
        try:
            fn = self.ctx.readable(obj)
        except TypeError:
            return None
        if fn is None or (self.label, fn) in _READING:
            return None
        if fn not in self._helpers:
            try:
                parsed = self.ctx.parse(fn, read_only=True)
            except (S2sadError, LookupError, SyntaxError, OSError, TypeError):
                parsed = None  # (refused or unread here: the call's own reading says so)
            if parsed is not None and not (_inlinable(parsed.tree) and self.wanted(parsed)):
                parsed = None
            self._helpers[fn] = parsed
        parsed = self._helpers[fn]
        if parsed is None or not _bindable(call, parsed.tree):
            return None
        return fn, parsed

    def inlined_here(self, call, s):
        """Whether `call` (or a list comprehension) of statement `s` is one to
        inline (or holds one in its element)."""
        if isinstance(call, gast.ListComp):
            return any(isinstance(n, gast.Call) and self.helper(n) is not None
                       for n in walk(call.elt))
        return self.helper(call) is not None

    # ---- statements ------------------------------------------------------------
    def block(self, stmts):
        out = []
        for s in stmts:
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(s, field, None)
                if isinstance(inner, list) and inner and not isinstance(s, gast.FunctionDef):
                    setattr(s, field, self.block(inner))
            for h in getattr(s, "handlers", None) or []:
                h.body = self.block(h.body)
            out += self.statement(s)
        return out

    def statement(self, s):
        """`s` with the drawing helpers it calls inlined before it."""
        before = []
        while True:
            header = _header(s)
            if header is None:
                return before + [s]
            order = _eval_order(header)
            found = None
            for k, (call, once) in enumerate(order):
                if once and self.inlined_here(call, s):
                    found = (call, order[:k])
                    break
            if found is None:
                return before + [s]
            call, earlier = found
            inside = {id(n) for n in walk(call)}
            if any(isinstance(c, gast.Call) and id(c) not in inside
                   and draws(c, self.ctx.safe_resolve) for c, _ in earlier):
                return before + [s]  # (a draw made before it in the statement: left)
            self.changed = True
            if isinstance(call, gast.ListComp):
                stmts, value = self.as_loop(call, s)
                before += self.block(stmts)
            else:
                stmts, value = self.inlined(call, s)
                before += stmts
            if value is None:  # the call was the statement
                return before
            _replace(s, call, value)

    def as_loop(self, comp, at):
        """`[e for t in it if c]` as `xs = []; for t2 in it: if c: xs.append(e)`
        (its variables renamed: they are the comprehension's own)."""
        xs = fresh_name("values", self.taken)
        self.taken.add(xs)
        mapping = {}
        for g in comp.generators:
            for n in walk(g.target):
                if isinstance(n, gast.Name) and n.id not in mapping:
                    mapping[n.id] = fresh_name(n.id, self.taken)
                    self.taken.add(mapping[n.id])
        body = [gast.copy_location(gast.Expr(value=gast.Call(
            func=gast.Attribute(value=_name(xs), attr="append", ctx=gast.Load()),
            args=[_rename(clone(comp.elt), mapping)], keywords=[])), at)]
        for k, g in reversed(list(enumerate(comp.generators))):
            for cond in reversed(g.ifs):
                body = [gast.copy_location(gast.If(test=_rename(clone(cond), mapping),
                                                   body=body, orelse=[]), at)]
            it = clone(g.iter) if k == 0 else _rename(clone(g.iter), mapping)
            body = [gast.copy_location(gast.For(target=_rename(clone(g.target), mapping),
                                                iter=it, body=body, orelse=[],
                                                type_comment=None), at)]
        start = _assign(_name(xs, True), gast.List(elts=[], ctx=gast.Load()), at)
        return [_located(start, at)] + [_located(b, at) for b in body], _name(xs)

    def inlined(self, call, at):
        """The statements running the helper's body for `call`, and the value
        in the call's place (None when the call is the statement `at`)."""
        fn, parsed = self.helper(call)
        tree = parsed.tree
        prefix = getattr(fn, "__name__", "helper")
        mapping, out = {}, []
        own = stored(tree.body) | {a.id for a in params_of(tree.args)}
        for n in sorted(own):
            mapping[n] = fresh_name(f"{prefix}_{n}", self.taken)
            self.taken.add(mapping[n])
        free = self.outer_names(tree, own, parsed)
        mapping.update(free)
        returned = tree.body[-1].value if tree.body and isinstance(tree.body[-1], gast.Return) \
            else None
        if isinstance(at, gast.Assign) and at.value is call and len(at.targets) == 1 \
                and isinstance(at.targets[0], gast.Name) and isinstance(returned, gast.Name) \
                and returned.id in own and at.targets[0].id not in free.values() \
                and not any(isinstance(n, gast.Name) and n.id == at.targets[0].id
                            for n in walk(tree)):
            # v = h(...) of an h returning its own name: that name is v (a list
            # it grew stays one list, not two names for it)
            mapping[returned.id] = at.targets[0].id
        assigned = stored(tree.body)
        for p, value in self.bound(call, tree, mapping):
            if self.names_for_reads and isinstance(value, gast.Name) and p not in assigned \
                    and not (isinstance(returned, gast.Name) and returned.id == p):
                mapping[p] = value.id  # (evaluating a name does nothing: no order to keep)
                continue
            out.append(_assign(_name(mapping[p], True), value, at))
        body = [clone(s) for s in tree.body]
        result = body.pop().value if body and isinstance(body[-1], gast.Return) else None
        out += [_rename(s, mapping) for s in body]
        result = gast.Constant(value=None, kind=None) if result is None \
            else _rename(result, mapping)
        out = [_located(s, at) for s in out]
        if isinstance(at, gast.Expr) and at.value is call:
            if any(isinstance(n, gast.Call) for n in walk(result)):
                out.append(_located(gast.Expr(value=result), at))
            return out, None
        if isinstance(at, gast.Assign) and at.value is call and len(at.targets) == 1:
            if not (isinstance(result, gast.Name) and isinstance(at.targets[0], gast.Name)
                    and result.id == at.targets[0].id):
                out.append(_located(_assign(at.targets[0], result, at), at))
            return out, None
        if isinstance(at, gast.Return) and at.value is call:
            out.append(_located(gast.Return(value=result), at))
            return out, None
        if isinstance(returned, gast.Name) and returned.id in own:
            return out, _name(mapping[returned.id])  # (its own name: one list, not two)
        held = fresh_name(f"{prefix}_value", self.taken)
        self.taken.add(held)
        out.append(_located(_assign(_name(held, True), result, at), at))
        return out, _name(held)

    def outer_names(self, tree, own, parsed):
        """{name the helper reads from its module or closure: the caller's
        name for the same object} (a fresh name bound to it when the caller's
        means something else)."""
        out = {}
        for n in walk(tree):
            if not isinstance(n, gast.Name) or n.id in own or n.id in out:
                continue
            obj = parsed.namespace.get(n.id, _ABSENT)
            if obj is _ABSENT:
                continue  # (not bound: Python's NameError, as it would be)
            mine = self.ctx.namespace.get(n.id, _ABSENT)
            if mine is obj and n.id not in self.caller_locals():
                continue
            new = fresh_name(n.id, self.taken)
            self.taken.add(new)
            self.ctx.namespace[new] = obj
            self.ctx.reads_values = True  # (bound now: the next read binds them again)
            out[n.id] = new
        return out

    def caller_locals(self):
        tree = self.ctx.tree
        return stored(tree.body) | {a.id for a in params_of(tree.args)}

    def bound(self, call, tree, mapping):
        """(parameter, argument node) in the order Python evaluates them."""
        params = [a.id for a in params_of(tree.args)]
        positional = [a.id for a in list(getattr(tree.args, "posonlyargs", None) or [])
                      + list(tree.args.args)]
        given = []
        for p, a in zip(positional, call.args):
            given.append((p, a))
        for k in call.keywords:
            given.append((k.arg, k.value))
        names = {p for p, _ in given}
        defaults = dict(zip(positional[len(positional) - len(tree.args.defaults):],
                            tree.args.defaults))
        defaults.update({p.id: d for p, d in zip(tree.args.kwonlyargs, tree.args.kw_defaults)
                         if d is not None})
        for p in params:
            if p not in names:
                given.append((p, _rename(clone(defaults[p]), mapping)))
        return given


_ABSENT = object()


def _inlinable(tree):
    """Whether a helper's tree can run where it is called: one return, at its
    end; no *args, **kwargs, nested function, lambda or generator."""
    a = tree.args
    if a.vararg or a.kwarg:
        return False
    body = tree.body[:-1] if tree.body and isinstance(tree.body[-1], gast.Return) else tree.body
    for n in walk(gast.Module(body=body, type_ignores=[])):
        if isinstance(n, (gast.Return, gast.Yield, gast.YieldFrom, gast.FunctionDef,
                          gast.Lambda, gast.Global, gast.Nonlocal)):
            return False
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Name) \
                and n.func.id == tree.name:
            return False
    return True


def _bindable(call, tree):
    """Whether `call`'s arguments bind to the helper's parameters."""
    if any(isinstance(a, gast.Starred) for a in call.args) or any(
            k.arg is None for k in call.keywords):
        return False
    a = tree.args
    positional = [p.id for p in list(getattr(a, "posonlyargs", None) or []) + list(a.args)]
    if len(call.args) > len(positional):
        return False
    names = set(positional[:len(call.args)])
    every = {p.id for p in params_of(a)}
    for k in call.keywords:
        if k.arg not in every or k.arg in names:
            return False
        names.add(k.arg)
    with_default = set(positional[len(positional) - len(a.defaults):]) | {
        p.id for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None}
    return every - names <= with_default


def _header(s):
    """The part of statement `s` evaluated once, before its body: a `for`'s
    iterable, an `if`'s test, a simple statement whole; None for the others."""
    if isinstance(s, gast.For):
        return s.iter
    if isinstance(s, gast.If):
        return s.test
    if isinstance(s, (gast.While, gast.With, gast.Try, gast.FunctionDef, gast.ClassDef)):
        return None
    return s


class _Renamer(gast.NodeTransformer):
    def __init__(self, mapping):
        self.mapping = mapping

    def visit_Name(self, node):
        new = self.mapping.get(node.id)
        if new is None:
            return node
        return gast.copy_location(gast.Name(id=new, ctx=node.ctx, annotation=None,
                                            type_comment=None), node)


def _rename(node, mapping):
    return _Renamer(mapping).visit(node)


def _replace(root, old, new):
    for parent in walk(root):
        for field, value in gast.iter_fields(parent):
            if value is old:
                setattr(parent, field, new)
                return
            if isinstance(value, list) and any(v is old for v in value):
                value[[id(v) for v in value].index(id(old))] = new
                return
