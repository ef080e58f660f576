"""Star-unpacking spelled as the indexing it means (READ, pipeline.py):

    f(*(a, b))  /  args = (a, b); f(*args)     f(a, b)  /  f(args[0], args[1])
    [*xs, y] with xs = [p, q] (bound once)     [xs[0], xs[1], y]
    a, *rest, b = (p, q, r, s)                 t = (p, q, r, s); a = t[0];
                                               rest = [t[1], t[2]]; b = t[3]
    a, *rest = x   (anything else: an array)   if len(x) < 1: raise ValueError(...)
                                               a = x[0]; rest = [v for v in x[1:]]
    zip(*h(x)) of a helper returning (u, v)    star_0, star_1 = h(x); zip(star_0, star_1)

A name "bound once to a literal" is assigned once in the function, to a
list or tuple written out, and never changed in length (no append, pop,
extend, ...), so its length is that of the literal. In the last form
`rest` is a list comprehension, which s2sad keeps as an array of the
elements (refusing the uses where a list and an array differ): a copy of
the slice, empty when there is nothing left, as Python's `[]`. A star whose length
is known only when the function runs anywhere else (`f(*x)`, `[*x, y]` of
an array) stays refused, with what to write instead; a star of a parameter
(`zip(*t)`) waits for the function to be specialised, when a container
argument's length is known (containers/flatten.py splices it,
calls/zip_forms.py refuses a star of any other argument).
"""
import inspect

import gast
import numpy as np

from ...errors import UnsupportedSyntaxError
from ...names import fresh_name
from ...syntax import walk

_LENGTH_CHANGERS = {"append", "extend", "pop", "insert", "remove", "clear"}


def run(tree, ctx):
    """Rewrite `tree` (a FunctionDef) in place."""
    if not any(isinstance(n, gast.Starred) for n in walk(tree)):
        return None
    forms = _StarForms(tree, ctx.location, ctx.namespace, ctx.parse)
    forms.block(tree.body)
    return tree


def _header_ids(s):
    """The nodes of the expressions statement `s` evaluates once, before
    any statement of its body: a `for`'s iterable, an `if`'s test, a simple
    statement whole (not a `while`'s test, evaluated again and again)."""
    if isinstance(s, gast.For):
        parts = [s.iter]
    elif isinstance(s, gast.If):
        parts = [s.test]
    elif isinstance(s, (gast.While, gast.With, gast.Try, gast.FunctionDef, gast.ClassDef)):
        parts = []
    else:
        parts = [s]
    return {id(n) for p in parts for n in walk(p)}


def _name(id_, ctx=None):
    return gast.Name(id=id_, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def _const(v):
    return gast.Constant(value=v, kind=None)


def _index(base, k):
    return gast.Subscript(value=_name(base), slice=_const(k), ctx=gast.Load())


def _assign(target, value, src):
    return gast.copy_location(gast.Assign(targets=[target], value=value, type_comment=None), src)


class _StarForms:
    def __init__(self, tree, location, namespace, parse):
        self.location = location
        self.namespace = namespace
        self.parse = parse
        self.taken = {n.id for n in walk(tree) if isinstance(n, gast.Name)}
        self.literals = _bound_once_to_literals(tree)
        self.params = {a.id for a in walk(tree.args) if isinstance(a, gast.Name)}
        self.plain_params = {a.id for a in tree.args.args}  # (not *args: a tuple of any length)
        self.header, self.pending = set(), []  # (block(): the statement being spliced)
        self.bindings = {}  # name -> the values assigned to it (None: bound otherwise)
        for node in walk(tree):
            if isinstance(node, gast.Assign) and len(node.targets) == 1 and isinstance(
                    node.targets[0], gast.Name):
                self.bindings.setdefault(node.targets[0].id, []).append(node.value)
        plain = {id(a.targets[0]) for a in walk(tree) if isinstance(a, gast.Assign)}
        for node in walk(tree):
            if isinstance(node, gast.Name) and isinstance(node.ctx, gast.Store) \
                    and id(node) not in plain:
                self.bindings.setdefault(node.id, []).append(gast.Tuple(elts=[],
                                                                        ctx=gast.Load()))

    def length(self, node):
        """The length of a literal or of a name bound once to one, else None."""
        if isinstance(node, (gast.Tuple, gast.List)) and not any(
                isinstance(e, gast.Starred) for e in node.elts):
            return len(node.elts)
        if isinstance(node, gast.Name) and node.id in self.literals:
            return self.literals[node.id]
        return None

    def helper_result_length(self, node):
        """The length of the tuple a helper's call returns (`h(x)`, or a name
        bound once to it) when every return of the helper is a tuple written
        out, of that one length; else None."""
        if isinstance(node, gast.Name):
            values = self.bindings.get(node.id, [])
            if len(values) != 1 or node.id in self.params:
                return None
            node = values[0]
        if not isinstance(node, gast.Call):
            return None
        helper = _resolve(node.func, self.namespace)
        if not inspect.isfunction(helper) or helper in _MEASURING:
            return None
        _MEASURING.add(helper)  # (a recursive helper unpacks its own result)
        try:
            tree = self.parse(helper, read_only=True).tree
        except Exception:  # noqa: BLE001 - no source, or refused: the unpacking stays refused
            return None
        finally:
            _MEASURING.discard(helper)
        lengths = {len(r.value.elts) if isinstance(r.value, gast.Tuple) and not any(
            isinstance(e, gast.Starred) for e in r.value.elts) else None
            for r in _own_returns(tree.body)}
        return lengths.pop() if len(lengths) == 1 else None

    def helper_elements(self, node, owner):
        """`f(*h(x))` of a helper returning a tuple written out, of one
        length: `star_0, star_1 = h(x)` just before the statement (it runs
        once, where the statement's own expressions run), then
        `f(star_0, star_1)`."""
        n = self.helper_result_length(node)
        parts = []
        for k in range(n):
            parts.append(fresh_name(f"star_{k}", self.taken))
            self.taken.add(parts[-1])
        self.pending.append(_assign(gast.Tuple(elts=[_name(p, gast.Store()) for p in parts],
                                               ctx=gast.Store()), node, owner))
        return [_name(p) for p in parts]

    def elements(self, node):
        """The element expressions of a starred value whose length is known."""
        if isinstance(node, (gast.Tuple, gast.List)):
            return list(node.elts)
        return [_index(node.id, k) for k in range(self.literals[node.id])]

    def block(self, stmts):
        out = []
        for s in stmts:
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(s, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                    self.block(inner)
            self.header, self.pending = _header_ids(s), []
            if isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(
                    s.targets[0], (gast.Tuple, gast.List)) and any(
                    isinstance(e, gast.Starred) for e in s.targets[0].elts):
                unpacked = self.unpack(s)
                out += self.pending + unpacked
                continue
            if not isinstance(s, (gast.FunctionDef, gast.ClassDef)):
                self.splice(s)
            out += self.pending + [s]
        stmts[:] = out

    def splice(self, s):
        """Starred arguments and display elements of known length, spliced."""
        for node in walk(s):
            if isinstance(node, gast.Call):
                _size_given_whole(node, self.namespace)
        for node in walk(s):
            if isinstance(node, gast.Call) and self.array_of_display(node):
                self.concatenated(node)
        for node in walk(s):
            if isinstance(node, gast.Call):
                node.args = self.spliced(node.args, node, "a call's argument")
            elif isinstance(node, (gast.List, gast.Tuple)) and isinstance(node.ctx, gast.Load):
                node.elts = self.spliced(node.elts, node, "a list or tuple display")

    def spliced(self, items, owner, where):
        if not any(isinstance(e, gast.Starred) for e in items):
            return items
        out = []
        for e in items:
            if not isinstance(e, gast.Starred):
                out.append(e)
            elif self.length(e.value) is not None:
                out += self.elements(e.value)
            elif id(e) in self.header and self.helper_result_length(e.value) is not None:
                out += self.helper_elements(e.value, owner)
            elif isinstance(e.value, gast.Name) and e.value.id in self.plain_params \
                    and e.value.id not in self.bindings:
                # a parameter's length is known from its structure, once specialised
                # (flatten.py splices a container argument; zip_forms.py refuses
                # the others, saying where the star is)
                e.s2sad_star_parameter = where
                out.append(e)
            else:
                raise UnsupportedSyntaxError(
                    f"star-unpacking in {where} of a value whose length is known only when "
                    f"the function runs (an array, or a list that changes)", self.location, e,
                    "Pass the array whole and index it, write the elements out "
                    "(f(x[0], x[1])), or build the array with np.concatenate((x, [y]))")
        return out

    def array_of_display(self, node):
        """np.array([...]) or np.asarray([...]) of a display with a star of
        unknown length, nothing else given."""
        if len(node.args) != 1 or node.keywords or not isinstance(
                node.args[0], (gast.List, gast.Tuple)) or not isinstance(node.func, gast.Attribute):
            return False
        if not any(isinstance(e, gast.Starred) and self.length(e.value) is None
                   for e in node.args[0].elts):
            return False
        base = node.func.value
        module = self.namespace.get(base.id) if isinstance(base, gast.Name) else None
        return module is np and node.func.attr in ("array", "asarray")

    def concatenated(self, node):
        """np.array([a, *x, b]) is np.concatenate((np.array([a]), x,
        np.array([b]))): the rows of x between a and b, as numpy builds it
        from the list (also for a 2-d x and rows a, b)."""
        parts, run = [], []
        def close():
            if run:
                parts.append(gast.Call(func=gast.Attribute(value=gast.Name(
                    id=node.func.value.id, ctx=gast.Load(), annotation=None, type_comment=None),
                    attr="array", ctx=gast.Load()),
                    args=[gast.List(elts=list(run), ctx=gast.Load())], keywords=[]))
                run.clear()
        for e in node.args[0].elts:
            if isinstance(e, gast.Starred) and self.length(e.value) is None:
                close()
                parts.append(e.value)
            elif isinstance(e, gast.Starred):
                run.extend(self.elements(e.value))
            else:
                run.append(e)
        close()
        node.func = gast.Attribute(value=node.func.value, attr="concatenate", ctx=gast.Load())
        node.args = [gast.Tuple(elts=parts, ctx=gast.Load())]

    def an_array(self, value, seen=()):
        """Whether `value` is an array when it is not a literal: a parameter,
        an expression other than a call, a numpy ufunc's or array builder's
        result, or a name only ever bound to one of these. (A tuple of a
        helper's results has a length s2sad learns only from its kinds.)"""
        if isinstance(value, gast.Name):
            if value.id in self.params:
                return True
            values = self.bindings.get(value.id)
            return bool(values) and value.id not in seen and all(
                self.an_array(v, seen + (value.id,)) for v in values)
        if isinstance(value, gast.Call):
            obj = _resolve(value.func, self.namespace)
            return isinstance(obj, np.ufunc) or any(obj is f for f in _ARRAY_BUILDERS)
        return not isinstance(value, (gast.Tuple, gast.List, gast.ListComp, gast.IfExp,
                                      gast.Starred))

    def unpack(self, s):
        """`a, *rest, b = value`: one assignment per target."""
        targets = s.targets[0].elts
        star = next(k for k, e in enumerate(targets) if isinstance(e, gast.Starred))
        if sum(isinstance(e, gast.Starred) for e in targets) > 1 or any(
                isinstance(e, (gast.Tuple, gast.List)) for e in targets):
            raise UnsupportedSyntaxError("unpacking into nested tuples or two starred names",
                                         self.location, s, "Unpack in two steps")
        before, after = star, len(targets) - star - 1
        self.splice(s)  # ([*xs, y] in the value; starred indices in the targets)
        value = s.value
        target_names = {n.id for t in targets for n in walk(t) if isinstance(n, gast.Name)}
        out = []
        known = self.length(value)
        if known is None:  # a, *rest = h(x) of a helper returning a tuple written out
            known = self.helper_result_length(value)
        if isinstance(value, (gast.Tuple, gast.List)) or not isinstance(value, gast.Name) \
                or value.id in target_names:
            # the value is evaluated once, before any target is assigned
            held = fresh_name("unpacked", self.taken)
            out.append(_assign(_name(held, gast.Store()), value, s))
            if known is not None:
                self.literals[held] = known
            value = _name(held)
        if known is not None:
            if known < before + after:
                raise UnsupportedSyntaxError(
                    f"unpacking {known} values into {before + after} names and a starred one "
                    f"(Python raises ValueError)", self.location, s, "Unpack fewer names")
            for k, t in enumerate(targets):
                if k < star:
                    v = _index(value.id, k)
                elif k > star:
                    v = _index(value.id, known - (len(targets) - k))
                else:
                    v = gast.List(elts=[_index(value.id, j) for j in range(star, known - after)],
                                  ctx=gast.Load())
                out.append(_assign(t.value if k == star else t, v, s))
            return out
        # a length known only when the function runs: checked, as Python does
        if not self.an_array(s.value):
            raise UnsupportedSyntaxError(
                "star-unpacking of a value that may be a tuple of results (a function's, "
                "or a name bound to one) of a length s2sad cannot read from the source",
                self.location, s, "Unpack it into names (a, b, c = h(x)), or index it; a "
                "helper whose every return is a tuple written out, of one length, can be "
                "star-unpacked")
        message = f"not enough values to unpack (expected at least {before + after})"
        out.append(gast.copy_location(gast.If(
            test=gast.Compare(left=gast.Call(func=_name("len"), args=[_name(value.id)],
                                             keywords=[]),
                              ops=[gast.Lt()], comparators=[_const(before + after)]),
            body=[gast.copy_location(gast.Raise(exc=gast.Call(
                func=_name("ValueError"), args=[_const(message)], keywords=[]), cause=None),
                s)], orelse=[]), s))
        for k, t in enumerate(targets):
            if k < star:
                out.append(_assign(t, _index(value.id, k), s))
            elif k > star:
                out.append(_assign(t, _index(value.id, k - len(targets)), s))
        element = fresh_name("element", self.taken)
        upper = None if not after else _const(-after)
        rest = gast.ListComp(elt=_name(element), generators=[gast.comprehension(
            target=_name(element, gast.Store()),
            iter=gast.Subscript(value=_name(value.id), slice=gast.Slice(
                lower=_const(star) if star else None, upper=upper, step=None), ctx=gast.Load()),
            ifs=[], is_async=0)])
        # (a copy of the slice, which may be empty, as Python's [] is: comprehensions.py)
        rest.s2sad_copy_of_slice = True
        out.insert(len(out) - after, _assign(targets[star].value, rest, s))
        return out


_MEASURING = set()  # helpers whose returns are being read (helper_result_length)


def _own_returns(stmts):
    """The return statements of a function, not of functions defined in it."""
    for s in stmts:
        if isinstance(s, gast.Return):
            yield s
        if isinstance(s, (gast.FunctionDef, gast.AsyncFunctionDef, gast.ClassDef, gast.Lambda)):
            continue
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(s, field, None)
            if isinstance(inner, list):
                yield from _own_returns(inner)
        for handler in getattr(s, "handlers", None) or []:
            yield from _own_returns(handler.body)


def _bound_once_to_literals(tree):
    """{name: length} of the names assigned once, to a list or tuple written
    out, whose length nothing changes."""
    stores, literal = {}, {}
    for node in walk(tree):
        if isinstance(node, gast.Name) and isinstance(node.ctx, (gast.Store, gast.Del)):
            stores[node.id] = stores.get(node.id, 0) + 1
        if isinstance(node, gast.Assign) and len(node.targets) == 1 and isinstance(
                node.targets[0], gast.Name) and isinstance(node.value, (gast.Tuple, gast.List)) \
                and not any(isinstance(e, gast.Starred) for e in node.value.elts):
            literal[node.targets[0].id] = len(node.value.elts)
    for node in walk(tree):
        if isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name) \
                and node.attr in _LENGTH_CHANGERS:
            literal.pop(node.value.id, None)
        if isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name):
            literal.pop(node.target.id, None)  # (xs += [y] makes it longer)
    params = {a.id for a in walk(tree.args) if isinstance(a, gast.Name)}
    return {v: n for v, n in literal.items() if stores.get(v) == 1 and v not in params}


_ARRAY_BUILDERS = (np.array, np.asarray, np.sort, np.concatenate, np.stack, np.linspace,
                   np.arange, np.cumsum, np.diff, np.ravel, np.copy, np.zeros, np.ones,
                   np.empty, np.full, np.zeros_like, np.ones_like, np.outer, np.dot)


# randn(d0, d1, ...) and rand(d0, ...) of numpy's legacy generator are
# standard_normal(size) and random_sample(size) with the dimensions as one
# tuple (numpy's documentation; the same numbers)
_BY_SIZE = {"randn": "standard_normal", "rand": "random_sample"}


def _size_given_whole(call, namespace):
    """`rs.randn(*shape)`, `np.random.rand(*x.shape)`: the draw given the
    size whole (`rs.standard_normal(shape)`), in place. `rs` is np.random, a
    RandomState, or a name the function binds or is given."""
    func = call.func
    if not (isinstance(func, gast.Attribute) and func.attr in _BY_SIZE and not call.keywords
            and len(call.args) == 1 and isinstance(call.args[0], gast.Starred)):
        return
    owner = _resolve(func.value, namespace)
    if owner is None and not isinstance(func.value, gast.Name):
        return
    if owner is not None and owner is not np.random \
            and not isinstance(owner, np.random.RandomState):
        return
    func.attr = _BY_SIZE[func.attr]
    call.args = [call.args[0].value]


def _resolve(func, namespace):
    if isinstance(func, gast.Name):
        return namespace.get(func.id)
    if isinstance(func, gast.Attribute):
        base = _resolve(func.value, namespace)
        return getattr(base, func.attr, None) if base is not None else None
    return None
