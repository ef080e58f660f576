"""Reading a function: its source found (a def's lines in its file, a
lambda's, the tree of a nested function lifted out of another), parsed with
gast (decorators removed, a def's parameters made plain positional ones),
and the namespace its free names resolve in. The passes of the READ list
(pipeline.py) then run over the ParsedFunction."""
import builtins
import inspect
import linecache
import os
import re
import textwrap
import tokenize
from dataclasses import dataclass

import gast

from .lambda_source import lambda_tree
from .stale_source import check_source_is_current
from .wrappers import source_function
from ..functions.lifted import LIFTED
from ...ast_convert import parse
from ...errors import SourceLocation, SourceUnavailableError
from ...libraries import is_library_function, of_package
from ...syntax import clone, names_stored


class ParsedFunction:
    """A user function's tree with what is needed to resolve its names."""

    def __init__(self, fn, tree, location, namespace, source=""):
        self.fn = fn
        self.source = source
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
        if not of_package(maker, "s2sad"):
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
            self._locals = names_stored(self.tree.body) | set(self.arg_names)
        return self._locals


class _Missing:
    def __repr__(self):
        return "<unresolved>"


_MISSING = _Missing()


def is_missing(obj):
    return obj is _MISSING


def readable_function(obj):
    """The Python function behind a helper the compiler differentiates
    through its source, or None."""
    if getattr(obj, "__s2sad_derivative__", False):
        return None  # derivatives bind their own calls (api.Derivative)
    if getattr(obj, "__s2sad_python__", None):
        return None  # a block kept as Python (statements/python_blocks.py)
    if getattr(obj, "__s2sad_custom__", None):
        return getattr(obj, "fn", None)
    if inspect.isfunction(obj) and not of_package(obj, "numpy", "math", "s2sad") \
            and not is_library_function(obj):
        return obj  # (s2sad.grad(f, wrt=0) is evaluated, not read; a library's function too)
    return None


@dataclass
class Source:
    """A function's source as found: a def's `lines` in its file (parsed by
    `parsed`, unless the tree of an earlier read of the same lines is kept),
    or the tree of a lambda or a lifted nested function."""
    fn: object
    lines: list = None
    first_line: int = 0
    tree: object = None
    location: object = None
    source: str = ""
    namespace: dict = None


def source_of(fn):
    """`fn`'s Source (its @njit Python function, a wrapper that changes
    nothing skipped), or a clear error."""
    fn = source_function(fn)
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
    lifted = LIFTED.get(fn)
    if lifted is not None:  # a nested function, lifted from the function defining it
        return Source(fn, tree=clone(lifted.tree), location=lifted.location,
                      source=lifted.source,
                      namespace={**namespace_of(lifted.root), **lifted.siblings})
    if fn.__name__ == "<lambda>":
        tree, location, source = lambda_tree(fn)
        return Source(fn, tree=tree, location=location, source=source,
                      namespace=namespace_of(fn))
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
    return Source(fn, lines=lines, first_line=first_line)


def parsed(found):
    """The Source of a def, with its tree, location and namespace."""
    fn = found.fn
    source = textwrap.dedent("".join(found.lines))
    tree = _parse(source)
    tree.decorator_list = []
    positional_parameters(tree)
    location = SourceLocation(fn.__code__.co_filename, found.first_line, fn.__name__)
    return Source(fn, found.lines, found.first_line, tree, location, source, namespace_of(fn))


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
    lines, first_line = _code_lines(fn)
    held = linecache.cache.get(code.co_filename)
    if held is not None and len(held) == 4:  # (a lazily loaded entry has 1 item)
        if len(_LINES) >= 512:
            _LINES.clear()
        _LINES[code] = (held[2], lines, first_line)
    return lines, first_line


# where inspect.findsource (3.11) takes a code object's definition to start
_DEFINITION = re.compile(r'^(\s*def\s)|(\s*async\s+def\s)|(.*(?<!\w)lambda(:|\s))|^(\s*@)')


def _code_lines(fn):
    """inspect.getsourcelines(fn.__code__) (of the code: inspect would follow
    __wrapped__ past a wrapper's own source), but for a file linecache can
    read, with fn's globals as the module inspect looks for: inspect's first
    search of the modules by file took 8 ms, a tenth of a first gradient."""
    code = fn.__code__
    name = code.co_filename
    if not (name in linecache.cache or os.path.isfile(name)):
        return inspect.getsourcelines(code)
    lines = linecache.getlines(name, fn.__globals__)
    start = code.co_firstlineno - 1
    if not lines or not 0 <= start < len(lines):
        return inspect.getsourcelines(code)
    while start > 0 and not _DEFINITION.match(lines[start]):
        start -= 1
    return inspect.getblock(lines[start:]), start + 1


_TREES = {}  # source -> its tree, never handed out (passes change trees)


def _parse(source):
    """A fresh tree of the function in `source`; a function is parsed once
    per process (a copy is several times faster than gast.parse)."""
    if source not in _TREES:
        if len(_TREES) >= 512:
            _TREES.clear()
        _TREES[source] = parse(source).body[0]
    return clone(_TREES[source])


def namespace_of(fn):
    """The names `fn`'s free names resolve in: builtins, `np`, its module's
    globals and its closure's cells."""
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
    order (transforms/frontend/calls/bind.py, api.Derivative), so this changes no call.
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
