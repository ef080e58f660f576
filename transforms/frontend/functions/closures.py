"""Nested functions: a `def` or a `name = lambda ...` inside a differentiated
function, closing over its arguments and locals, becomes a module-level
helper that takes the values it captures as extra arguments:

    def loss(x, w):                    def loss(x, w):
        def sq(u):                         ...
            return (u * w) ** 2            s = s + sq(x[i], w)
        for i in ...:            ->
            s = s + sq(x[i])           def sq(u, w):
                                           return (u * w) ** 2

after which it is an ordinary helper call (differentiated through its own
`vjp_sq`). Each call passes the captured variables' values at the time of
the call, which is Python's late binding: a variable reassigned after the
`def` is read with its value when the function is called, as Python reads
it. A default (`def f(u, k=i)`) is evaluated where the `def` runs, as in
Python: a non-constant one is kept in a variable there.

Refused, with the line: a nested function used other than by calling it
(returned, stored, passed to another function), called where its `def`
may not have run (before it, or outside the block it is defined in), bound
twice, recursive, decorated, with *args/**kwargs, or writing into an array
it captures; a lambda anywhere but assigned to a name."""
import sys

import gast

from . import passed_functions
from .lifted import (LIFTED, Lifted, Site, bind_call, function_of, loaded, located_at, params_of,
                     root_of, stored, walk_scope)
from ...emit.unparse import stmt_source
from ...errors import UnsupportedSyntaxError
from ...names import RUNTIME_NAMES, fresh_name
from ...syntax import Transformer, clone, name

# (code of the function defining it, line, column) -> its lifted function
_LIFTED_AT = {}
_NAMES_TAKEN = {}  # lifted name -> site key (lifted names are unique in a process)


def run(tree, ctx):
    """Lift the nested functions of `tree` (the function `ctx.fn`), in place:
    their statements leave the tree, calls pass the captured values, and the
    namespace maps each call's name to its lifted function (registered in
    lifted.LIFTED, where reading it finds its tree)."""
    fn, location, namespace = ctx.fn, ctx.location, ctx.namespace
    local = passed_functions.bound_names(tree)
    sites = _sites(tree, location)
    _refuse_other_lambdas(tree, location, sites)
    if not sites:
        return tree
    by_name = {}
    for s in sites:
        if s.name in by_name:
            raise UnsupportedSyntaxError(
                f"a nested function '{s.name}' defined twice", location, s.stmt,
                "Give each nested function its own name")
        by_name[s.name] = s
    outer_locals = {a.id for a in params_of(tree.args)} | stored(tree.body)
    _refuse_rebinding(tree, by_name, location)
    for s in sites:
        own = {a.id for a in params_of(s.args)} | stored(s.body)
        free = loaded(s.body) - own  # (defaults run in the outer scope)
        s.calls = sorted(free & set(by_name))
        s.captures = sorted((free & outer_locals) - set(by_name))
        _refuse_written_captures(s, location)
    _close_captures(sites, by_name, location)
    _check_uses(tree, by_name, location, namespace, local)
    root = root_of(fn)
    siblings = {}
    for s in sites:
        s.lifted_name = _lifted_name(s, fn, location, namespace)
    taken = outer_locals | set(namespace) | _all_names(tree)
    for s in sites:
        _snapshot_defaults(s, taken)
    pending = []  # helpers specialised for nested functions passed to them
    passed_functions.specialise(tree, by_name, namespace, location, fn, pending, local,
                                ctx.parse)
    for s in sites:
        if isinstance(s.stmt, gast.Assign):  # a lambda's body is not in the tree
            passed_functions.specialise(gast.Module(body=s.body, type_ignores=[]), by_name,
                                        namespace, location, fn, pending, local, ctx.parse)
    for s in sites:
        key = (fn.__code__, s.stmt.lineno, s.stmt.col_offset)
        lifted_tree = _lifted_tree(s, by_name, location)
        obj = _LIFTED_AT.get(key)
        if obj is None or stmt_source(LIFTED[obj].tree) != stmt_source(lifted_tree):
            obj = function_of(lifted_tree, fn, location)
            _LIFTED_AT[key] = obj
        LIFTED[obj] = Lifted(lifted_tree, located_at(location, s.lifted_name, s.stmt),
                             ctx.source, root, siblings)
        siblings[s.lifted_name] = obj
        namespace[s.lifted_name] = obj
    for needed, s in pending:
        needed[s.lifted_name] = siblings[s.lifted_name]
    _rewrite_calls(tree, by_name, location)
    _remove_sites(tree.body, sites)
    return tree


# ---- finding them ------------------------------------------------------------

def _sites(tree, location):
    out = []

    def visit(stmts, path):
        for k, s in enumerate(stmts):
            here = path + ((id(stmts), k),)
            if isinstance(s, gast.FunctionDef):
                if s.decorator_list:
                    raise UnsupportedSyntaxError("a decorated nested function", location, s,
                                                 "Remove the decorator")
                out.append(Site(s, s.name, s.args, s.body, here))
                continue
            if isinstance(s, gast.Assign) and isinstance(s.value, gast.Lambda) \
                    and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name):
                lam = s.value
                body = [gast.copy_location(gast.Return(value=lam.body), lam.body)]
                out.append(Site(s, s.targets[0].id, lam.args, body, here))
                continue
            for field in ("body", "orelse"):
                block = getattr(s, field, None)
                if isinstance(block, list):
                    visit(block, here)

    visit(tree.body, ())
    for s in out:
        a = s.args
        if a.vararg or a.kwarg:
            raise UnsupportedSyntaxError(f"a nested function '{s.name}' with *args or **kwargs",
                                         location, s.stmt, "Give it plain parameters")
    return out


def _refuse_other_lambdas(tree, location, sites):
    allowed = {id(s.stmt.value) for s in sites if isinstance(s.stmt, gast.Assign)}
    for node in _walk_outer(tree.body):
        if isinstance(node, gast.Lambda) and id(node) not in allowed:
            raise UnsupportedSyntaxError(
                "a lambda that is not assigned to a name (passed to a function, called in "
                "place or stored)", location, node,
                "Assign it to a name (f = lambda u: ...) and call it, or define a def; "
                "s2sad differentiates calls of nested functions, not functions passed as "
                "values")


def _walk_outer(stmts):
    """Nodes of `stmts`, not inside nested functions' bodies (their own
    lambdas are found when they are lifted)."""
    todo = list(stmts)
    while todo:
        n = todo.pop()
        yield n
        if isinstance(n, gast.FunctionDef):
            todo.extend(n.args.defaults + [d for d in n.args.kw_defaults if d is not None])
            continue
        if isinstance(n, gast.Lambda):
            todo.extend(n.args.defaults)
            continue
        for field in n._fields:
            v = getattr(n, field, None)
            if isinstance(v, list):
                todo.extend(c for c in v if isinstance(c, gast.AST))
            elif isinstance(v, gast.AST):
                todo.append(v)


# ---- captures ----------------------------------------------------------------

def _close_captures(sites, by_name, location):
    """A nested function calling another passes that one's captures too, so
    it captures them itself. A function calling itself is lifted as a
    recursive helper (calling itself with its captures); recursion through
    another nested function is refused."""
    for s in sites:
        seen, todo = set(), [c for c in s.calls if c != s.name]
        while todo:
            c = todo.pop()
            if c == s.name:
                raise UnsupportedSyntaxError(
                    f"nested functions calling each other recursively ('{s.name}')", location,
                    s.stmt, "Move the functions to module level, passing what they capture as "
                    "arguments")
            if c in seen:
                continue
            seen.add(c)
            todo.extend(by_name[c].calls)
        s.reach = seen
    for s in sites:
        caps = set(s.captures)
        for c in s.reach:
            caps |= set(by_name[c].captures)
        s.captures = sorted(caps)


# ---- checks -------------------------------------------------------------------------

def _refuse_rebinding(tree, by_name, location):
    params = {a.id for a in params_of(tree.args)}
    for n in walk_scope(tree.body):
        target = None
        if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)):
            target = n.id
        if target in by_name and not (isinstance(by_name[target].stmt, gast.Assign)
                                      and by_name[target].stmt.targets[0] is n):
            raise UnsupportedSyntaxError(
                f"assigning to '{target}', the name of a nested function", location, n,
                "Give the nested function and the variable different names")
    for p in params & set(by_name):
        raise UnsupportedSyntaxError(
            f"a nested function '{p}' named like a parameter", location, by_name[p].stmt,
            "Rename the nested function")


def _refuse_written_captures(site, location):
    caps = set(site.captures)
    for n in walk_scope(site.body):
        if isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store):
            base = n.value
            while isinstance(base, gast.Subscript):
                base = base.value
            if isinstance(base, gast.Name) and base.id in caps:
                raise UnsupportedSyntaxError(
                    f"nested function '{site.name}' writing into '{base.id}', an array of "
                    f"the function it is defined in", location, n,
                    "Return the new values from the nested function and write them in the "
                    "outer function")


def _check_uses(tree, by_name, location, namespace, local):
    """Every use of a nested function's name calls it, where its `def` has
    run: after it, in the block that defines it (or a block inside that).
    A call in another nested function's body (or defaults) counts where
    that one's `def` is. No nested scope may bind one of these names."""
    parents, paths = {}, {}
    for n in gast.walk(tree):
        for c in gast.iter_child_nodes(n):
            parents[id(c)] = n
        if isinstance(n, (gast.FunctionDef, gast.Lambda)) and n is not tree:
            bound = {a.id for a in params_of(n.args)}
            bound |= stored(n.body) if isinstance(n, gast.FunctionDef) else set()
            for p in sorted(bound & set(by_name)):
                raise UnsupportedSyntaxError(
                    f"a nested function binding '{p}', the name of another nested function",
                    location, n, "Give them different names")
    sites = {id(s.stmt) for s in by_name.values()}

    def visit(stmts, path):
        for k, s in enumerate(stmts):
            here = path + ((id(stmts), k),)
            paths[id(s)] = here
            if id(s) in sites or isinstance(s, gast.FunctionDef):
                continue
            for field in ("body", "orelse"):
                block = getattr(s, field, None)
                if isinstance(block, list):
                    visit(block, here)

    visit(tree.body, ())
    for n in gast.walk(tree):
        if not (isinstance(n, gast.Name) and n.id in by_name
                and isinstance(n.ctx, gast.Load)):
            continue
        parent = parents.get(id(n))
        called = isinstance(parent, gast.Call) and parent.func is n
        if not called and not passed_functions.passed_to_helper(
                n, parent, parents.get(id(parent)), namespace, local):
            raise UnsupportedSyntaxError(
                f"using the nested function '{n.id}' other than by calling it (returning, "
                f"storing or passing it)", location, n,
                "Call it where it is needed, or pass it to a module-level helper that "
                "calls it")
        m = n
        while id(m) not in paths:
            m = parents[id(m)]
        if m is by_name[n.id].stmt and id(n) in _body_nodes(by_name[n.id]):
            continue  # a recursive call, made once the def has run
        if not _after(paths[id(m)], by_name[n.id].path):
            raise UnsupportedSyntaxError(
                f"a call of the nested function '{n.id}' where its def may not have run "
                f"(before it, or outside the block that defines it)", location, n,
                "Define the function before the call, in the same block or an enclosing one")


def _body_nodes(site):
    """ids of the nodes of a nested function's body (not of its defaults)."""
    body = site.stmt.value.body if isinstance(site.stmt, gast.Assign) else site.stmt.body
    return {id(x) for b in (body if isinstance(body, list) else [body]) for x in gast.walk(b)}


def _after(here, def_path):
    """Whether the statement at `here` runs after the def at `def_path`,
    within the def's block."""
    depth = len(def_path)
    return len(here) >= depth and here[:depth - 1] == def_path[:-1] \
        and here[depth - 1][0] == def_path[-1][0] and here[depth - 1][1] > def_path[-1][1]


# ---- lifting --------------------------------------------------------------------------

def _lifted_name(site, fn, location, namespace):
    base = site.name if site.name != "<lambda>" else f"lambda_{location.line_of(site.stmt)}"
    key = (fn.__code__, site.stmt.lineno, site.stmt.col_offset)
    outer = location.func_name
    for candidate in [base, f"{outer}_{base}"] + [f"{outer}_{base}{k}" for k in range(2, 99)]:
        if candidate in namespace or _reserved(candidate):
            continue  # a global, a builtin, a name generated code uses
        if _NAMES_TAKEN.setdefault(candidate, key) == key:
            return candidate
    raise UnsupportedSyntaxError(f"the nested function '{site.name}'", location, site.stmt,
                                 "Rename it")


def _reserved(candidate):
    """Names of the generated module's own functions and runtime helpers."""
    runtime = getattr(sys.modules.get("s2sad.runtime"), "__all__", ())
    return candidate.startswith(("grad_", "vjp_", "jvp_")) or candidate in RUNTIME_NAMES \
        or candidate in runtime


def _snapshot_defaults(site, taken):
    """A parameter's default: a constant is passed as itself; anything else
    is evaluated where the def runs, into a variable calls pass."""
    params = params_of(site.args)
    a = site.args
    positional = list(getattr(a, "posonlyargs", None) or []) + list(a.args)
    pairs = list(zip(positional[len(positional) - len(a.defaults):], a.defaults))
    pairs += [(p, d) for p, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None]
    site.pre = []
    for p, d in pairs:
        if isinstance(d, gast.Constant) or (isinstance(d, gast.UnaryOp)
                                            and isinstance(d.operand, gast.Constant)):
            site.defaults[p.id] = d
            continue
        var = fresh_name(f"{site.lifted_name}_{p.id}", taken)
        site.pre.append(gast.copy_location(
            gast.Assign(targets=[gast.Name(id=var, ctx=gast.Store(), annotation=None,
                                           type_comment=None)], value=d, type_comment=None),
            site.stmt))
        site.defaults[p.id] = name(var)
    site.params = [p.id for p in params]


def _lifted_tree(site, by_name, location):
    body = clone(site.body)
    holder = gast.Module(body=body, type_ignores=[])
    _rewrite_calls(holder, by_name, location, from_nested=True)
    params = [gast.Name(id=p, ctx=gast.Param(), annotation=None, type_comment=None)
              for p in site.params + site.captures]
    args = gast.arguments(args=params, posonlyargs=[], vararg=None, kwonlyargs=[],
                          kw_defaults=[], kwarg=None, defaults=[])
    fdef = gast.FunctionDef(name=site.lifted_name, args=args, body=holder.body,
                            decorator_list=[], returns=None, type_comment=None)
    return gast.copy_location(fdef, site.stmt)


def _rewrite_calls(root, by_name, location, from_nested=False):
    """Calls of nested functions bound to their parameters, by position,
    with the captured variables after them."""

    class Rewrite(Transformer):
        def visit_Call(self, node):
            self.generic_visit(node)
            if isinstance(node.func, gast.Name) and node.func.id in by_name:
                site = by_name[node.func.id]
                node.args = bind_call(node, site, location, from_nested)
                node.args += [name(c) for c in site.captures]
                node.keywords = []
                node.func = gast.copy_location(name(site.lifted_name), node.func)
            return node

    Rewrite().visit(root)


def _remove_sites(stmts, sites):
    by_stmt = {id(s.stmt): s for s in sites}
    k = 0
    while k < len(stmts):
        s = stmts[k]
        site = by_stmt.get(id(s))
        if site is not None:
            stmts[k:k + 1] = site.pre
            k += len(site.pre)
            continue
        for field in ("body", "orelse"):
            block = getattr(s, field, None)
            if isinstance(block, list) and block:
                _remove_sites(block, sites)
                if not block:
                    block.append(gast.Pass())
        k += 1


def _all_names(tree):
    return {n.id for n in gast.walk(tree) if isinstance(n, gast.Name)}
