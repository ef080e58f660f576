"""Python builtins and standard-library folds spelled as the statements
and calls they compute, before nested functions are lifted (closures.py)
and comprehensions lowered (comprehensions.py):

    s = math.fsum(e)                s = sum(e)
    s = sum(e, start=c)             s = c + sum(e)
    q, r = divmod(a, b)             q, r = (a // b, a % b)
    p = functools.reduce(f, xs)     reduce_items = xs
                                    if len(reduce_items) == 0:
                                        raise TypeError(...)
                                    reduce_value = reduce_items[0]
                                    for reduce_k in range(1, len(reduce_items)):
                                        reduce_value = f(reduce_value, reduce_items[reduce_k])
                                    p = reduce_value
    m = max(xs, key=f)              the first item whose key is largest, by a loop
    t = sorted(xs, reverse=True)[0] sorted_list = sorted(xs, reverse=True)   (sorted_forms.py)
                                    t = sorted_list[0]
    for (i, j), v in np.ndenumerate(x):   for i in range(x.shape[0]):
                                              for j in range(x.shape[1]):
                                                  v = x[i, j]
    np.vectorize(f, otypes=[float])(x)    np.reshape(np.array([float(f(v)) for v in
                                              np.ravel(x)]), np.shape(x))

A fold over a list or tuple literal is unrolled (`reduce(f, [a, b, c])` is
`f(f(a, b), c)`); `operator.add` and its kin are the operator itself; a
lambda is bound to a name (closures.py makes it a helper). A form that
needs statements runs where Python evaluates it, just before its statement:
inside a conditional expression, `and`/`or`, a lambda, a comprehension or a
`while` test, or beside a call of a Python function (which could change
what it reads), it is refused with the line (assign it to a name first).
`list(x)` and `x.tolist()` are list_spellings.py's."""
import builtins
import functools
import math
import operator

import gast
import numpy as np

from ...emit.unparse import stmt_source
from ...errors import S2sadTypeError, UnsupportedSyntaxError
from ...expressions import for_range, generator, raising
from ...names import fresh_name
from ...syntax import (assign, attr, binop, call, compare, const, plain_copy, subscript,
                       walk)
from .vectorizers import float_vectorizer, named_vectorizers, vectorize_refused

_OPERATORS = {operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/",
              operator.floordiv: "//", operator.mod: "%", operator.pow: "**",
              operator.matmul: "@"}
_LIBRARIES = ("numpy", "math", "builtins", "scipy", "operator", "functools", "s2sad")
# methods of an array that only read it (a call of one beside a fold is safe)
_READING_METHODS = {"sum", "mean", "prod", "max", "min", "copy", "ravel", "reshape", "dot",
                    "transpose", "flatten", "cumsum", "cumprod", "std", "var", "astype",
                    "tolist", "item", "argmax", "argmin", "any", "all", "squeeze", "clip"}


# what the forms call: a function that names none of them (most) is left at
# once, after one walk
_FORM_OBJECTS = (math.fsum, builtins.divmod, functools.reduce, builtins.max, builtins.min,
                 builtins.sum, builtins.sorted, np.ndenumerate, np.vectorize)
_FORM_ATTRIBUTES = {"fsum", "reduce", "ndenumerate", "vectorize"}


def _names_a_form(nodes, namespace):
    """Whether a name among `nodes` may denote a function the forms rewrite
    (resolved as a global or builtin: a local of the same name only makes
    the passes below look), or an attribute is spelled as one."""
    for n in nodes:
        if n.__class__ is gast.Name:
            obj = namespace.get(n.id, _builtin(n.id))
            if any(obj is f for f in _FORM_OBJECTS):
                return True
        elif n.__class__ is gast.Attribute and n.attr in _FORM_ATTRIBUTES:
            return True
    return False


def run(tree, ctx):
    """Rewrite `tree` (a parsed function, nested functions included) in place."""
    namespace = ctx.namespace
    nodes = walk(tree)
    if not _names_a_form(nodes, namespace):
        return None
    local = {n.id for n in nodes if isinstance(n, gast.Name)
             and not isinstance(n.ctx, gast.Load)} | {a.id for a in tree.args.args}
    _Forms(namespace, local, ctx.location, set(namespace) | {
        n.id for n in nodes if isinstance(n, gast.Name)}).function(tree)
    return tree


class _Forms:
    def __init__(self, namespace, local, location, taken):
        self.namespace, self.local, self.location, self.taken = namespace, local, location, taken

    def resolve(self, node):
        if isinstance(node, gast.Name):
            return None if node.id in self.local else self.namespace.get(node.id,
                                                                         _builtin(node.id))
        if isinstance(node, gast.Attribute):
            base = self.resolve(node.value)
            return None if base is None else getattr(base, node.attr, None)
        return None

    def is_(self, node, obj):
        try:
            return self.resolve(node) is obj
        except TypeError:
            return False

    def function(self, fn):
        outer = getattr(self, "vectorizers", {})
        self.vectorizers = {**outer, **named_vectorizers(fn, self)}
        fn.body = self.block(fn.body)
        self.vectorizers = outer

    def block(self, stmts):
        out = []
        for s in stmts:
            if isinstance(s, gast.FunctionDef):
                self.function(s)
                out.append(s)
                continue
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(s, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                    setattr(s, field, self.block(inner))
            before = []
            if isinstance(s, gast.For):  # (a loop over sorted(...) is the loop passes')
                s.iter = self.expression(s.iter, s, before,
                                         hoist_sorted=not self.loops_over_sorted(s.iter))
                out += before + self.ndenumerate(s)
                continue
            if isinstance(s, gast.While):
                s.test = self.expression(s.test, s, None)
            elif isinstance(s, gast.If):
                s.test = self.expression(s.test, s, before)
            elif isinstance(s, (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.Return,
                                gast.Expr, gast.Raise, gast.Assert)):
                _Rewrite(self, s, before).visit(s)
            out += before + [s]
        return out

    def loops_over_sorted(self, it):
        """`for v in sorted(xs)`, `enumerate(sorted(d))`, `zip(sorted(a), b)`:
        what the loop passes unroll or iterate as they are (a dict's keys
        included); `sorted(xs)[:2]` is hoisted as anywhere."""
        calls = [it] + (list(it.args) if isinstance(it, gast.Call) else [])
        return any(isinstance(c, gast.Call) and self.is_(c.func, builtins.sorted) for c in calls)

    def expression(self, node, s, before, hoist_sorted=True):
        """An `if` test or a `for` iterable (evaluated before the body, which
        is not part of what a hoisted form runs beside)."""
        holder = gast.Expr(value=node)
        _Rewrite(self, s, before, scope=holder, hoist_sorted=hoist_sorted).visit(holder)
        return holder.value

    # ---- statements written for a form -------------------------------------------------

    @staticmethod
    def located(stmts, like):
        """`stmts`, written for a form, at the place of the statement `like`."""
        for stmt in stmts:
            for node in walk(stmt):
                if isinstance(node, (gast.stmt, gast.expr)):
                    gast.copy_location(node, like)
        return stmts

    def fresh(self, base):
        name = fresh_name(base, self.taken, sep="_")
        self.local.add(name)
        return name

    def applying(self, fn, before, like):
        """A function making the expression that calls `fn` on (a, b):
        `a + b` for operator.add."""
        op = None
        try:
            op = _OPERATORS.get(self.resolve(fn))
        except TypeError:
            pass
        if op is not None:
            return lambda a, b: binop(a, op, b)
        f = self.callee(fn, "reduce_fn", before, like)
        return lambda a, b: gast.Call(func=plain_copy(f), args=[a, b], keywords=[])

    def keying(self, key, before, like):
        """A function making the expression that calls `key` on an item."""
        f = self.callee(key, "key_fn", before, like)
        return lambda a: gast.Call(func=plain_copy(f), args=[a], keywords=[])

    def callee(self, fn, base, before, like):
        """An expression naming `fn`: a lambda is bound to a name first
        (closures.py lifts it), anything else is written as it stands."""
        if not isinstance(fn, gast.Lambda):
            return plain_copy(fn)
        held = self.fresh(base)
        before.append(gast.copy_location(gast.Assign(targets=[_store(held)], value=fn,
                                                     type_comment=None), like))
        return _load(held)

    def ndenumerate(self, s):
        """`for (i, j), v in np.ndenumerate(x)`: index loops (a loop of its own)."""
        it = s.iter
        if not (isinstance(it, gast.Call) and self.is_(it.func, np.ndenumerate)):
            return [s]
        target = s.target
        if len(it.args) != 1 or it.keywords or not (
                isinstance(target, gast.Tuple) and len(target.elts) == 2
                and isinstance(target.elts[0], gast.Tuple) and target.elts[0].elts
                and all(isinstance(e, gast.Name) for e in target.elts[0].elts)
                and isinstance(target.elts[1], gast.Name)):
            raise UnsupportedSyntaxError(
                "np.ndenumerate(...) here (not `for (i, j), v in np.ndenumerate(x)`)",
                self.location, s, "Unpack the index into one name per axis: "
                "for (i, j), v in np.ndenumerate(x)")
        if s.orelse or any(isinstance(n, gast.Break) for n in _loop_own(s.body)):
            raise UnsupportedSyntaxError(
                "a loop over np.ndenumerate(...) with break or else", self.location, s,
                "Loop over the indices (for i in range(x.shape[0]): ...) and leave with a flag")
        axes = [e.id for e in target.elts[0].elts]
        array = self.fresh("ndenumerate_values")
        n = len(axes)
        if self.namespace.get("np") is not np or "np" in self.local:
            raise UnsupportedSyntaxError(
                "np.ndenumerate in a module where `np` is not numpy", self.location, s,
                "import numpy as np")
        index = _load(axes[0]) if n == 1 else gast.Tuple(elts=[_load(a) for a in axes],
                                                        ctx=gast.Load())
        body = [assign(_store(target.elts[1].id), subscript(_load(array), index))]
        for k in range(n - 1, -1, -1):
            body = [gast.For(target=_store(axes[k]), iter=call("range", subscript(
                attr(_load(array), "shape"), const(k))), body=body, orelse=[], type_comment=None)]
        wrong = compare(attr(_load(array), "ndim"), "!=", const(n))
        message = (f"wrong number of values to unpack: np.ndenumerate gives an index of x.ndim "
                   f"values, unpacked here into {n} names")
        stmts = self.located([assign(_store(array), call("np.asarray", plain_copy(it.args[0]))),
                              gast.If(test=wrong, body=[raising("ValueError", message)],
                                      orelse=[])], s)
        loops = self.located(body[:1], s)
        innermost = loops[0]
        for _ in range(n - 1):
            innermost = innermost.body[0]
        innermost.body = innermost.body + s.body  # (placed: the user's statements keep their lines)
        return stmts + loops


class _Rewrite(gast.NodeTransformer):
    """The forms in one statement's own expressions; `before` gets the
    statements a form needs (None: none may be added there)."""

    def __init__(self, forms, stmt, before, scope=None, hoist_sorted=True):
        self.forms, self.stmt, self.before = forms, stmt, before
        self.hoist_sorted = hoist_sorted
        self.scope = stmt if scope is None else scope  # what runs beside a hoisted form
        self.deferred = 0  # inside a conditional branch, a lambda or a comprehension

    def deferring(self, node, fields):
        for field in fields:
            value = getattr(node, field)
            self.deferred += 1
            if isinstance(value, list):
                setattr(node, field, [self.visit(v) for v in value])
            else:
                setattr(node, field, self.visit(value))
            self.deferred -= 1
        return node

    def visit_FunctionDef(self, node):
        return node

    def visit_IfExp(self, node):
        node.test = self.visit(node.test)
        return self.deferring(node, ("body", "orelse"))

    def visit_BoolOp(self, node):
        node.values[0] = self.visit(node.values[0])
        self.deferred += 1
        node.values[1:] = [self.visit(v) for v in node.values[1:]]
        self.deferred -= 1
        return node

    def visit_Lambda(self, node):
        return self.deferring(node, ("body",))

    def _comprehension(self, node):
        self.deferred += 1
        self.generic_visit(node)
        self.deferred -= 1
        return node

    visit_ListComp = visit_GeneratorExp = visit_SetComp = visit_DictComp = _comprehension

    def hoist(self, call, what):
        """The statements list a form needing `what` may add to, or a refusal."""
        if self.before is None or self.deferred:
            raise UnsupportedSyntaxError(
                f"{what} inside a conditional expression, `and`/`or`, a lambda, a "
                f"comprehension or a `while` test", self.forms.location, call,
                "Assign it to a name on a line of its own first (Python evaluates it only "
                "where it runs)")
        inside = set(map(id, walk(call)))
        others = [c for c in walk(self.scope) if isinstance(c, gast.Call)
                  and id(c) not in inside and not self.pure(c)]
        if others:
            raise UnsupportedSyntaxError(
                f"{what} beside a call of `{stmt_source(others[0].func)}` in one statement",
                self.forms.location, call,
                "Assign it to a name on a line of its own first (the call could change what "
                "it reads)")
        return self.before

    def pure(self, c):
        func = c.func
        if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) \
                and func.value.id in self.forms.local:
            return func.attr in _READING_METHODS
        try:
            obj = self.forms.resolve(func)
        except Exception:  # noqa: BLE001
            return False
        module = getattr(obj, "__module__", None) or ""
        return obj is not None and (isinstance(obj, np.ufunc) or module.split(".")[0]
                                    in _LIBRARIES or type(obj).__name__ in (
                                        "builtin_function_or_method", "type"))

    def visit_Call(self, node):
        forms = self.forms
        if isinstance(node.func, gast.Call) and forms.is_(node.func.func, np.vectorize):
            node.args = [self.visit(a) for a in node.args]
            return self.vectorized(node, node.func)  # np.vectorize(f, otypes=[float])(x)
        self.generic_visit(node)
        if forms.is_(node.func, math.fsum) and len(node.args) == 1 and not node.keywords \
                and forms.is_(_load("sum"), builtins.sum):
            node.func = gast.copy_location(_load("sum"), node.func)
            return node
        if forms.is_(node.func, builtins.sum) and _start(node) is not None:
            start = _start(node)  # sum(e, start): start + sum(e), as Python adds them
            node.args, node.keywords = node.args[:1], []
            return gast.copy_location(gast.BinOp(left=start, op=gast.Add(), right=node), node)
        if forms.is_(node.func, builtins.divmod):
            return self.divmod(node)
        if forms.is_(node.func, functools.reduce):
            return self.reduce(node)
        if isinstance(node.func, gast.Name) and node.func.id in forms.vectorizers:
            return self.vectorized(node, forms.vectorizers[node.func.id])
        if forms.is_(node.func, np.vectorize):
            raise vectorize_refused(node, forms.location)
        if (forms.is_(node.func, builtins.max) or forms.is_(node.func, builtins.min)) \
                and any(k.arg == "key" for k in node.keywords):
            return self.extremum(node, "max" if forms.is_(node.func, builtins.max) else "min")
        if forms.is_(node.func, builtins.sorted) and self.before is not None and self.hoist_sorted \
                and not self.deferred and _sorted_spelled(node) and not self.whole(node):
            before = self.hoist(node, "sorted(...)")
            held = forms.fresh("sorted_list")
            before.append(gast.copy_location(gast.Assign(targets=[_store(held)], value=node,
                                                         type_comment=None), self.stmt))
            return gast.copy_location(_load(held), node)
        return node

    def vectorized(self, node, maker):
        """`f` applied to each element of the one array given, as np.vectorize
        with otypes=[float] does: float(f(v)) for v in its flat elements, in
        its shape."""
        fn = float_vectorizer(maker, self.forms)
        if fn is None:
            raise vectorize_refused(maker, self.forms.location)
        if len(node.args) != 1 or node.keywords or isinstance(node.args[0], gast.Starred):
            raise UnsupportedSyntaxError(
                "a vectorized function called with several arguments or keywords",
                self.forms.location, node, "Call it with one array (np.vectorize would "
                "broadcast several): pass the others through the function's closure")
        if isinstance(fn, gast.Lambda):
            fn = self.forms.callee(fn, "vectorized_fn", self.hoist(
                node, "np.vectorize(lambda ...)(...)"), self.stmt)
        else:
            fn = plain_copy(fn)
        v = self.forms.fresh("item")
        x = node.args[0]
        item = call("float", gast.Call(func=fn, args=[_load(v)], keywords=[]))
        comp = call("np.reshape", call("np.array", gast.ListComp(elt=item, generators=[
            generator(v, call("np.ravel", plain_copy(x)))])), call("np.shape", plain_copy(x)))
        for n in walk(comp):
            gast.copy_location(n, node)
        return comp

    def whole(self, node):
        """`node` is what sorted_forms.py rewrites: an assignment's whole value."""
        s = self.stmt
        return isinstance(s, gast.Assign) and s.value is node

    def divmod(self, node):
        if len(node.args) != 2 or node.keywords:
            raise S2sadTypeError(f"{self.forms.location.describe(node)}: divmod expected 2 "
                            f"arguments")
        a, b = node.args
        if any(isinstance(n, gast.Call) for n in walk(a) + walk(b)):
            before = self.hoist(node, "divmod(...) of a call")
            held = []
            for value, base in ((a, "divmod_a"), (b, "divmod_b")):
                name = self.forms.fresh(base)
                before.append(gast.copy_location(gast.Assign(targets=[_store(name)],
                                                             value=value, type_comment=None),
                                                 self.stmt))
                held.append(_load(name))
            a, b = held
        pair = gast.Tuple(elts=[gast.BinOp(left=a, op=gast.FloorDiv(), right=b),
                                gast.BinOp(left=_copy(a), op=gast.Mod(), right=_copy(b))],
                          ctx=gast.Load())
        for n in walk(pair):
            gast.copy_location(n, node)
        return pair

    def reduce(self, node):
        forms = self.forms
        if not 2 <= len(node.args) <= 3 or node.keywords or any(
                isinstance(a, gast.Starred) for a in node.args):
            raise UnsupportedSyntaxError(
                "functools.reduce(...) with these arguments", forms.location, node,
                "Write functools.reduce(f, items) or functools.reduce(f, items, initial)")
        before = self.hoist(node, "functools.reduce(...)")
        fn, seq = node.args[0], node.args[1]
        apply = forms.applying(fn, before, self.stmt)
        value = forms.fresh("reduce_value")
        stmts = []
        empty = "reduce() of empty iterable with no initial value"
        if isinstance(seq, (gast.List, gast.Tuple)) and not any(
                isinstance(e, gast.Starred) for e in seq.elts):
            items = [plain_copy(e) for e in seq.elts]
            if len(node.args) == 3:
                items = [plain_copy(node.args[2])] + items
            if not items:
                stmts.append(raising("TypeError", empty))
            else:
                stmts.append(assign(_store(value), items[0]))
                stmts += [assign(_store(value), apply(_load(value), e)) for e in items[1:]]
        else:
            held = forms.fresh("reduce_items")
            k = forms.fresh("reduce_k")
            stmts.append(assign(_store(held), _sequence(seq, forms)))
            step = [assign(_store(value), apply(_load(value), subscript(_load(held), _load(k))))]
            if len(node.args) == 3:
                stmts += [assign(_store(value), plain_copy(node.args[2])),
                          for_range(k, [call("len", _load(held))], step)]
            else:
                stmts += [gast.If(test=compare(call("len", _load(held)), "==", const(0)),
                                  body=[raising("TypeError", empty)], orelse=[]),
                          assign(_store(value), subscript(_load(held), const(0))),
                          for_range(k, [const(1), call("len", _load(held))], step)]
        before += forms.located(stmts, self.stmt)
        return gast.copy_location(_load(value), node)

    def extremum(self, node, which):
        """max(items, key=f) / min(...): the first item whose key is largest
        (smallest), as Python's."""
        forms = self.forms
        keys = {k.arg: k.value for k in node.keywords}
        if set(keys) != {"key"} or not node.args or any(
                isinstance(a, gast.Starred) for a in node.args):
            raise UnsupportedSyntaxError(
                f"{which}(..., key=...) with default= or these arguments", forms.location, node,
                f"Write {which}(items, key=f) of a non-empty sequence")
        before = self.hoist(node, f"{which}(..., key=...)")
        key = forms.keying(keys["key"], before, self.stmt)
        best, best_key = forms.fresh(f"{which}_item"), forms.fresh(f"{which}_key")
        better = ">" if which == "max" else "<"
        seq = node.args[0] if len(node.args) == 1 else gast.Tuple(elts=node.args,
                                                                  ctx=gast.Load())

        def better_one(candidate, item):  # if candidate > best_key: best = item; ...
            return gast.If(test=compare(_load(candidate), better, _load(best_key)), body=[
                assign(_store(best), item), assign(_store(best_key), _load(candidate))],
                orelse=[])
        stmts = []
        if isinstance(seq, (gast.List, gast.Tuple)) and seq.elts and not any(
                isinstance(e, gast.Starred) for e in seq.elts):
            items = [forms.fresh(f"{which}_candidate") for _ in seq.elts]
            stmts += [assign(_store(n), plain_copy(e)) for n, e in zip(items, seq.elts)]
            stmts += [assign(_store(best), _load(items[0])),
                      assign(_store(best_key), key(_load(best)))]
            candidate = forms.fresh(f"{which}_candidate_key")
            for n in items[1:]:
                stmts += [assign(_store(candidate), key(_load(n))),
                          better_one(candidate, _load(n))]
        else:
            held, k = forms.fresh(f"{which}_items"), forms.fresh(f"{which}_k")
            candidate = forms.fresh(f"{which}_candidate_key")
            item = lambda: subscript(_load(held), _load(k))  # noqa: E731
            stmts += [assign(_store(held), _sequence(seq, forms)),
                      gast.If(test=compare(call("len", _load(held)), "==", const(0)),
                              body=[raising("ValueError", f"{which}() iterable argument is empty")],
                              orelse=[]),
                      assign(_store(best), subscript(_load(held), const(0))),
                      assign(_store(best_key), key(_load(best))),
                      for_range(k, [const(1), call("len", _load(held))], [
                          assign(_store(candidate), key(item())),
                          better_one(candidate, item())])]
        before += forms.located(stmts, self.stmt)
        return gast.copy_location(_load(best), node)


def _sequence(seq, forms):
    """A sequence to index: a generator or range() as a list comprehension."""
    if isinstance(seq, gast.GeneratorExp):
        return gast.ListComp(elt=plain_copy(seq.elt), generators=plain_copy(seq.generators))
    if isinstance(seq, gast.Call) and forms.is_(seq.func, builtins.range):
        v = forms.fresh("item")
        return gast.ListComp(elt=_load(v), generators=[generator(v, plain_copy(seq))])
    return plain_copy(seq)


def _sorted_spelled(node):
    """sorted(xs) or sorted(xs, reverse=<a bool>): what sorted_forms.py writes."""
    return len(node.args) == 1 and all(
        k.arg == "reverse" and isinstance(k.value, gast.Constant)
        and isinstance(k.value.value, bool) for k in node.keywords)


def _loop_own(stmts):
    """The statements of a loop body, not those of loops or functions inside it."""
    for s in stmts:
        yield s
        if isinstance(s, (gast.For, gast.While, gast.FunctionDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            yield from _loop_own(getattr(s, field, []) or [])


def _builtin(name):
    return getattr(builtins, name, None)


def _load(name):
    return gast.Name(id=name, ctx=gast.Load(), annotation=None, type_comment=None)


def _store(name):
    return gast.Name(id=name, ctx=gast.Store(), annotation=None, type_comment=None)


def _copy(node):
    import copy
    return copy.deepcopy(node)


def _start(node):
    """The start of `sum(e, start)` or `sum(e, start=s)`, unless it is a
    list or tuple literal (sum(lists, []) concatenates; left as written)."""
    if len(node.args) == 2 and not node.keywords:
        start = node.args[1]
    elif len(node.args) == 1 and [k.arg for k in node.keywords] == ["start"]:
        start = node.keywords[0].value
    else:
        return None
    return None if isinstance(start, (gast.List, gast.Tuple)) else start
