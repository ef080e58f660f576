"""Step 1 of the pipeline: find a function's source, parse it with gast and
build the namespace its free names resolve in."""
import builtins
import importlib
import inspect
import linecache
import textwrap
import tokenize

import gast

from ..functions import closures
from ...errors import SourceLocation, SourceUnavailableError, UnsupportedSyntaxError
from ..calls.builtin_forms import spell_builtin_forms
from ..calls.callable_forms import spell_callable_forms
from .lambda_source import lambda_tree
from ..statements.statement_forms import desugar_statement_forms
from ..calls.star_forms import desugar_star_forms
from .stale_source import check_source_is_current
from .wrappers import source_function
from ..containers.dict_comprehensions import desugar_dict_comprehensions
from ..containers.records import desugar_records
from ..containers.added_keys import create_assigned_keys
from ..statements.nested_unpacking import desugar_nested_unpacking
from ...ast_convert import parse
from ...emit.unparse import expr_source
from ...names import fresh_name
from ...syntax import clone, name, walk

# Statements and expressions the differentiating passes accept. Anything
# else is reported with its file and line before any pass runs.
_UNSUPPORTED = {
    gast.ClassDef: "a class definition",
    gast.AsyncFunctionDef: "an async function",
    gast.AsyncFor: "async for", gast.AsyncWith: "async with",
    gast.Await: "await",
    gast.Try: "a try statement",
    gast.Global: "a global statement", gast.Nonlocal: "a nonlocal statement",
    gast.Yield: "yield (a generator)", gast.YieldFrom: "yield from (a generator)",
    gast.SetComp: "a set comprehension",
    gast.DictComp: "a dict comprehension",
    gast.Lambda: "a lambda", gast.FunctionDef: "a nested function definition",
    gast.Delete: "del", gast.Import: "import", gast.ImportFrom: "import",
    gast.Starred: "star-unpacking",
    gast.NamedExpr: "the := operator", gast.Match: "a match statement",
    gast.Set: "a set display",  # (dicts: transforms/frontend/dicts.py)
}
_HINTS = {
    gast.SetComp: "Write the loop out with a preallocated array",
    gast.DictComp: "Write the loop out with a preallocated array",
    gast.FunctionDef: "Move the function to module level",
    gast.Lambda: "Define a module-level function instead",
    gast.ClassDef: "Define the class at module level and pass its data as arrays",
    gast.AsyncFunctionDef: "Differentiate a plain def",
    gast.AsyncFor: "Use a plain for loop", gast.AsyncWith: "Use plain code",
    gast.Await: "Compute the value before calling the differentiated function",
    gast.Try: "Check the condition with an if instead",
    gast.Global: "Pass the value as an argument",
    gast.Nonlocal: "Pass the value as an argument and return the new one",
    gast.Yield: "Return an array of the values instead",
    gast.YieldFrom: "Return an array of the values instead",
    gast.Delete: "Leave the variable; it is freed when the function returns",
    gast.Import: "Import at module level", gast.ImportFrom: "Import at module level",
    gast.Starred: "Index the elements (a[0], a[1]) instead",
    gast.NamedExpr: "Assign the value in its own statement first",
    gast.Match: "Use if / elif",
    gast.Set: "Use an array or a tuple",
}
_ELSE_HINT = "Keep a flag set before the break and test it after the loop"


class ParsedFunction:
    """A user function's tree with what is needed to resolve its names."""

    def __init__(self, fn, tree, location, namespace, source=""):
        self.fn = fn
        self.source_lines = source.splitlines()
        self.tree = tree                # gast.FunctionDef, decorators removed
        self.location = location
        self.namespace = namespace      # free name -> Python object
        self._transforms = {}

    def source_line(self, lineno):
        """Text of line `lineno` (1 = the def line), without indentation."""
        if lineno and 0 < lineno <= len(self.source_lines):
            return self.source_lines[lineno - 1].strip()
        return None

    @property
    def name(self):
        return self.tree.name

    @property
    def arg_names(self):
        return [a.id for a in self.tree.args.args]

    def resolve(self, node):
        """The Python object a name or dotted attribute denotes, or None if
        it is a local variable or cannot be resolved statically. A call of
        an s2sad transform on module-level objects (`s2sad.grad(f, wrt=0)`)
        is evaluated: its result is a constant of the function."""
        if isinstance(node, gast.Call):
            return self._evaluate_transform(node)
        if isinstance(node, gast.Name):
            if node.id in self.local_names:
                return None
            return self.namespace.get(node.id, _MISSING)
        if isinstance(node, gast.Attribute):
            base = self.resolve(node.value)
            if base is None or base is _MISSING:
                return base
            return getattr(base, node.attr, _MISSING)
        return None

    def _evaluate_transform(self, node):
        maker = self.resolve(node.func)
        if not getattr(maker, "__module__", "").startswith("s2sad"):
            return None
        key = id(node)
        if key not in self._transforms:
            args = [self._constant(a) for a in node.args]
            kws = {k.arg: self._constant(k.value) for k in node.keywords}
            if any(a is _MISSING for a in args) or any(v is _MISSING for v in kws.values()):
                return None
            self._transforms[key] = maker(*args, **kws)
        return self._transforms[key]

    def _constant(self, node):
        if isinstance(node, gast.Constant):
            return node.value
        if isinstance(node, gast.Tuple):
            items = [self._constant(e) for e in node.elts]
            return _MISSING if any(i is _MISSING for i in items) else tuple(items)
        obj = self.resolve(node) if isinstance(node, (gast.Name, gast.Attribute)) else None
        return _MISSING if obj is None else obj

    @property
    def local_names(self):
        if not hasattr(self, "_locals"):
            from ...syntax import names_stored
            self._locals = names_stored(self.tree.body) | set(self.arg_names)
        return self._locals


class _Missing:
    def __repr__(self):
        return "<unresolved>"


_MISSING = _Missing()


def is_missing(obj):
    return obj is _MISSING


def parse_function(fn, nested_def_ok=False, read_only=False):
    """Parse `fn` into a ParsedFunction, or raise a clear error.
    `nested_def_ok` admits the `backward` of a custom gradient. `read_only`:
    the caller does not change the tree (which may then be the one kept for
    the next parse of the same lines, not a copy)."""
    fn = source_function(fn)  # @njit's Python function; a wrapper that changes nothing
    if inspect.ismethod(fn) and inspect.isfunction(fn.__func__):
        code = fn.__func__.__code__
        raise SourceUnavailableError(
            f"{code.co_filename}:{code.co_firstlineno}: {fn.__qualname__} is a method bound "
            f"to a {type(fn.__self__).__name__} object; s2sad differentiates functions, whose "
            f"values all come in as arguments (an attribute of the object read when the "
            f"derivative runs could be stale). Write it as a function of the arrays it reads "
            f"(def loss(W, x): ...) and pass self.W, or differentiate "
            f"{type(fn.__self__).__name__}.{fn.__name__} with the object's values as a "
            f"NamedTuple or dict argument.")
    if not inspect.isfunction(fn):
        raise SourceUnavailableError(
            f"s2sad can only differentiate Python functions defined with def; "
            f"got {fn!r}, which has no Python source.")
    lifted = closures.LIFTED.get(fn)
    if lifted is not None:  # a nested function, lifted from the function defining it
        return _parsed(fn, clone(lifted.tree), lifted.location, lifted.source,
                       {**_namespace(lifted.root), **lifted.siblings}, nested_def_ok)
    if fn.__name__ == "<lambda>":
        tree, location, source = lambda_tree(fn)
        return _parsed(fn, tree, location, source, _namespace(fn), nested_def_ok)
    try:
        lines, first_line = _source_lines(fn)
    except (OSError, TypeError) as exc:
        raise SourceUnavailableError(
            f"No source code is available for {fn.__qualname__} ({exc}). s2sad "
            f"reads the function's source: define it in a file, not in an "
            f"interactive session or with exec.") from None
    except (SyntaxError, tokenize.TokenError) as exc:  # the file no longer parses
        check_source_is_current(fn, fn.__code__.co_firstlineno)
        raise SourceUnavailableError(
            f"{fn.__code__.co_filename}:{fn.__code__.co_firstlineno}: the source of "
            f"{fn.__qualname__} cannot be read from its file ({exc}).") from None
    check_source_is_current(fn, first_line)
    key = (fn.__code__, nested_def_ok)
    known = _PARSED_TREES.get(key)
    if known is not None and known[0] is lines:
        tree, location, source, imported = known[1]
        return ParsedFunction(fn, tree if read_only else clone(tree), location,
                              {**_namespace(fn), **imported}, source)
    source = textwrap.dedent("".join(lines))
    tree = _parse(source)
    tree.decorator_list = []
    positional_parameters(tree)
    location = SourceLocation(fn.__code__.co_filename, first_line, fn.__name__)
    imported = hoist_imports(tree)
    # functools.partial and map: the lambdas and comprehensions they are
    spell_callable_forms(tree, {**_namespace(fn), **imported}, location)
    # math.fsum, divmod, functools.reduce, max(key=), np.ndenumerate loops
    spell_builtin_forms(tree, {**_namespace(fn), **imported}, location)
    nested = any(isinstance(n, (gast.Lambda, gast.FunctionDef)) for n in walk(tree)
                 if n is not tree)
    namespace = {**_namespace(fn), **imported}
    known = set(namespace)
    parsed = _parsed(fn, tree, location, source, namespace, nested_def_ok, nested)
    # (names the desugaring added, e.g. a helper's copy: the cached tree calls them)
    imported = {**imported, **{k: v for k, v in namespace.items() if k not in known}}
    if not nested:
        # nothing is lifted out of it (which registers the lifted functions
        # in its namespace): the same tree serves the next parse of the same lines
        if len(_PARSED_TREES) >= 256:
            _PARSED_TREES.clear()
        _PARSED_TREES[key] = (lines, (clone(tree), location, source, imported))
    return parsed


def hoist_imports(tree):
    """`from scipy.special import erf` (or `import math as m`) among a
    function's first-level statements binds a name once for good, as a
    module-level import would: the statement leaves the tree and the names
    join the function's namespace ({name: object}, returned). An import of a
    name the function also assigns, a relative or star import, or one inside
    a branch or loop stays (and is refused)."""
    assigned = {n.id for n in walk(tree) if isinstance(n, gast.Name)
                and isinstance(n.ctx, (gast.Store, gast.Param, gast.Del))}
    imported, body = {}, []
    for s in tree.body:
        names = _imported_names(s)
        if names is None or set(names) & assigned:
            body.append(s)
            continue
        imported.update(names)
    tree.body = body or [gast.Pass()]
    return imported


def _imported_names(s):
    """{name: object} an import statement binds, or None (not one that can move)."""
    try:
        if isinstance(s, gast.Import):
            return {(a.asname or a.name.split(".")[0]):
                    importlib.import_module(a.name if a.asname else a.name.split(".")[0])
                    for a in s.names}
        if isinstance(s, gast.ImportFrom) and not s.level \
                and all(a.name != "*" for a in s.names):
            module = importlib.import_module(s.module)
            out = {}
            for a in s.names:
                value = getattr(module, a.name, None)
                if value is None:  # a submodule not yet imported
                    value = importlib.import_module(f"{s.module}.{a.name}")
                out[a.asname or a.name] = value
            return out
    except ImportError:
        return None  # (Python raises it when the function runs; refused here)
    return None


# code object, nested_def_ok -> (the lines read, (tree, location, source)) of a
# function with no nested function or lambda: a derivative parses its
# function twice, and generating it again parses it again (~10% of GMM's
# generation time)
_PARSED_TREES = {}


def _parsed(fn, tree, location, source, namespace, nested_def_ok, nested=True):
    # (the backward of a custom gradient stays where it is; with no nested
    # function or lambda there is nothing to lift, and lift_nested's walks
    # were a tenth of a first generation)
    split_chained_assignments(tree)
    if not nested_def_ok and nested:
        closures.lift_nested(tree, fn, location, namespace, source)
    parsed = ParsedFunction(fn, tree, location, namespace, source)
    # d = {}; d["y"] = ...: the keys created with the dict, before anything
    # reads a literal's keys (dict comprehensions below, the aux output)
    from ..calls.bind import readable_function
    create_assigned_keys(tree, parsed, readable_function)
    desugar_statement_forms(tree, location, namespace)  # :=, del, global, try ... finally
    desugar_star_forms(tree, location, namespace)  # f(*args), a, *rest = xs, [*xs, y]
    desugar_dict_comprehensions(tree, location)  # {k: ... for k, v in d.items()}: a literal
    desugar_records(tree, location, namespace)  # p = P(a=x, b=y); p.a: p_a = x; p_a
    desugar_nested_unpacking(tree, location, namespace)  # a, (b, c) = h(x)
    check_supported(tree, location, nested_def_ok)
    parsed.__dict__.pop("_locals", None)  # (the desugaring binds new names)
    return parsed


_LINES = {}  # code object -> (its file's lines as linecache held them, its lines, first line)


def _source_lines(fn):
    """inspect.getsourcelines(fn), which tokenizes the file from the
    function's first line on every call (~2 ms for GMM's 60 lines; a
    derivative reads its function twice), remembered while linecache holds
    the same lines of the file (it drops them when the file changes)."""
    code = fn.__code__
    linecache.checkcache(code.co_filename)
    held = linecache.cache.get(code.co_filename)
    known = _LINES.get(code)
    if known is not None and held is not None and known[0] is held[2]:
        return known[1], known[2]
    # (of the code: inspect would follow __wrapped__ past a wrapper's own source)
    lines, first_line = inspect.getsourcelines(code)
    held = linecache.cache.get(code.co_filename)
    if held is not None and len(held) == 4:  # (a lazily loaded entry has 1 item)
        if len(_LINES) >= 512:
            _LINES.clear()
        _LINES[code] = (held[2], lines, first_line)
    return lines, first_line


_TREES = {}  # source -> its tree, never handed out (passes change trees)


def _parse(source):
    """A fresh tree of the function in `source`; a function is parsed once
    per process (a copy is several times faster than gast.parse)."""
    if source not in _TREES:
        if len(_TREES) >= 512:
            _TREES.clear()
        _TREES[source] = parse(source).body[0]
    return clone(_TREES[source])


def _where(fn):
    code = fn.__code__
    return f"{code.co_filename}:{code.co_firstlineno}"


def _namespace(fn):
    import numpy
    ns = dict(vars(builtins))
    ns["np"] = numpy  # method calls x.sum() are rewritten to np.sum(x)
    ns.update(fn.__globals__)
    if fn.__closure__:
        for var, cell in zip(fn.__code__.co_freevars, fn.__closure__):
            try:
                ns[var] = cell.cell_contents
            except ValueError:  # an empty cell: the variable is not yet bound
                pass
    return ns


def positional_parameters(tree):
    """Make positional-only and keyword-only parameters plain ones, in the
    order of the signature: every call to the function is bound to that
    order (transforms/frontend/bind.py, api.Derivative), so this changes no call.
    Defaults stay where they are still valid (the run of parameters with
    one at the end)."""
    args = tree.args
    posonly = list(getattr(args, "posonlyargs", None) or [])
    if not posonly and not args.kwonlyargs:
        return tree
    params = posonly + list(args.args) + list(args.kwonlyargs)
    n_plain = len(posonly) + len(args.args)
    defaults = [None] * (n_plain - len(args.defaults)) + list(args.defaults)
    defaults += list(args.kw_defaults)
    tail = []
    for default in reversed(defaults):
        if default is None:
            break
        tail.append(default)
    args.posonlyargs = []
    args.args = params
    args.kwonlyargs, args.kw_defaults = [], []
    args.defaults = tail[::-1]
    return tree


def split_chained_assignments(tree):
    """`a = b = value` is `a = value; b = a`, Python's order (the value once,
    then the targets from left to right, all bound to the same object); a
    first target that is not a name (`x[0] = y = v`) takes the value from a
    temporary: `t = v; x[0] = t; y = t`."""
    taken = None
    for node in walk(tree):
        for field in ("body", "orelse"):
            stmts = getattr(node, field, None)
            if not isinstance(stmts, list) or not any(
                    isinstance(s, gast.Assign) and len(s.targets) > 1 for s in stmts):
                continue
            out = []
            for s in stmts:
                if not (isinstance(s, gast.Assign) and len(s.targets) > 1):
                    out.append(s)
                    continue
                first = s.targets[0]
                if isinstance(first, gast.Name):
                    source_name, targets = first.id, s.targets[1:]
                    out.append(gast.copy_location(
                        gast.Assign(targets=[first], value=s.value, type_comment=None), s))
                else:
                    if taken is None:
                        taken = {n.id for n in walk(tree) if isinstance(n, gast.Name)}
                    source_name, targets = fresh_name("chained", taken), s.targets
                    out.append(gast.copy_location(gast.Assign(
                        targets=[name(source_name, gast.Store())], value=s.value,
                        type_comment=None), s))
                out += [gast.copy_location(gast.Assign(targets=[t], value=name(source_name),
                                                       type_comment=None), s) for t in targets]
            setattr(node, field, out)


def check_supported(tree, location, nested_def_ok=False):
    args = tree.args
    if args.vararg or args.kwarg:
        raise UnsupportedSyntaxError(
            "*args or **kwargs", location, tree,
            "Use plain parameters (a tuple or an array for a varying number of values)")
    if isinstance(tree, gast.AsyncFunctionDef):
        raise UnsupportedSyntaxError("an async function", location, tree,
                                     _HINTS[gast.AsyncFunctionDef])
    for node in walk(tree):
        if node is tree:
            continue
        kind = _UNSUPPORTED.get(type(node))
        if nested_def_ok and isinstance(node, (gast.FunctionDef, gast.Lambda)):
            continue  # a custom gradient's backward (frontend/custom.py checks the rest)
        if kind is not None:
            raise UnsupportedSyntaxError(kind, location, node, _HINTS.get(type(node), ""))
        if isinstance(node, gast.Raise) and (node.cause is not None or node.exc is None):
            raise UnsupportedSyntaxError("raise without an exception, or raise ... from",
                                         location, node, "Raise an exception of its own: "
                                         "raise ValueError(\"...\")")
        if isinstance(node, gast.For) and node.orelse:
            raise UnsupportedSyntaxError("for ... else", location, node, _ELSE_HINT)
        if isinstance(node, gast.While) and node.orelse:
            raise UnsupportedSyntaxError("while ... else", location, node, _ELSE_HINT)
        if isinstance(node, (gast.Assign, gast.AugAssign, gast.AnnAssign)):
            targets = node.targets if isinstance(node, gast.Assign) else [node.target]
            for t in targets:
                _check_target(t, location)


def _check_target(target, location):
    """An assignment through an attribute (`a.real += x`, `a.flat[i] = v`,
    `a.T[0] = v`, `obj.w = v`) writes into memory s2sad cannot follow by name
    (a view of the array, or an object's field): refused, never dropped."""
    if isinstance(target, (gast.Tuple, gast.List)):
        for e in target.elts:
            _check_target(e, location)
        return
    if isinstance(target, gast.Starred):
        return _check_target(target.value, location)
    node = target
    while isinstance(node, gast.Subscript):
        node = node.value
    if isinstance(node, gast.Attribute):
        shown = f"{expr_source(node)} = ..." if node is target else f"{expr_source(node)}[...] = ..."
        raise UnsupportedSyntaxError(
            f"assignment through an attribute ({shown})", location, target,
            "Write into the array itself (a[...] = ..., a[i] = ...), or make a new "
            "array and assign it to a name")
