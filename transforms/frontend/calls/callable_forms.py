"""Functions made or applied with Python's function tools, spelled as the
lambdas and comprehensions they are (before nested functions are lifted,
closures.py, and comprehensions lowered, comprehensions.py):

    g = functools.partial(h, W, scale=2.0)   g_bound = W
                                             g_scale = 2.0
                                             g = lambda u, scale=g_scale: \
                                                 h(g_bound, u, scale=scale)
    list(map(f, xs))                         [f(v) for v in xs]
    list(map(f, xs, ys))                     [f(a, b) for a, b in zip(xs, ys)]
    sum(map(lambda v: v * v, xs))            map_fn = lambda v: v * v
                                             sum(map_fn(v) for v in xs)
    sum(map(partial(h, W), xs))              map_fn_bound = W
                                             map_fn = lambda u: h(map_fn_bound, u)
                                             sum(map_fn(v) for v in xs)

The bound values are evaluated where the partial is made, as functools
does (the lambda reads the variables they were stored in, which nothing
else writes). A partial of a callee whose signature is not known, with
*args or a default that is not a constant is refused, and the lambda is
used as closures.py allows (called, or passed to a helper); `map` anywhere
but inside `list(...)`,
`sum(...)`, `tuple(...)` or `np.array(...)` is refused where it stands."""
import builtins
import functools
import inspect

import gast

from ...emit.unparse import stmt_source
from ...errors import UnsupportedSyntaxError
from ...names import fresh_name
from ...syntax import assign, const, name, number, plain_copy, store, walk
from ...errors import S2sadTypeError


def run(tree, ctx):
    """Rewrite `tree` (a parsed function) in place."""
    namespace, location = ctx.namespace, ctx.location
    local = {n.id for n in walk(tree) if isinstance(n, gast.Name)
             and not isinstance(n.ctx, gast.Load)} | {a.id for a in tree.args.args}
    taken = set(namespace) | {n.id for n in walk(tree) if isinstance(n, gast.Name)}

    def resolve(node):
        if isinstance(node, gast.Name):
            return None if node.id in local else namespace.get(node.id)
        if isinstance(node, gast.Attribute):
            base = resolve(node.value)
            return None if base is None else getattr(base, node.attr, None)
        return None

    def block(stmts):
        out = []
        for s in stmts:
            for field in ("body", "orelse"):
                if isinstance(getattr(s, field, None), list) and not isinstance(
                        s, (gast.FunctionDef, gast.Lambda)):
                    setattr(s, field, block(getattr(s, field)))
            if isinstance(s, gast.Assign) and isinstance(s.value, gast.Call) \
                    and resolve(s.value.func) is functools.partial:
                out += _partial(s, resolve, taken, location)
                continue
            before = []
            _maps(s, resolve, taken, location, before)
            for b in before:  # map(partial(f, a), xs): the partial bound to a name first
                if isinstance(b.value, gast.Call) and resolve(b.value.func) is functools.partial:
                    out += _partial(b, resolve, taken, location)
                else:
                    out.append(b)
            out.append(s)
        return out

    tree.body = block(tree.body)
    return tree


def _literal(value):
    if isinstance(value, tuple):
        return all(_literal(v) for v in value)
    return value is None or type(value) in (int, float, bool, str, complex)


def _located(node, like):
    """`node`, written for a form, at the place of `like`."""
    for n in walk(node):
        if isinstance(n, (gast.stmt, gast.expr)):
            gast.copy_location(n, like)
    return node


def _literal_node(value):
    """The expression of a literal default value (`_literal`)."""
    if isinstance(value, tuple):
        return gast.Tuple(elts=[_literal_node(v) for v in value], ctx=gast.Load())
    return number(value) if type(value) in (int, float) else const(value)


def _partial(stmt, resolve, taken, location):
    call = stmt.value
    if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], gast.Name) or not call.args \
            or any(isinstance(a, gast.Starred) for a in call.args) \
            or any(k.arg is None for k in call.keywords):
        raise UnsupportedSyntaxError(
            "functools.partial here (not assigned to one name, or with * or **)", location,
            stmt, "Write g = functools.partial(f, a, k=v) and call g(...)")
    g = stmt.targets[0].id
    callee = call.args[0]
    target = resolve(callee)
    try:
        params = list(inspect.signature(target).parameters.values())
    except (TypeError, ValueError):
        raise UnsupportedSyntaxError(
            f"functools.partial of `{stmt_source(callee)}`, whose signature s2sad cannot "
            f"read", location, stmt, "Partially apply a module-level Python function") from None
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.POSITIONAL_ONLY) for p in params):
        raise UnsupportedSyntaxError(
            f"functools.partial of `{stmt_source(callee)}`, which takes *args, **kwargs or "
            f"positional-only parameters", location, stmt, "Give it plain parameters")
    bound = call.args[1:]
    if len(bound) > len(params):
        raise S2sadTypeError(f"{location.describe(stmt)}: functools.partial gives "
                        f"{stmt_source(callee)} more arguments than it takes")
    by_keyword = {k.arg: k.value for k in call.keywords}
    names = {p.name for p in params}
    for k in by_keyword:
        if k not in names:
            raise S2sadTypeError(f"{location.describe(stmt)}: {stmt_source(callee)}() has no "
                            f"parameter '{k}'")
    out, args, remaining, defaults = [], [], [], []
    for k, value in enumerate(bound):  # evaluated now, as functools.partial does
        held = fresh_name(f"{g}_bound", taken, sep="_")
        out.append(_located(assign(held, plain_copy(value)), stmt))
        args.append(name(held))
    for p in params[len(bound):]:
        if p.name in by_keyword:
            held = fresh_name(f"{g}_{p.name}", taken, sep="_")
            out.append(_located(assign(held, plain_copy(by_keyword[p.name])), stmt))
            defaults.append(name(held))
        elif p.default is not p.empty:
            if not _literal(p.default):
                raise UnsupportedSyntaxError(
                    f"functools.partial of `{stmt_source(callee)}`, whose parameter "
                    f"'{p.name}' has a default that is not a number, string, bool or None",
                    location, stmt, f"Bind {p.name} in the partial too")
            defaults.append(_literal_node(p.default))
        elif defaults:
            raise UnsupportedSyntaxError(
                f"functools.partial of `{stmt_source(callee)}` binding a parameter by keyword "
                f"before '{p.name}', which it leaves unbound", location, stmt,
                f"Bind {p.name} too, or bind the earlier parameters by position")
        remaining.append(name(p.name, gast.Param()))
        args.append(name(p.name))
    if any(p.kind == p.KEYWORD_ONLY for p in params[len(bound):]):
        raise UnsupportedSyntaxError(
            f"functools.partial of `{stmt_source(callee)}`, which has keyword-only "
            f"parameters", location, stmt, "Make them plain parameters")
    fn = gast.Lambda(args=gast.arguments(
        args=remaining, posonlyargs=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
        defaults=defaults), body=gast.Call(func=plain_copy(callee), args=args, keywords=[]))
    out.append(_located(assign(g, fn), stmt))
    return out


def _maps(stmt, resolve, taken, location, before):
    """`list(map(f, xs))` and friends inside `stmt`, rewritten in place; a
    lambda given to map is bound to a name in `before`."""
    class Maps(gast.NodeTransformer):
        def visit_Lambda(self, node):
            return node  # (its own scope)

        def visit_Call(self, node):
            self.generic_visit(node)
            collector = resolve(node.func)
            for j, arg in enumerate(node.args):
                if not (isinstance(arg, gast.Call) and resolve(arg.func) is builtins.map):
                    continue
                if collector in (builtins.list, builtins.tuple) and len(node.args) == 1 \
                        and not node.keywords:
                    return _comprehension(arg, "list", stmt, taken, location, before, resolve)
                numpy = getattr(collector, "__module__", "") == "numpy" and getattr(
                    collector, "__name__", "") in ("array", "asarray", "stack")
                if collector is builtins.sum or numpy:
                    node.args[j] = _comprehension(arg, "gen" if collector is builtins.sum
                                                  else "list", stmt, taken, location, before,
                                                  resolve)
            return node

    Maps().visit(stmt)
    for node in walk(stmt):
        if isinstance(node, gast.Call) and resolve(node.func) is builtins.map:
            raise UnsupportedSyntaxError(
                "map(...) here", location, node,
                "Write list(map(f, xs)) or sum(map(f, xs)), or a comprehension")


def _comprehension(call, kind, stmt, taken, location, before, resolve):
    if len(call.args) < 2 or call.keywords or any(isinstance(a, gast.Starred)
                                                  for a in call.args):
        raise UnsupportedSyntaxError("map(...) with these arguments", location, call,
                                     "Write map(f, xs) or a comprehension")
    fn = call.args[0]
    if isinstance(fn, gast.Lambda) or (isinstance(fn, gast.Call) and resolve(fn.func)
                                       is functools.partial):
        # a lambda is a nested function bound to a name; a partial is made once
        n = fresh_name("map_fn", taken, sep="_")
        before.append(gast.copy_location(gast.Assign(
            targets=[gast.Name(id=n, ctx=gast.Store(), annotation=None, type_comment=None)],
            value=fn, type_comment=None), stmt))
        fn = name(n)
    else:
        fn = plain_copy(fn)
    seqs = [plain_copy(s) for s in call.args[1:]]
    items = [fresh_name("item", taken, sep="_") for _ in seqs]
    head = gast.comprehension(
        target=store(items[0]) if len(seqs) == 1 else gast.Tuple(
            elts=[store(v) for v in items], ctx=gast.Store()),
        iter=seqs[0] if len(seqs) == 1 else gast.Call(func=name("zip"), args=seqs, keywords=[]),
        ifs=[], is_async=0)
    elt = gast.Call(func=fn, args=[name(v) for v in items], keywords=[])
    comp = (gast.ListComp if kind == "list" else gast.GeneratorExp)(elt=elt, generators=[head])
    return _located(comp, call)
