"""Argument kinds guessed from a function's source: what a derivative's
`.source` (and `python -m s2sad show` without --args) is generated for
before the first call tells the real ones.

An argument is guessed an array where the source needs one, a float
otherwise (an int where it counts a range; a default's own kind). What
needs an array:
- indexing (`x[i, j]`: at least 2-d), an attribute a number lacks
  (`x.shape`, `x.T`, `x.sum(axis=1)`), len(), iteration;
- a call whose gradient rule accepts only arrays for a parameter (the
  registry's `Values`: `@`'s operands, np.linalg.inv's matrix), an `axis=`
  the array must have, the operands of products and of np.linalg's and
  scipy.linalg's functions, a helper's own guesses for its parameters.
A need met by a local variable goes back to what it was computed from
(`y = 2 * x; y[i]` makes x an array), and the kinds of the locals follow
the arguments guessed so far: the guess is repeated until it is stable."""
import builtins
import inspect
import operator

import gast
import numpy as np

from .registry import REGISTRY
from .transforms.analysis import kinds as K
from .transforms.errors import S2sadError, SourceUnavailableError
from .transforms.syntax import walk


class GuessedKindsError(S2sadError, LookupError):
    """The derivative cannot be generated for the argument kinds guessed
    from the function's source: it needs real arguments."""


def generate_for_guess(fn, label, build, hint):
    """`build(kinds)` for the kinds guessed for `fn`'s arguments. A failure
    (the guess does not fit the function) is raised as GuessedKindsError
    saying so and what to do (`hint`), the compiler's error as its cause."""
    fields = _fields_read(fn)
    if fields:
        raise GuessedKindsError(
            f"{label}: s2sad generates a derivative for the kinds of the arguments it is called "
            f"with, and cannot guess them from the source: {fields} reads a field, so its "
            f"argument is a NamedTuple, a dataclass or another object, whose fields' types the "
            f"source does not tell.\n{hint}")
    kinds = guess_kinds(fn)
    try:
        return build(tuple(kinds))
    except SourceUnavailableError:
        raise  # (no kinds would help)
    except Exception as exc:  # noqa: BLE001 - whatever the guess caused, explained
        names = list(inspect.signature(fn).parameters)
        given = ", ".join(f"{n}: {k}" for n, k in zip(names, kinds))
        raise GuessedKindsError(
            f"{label}: s2sad generates a derivative for the kinds of the arguments it is "
            f"called with, and could not for those guessed from the source ({given}): "
            f"{type(exc).__name__}: {exc}\n{hint}") from exc


_ARRAY_ATTRIBUTES = frozenset(dir(np.ndarray))


def _fields_read(fn):
    """`p.w` (as written) for the first parameter read by an attribute an
    array does not have; None."""
    from .transforms.frontend.pipeline import parse
    tree = parse(fn, read_only=True).tree
    params = {a.id for a in tree.args.args}
    methods = {id(n.func) for n in walk(tree) if isinstance(n, gast.Call)}  # (p.startswith(...))
    found = [node for node in walk(tree) if id(node) not in methods
             if isinstance(node, gast.Attribute) and isinstance(node.value, gast.Name)
             and node.value.id in params and node.attr not in _ARRAY_ATTRIBUTES]
    if not found:
        return None
    first = min(found, key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)))
    return f"{first.value.id}.{first.attr}"


_MAX_NDIM = 4
_BINARY = {gast.Add: operator.add, gast.Sub: operator.sub, gast.Mult: operator.mul,
           gast.Div: operator.truediv, gast.Pow: operator.pow, gast.Mod: operator.mod,
           gast.FloorDiv: operator.floordiv, gast.MatMult: operator.matmul}
# Products whose operands are arrays in practice, although a rule may take
# numbers too: the ndim guessed for an operand nothing else tells.
_PRODUCTS = {operator.matmul: 2, np.matmul: 2, np.dot: 2, np.inner: 1, np.outer: 1,
             np.vdot: 1, np.kron: 1, np.cross: 1, np.tensordot: 1}
_LINALG_MODULES = ("numpy.linalg", "scipy.linalg")
# builtins iterating over what they are given: it is an array ("first": their
# first argument, "all": every one, "one": the argument of a call with one)
_ITERATING = {"len": "first", "enumerate": "first", "reversed": "first", "sorted": "first",
              "iter": "first", "list": "first", "tuple": "first", "zip": "all", "sum": "first",
              "min": "one", "max": "one"}
_FLOAT_ATTRIBUTES = frozenset(dir(0.0))


def guess_kinds(fn):
    """The kinds guessed for `fn`'s parameters, in order."""
    return _Guess(fn).kinds()


class _Guess:
    def __init__(self, fn, helpers=None):
        from .transforms.frontend.pipeline import parse
        self.parsed = parse(fn, read_only=True)
        self.tree = self.parsed.tree
        # helper -> the ndims its parameters need (None while it is guessed)
        self.helpers = {fn: None} if helpers is None else helpers
        self.params = [a.id for a in self.tree.args.args]
        self.defaults = {n: p.default for n, p in inspect.signature(fn).parameters.items()
                         if p.default is not p.empty}
        self.counts = set()  # names a range counts to: ints
        self.assigned = {}  # local -> the values assigned to it
        for node in walk(self.tree):
            if isinstance(node, gast.Call) and isinstance(node.func, gast.Name) \
                    and node.func.id == "range":
                self.counts.update(n.id for a in node.args for n in walk(a)
                                   if isinstance(n, gast.Name))
            elif isinstance(node, gast.Assign):
                for target in node.targets:
                    if isinstance(target, gast.Name):
                        self.assigned.setdefault(target.id, []).append(node.value)
            elif isinstance(node, gast.AugAssign) and isinstance(node.target, gast.Name):
                self.assigned.setdefault(node.target.id, []).append(
                    gast.BinOp(left=node.target, op=node.op, right=node.value))

    def kinds(self):
        """The guess, repeated until what the arguments need no longer changes."""
        ndims = {p: 0 for p in self.params}
        # what the source needs first; then the ndims products' operands
        # usually have, for those nothing else made arrays
        for self.usual in (False, True):
            for _ in range(2 * _MAX_NDIM + 2):
                self.env = self.locals(self.kinds_of(ndims))
                wanted = dict(ndims)
                for node, ndim in self.needs():
                    self.want(node, ndim, wanted, set())
                if wanted == ndims:
                    break
                ndims = wanted
        self.ndims = ndims
        return self.kinds_of(ndims)

    def kinds_of(self, ndims):
        out = []
        for p in self.params:  # an array where needed; a default's own kind; a count an int
            if ndims[p]:
                out.append(K.array(min(ndims[p], _MAX_NDIM)))
            elif p in self.defaults:
                out.append(K.of_value(self.defaults[p]))
            else:
                out.append(K.INT if p in self.counts else K.FLOAT)
        return out

    def locals(self, kinds):
        """The kinds of the arguments and locals for these argument kinds."""
        try:
            return _Inference(self).run(self.tree, kinds)
        except Exception:  # noqa: BLE001 - a form the inference does not know
            return dict(zip(self.params, kinds))

    # ---- what the source needs ------------------------------------------------------
    def kind(self, node):
        try:
            return _Inference(self, self.env).expr(node)
        except Exception:  # noqa: BLE001 - a form the inference does not know
            return K.UNKNOWN

    def needs(self):
        """(expression, ndim) for every expression the source needs an array of
        at least that ndim."""
        for node in walk(self.tree):
            if isinstance(node, gast.Subscript):
                yield node.value, max(1, _axes_indexed(node.slice))
            elif isinstance(node, gast.Attribute) and self.is_value(node.value) \
                    and node.attr not in _FLOAT_ATTRIBUTES:
                yield node.value, 2 if node.attr in ("T", "mT") else 1
            elif isinstance(node, gast.BinOp) and type(node.op) in _BINARY:
                yield from self.call_needs(_BINARY[type(node.op)], [node.left, node.right], {})
            elif isinstance(node, gast.Call):
                yield from self.call(node)
            elif isinstance(node, gast.For):
                yield from self.iterated(node.iter)
            elif isinstance(node, gast.comprehension):
                yield from self.iterated(node.iter)

    def is_value(self, node):
        """Computed in the function: not a module or another global object
        (np.linalg, math.pi)."""
        while isinstance(node, gast.Attribute):
            node = node.value
        return not isinstance(node, gast.Name) or node.id in self.parsed.local_names

    def iterated(self, node):
        if not isinstance(node, gast.Call):
            yield node, 1

    def call(self, node):
        obj, args, keywords = self.callee(node)
        func = node.func
        if isinstance(func, gast.Name) and func.id in _ITERATING \
                and obj is getattr(builtins, func.id):
            taken = _ITERATING[func.id]
            if taken == "one" and len(args) == 1 or taken == "first":
                yield from ((a, 1) for a in args[:1])
            elif taken == "all":
                yield from ((a, 1) for a in args)
            return
        if obj is None:
            return
        helper = _readable(obj)
        if helper is not None:
            yield from self.helper_needs(helper, args)
            return
        yield from self.call_needs(obj, args, keywords)

    def callee(self, node):
        """(the object a call calls, its arguments, its keywords); a method as
        numpy's function of the same name (x.sum(axis=1): np.sum(x, axis=1))."""
        args = [a for a in node.args if not isinstance(a, gast.Starred)]
        keywords = {k.arg: k.value for k in node.keywords if k.arg is not None}
        if isinstance(node.func, gast.Attribute) and self.is_value(node.func.value):
            return getattr(np, node.func.attr, None), [node.func.value] + args, keywords
        return self.resolve(node.func), args, keywords

    def bound(self, obj, args, keywords):
        """(the rule of `obj`, {parameter: argument} of the call bound to the
        rule's signature, or None); keywords the rule does not take left out."""
        try:
            rule = REGISTRY.lookup(obj)
        except TypeError:  # unhashable: no rule
            return None, None
        signature = getattr(rule, "signature", None)
        if signature is None:
            return rule, None
        keywords = {k: v for k, v in keywords.items() if k in signature.parameters}
        try:
            return rule, signature.bind(*args, **keywords).arguments
        except TypeError:
            return rule, None

    def resolve(self, func):
        try:
            obj = self.parsed.resolve(func)
        except Exception:  # noqa: BLE001 - what cannot be resolved needs nothing known
            return None
        return obj if callable(obj) else None

    def call_needs(self, obj, args, keywords):
        rule, bound = self.bound(obj, args, keywords)
        if bound is None:
            if self.usual and rule is None and _is_linalg(obj) and args \
                    and not self.kind(args[0]).is_array:
                yield args[0], 2  # (np.linalg.svd, through a definition: a matrix)
            return
        kinds = {p: self.kind(n) for p, n in bound.items()}
        required = [p for p in rule.required if p in bound]
        preferred = _preferred_ndims(obj, args)
        for i, (p, node) in enumerate(bound.items()):
            if i < len(preferred) and not self.usual:
                continue  # (a product's operand: its usual ndim, unless something else tells)
            ndim = _accepted_ndim(rule.values.get(p), node, kinds, p)
            if self.usual and not kinds[p].is_array and not isinstance(node, gast.Constant):
                if i < len(preferred):
                    ndim = max(ndim, preferred[i])
                elif p in required and _is_linalg(obj):
                    ndim = max(ndim, 1)
            if ndim:
                yield node, ndim
        if "axis" in bound and required:
            ndim = _axis_ndim(bound["axis"])
            if ndim:
                yield bound[required[0]], ndim

    def helper_needs(self, helper, args):
        """A helper's arguments need what the helper's parameters need."""
        if helper not in self.helpers:
            self.helpers[helper] = None  # (a recursive call needs nothing of itself)
            try:
                guess = _Guess(helper, self.helpers)
                guess.kinds()
                self.helpers[helper] = [guess.ndims[p] for p in guess.params]
            except Exception:  # noqa: BLE001 - a helper s2sad cannot read tells nothing
                self.helpers[helper] = []
        for node, ndim in zip(args, self.helpers[helper] or []):
            if ndim:
                yield node, ndim

    # ---- from an expression back to the arguments -----------------------------------
    def want(self, node, ndim, wanted, seen):
        """Record that `node` must be an array of `ndim`: on the arguments it is
        computed from, as far as that can be told."""
        kind = self.kind(node)
        if isinstance(node, gast.Name):
            if node.id in wanted:
                wanted[node.id] = max(wanted[node.id], min(ndim, _MAX_NDIM))
            elif kind.is_array and kind.ndim >= ndim or kind.tag in ("tuple", "list", "str"):
                return
            elif node.id in self.assigned and node.id not in seen:
                seen.add(node.id)
                for value in self.assigned[node.id]:
                    self.want(value, ndim, wanted, seen)
            return
        if kind.is_array and kind.ndim >= ndim:
            return
        if isinstance(node, gast.Subscript):
            self.want(node.value, ndim + _axes_removed(node.slice), wanted, seen)
        elif isinstance(node, gast.BinOp) and not isinstance(node.op, gast.MatMult):
            self.want_operands([node.left, node.right], ndim, wanted, seen)
        elif isinstance(node, gast.UnaryOp) and not isinstance(node.op, gast.Not):
            self.want_operands([node.operand], ndim, wanted, seen)
        elif isinstance(node, gast.IfExp):
            self.want_operands([node.body, node.orelse], ndim, wanted, seen)
        elif isinstance(node, gast.Call):
            obj, args, keywords = self.callee(node)
            rule, bound = self.bound(obj, args, keywords)
            required = [p for p in getattr(rule, "required", ()) if p in (bound or ())]
            if bound is not None and "axis" in bound and required:
                # a reduction over an axis: what it reduces has one more
                removed = _axes_removed_by(bound["axis"])
                if removed:
                    self.want(bound[required[0]], ndim + removed, wanted, seen)
            elif rule is not None and args and _keeps_ndim(rule, len(args)):
                self.want_operands(args, ndim, wanted, seen)

    def want_operands(self, operands, ndim, wanted, seen):
        """An elementwise result is an array if its operands are: those that
        may be (not constants, ints, or arguments with a default, whose
        default is what they are)."""
        for operand in operands:
            if isinstance(operand, gast.Constant) or self.kind(operand).tag in (
                    "int", "bool", "str", "none") or (
                    isinstance(operand, gast.Name) and operand.id in self.defaults
                    and operand.id in self.params):
                continue
            self.want(operand, ndim, wanted, seen)

class _Inference(K.KindInference):
    """The kinds of the locals for the arguments guessed so far, over the
    function as written (not yet normalised: any statement)."""

    def __init__(self, guess, env=None):
        super().__init__(self.call_kind, guess.parsed.namespace)
        self.guess = guess
        if env is not None:
            self.env = env

    def block(self, stmts):
        for s in stmts:
            if isinstance(s, gast.Assign):
                kind = self.expr(s.value)
                for target in s.targets:
                    self.assign(target, kind)
            elif isinstance(s, gast.AugAssign) and isinstance(s.target, gast.Name):
                self.bind(s.target.id, K.broadcast(self.expr(s.target), self.expr(s.value)))
            elif isinstance(s, gast.AnnAssign) and s.value is not None:
                self.assign(s.target, self.expr(s.value))
            elif isinstance(s, gast.For):
                self.assign(s.target, self.element(s.iter))
            elif isinstance(s, gast.Return) and s.value is not None:
                self.env["<return>"] = K.join(self.env.get("<return>"), self.expr(s.value))
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(s, field, None)
                if isinstance(inner, list):
                    self.block(inner)

    def assign(self, target, kind):
        if isinstance(target, (gast.Name, gast.Tuple, gast.List)):
            super().assign(target, kind)

    def element(self, node):
        """The kind of what iterating over `node` gives."""
        if isinstance(node, gast.Call) and isinstance(node.func, gast.Name):
            if node.func.id == "range":
                return K.INT
            if node.func.id == "enumerate" and node.args:
                return K.tuple_of([K.INT, self.element(node.args[0])])
            if node.func.id == "zip":
                return K.tuple_of([self.element(a) for a in node.args])
        kind = self.expr(node)
        if kind.is_array:
            return K.array(kind.ndim - 1, kind.dtype)
        return K.UNKNOWN

    def call_kind(self, node, args, kws):
        func = node.func
        if isinstance(func, gast.Attribute) and self.guess.is_value(func.value):
            obj, args = getattr(np, func.attr, None), [self.expr(func.value)] + args
        else:
            obj = self.guess.resolve(func)
        rule = REGISTRY.lookup(obj) if obj is not None else None
        if rule is None or rule.signature is None:
            return K.UNKNOWN
        kws = {k: v for k, v in kws.items() if k in rule.signature.parameters}
        try:
            bound = rule.signature.bind(*args, **kws).arguments
        except TypeError:
            return K.UNKNOWN
        required = set(rule.required)
        return rule.kind([k for p, k in bound.items() if p in required],
                         {p: k for p, k in bound.items() if p not in required})


def _keeps_ndim(rule, n_args):
    """A rule giving arrays of its arguments' ndim (np.sin, np.asarray), as
    its kind function says."""
    try:
        return rule.kind([K.array(2)] * n_args, {}) == K.array(2)
    except Exception:  # noqa: BLE001 - a kind function for other arguments
        return False


def _axes_removed_by(axis):
    """How many axes a reduction over `axis` (written as constants) removes."""
    axes = axis.elts if isinstance(axis, gast.Tuple) else [axis]
    return len(axes) if all(_constant_int(a) is not None for a in axes) else 0


def _constant_int(node):
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        value = _constant_int(node.operand)
        return None if value is None else -value
    value = getattr(node, "value", None) if isinstance(node, gast.Constant) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _readable(obj):
    """The Python function a call of `obj` runs through its source (a
    derivative's: of the function it differentiates), or None."""
    from .transforms.frontend.read.read import readable_function
    try:
        while getattr(obj, "__s2sad_derivative__", False):
            obj = obj.fn
        return readable_function(obj)
    except Exception:  # noqa: BLE001
        return None


def _index_parts(index):
    parts = index.elts if isinstance(index, gast.Tuple) else [index]
    return [p for p in parts if not (isinstance(p, gast.Constant) and (
        p.value is None or p.value is Ellipsis))]  # (x[:, None], x[..., 0]: no axis each)


def _axes_indexed(index):
    """How many axes `x[index]` needs x to have."""
    return len(_index_parts(index))


def _axes_removed(index):
    """How many axes `x[index]` removes (its ints; a slice keeps its axis)."""
    return sum(1 for p in _index_parts(index) if not isinstance(p, gast.Slice))


def _accepted_ndim(values, node, kinds, name):
    """The least ndim of an array a rule's parameter accepts, when it does
    not accept what it is given; 0 otherwise."""
    if values is None:
        return 0
    try:
        if values.allows(node, kinds[name], kinds):
            return 0
        for ndim in range(1, _MAX_NDIM + 1):
            if values.allows(node, K.array(ndim), {**kinds, name: K.array(ndim)}):
                return ndim
    except Exception:  # noqa: BLE001 - a check written for other arguments
        return 0
    return 0


def _preferred_ndims(obj, args):
    """The ndims guessed for a product's operands (np.einsum's from its
    subscripts)."""
    if obj is np.einsum:
        if args and isinstance(args[0], gast.Constant) and isinstance(args[0].value, str):
            inputs = args[0].value.replace(" ", "").split("->")[0].split(",")
            return [0] + [max(1, len(s.replace("...", ""))) for s in inputs]
        return []
    try:
        ndim = _PRODUCTS.get(obj)
    except TypeError:
        return []
    return [ndim, ndim] if ndim else []


def _is_linalg(obj):
    return str(getattr(obj, "__module__", "") or "").startswith(_LINALG_MODULES)


def _axis_ndim(node):
    """The ndim an array reduced over `axis` must have at least."""
    axes = node.elts if isinstance(node, gast.Tuple) else [node]
    values = [v for v in map(_constant_int, axes) if v is not None]
    return max((v + 1 if v >= 0 else -v for v in values), default=0)
