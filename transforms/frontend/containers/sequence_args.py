"""Arguments given as a list or tuple of numbers, which s2sad takes as
arrays (their kind's `sequence` says which, kinds.py): where Python does
something else with a list than numpy with an array, the derivative must
not follow the array. `isinstance(x, list)`, `type(x) is tuple` and
`hasattr(x, "shape")` are answered by the argument's Python type (the
branch the function takes is the one Python takes); `x + y`
(concatenation), `x * 2` (repetition), `x += y` (extension) and
comparisons are refused with the line. Indexing, slicing, iterating,
len(), sum() and numpy functions treat a list as numpy treats it: those
stay, and so do array attributes (`x.shape`, which raises in Python: the
list is the array np.asarray(x) to them, as s2sad always took it). A parameter rebound at the top level (`x = np.asarray(x)`) is a list
only before that statement; a helper called with the list is generated for
its kind and checks its own parameter."""
import builtins

import gast
import numpy as np

from ...errors import UnsupportedSyntaxError
from ...syntax import Transformer, const, names_stored, walk
from .common import list_only_use

_TYPES = {"list": list, "tuple": tuple}


def run(tree, ctx):
    """Fold the type questions asked of list (or tuple) arguments and refuse
    their uses where a list is not an array."""
    arg_kinds, resolve, location = ctx.arg_kinds, ctx.safe_resolve, ctx.location
    params = [a.id for a in tree.args.args]
    given = {p: _TYPES[k.sequence] for p, k in zip(params, arg_kinds)
             if k is not None and k.is_array and k.sequence in _TYPES}
    stored = names_stored(tree.body)
    # an array or a number is never a container: isinstance(x, dict) is False
    # (a helper recursing over a container by its type, called with a leaf)
    plain = [p for p, k in zip(params, arg_kinds) if p not in given and p not in stored
             and k is not None and (k.is_array or k.tag in ("float", "int"))]
    if plain:
        _ContainerQuestions(set(plain), resolve).visit(tree)
    if not given:
        return tree if plain else None
    for p, cls in given.items():
        region = tree.body if p not in stored else _before_rebinding(tree.body, p)
        names = {p} | _aliases(tree.body, p)
        for node in region:
            _TypeQuestions(names, cls, resolve, location).visit(node)
        for node in _live(region):
            found = list_only_use(node, names, resolve, helpers=True, attributes=False) \
                or _list_method(node, names)
            if found is not None:
                bad, what = found
                raise UnsupportedSyntaxError(
                    f"{what}, here of the argument '{p}', a {cls.__name__} of numbers that "
                    f"s2sad takes as an array,", location, bad,
                    f"Convert it to an array first ({p} = np.asarray({p})) or pass an array; "
                    f"s2sad does not follow what Python does with a {cls.__name__} here")
    return tree


# methods lists have and arrays lack (an array's attributes, x.shape, are the array's)
_LIST_METHODS = {"append", "extend", "insert", "pop", "remove", "clear", "reverse", "count",
                 "index"}


def _list_method(node, names):
    """(node, description) of the first list method called on a name in
    `names` (`history.append(loss)`), or None."""
    for n in walk(node):
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Attribute) \
                and n.func.attr in _LIST_METHODS and isinstance(n.func.value, gast.Name) \
                and n.func.value.id in names:
            return n, f"the list method .{n.func.attr}"
    return None


def _live(nodes):
    """The parts of `nodes` that can run: a branch whose test the type
    questions made a constant (`if isinstance(x, float): x * x`, given a
    tuple) never runs, and desugar.py drops it."""
    for s in nodes:
        if isinstance(s, gast.If) and isinstance(s.test, gast.Constant):
            yield from _live(s.body if s.test.value else s.orelse)
        elif isinstance(s, (gast.If, gast.While)):
            yield s.test
            yield from _live(s.body)
            yield from _live(s.orelse)
        elif isinstance(s, gast.For):
            yield s.target
            yield s.iter
            yield from _live(s.body)
            yield from _live(s.orelse)
        else:
            yield s


def _before_rebinding(body, p):
    """The statements where the parameter `p` still holds the argument: those
    before its first top-level rebinding `p = value` and that value (all of
    them when it is first rebound inside a block or to itself)."""
    for i, s in enumerate(body):
        if p not in names_stored([s]):
            continue
        if isinstance(s, gast.Assign) and len(s.targets) == 1 \
                and isinstance(s.targets[0], gast.Name) and s.targets[0].id == p \
                and list_only_use(s.value, {p}, lambda n: None, helpers=True,
                                  attributes=False) is None \
                and not _names_list(s.value, {p}):
            return body[:i] + [s.value]
        return body
    return body


def _names_list(node, names):
    """Is `node` the list itself or a slice of it (still a list)?"""
    while isinstance(node, gast.Subscript) and isinstance(node.slice, gast.Slice):
        node = node.value
    return isinstance(node, gast.Name) and node.id in names


def _aliases(body, p):
    """Names bound exactly once, to the list or a slice of it (`y = x`,
    `rest = x[1:]`): lists too."""
    found, changed = set(), True
    while changed:
        changed = False
        counts = {}
        for s in walk(gast.Module(body=body, type_ignores=[])):
            if isinstance(s, (gast.Assign, gast.AugAssign, gast.AnnAssign, gast.For)):
                for t in names_stored([s]):
                    counts[t] = counts.get(t, 0) + 1
        for s in walk(gast.Module(body=body, type_ignores=[])):
            if isinstance(s, gast.Assign) and len(s.targets) == 1 \
                    and isinstance(s.targets[0], gast.Name) \
                    and s.targets[0].id not in found and s.targets[0].id != p \
                    and counts.get(s.targets[0].id) == 1 \
                    and _names_list(s.value, {p} | found):
                found.add(s.targets[0].id)
                changed = True
    return found


class _TypeQuestions(Transformer):
    """isinstance(x, C), type(x) is C and hasattr(x, "name") of a name in
    `names` (the argument and its aliases), answered for the class `cls`."""

    def __init__(self, names, cls, resolve, location):
        self.names, self.cls, self.resolve = names, cls, resolve
        self.location = location

    def _ours(self, node):
        return isinstance(node, gast.Name) and node.id in self.names

    def _class(self, node):
        try:
            obj = self.resolve(node)
        except Exception:  # noqa: BLE001 - a local: not a class s2sad can name
            return None
        return obj if isinstance(obj, type) else None

    def visit_Call(self, node):
        self.generic_visit(node)
        if len(node.args) != 2 or node.keywords or not self._ours(node.args[0]):
            return node
        func = self._class_or_function(node.func)
        if func is builtins.isinstance:
            classes = node.args[1].elts if isinstance(node.args[1], gast.Tuple) \
                else [node.args[1]]
            found = [self._class(c) for c in classes]
            if any(c is None for c in found):  # (asked at run time, of the array: refused)
                raise UnsupportedSyntaxError(
                    "isinstance of a list or tuple argument against a class known only when "
                    "the function runs", self.location, node,
                    "Name the class itself (isinstance(x, list)); s2sad answers it for the "
                    "argument's Python type")
            return gast.copy_location(const(any(issubclass(self.cls, c) for c in found)), node)
        if func is builtins.hasattr and isinstance(node.args[1], gast.Constant) \
                and isinstance(node.args[1].value, str):
            return gast.copy_location(const(hasattr(self.cls, node.args[1].value)), node)
        return node

    def _class_or_function(self, node):
        try:
            return self.resolve(node)
        except Exception:  # noqa: BLE001 - a local name
            return None

    def visit_Compare(self, node):
        """type(x) is list, type(x) == tuple, type(x) is not np.ndarray."""
        self.generic_visit(node)
        if len(node.ops) != 1 or not isinstance(node.ops[0], _SAME):
            return node
        left, right = node.left, node.comparators[0]
        if not self._type_of_ours(left):
            left, right = right, left
        if not self._type_of_ours(left):
            return node
        cls = self._class(right)
        if cls is None:
            raise UnsupportedSyntaxError(
                "type() of a list or tuple argument compared with a class known only when "
                "the function runs", self.location, node,
                "Name the class itself (type(x) is list)")
        same = self.cls is cls
        return gast.copy_location(const(same if isinstance(node.ops[0], (gast.Is, gast.Eq))
                                        else not same), node)

    def _type_of_ours(self, node):
        return isinstance(node, gast.Call) and len(node.args) == 1 and not node.keywords \
            and self._class_or_function(node.func) is builtins.type and self._ours(node.args[0])


_SAME = (gast.Is, gast.IsNot, gast.Eq, gast.NotEq)
_CONTAINERS = (list, tuple, dict)


class _ContainerQuestions(_TypeQuestions):
    """isinstance(x, list), isinstance(x, (list, tuple)), isinstance(x, dict)
    of an array or number argument: False (other questions stay)."""

    def __init__(self, names, resolve):
        super().__init__(names, None, resolve, None)

    def visit_Call(self, node):
        self.generic_visit(node)
        if len(node.args) != 2 or node.keywords or not self._ours(node.args[0]) \
                or self._class_or_function(node.func) is not builtins.isinstance:
            return node
        classes = node.args[1].elts if isinstance(node.args[1], gast.Tuple) else [node.args[1]]
        found = [self._class(c) for c in classes]
        if not found or any(c is None or not issubclass(c, _CONTAINERS) for c in found):
            return node
        return gast.copy_location(const(False), node)

    def visit_Compare(self, node):
        return self.generic_visit(node)
