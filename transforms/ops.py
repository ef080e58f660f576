"""The primitive operations of normalised code and their differentiable
operands. Python operators map to functions of the `operator` module, so a
rule for `a * b` is registered, and looked up, like any other function."""
import inspect
import operator

import gast

from .emit.unparse import stmt_source
from .errors import missing_gradient
from .libraries import is_library_function, of_package
from .frontend.read.read import is_missing
from .errors import NoGradientError

BINOPS = {
    gast.Add: operator.add, gast.Sub: operator.sub, gast.Mult: operator.mul,
    gast.Div: operator.truediv, gast.Pow: operator.pow, gast.MatMult: operator.matmul,
    gast.FloorDiv: operator.floordiv, gast.Mod: operator.mod,
    gast.BitAnd: operator.and_, gast.BitOr: operator.or_, gast.BitXor: operator.xor,
    gast.LShift: operator.lshift, gast.RShift: operator.rshift,
}
UNARYOPS = {gast.USub: operator.neg}

# Array methods rewritten as the numpy functions they stand for, so one
# gradient rule serves `x.sum()` and `np.sum(x)`.
METHODS = {"sum", "mean", "prod", "max", "min", "reshape", "ravel", "copy", "transpose",
           "dot", "flatten", "cumsum", "clip", "std", "var", "argmax", "argmin", "any", "all",
           # (not sort or partition: the methods sort in place)
           "astype", "squeeze", "repeat", "swapaxes", "diagonal", "trace", "cumprod", "round",
           "conj", "conjugate", "take"}
_SYMBOLS = {gast.Add: "+", gast.Sub: "-", gast.Mult: "*", gast.Div: "/", gast.Pow: "**",
            gast.MatMult: "@", gast.FloorDiv: "//", gast.Mod: "%"}


def operator_text(op):
    """How the user wrote an operator, for error messages."""
    return _SYMBOLS.get(type(op), type(op).__name__)


class Helper:
    """A plain Python function called by the differentiated one: it is
    differentiated recursively and gets a `<name>_vjp` of its own."""

    def __init__(self, fn):
        self.fn = fn  # a function, or an s2sad derivative (see `function_for`)
        self.name = fn.__name__
        if self.name == "<lambda>":  # a module-level `sq = lambda u: ...`
            # (or s2sad.grad of one, which keeps the lambda as its .fn)
            code = getattr(fn, "__code__", None) or fn.fn.__code__
            self.name = f"lambda_{code.co_firstlineno}"

    def function_for(self, arg_kinds):
        """The Python function to differentiate for these argument kinds."""
        if getattr(self.fn, "__s2sad_derivative__", False):
            return self.fn.generated_function(arg_kinds)
        return self.fn


class Primitive:
    """A resolved call: the registry's rule (or None for a helper) and the
    callee object."""

    def __init__(self, rule, obj, helper=None):
        self.rule, self.obj, self.helper = rule, obj, helper


def resolve_call(call, fn, registry):
    """Primitive for a Call node of `fn` (a ParsedFunction). Unknown callees
    are returned with rule None; `require_rule` decides if that is an error."""
    obj = fn.resolve(call.func)
    if isinstance(call.func, gast.Call) and (obj is None or is_missing(obj)):  # f(a)(b)
        from .errors import UnsupportedSyntaxError
        raise UnsupportedSyntaxError("calling the result of a call, f(a)(b)", fn.location, call,
                                     "Call a module-level function, or s2sad.grad(f, ...) "
                                     "with module-level arguments")
    if getattr(obj, "__s2sad_derivative__", False):
        return Primitive(None, obj, Helper(obj))
    if getattr(obj, "__s2sad_python__", None):  # a block kept as Python (python_blocks.py)
        return Primitive(None, obj)
    if obj is None and method_object(call, fn) is not None:
        # a method of a local (a random generator's draw): no rule; refused
        # where a value that needs a gradient reaches it (its object too)
        return Primitive(None, None)
    if obj is None or is_missing(obj):
        what = callee_text(call)
        if obj is None:
            raise NoGradientError(
                f"No gradient defined for operation '{what} (a local variable)' "
                f"({fn.location.describe(call)}): s2sad resolves a call where it is written, "
                f"and '{what}' holds a function only when the code runs. Call the function "
                f"by its module-level name, or pass a module-level function (or a nested "
                f"one) straight to a helper that calls it: apply(step, x) with "
                f"def apply(f, x): return f(x)")
        raise NameError(f"{fn.location.describe(call)}: name '{what}' is not defined")
    rule = registry.lookup(obj)
    if rule is not None:
        return Primitive(rule, obj)
    if inspect.isfunction(obj) and not of_package(obj, "numpy", "math") \
            and not is_library_function(obj):  # a library's function needs a rule
        return Primitive(None, obj, Helper(obj))
    return Primitive(None, obj)


def callee_text(call):
    return stmt_source(call.func)


def method_object(call, fn):
    """The local variable (or parameter) whose method `call` calls
    (`rng.normal(...)`, `u.foo()`), or None."""
    func = call.func
    if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) \
            and func.value.id in fn.local_names:
        return func.value
    return None


def call_operands(call, fn):
    """The atoms a call reads: its arguments, keyword values and, for a
    method of a local, the local itself."""
    obj = method_object(call, fn)
    return list(call.args) + [k.value for k in call.keywords] + ([obj] if obj is not None else [])


# attributes of an array that describe it (no gradient flows through them)
ARRAY_METADATA = frozenset({"shape", "ndim", "size", "dtype", "itemsize", "nbytes", "strides",
                            "flags"})


def differentiable_operands(value, fn, registry):
    """The atoms of a normalised right-hand side whose gradient flows (and
    the names in an index: a value that needs a gradient there is refused
    where the adjoint is built, never taken as a constant)."""
    if isinstance(value, gast.Name):
        return [value]
    if isinstance(value, gast.Subscript):
        return [value] + index_values(value.slice)
    if isinstance(value, gast.BinOp):
        rule = registry.lookup(BINOPS[type(value.op)])
        if rule is None or rule.nondiff:
            return []
        return [a for a, ok in zip([value.left, value.right], rule.diff_mask(2)) if ok]
    if isinstance(value, gast.UnaryOp):
        return [value.operand] if isinstance(value.op, gast.USub) else []
    if isinstance(value, gast.Attribute):
        # an attribute not known to be metadata passes activity on, so that
        # one without a rule is refused where the adjoint is built
        return [] if value.attr in ARRAY_METADATA else [value.value]
    if isinstance(value, (gast.Tuple, gast.List)):
        return _flat(value.elts)
    if isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) \
            and value.func.attr in ("pop", "copy") and isinstance(value.func.value, gast.Name) \
            and value.func.value.id in fn.local_names:
        return [value.func.value]  # v = stack.pop(), a tape of generated code
    if isinstance(value, gast.Call):
        prim = resolve_call(value, fn, registry)
        if prim.helper is not None:
            return _flat(value.args)
        if getattr(prim.obj, "__s2sad_python__", None):  # what it reads as values
            return _flat([value.args[k] for k in prim.obj.__s2sad_block__[2]])
        if prim.rule is None:  # unknown: flagged when it is active
            return _flat(call_operands(value, fn))
        if prim.rule.nondiff:
            return []
        # every operand, also those the rule has no gradient for: a value
        # that needs a gradient reaching one is refused where the rule is
        # applied (bind.check_rule_application), never taken as a constant
        return _flat(list(value.args) + [k.value for k in value.keywords])
    if isinstance(value, (gast.Constant, gast.Compare, gast.JoinedStr)):
        return []  # (a bool, a string: no gradient flows)
    # a form normalisation did not take apart: every name it reads, so a
    # value that needs a gradient reaching it is refused where the adjoint
    # is built (contributions.py), never taken as a constant
    return [n for n in gast.walk(value) if isinstance(n, gast.Name)
            and isinstance(n.ctx, gast.Load)]


def _flat(nodes):
    out = []
    for n in nodes:
        if isinstance(n, (gast.Tuple, gast.List)):
            out.extend(_flat(n.elts))
        elif not isinstance(n, gast.Constant):
            # (an expression is not normal form: activity follows every name
            # it reads, and the adjoint of a call given it is refused)
            out.append(n)
    return out


def check_rule_application(rule, callee, args, keywords, kind_of, is_active, location, stmt):
    """Before a rule is applied to a bound call: every optional parameter has
    a value the rule implements, and no value that needs a gradient reaches
    a parameter the rule has no gradient for. `kind_of(atom)` and
    `is_active(atom)` see the generated code's operands."""
    if getattr(rule, "refusal", None):
        raise NoGradientError(f"No gradient defined for operation '{callee}' "
                          f"({location.describe(stmt)}): {rule.refusal}")
    if rule.signature is None or rule.nondiff:
        return
    try:
        rule.signature.bind(*args, **keywords)
    except TypeError as exc:
        unknown = [k for k in keywords if k not in rule.signature.parameters]
        what = f"parameter '{unknown[0]}'" if unknown else f"these arguments ({exc})"
        raise NoGradientError(
            f"{location.describe(stmt)}: the gradient rule of {callee} does not implement "
            f"{what} (it implements {callee}{rule.signature}). Leave it out, or give "
            f"{callee} a rule with s2sad.register_gradient") from None
    names = [p for p in rule.signature.parameters]
    bound = dict(zip(names, args))
    bound.update(keywords)
    kinds = {p: kind_of(a) for p, a in bound.items()}
    for p, node in bound.items():
        values = rule.values.get(p)
        if values is not None and not values.allows(node, kinds[p], kinds):
            raise NoGradientError(
                f"{location.describe(stmt)}: the gradient rule of {callee} implements its "
                f"parameter '{p}' for {values.text}; here it is `{_describe_value(node)}` "
                f"({kinds[p]})")
    diff = rule.diff_mask(len(args))
    for p, node in bound.items():
        position = names.index(p)
        takes_gradient = position < len(args) and diff[position]
        shape_only = getattr(rule.values.get(p), "shape_only", False)
        if not takes_gradient and not shape_only and any(is_active(a) for a in _atoms(node)):
            raise NoGradientError(
                f"No gradient defined for operation '{callee}' with respect to its parameter "
                f"'{p}' ({location.describe(stmt)}): the value passed there depends on what "
                f"is differentiated. Wrap it in s2sad.stop_gradient if it is meant as a "
                f"constant, or register a rule with s2sad.register_gradient")


def _atoms(node):
    if isinstance(node, (gast.Tuple, gast.List)):
        return [a for e in node.elts for a in _atoms(e)]
    return [node]


def _describe_value(node):
    return stmt_source(node)


def refuse_active_index(value, is_active, location, stmt):
    """A value that needs a gradient used inside an index (np.r_[x, y],
    A[x]) would get none: refused, never taken as a constant."""
    if any(is_active(n) for n in index_values(value.slice)):
        raise NoGradientError(
            f"No gradient defined for indexing with a value that needs a gradient "
            f"({location.describe(stmt)}): `{_describe_value(value)}`. An index is a constant "
            f"for the derivative; np.r_[...] and np.c_[...] are indexing too: build the array "
            f"with np.concatenate, np.stack or np.array instead")


def index_values(node):
    """The names and subscripts whose values an index uses: not those only
    asked for their shape (`y[x.shape[0] - 1]`), passed to a call
    (`int(a)`, an integer) or compared (`x[x > 0]`, booleans)."""
    if isinstance(node, (gast.Attribute, gast.Call)):
        return []
    if isinstance(node, (gast.Compare, gast.BoolOp)) or (
            isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not)):
        return []  # x[x > 0]: a mask of booleans, which carry no gradient
    if isinstance(node, gast.Subscript):  # idx[k] counts, x.shape[0] does not
        return [node] + index_values(node.slice) if index_values(node.value) else []
    if isinstance(node, gast.Name):
        return [node]
    out = []
    for field in ("elts", "left", "right", "operand", "lower", "upper", "step", "values",
                  "comparators", "test", "body", "orelse"):
        child = getattr(node, field, None)
        for c in child if isinstance(child, list) else [child]:
            if isinstance(c, gast.AST):
                out += index_values(c)
    return out


def refuse_python_block(obj, call, is_active, location, stmt):
    """A block kept as Python (try ... except: python_blocks.py) that
    computes a value needing a gradient from one: refused, never a zero."""
    if any(is_active(a) for a in _flat([call.args[k] for k in obj.__s2sad_block__[2]])):
        from .errors import UnsupportedSyntaxError
        raise UnsupportedSyntaxError(
            f"a value that needs a gradient computed inside {obj.__s2sad_python__}",
            location, stmt, "s2sad runs such code as written, without differentiating it: "
            "compute values that need a gradient outside it (it may compute numbers that do "
            "not: sizes, flags, constants)")
