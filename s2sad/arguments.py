"""The arguments of a derivative's call: `wrt` resolved to positions, a key
of the argument types, lists and tuples of numbers taken as arrays, and the
gradients given back in the argument's type and structure."""
import inspect

import numpy as np

from . import precision, pytrees
from .partials import fixed_parameters
from .transforms.errors import S2sadTypeError, S2sadValueError


def with_trailing(signature, extra):
    """How a vjp or jvp is called: the function's arguments, then the seed
    or tangent (so the function's defaults can only be given by keyword)."""
    params = list(signature.parameters.values())
    # the seed follows the positional parameters; keyword-only ones stay after it
    n = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)
    positional = [p.replace(default=inspect.Parameter.empty) for p in params[:n]]
    while extra in signature.parameters:
        extra = "_" + extra
    return signature.replace(parameters=positional + [inspect.Parameter(
        extra, inspect.Parameter.POSITIONAL_OR_KEYWORD)] + params[n:])


def cast(grads, wrt, single, values):
    if single:
        return precision.cast_like(grads, values[wrt[0]]) if isinstance(wrt[0], int) else grads
    return tuple(precision.cast_like(g, values[w]) if isinstance(w, int) else g
                 for g, w in zip(grads, wrt))


def structured_like(grads, wrt, single, given):
    """The gradient of an argument given as a tuple or (nested) list of
    numbers has its structure, as JAX and autograd give it (s2sad computed
    it as an array)."""
    def like(g, v):
        if isinstance(v, (tuple, list)) and np.ndim(g) >= 1 and len(g) == len(v):
            return type(v)(like(e, x) for e, x in zip(g, v))
        if isinstance(v, (int, float)) and np.ndim(g) == 0:
            return float(g)
        return g

    def of(g, w):
        v = given[w] if isinstance(w, int) and w < len(given) else None
        return like(g, v) if isinstance(v, (tuple, list)) and not pytrees.is_container(v) else g
    if single:
        return of(grads, wrt[0])
    return tuple(of(g, w) for g, w in zip(grads, wrt))


def has_loops(source):
    import ast
    return any(isinstance(n, (ast.For, ast.While)) for n in ast.walk(ast.parse(source)))


def innermost(fn):
    while getattr(fn, "__s2sad_derivative__", False):
        fn = fn.fn
    return fn


def types_of(args):
    """What the kinds of these arguments and their checks depend on, as a
    key (a dtype and a rank per array, the type of a number, a string's
    text); None for anything else (containers, lists, 0-d arrays), which
    take the general path."""
    key = []
    for v in args:
        t = type(v)
        if t is np.ndarray:
            if v.ndim == 0:
                return None
            key.append((v.dtype, v.ndim))
        elif t in PLAIN_TYPES or isinstance(v, np.generic):
            key.append(t)
        elif t is str:
            key.append((str, v))
        else:
            return None
    return tuple(key)


PLAIN_TYPES = (float, int, bool, type(None))


def sequences(names, given):
    """{name: "list" or "tuple"} for the arguments given as a list or tuple
    of numbers, which s2sad takes as arrays: their kinds say so, for what a
    list does differently (frontend/containers/sequence_args.py)."""
    return {n: type(v).__name__ for n, v in zip(names, given)
            if type(v) in (list, tuple) and not pytrees.is_container(v)}


def as_value(v):
    if pytrees.is_container(v):
        return v  # flattened by Derivative._flatten
    if isinstance(v, (list, tuple)) and v and all(isinstance(e, (int, float)) for e in v):
        return np.asarray(v, dtype=float)
    if isinstance(v, list) and v and all(isinstance(e, (list, tuple)) for e in v):
        try:  # a nested list of numbers: an array
            a = np.asarray(v)
        except ValueError:  # ragged: reported by guards.check_arguments
            return v
        return a.astype(float) if a.dtype.kind in "biuf" else v
    if isinstance(v, np.ndarray) and v.ndim == 0:
        return v.item()
    return v


def resolve_wrt(fn, signature, wrt):
    every = list(signature.parameters)
    params = [p for p in every if p not in fixed_parameters(fn)]  # a partial's own
    single = not isinstance(wrt, (tuple, list))
    items = [wrt] if single else list(wrt)
    if not items:
        raise S2sadValueError(f"wrt is empty: name at least one argument of {fn.__name__}")
    positions = []
    for w in items:
        if isinstance(w, str):
            if not w.isidentifier():
                raise S2sadValueError(f"wrt names '{w}', which is not a Python name")
            # an argument, or a variable of the function (checked when compiled)
            if w in fixed_parameters(fn):
                raise S2sadValueError(f"wrt names '{w}', which the partial binds; differentiate "
                                 f"the function itself to get its gradient")
            positions.append(every.index(w) if w in every else w)
        elif isinstance(w, (int, np.integer)) and not isinstance(w, bool):
            if not -len(params) <= w < len(params):
                raise S2sadValueError(f"wrt={w} is out of range: {fn.__name__} has {len(params)} "
                                 f"argument(s)")
            positions.append(every.index(params[int(w)]))
        else:
            raise S2sadTypeError(f"wrt must be an argument position or name, or a tuple of them; "
                            f"got {w!r}")
    return tuple(positions), single
