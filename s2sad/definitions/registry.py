"""The tables of s2sad's numpy definitions, filled by registration beside
each definition (s2sad/definitions/*.py), and the lookup the call binder
makes (transforms/frontend/bind.py).

    @define(np.average, table="definition: a; axis: None or an int; ...")
    def average(a, axis=None, weights=None): ...

    @chooses(np.convolve)          # the definition a call's constants choose
    def _convolve(given): ...

    @chosen(decided="mode")        # a definition chosen so: `mode` is not passed
    def convolve_full(a, v): ...

A function may have a definition, a chooser or both: with a chooser, the
definition it returns (None: the plain definition, or the function's rule)."""
import inspect

from .. import libraries
from ..transforms.errors import NotImplementedArgument

DEFINITIONS = {}      # numpy function -> its definition
NOT_IMPLEMENTED = {}  # numpy function -> {parameter: (values allowed, what to do)}
BY_CALL = {}          # numpy function -> chooser(given) -> a definition, or None
DECIDED = {}          # definition -> the parameter(s) its chooser decided (not passed to it)
TABLE = []            # (numpy function, what the definition implements): README's rule table
_OWN_PACKAGE = __name__.rsplit(".", 1)[0]


def define(*functions, refuses=None, table=None):
    """Register the decorated function as the definition of each of
    `functions`. `refuses`: {parameter: (values allowed, what to do)} for
    the parameters it implements only some values of; `table`: the README
    row (of the first function)."""
    def register(definition):
        for fn in functions:
            if fn is None:
                continue
            DEFINITIONS[fn] = definition
            if refuses:
                NOT_IMPLEMENTED[fn] = refuses
        if table is not None:
            row(functions[0], table)
        return definition
    return register


def chooses(fn, table=None):
    """Register the decorated `chooser(given)` for calls of `fn`: `given` is
    {parameter: node} of the call; it returns the definition the call's
    constants choose, or None (the plain definition, or else the rule)."""
    def register(chooser):
        BY_CALL[fn] = chooser
        if table is not None:
            row(fn, table)
        return chooser
    return register


def chosen(decided):
    """A definition a chooser returns: the parameter(s) `decided` chose it
    and are not passed to it (every other one is passed by keyword)."""
    def register(definition):
        DECIDED[definition] = decided
        return definition
    return register


def row(fn, text):
    """A row of README's rule table: what s2sad's definition of `fn` implements."""
    TABLE.append((fn, text))


# ---- the lookup ---------------------------------------------------------------------------

def load_all():
    """Register every lazily registered definition (for the tables and docs)."""
    libraries.load_all()


def numpy_definition(obj, call=None, caller=None):
    """The definition s2sad differentiates a call of `obj` through, or None.
    With `call` (its gast.Call, as written), also the definitions chosen by
    what the call gives (np.convolve's mode, np.max's initial=, a matrix
    norm's ord): a function with a gradient rule keeps its rule for every
    other call, and always within a definition (`caller`), which calls the
    rule. Raises NotImplementedArgument for what no definition implements."""
    try:
        definition = DEFINITIONS.get(obj)
        chooser = BY_CALL.get(obj)
        if definition is None and chooser is None and libraries.load_for(obj):
            definition, chooser = DEFINITIONS.get(obj), BY_CALL.get(obj)
    except TypeError:  # unhashable
        return None
    if call is None:
        return definition
    if chooser is None or _is_own(caller):
        if definition is not None and obj in NOT_IMPLEMENTED:
            refuse_given(obj, given_arguments(obj, call), NOT_IMPLEMENTED[obj])
        return definition
    given = given_arguments(obj, call)
    chosen_definition = None if given is None else chooser(given)
    return definition if chosen_definition is None else chosen_definition


def _is_own(caller):
    module = getattr(caller, "__module__", None) or ""
    return module == _OWN_PACKAGE or module.startswith(_OWN_PACKAGE + ".")


def definition_arguments(obj, call, definition):
    """The arguments (positional, keyword nodes) `call` passes to
    `definition`: as written, or for a definition chosen by a constant
    (DECIDED), every other one by keyword."""
    decided = DECIDED.get(definition)
    if decided is None:
        return list(call.args), list(call.keywords)
    import gast
    given = given_arguments(obj, call)
    decided = (decided,) if isinstance(decided, str) else decided
    return [], [gast.keyword(arg=k, value=v) for k, v in given.items() if k not in decided]


# ---- what choosers read --------------------------------------------------------------------

def given_arguments(fn, call):
    """{parameter: node} of `call` bound to numpy's signature of `fn`, or
    None where it does not bind (reported where the call is bound)."""
    if any(type(a).__name__ == "Starred" for a in call.args) or any(
            k.arg is None for k in call.keywords):
        return None
    try:
        bound = inspect.signature(fn).bind(*call.args, **{k.arg: k.value for k in call.keywords})
    except (TypeError, ValueError):
        return None
    return dict(bound.arguments)


NOT_CONSTANT = object()


def const(node, missing=NOT_CONSTANT):
    """The value a node writes as a constant (`1`, `-2`, `'nuc'`, `np.inf`,
    `-np.inf`), or `missing`."""
    kind = type(node).__name__
    if kind == "Constant":
        return node.value
    if kind == "Attribute" and node.attr == "inf" and type(node.value).__name__ == "Name" \
            and node.value.id in ("np", "numpy", "math"):
        return float("inf")
    if kind == "UnaryOp" and type(node.op).__name__ == "USub":
        inner = const(node.operand, missing)
        if isinstance(inner, (int, float)) and not isinstance(inner, bool):
            return -inner
    return missing


def _dotted(fn):
    """`add.accumulate` for a ufunc's method, else the function's name."""
    import numpy as np
    owner = getattr(fn, "__self__", None)
    return f"{owner.__name__}.{fn.__name__}" if isinstance(owner, np.ufunc) else fn.__name__


def refuse_given(fn, given, allowed):
    """Refuse a parameter of `allowed` ({name: (values allowed, what to do)})
    given with another value (or not as a constant)."""
    for name, (values, hint) in allowed.items():
        if name in given and const(given[name]) not in values:
            raise NotImplementedArgument(
                f"s2sad's definition of np.{_dotted(fn)} does not implement its parameter "
                f"'{name}' given as written here. {hint}")
