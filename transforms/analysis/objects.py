"""Values that are Python objects, not numbers or arrays: a random generator
(`np.random.RandomState(0)`, `np.random.default_rng()`, given as an argument
or read from the module), a scipy object. Their kind is `object` (holding
the class's name): they carry no gradient, what they compute from values
that need none needs none either, and compiled code runs the statements
that use them in numba's object mode (emit/objmode.py).

The kind of what a method returns is known for the random generators'
draws (kinds.py reads generator_class and INTEGER_DRAWS): floats (integers for
the integer distributions) of the shape their `size` gives, or of their
parameters' broadcast shape without one; of any other method it is unknown
(its statement then runs as Python: the derivative falls back to Python
with a warning when compiled)."""
import builtins
import inspect
import numbers
import sys
import types

import numpy as np



def _random():
    """numpy.random if it is loaded (importing it costs 11 ms; until it is,
    no value is one of its generators and no function one of its factories)."""
    return sys.modules.get("numpy.random")


def generator_classes():
    """The generators whose draws have known kinds (none before numpy.random loads)."""
    r = _random()
    return (r.RandomState, r.Generator) if r is not None else ()


def generator_class(name):
    """The generator class whose kind holds `name`, or None."""
    return next((c for c in generator_classes() if name == f"numpy.random.{c.__name__}"), None)

INTEGER_DRAWS = {"integers", "randint", "random_integers", "poisson", "binomial",
                  "negative_binomial", "geometric", "hypergeometric", "zipf", "logseries"}


def kind_name(cls):
    name = f"{cls.__module__}.{cls.__qualname__}"
    if name.startswith("numpy.random.") and cls.__qualname__ in ("RandomState", "Generator"):
        return f"numpy.random.{cls.__qualname__}"  # (numpy.random.mtrand.RandomState)
    return name


def is_object(value):
    """Whether a value is an object in this sense: not a number, array,
    string, None, container, module, class or callable (functions are
    called, not held)."""
    if value is None or isinstance(value, (numbers.Number, np.ndarray, np.generic, str, bytes,
                                           tuple, list, dict, set, frozenset, range, slice,
                                           types.ModuleType, type)):
        return False
    if hasattr(value, "__dataclass_fields__") or callable(value):
        return False
    # (a numba container, numba.typed.List, is a value compiled code holds itself)
    return not type(value).__module__.startswith("numba")


def constructed(obj):
    """The kind name of the object a call of `obj` makes, or None: a class
    (not a builtin, numpy scalar or array type), or a generator factory."""
    r = _random()
    if r is not None and obj is r.default_rng:  # (a function that makes a generator)
        return "numpy.random.Generator"
    if not inspect.isclass(obj) or obj.__module__ == builtins.__name__ \
            or issubclass(obj, (np.generic, np.ndarray, numbers.Number, tuple, list, dict)):
        return None
    return kind_name(obj)


def effect_of(node, kinds, resolve):
    """What running `node` (a statement or a list of them) does besides
    computing its values, so that moving it past another such statement, or
    running it twice, changes what the program does: "draw" (from a random
    generator: a method of an object, a function of np.random), "print", or
    "python" (a block kept as Python); None. `resolve(node)` is the object
    a callee denotes."""
    import gast
    from ..syntax import walk
    found = None
    for n in walk(node):
        if not isinstance(n, gast.Call):
            continue
        func = n.func
        if isinstance(func, gast.Attribute) and isinstance(func.value, gast.Name) \
                and getattr(kinds.get(func.value.id), "tag", None) == "object":
            return "draw"
        try:
            obj = resolve(func)
        except Exception:  # noqa: BLE001 - a local: not one of these
            continue
        if getattr(obj, "__module__", None) in ("numpy.random", "numpy.random.mtrand") \
                or isinstance(getattr(obj, "__self__", None), generator_classes()):
            return "draw"
        if obj is builtins.print:
            found = "print"
        elif getattr(obj, "__s2sad_python__", False):
            found = found or "python"
    return found


def refuse_draws_run_again(tree, kinds, parsed):
    """A helper whose derivative is taken runs again in it (its vjp computes
    its values anew): a draw from a random generator there would give other
    numbers than the call did, a gradient of another function. Refused at
    the draw's line."""
    import gast
    from ..errors import UnsupportedSyntaxError
    from ..syntax import walk_stmts
    for s in walk_stmts(tree.body):
        if isinstance(s, (gast.Assign, gast.Expr, gast.AugAssign)) \
                and effect_of(s, kinds, parsed.resolve) == "draw":
            raise UnsupportedSyntaxError(
                "a draw from a random generator in a helper whose derivative is taken and "
                "which could not be inlined where it is called (the derivative runs the "
                "helper again, which would draw other numbers; a helper returning before "
                "its end, taking *args, recursive, or called in a while's test, a ternary's "
                "branch, after and/or, in a lambda or a comprehension other than a list's "
                "element, is not inlined)",
                parsed.location, s, "Return only at the helper's end and call it where it "
                "runs once (v = helper(...)), or draw the numbers in the function being "
                "differentiated and pass them to the helper as an argument")


def drop_prints(stmts, kinds, resolve):
    """Drop, in place, the statements of `stmts` (nested blocks too) that only
    print: in a helper's derivative, which runs after the helper's primal
    copy printed the same."""
    import gast
    keep = []
    for s in stmts:
        if isinstance(s, gast.Expr) and effect_of(s, kinds, resolve) == "print" \
                and isinstance(s.value, gast.Call):
            continue
        for field in ("body", "orelse"):
            block = getattr(s, field, None)
            if isinstance(block, list) and block:
                drop_prints(block, kinds, resolve)
                if not block:
                    block.append(gast.Pass())
        keep.append(s)
    stmts[:] = keep or [gast.Pass()]
