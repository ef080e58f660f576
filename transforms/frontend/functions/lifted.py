"""What the front end knows of nested functions lifted to module level
(functions/closures.py lifts them; functions/passed_functions.py makes the
copies of helpers they are passed to): the registry reading a lifted
function's tree goes through, where it sits in its outer function's source,
how a call binds to its parameters, and the scope rules of nested Python
functions (names a scope binds and reads)."""
import linecache
import types

import gast

from ...emit.unparse import stmt_source
from ...errors import SourceLocation, UnsupportedSyntaxError
from ...syntax import clone
from ...errors import S2sadTypeError

SCOPES = (gast.FunctionDef, gast.Lambda, gast.ListComp, gast.SetComp, gast.DictComp,
          gast.GeneratorExp)

# lifted function -> Lifted (what reading it needs)
LIFTED = {}


class Lifted:
    def __init__(self, tree, location, source, root, siblings):
        self.tree = tree            # gast FunctionDef, the captures as trailing parameters
        self.location = location    # of the outer function (the tree's line numbers)
        self.source = source        # the outer function's source
        self.root = root            # the user function whose namespace names resolve in
        self.siblings = siblings    # name -> lifted function (for calls between them)


class Site:
    def __init__(self, stmt, fname, args, body, path):
        self.stmt = stmt            # the def, or the assignment of the lambda
        self.name = fname           # the name it is bound to in the outer function
        self.args = args            # gast.arguments
        self.body = body            # statements
        self.path = path            # ((block, index), ...) of its statement
        self.captures = []
        self.defaults = {}          # parameter -> node passed when a call leaves it out
        self.lifted_name = fname


def lifts_nested(ctx):
    """Whether the function defines nested functions or lambdas to lift. (A
    custom gradient's backward, `ctx.nested_def_ok`, stays where it is.)"""
    return not ctx.nested_def_ok and any(
        n.__class__ in (gast.FunctionDef, gast.Lambda) for n in ctx.nodes if n is not ctx.tree)


def root_of(fn):
    """The user function whose namespace a (possibly lifted) function's names
    resolve in."""
    lifted = LIFTED.get(fn)
    return fn if lifted is None else lifted.root


# ---- scopes ---------------------------------------------------------------------

def params_of(args):
    """Every parameter of a def or lambda (positional-only, plain, keyword-only)."""
    return list(getattr(args, "posonlyargs", None) or []) + list(args.args) + \
        list(args.kwonlyargs)


def stored(stmts):
    """Names a scope binds (not inside nested scopes; a nested def's name
    counts)."""
    out = set()
    for n in walk_scope(stmts):
        if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Del)):
            out.add(n.id)
        elif isinstance(n, gast.FunctionDef):
            out.add(n.name)
        elif isinstance(n, (gast.Import, gast.ImportFrom)):
            out.update((a.asname or a.name).split(".")[0] for a in n.names)
    return out


def loaded(stmts):
    """Names a scope reads that it does not bind, its nested scopes' free
    names included."""
    out = set()
    for n in walk_scope(stmts):
        if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
            out.add(n.id)
        elif isinstance(n, SCOPES):
            out |= free_names(n)
    return out


def free_names(scope):
    if isinstance(scope, gast.FunctionDef):
        own = {a.id for a in params_of(scope.args)} | stored(scope.body)
        return loaded(scope.body) - own
    if isinstance(scope, gast.Lambda):
        own = {a.id for a in params_of(scope.args)}
        return loaded([scope.body]) - own
    own, loads = set(), set()
    for g in scope.generators:
        own |= {n.id for n in gast.walk(g.target) if isinstance(n, gast.Name)}
        loads |= loaded([g.iter] + list(g.ifs))
    elts = [scope.key, scope.value] if isinstance(scope, gast.DictComp) else [scope.elt]
    return (loads | loaded(elts)) - own


def walk_scope(roots):
    """Nodes of a scope; a nested scope is yielded, not entered (its defaults
    and decorators, which run in this scope, are)."""
    todo = list(roots)
    while todo:
        n = todo.pop()
        yield n
        if isinstance(n, SCOPES):
            if isinstance(n, (gast.FunctionDef, gast.Lambda)):
                todo.extend(n.args.defaults)
                todo.extend(d for d in n.args.kw_defaults if d is not None)
            continue
        for field in n._fields:
            v = getattr(n, field, None)
            if isinstance(v, list):
                todo.extend(c for c in v if isinstance(c, gast.AST))
            elif isinstance(v, gast.AST):
                todo.append(v)


# ---- calls and objects ---------------------------------------------------------

def bind_call(node, site, location, from_nested):
    """The arguments of `node`, a call of the nested function `site`, by
    position in its parameters' order (defaults filled in)."""
    if any(isinstance(a, gast.Starred) for a in node.args) or any(
            k.arg is None for k in node.keywords):
        raise UnsupportedSyntaxError("a call with *args or **kwargs", location, node,
                                     "Pass each argument")
    a = site.args
    n_positional = len(getattr(a, "posonlyargs", None) or []) + len(a.args)
    posonly = {p.id for p in getattr(a, "posonlyargs", None) or []}
    if len(node.args) > n_positional:
        raise S2sadTypeError(f"{location.describe(node)}: {site.name}() takes {n_positional} "
                        f"positional arguments but {len(node.args)} were given")
    given = dict(zip(site.params, node.args))
    for k in node.keywords:
        if k.arg not in site.params or k.arg in posonly or k.arg in given:
            raise S2sadTypeError(f"{location.describe(node)}: {site.name}() got an unexpected or "
                            f"repeated keyword argument '{k.arg}'")
        given[k.arg] = k.value
    out = []
    for p in site.params:
        if p in given:
            out.append(given[p])
        elif p in site.defaults:
            d = site.defaults[p]
            if from_nested and not isinstance(d, (gast.Constant, gast.UnaryOp)):
                raise UnsupportedSyntaxError(
                    f"a call of '{site.name}' from another nested function leaving out "
                    f"'{p}', whose default is not a constant", location, node,
                    f"Pass {p} explicitly")
            out.append(clone(d))
        else:
            raise S2sadTypeError(f"{location.describe(node)}: {site.name}() missing required "
                            f"argument '{p}'")
    return out


def located_at(location, fname, def_node):
    return NestedLocation(location.filename, location.first_line, fname,
                          location.line_of(def_node))


class NestedLocation(SourceLocation):
    """Lines of the outer function's source; the function itself is where
    its def (or lambda) is."""

    def __init__(self, filename, first_line, func_name, def_line):
        super().__init__(filename, first_line, func_name)
        self.def_line = def_line

    def describe(self, node=None):
        if node is None:
            return f"{self.filename}:{self.def_line}, in {self.func_name}"
        return super().describe(node)


def function_of(tree, fn, location, extra=None):
    """A Python function object for the lifted tree (the helper machinery
    keys on functions), its source in linecache under a name that says where
    it comes from; its globals are the outer function's (with `extra`, a
    dict of names, added to a copy of them)."""
    text = stmt_source(tree) + "\n"
    filename = f"<s2sad: {tree.name}, lifted from {location.filename}:" \
               f"{location.line_of(tree)}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    module = compile(text, filename, "exec")
    code = next(c for c in module.co_consts if isinstance(c, types.CodeType))
    namespace = getattr(fn, "__globals__", {})
    if extra:
        namespace = {**namespace, **extra}
    return types.FunctionType(code, namespace, tree.name)
