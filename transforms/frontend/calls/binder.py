"""The call binder: every call bound to its callee's real signature, so
that no later pass can drop a keyword or a default (bind.py runs it over
the function; normalize.py binds the calls it makes).

The canonical forms:

- a Python helper (differentiated through its source) is called with every
  parameter, by position, in the order of its signature: `h(u=a)` becomes
  `h(a, 2.0)` when `def h(u, v=2.0)`; keyword-only parameters come last
  (the helper's own tree takes them positionally, see
  `read.positional_parameters`);
- a primitive with a gradient rule gets the rule's required parameters by
  position and its optional ones by keyword, only those given:
  `np.sum(x, 0)` becomes `np.sum(x, axis=0)`. A parameter the rule does not
  implement is refused here; values are checked where the rule is applied
  (they need the kinds);
- `keepdims=True` of a reduction becomes `keep_axes(np.sum(x, axis=a), x,
  a)`, a reshape, so the rules (and numba, which has no keepdims) see the
  plain reduction.

Calls to anything else (constructors, callables without a rule, no-gradient
primitives) are left as written."""
import inspect
import numbers
import types

import gast
import numpy as np

from .respellings import respell, without_defaults
from ..read.read import readable_function
from ...errors import NotImplementedArgument, UnsupportedSyntaxError
from ...syntax import Transformer, clone, const
from ...parameters import AXIS_VALUES
from ...errors import NoGradientError, S2sadTypeError

ITEM = "item_of"  # the runtime helper x.item() becomes
KEEP_AXES = "keep_axes"  # the runtime helper keepdims=True becomes


class CallBinder:
    def __init__(self, parsed, registry, runtime_objects=None, definitions=None):
        self.parsed = parsed
        self.registry = registry
        # the package's numpy definitions (s2sad/definitions): np.average,
        # np.convolve, ... as Python the compiler reads
        self.definitions = definitions
        self.runtime_objects = runtime_objects or {}

    def __call__(self, node):
        """`node` (a gast.Call) in canonical form; a new node when it changes."""
        try:
            obj = self.parsed.resolve(node.func)
        except Exception:  # noqa: BLE001 - an unresolvable callee is reported later
            return node
        if obj is None and isinstance(node.func, gast.Attribute) and node.func.attr == "item" \
                and not node.args and not node.keywords and ITEM in self.runtime_objects:
            helper = self.runtime_objects[ITEM]  # x.item(): item_of(x), a runtime helper
            if self.parsed.namespace.setdefault(ITEM, helper) is not helper:
                raise self.refuse(node, f"x.item() in a module with a global named '{ITEM}'",
                                  f"Rename the global '{ITEM}'")
            func = gast.Name(id=ITEM, ctx=gast.Load(), annotation=None, type_comment=None)
            return self(gast.copy_location(gast.Call(func=func, args=[node.func.value],
                                                     keywords=[]), node))
        if obj is None or isinstance(node.func, gast.Call):
            return node
        # dtype=float, einsum's optimize=, np.clip(a, None, hi), ... (respellings.py)
        respelled = respell(node, obj, self)
        if respelled.func is not node.func:
            return self(respelled)  # another function's call (np.clip -> np.minimum)
        node = respelled
        try:  # np.average, or a call np.convolve's mode or np.max's initial= decides
            definition = None if self.definitions is None else \
                self.definitions.numpy_definition(obj, node, getattr(self.parsed, "fn", None))
        except NotImplementedArgument as exc:
            raise NoGradientError(f"{self.parsed.location.describe(node)}: {exc}") from None
        if definition is not None:
            return self.bind_helper(self.definition_call(node, definition, obj), definition)
        rule = self.registry.lookup(obj)
        if rule is not None:
            if rule.signature is None:
                return node
            return self.bind_rule(without_defaults(node, obj, rule), rule)
        fn = readable_function(obj)
        if fn is not None:
            return self.bind_helper(node, fn)
        return node

    def defined_call(self, node, obj):
        """`node` calling s2sad's Python definition of `obj` (a numpy or
        scipy function), bound, or `node` if there is none for this call."""
        if self.definitions is None or obj is None:
            return node
        try:
            definition = self.definitions.numpy_definition(obj, node,
                                                           getattr(self.parsed, "fn", None))
        except NotImplementedArgument:
            return node  # (runs as written)
        if definition is None:
            return node
        return self.bind_helper(self.definition_call(node, definition, obj), definition)

    def definition_call(self, node, definition, obj=None):
        """`node` calling `definition` by a name of the function's namespace
        (the numpy function's own name unless the module uses it)."""
        ns, ref = self.parsed.namespace, definition.__name__
        while ns.setdefault(ref, definition) is not definition:
            ref += "_"
        func = gast.Name(id=ref, ctx=gast.Load(), annotation=None, type_comment=None)
        # a list literal is an array to numpy (np.take(a, [0, 2], axis=1))
        args, keywords = self.definitions.definition_arguments(obj, node, definition)
        args = [_as_array(a) for a in args]
        keywords = [gast.keyword(arg=k.arg, value=_as_array(k.value)) for k in keywords]
        return gast.copy_location(gast.Call(func=func, args=args, keywords=keywords), node)

    def bind_tree(self, tree, rules=True):
        """Every call in `tree` bound, wherever it is (if and while tests,
        conditional expressions, nested calls): a helper's copy takes its
        parameters by position only. Without
        `rules`, only helper calls (for a helper's copied source).
        keepdims of a compound array is left to normalize, which evaluates
        the array once."""
        return _Binder(self, rules).visit(tree)

    def joined_pieces(self, node):
        """`np.r_[a, b, 2.0]` of pieces (no slices, no string directive) is
        `np.concatenate((np.atleast_1d(a), np.atleast_1d(b), ...))`, as numpy
        defines it: each piece at least 1-d, joined along the first axis;
        `np.c_[a, b]` is `np.concatenate((np.column_stack((a,)),
        np.column_stack((b,))), axis=-1)`: each piece at least 2-d, a 1-d
        one as a column, joined along the last axis (for pieces of at most
        two dimensions, np.column_stack((a, b)))."""
        if not isinstance(node.ctx, gast.Load) or not isinstance(node.value, gast.Attribute):
            return None
        try:
            obj = self.parsed.resolve(node.value)
        except Exception:  # noqa: BLE001 - a local or unknown name
            return None
        if obj is not np.r_ and obj is not np.c_:
            return None
        which = "np.r_" if obj is np.r_ else "np.c_"
        pieces = node.slice.elts if isinstance(node.slice, gast.Tuple) else [node.slice]
        if any(isinstance(p, gast.Slice) or (isinstance(p, gast.Constant)
                                             and isinstance(p.value, str)) for p in pieces):
            raise self.refuse(node, f"{which}[...] with a slice or a string directive",
                              "Build the array with np.arange, np.linspace, "
                              "np.concatenate or np.column_stack")
        module = node.value.value

        def numpy(attr, *args, keywords=()):
            return gast.Call(func=gast.Attribute(value=_copy(module), attr=attr,
                                                 ctx=gast.Load()), args=list(args),
                             keywords=list(keywords))
        if obj is np.c_:
            # each piece at least 2-d, a 1-d one as a column (np.column_stack
            # of the piece alone), joined along the last axis
            parts = gast.Tuple(elts=[numpy("column_stack", gast.Tuple(elts=[p], ctx=gast.Load()))
                                     for p in pieces], ctx=gast.Load())
            if len(pieces) == 1:
                return gast.copy_location(parts.elts[0], node)
            axis = gast.keyword(arg="axis", value=gast.UnaryOp(
                op=gast.USub(), operand=gast.Constant(value=1, kind=None)))
            return gast.copy_location(numpy("concatenate", parts, keywords=[axis]), node)
        parts = gast.Tuple(elts=[numpy("atleast_1d", p) for p in pieces], ctx=gast.Load())
        return gast.copy_location(numpy("concatenate", parts), node)

    # ---- helpers -------------------------------------------------------------
    def bind_helper(self, node, fn):
        if getattr(node, "s2sad_bound", False):
            return node  # already positional: the copy's signature, not fn's
        sig = inspect.signature(fn)
        params = list(sig.parameters.values())
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
            raise self.refuse(node, f"a call to {fn.__name__}, which takes *args or **kwargs",
                              "Give it plain parameters")
        self.refuse_unpacking(node)
        try:
            bound = sig.bind(*node.args, **{k.arg: k.value for k in node.keywords})
        except TypeError as exc:
            raise S2sadTypeError(f"{self.parsed.location.describe(node)}: {fn.__name__}(): "
                            f"{exc}") from None
        args = []
        for p in params:
            if p.name in bound.arguments:
                args.append(bound.arguments[p.name])
            else:
                args.append(self.default_node(node, fn, p))
        bound = gast.copy_location(gast.Call(func=node.func, args=args, keywords=[]), node)
        bound.s2sad_bound = True
        return bound

    def default_node(self, node, fn, param):
        value = param.default
        built = _constant_node(value)
        if built is not None:
            return built
        # any other default (an array, a function: `y=y`, `f=np.tanh`) is the
        # object the def made once, read by a name of the module
        base = fn.__name__ if fn.__name__.isidentifier() else "function"
        namespace = self.parsed.namespace
        n, k = f"{base}_{param.name}_default", 1
        while namespace.setdefault(n, value) is not value:
            k += 1
            n = f"{base}_{param.name}_default{k}"
        return gast.Name(id=n, ctx=gast.Load(), annotation=None, type_comment=None)

    # ---- primitives with a rule -------------------------------------------------
    def bind_rule(self, node, rule):
        self.refuse_unpacking(node)
        try:
            bound = rule.signature.bind(*node.args, **{k.arg: k.value for k in node.keywords})
        except TypeError:
            return node  # as written: refused if it is differentiated (check_rule_application)
        args, keywords = [], []
        for p in rule.signature.parameters.values():
            if p.name not in bound.arguments:
                continue
            value = bound.arguments[p.name]
            values = getattr(rule, "values", {}).get(p.name)
            if isinstance(value, gast.List) and values is not None and values.text in AXIS_VALUES:
                # numpy's reductions take an int or a tuple: a list raises TypeError
                raise S2sadTypeError(f"{self.parsed.location.describe(node)}: {_callee_text(node)}(): "
                                f"{p.name} must be an int or a tuple of ints, not a list "
                                f"(numpy raises TypeError for it)")
            if p.default is p.empty or p.kind == p.POSITIONAL_ONLY:
                args.append(value)
            else:
                keywords.append(gast.keyword(arg=p.name, value=value))
        if args and isinstance(args[0], gast.List) and next(iter(
                rule.signature.parameters)) in ("a", "x") and not _makes_array(node.func):
            # np.sum([1, a * a, 2]): numpy reads a list of values as an array
            args[0] = gast.copy_location(gast.Call(func=gast.Attribute(
                value=gast.Name(id="np", ctx=gast.Load(), annotation=None, type_comment=None),
                attr="asarray", ctx=gast.Load()), args=[args[0]], keywords=[]), args[0])
        call = gast.copy_location(gast.Call(func=node.func, args=args, keywords=keywords), node)
        return self.lower_keepdims(call, rule)

    def lower_keepdims(self, call, rule):
        kept = [k for k in call.keywords if k.arg == "keepdims"]
        if not kept:
            return call
        flag = kept[0].value
        if not (isinstance(flag, gast.Constant) and isinstance(flag.value, bool)):
            return call  # refused if it is differentiated (the rule's Values)
        call.keywords = [k for k in call.keywords if k.arg != "keepdims"]
        if not flag.value:
            return call
        axis = next((k.value for k in call.keywords if k.arg == "axis"), const(None))
        helper = self.runtime_objects.get(KEEP_AXES)
        if self.parsed.namespace.setdefault(KEEP_AXES, helper) is not helper:
            raise self.refuse(call, f"keepdims=True in a module with a global named "
                              f"'{KEEP_AXES}'", f"Rename the global '{KEEP_AXES}'")
        keep = gast.Name(id=KEEP_AXES, ctx=gast.Load(), annotation=None, type_comment=None)
        x = call.args[0]
        return gast.copy_location(gast.Call(func=keep, args=[call, _copy(x), _copy(axis)],
                                            keywords=[]), call)

    # ---- both --------------------------------------------------------------------
    def refuse_unpacking(self, node):
        if any(isinstance(a, gast.Starred) for a in node.args) or any(
                k.arg is None for k in node.keywords):
            raise self.refuse(node, "a call with *args or **kwargs", "Pass each argument")

    def refuse(self, node, construct, hint):
        return UnsupportedSyntaxError(construct, self.parsed.location, node, hint)


class _Binder(Transformer):
    """CallBinder.bind_tree's pass: `binder` binds the calls (without
    `rules`, only helper calls). (At module level: a class made per call
    is a reference cycle that would keep the tree for the cyclic collector.)"""

    def __init__(self, binder, rules):
        self.binder, self.rules = binder, rules

    def visit_Call(self, node):
        self.generic_visit(node)
        binder = self.binder
        if not self.rules:
            try:
                obj = binder.parsed.resolve(node.func)
                fn = readable_function(obj)
            except Exception:  # noqa: BLE001 - reported where it is used
                return node
            if fn is None:  # (a numpy or scipy function s2sad defines in Python, so
                # numba compiles the copy as it does the function: the same values)
                return binder.defined_call(node, obj)
            return binder.bind_helper(node, fn)
        keepdims = any(k.arg == "keepdims" for k in node.keywords)
        if keepdims and node.args and not isinstance(node.args[0], (gast.Name,
                                                                     gast.Constant)):
            return node
        return binder(node)

    def visit_Subscript(self, node):
        joined = self.binder.joined_pieces(node)
        return self.visit(joined) if joined is not None else self.generic_visit(node)

    def visit_Attribute(self, node):
        # a module's None (np.newaxis) is the constant None in an index
        if isinstance(node.ctx, gast.Load):
            base = self.binder.parsed.resolve(node.value)
            if isinstance(base, types.ModuleType) and \
                    getattr(base, node.attr, False) is None:
                return gast.copy_location(gast.Constant(value=None, kind=None), node)
        return self.generic_visit(node)


def _as_array(node):
    if not isinstance(node, gast.List):
        return node
    np_ = gast.Name(id="np", ctx=gast.Load(), annotation=None, type_comment=None)
    return gast.copy_location(gast.Call(func=gast.Attribute(value=np_, attr="asarray",
                                                            ctx=gast.Load()),
                                        args=[node], keywords=[]), node)


def _makes_array(func):
    return isinstance(func, gast.Attribute) and func.attr in (
        "array", "asarray", "ascontiguousarray") and isinstance(func.value, gast.Name)


def _constant_node(value):
    if value is None or isinstance(value, (bool, str)):
        return const(value)
    if isinstance(value, numbers.Integral):
        return const(int(value))
    if isinstance(value, numbers.Real):
        return const(float(value))
    if isinstance(value, tuple):
        items = [_constant_node(v) for v in value]
        if any(i is None for i in items):
            return None
        return gast.Tuple(elts=items, ctx=gast.Load())
    return None


def _short(value):
    text = repr(value) if not isinstance(value, np.ndarray) else f"an array of shape {value.shape}"
    return text if len(text) < 40 else text[:37] + "..."


def _callee_text(node):
    from ...emit.unparse import stmt_source
    return stmt_source(node.func)


def _copy(node):
    return clone(node)
