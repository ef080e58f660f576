"""`functools.partial` of a function, differentiated through the function:
`s2sad.grad(partial(f, W, scale=2.0))` is the gradient of the function of
the remaining parameters, as `jax.grad(partial(f, ...))` is, so `wrt`
counts the partial's remaining parameters. The partial becomes a one-line
Python function s2sad reads (its source is registered in linecache):

    def partial_f(x):
        return f(W, x, scale=scale)

Bound floats and arrays become keyword-only parameters with their values
as defaults (`def partial_f(x, *, W_bound=W_value)`), so the derivative
takes them as arguments (their kinds known, not frozen into compiled code)
while the partial's remaining parameters keep their positions (`wrt=0` is
`x`, `wrt=-1` never a positionally bound value, which no caller can pass);
other bound values (ints, strings, tuples) are constants of the
function."""
import functools
import inspect
import itertools
import linecache

import numpy as np

from .transforms.errors import SourceUnavailableError
from .transforms.names import fresh_name
from .transforms.errors import S2sadTypeError

_COUNT = itertools.count()


def unpartial(obj):
    """`obj`, or for a functools.partial, a Python function of its remaining
    parameters calling the underlying function with the bound values."""
    if not isinstance(obj, functools.partial):
        return obj
    from .primitives import as_function
    func = as_function(obj.func)  # np.outer: the function of its rule's parameters
    # (a partial of a partial is flattened by functools)
    primitive = func is not obj.func
    if primitive:
        # a primitive with a rule (`partial(np.max, axis=0, keepdims=True)`):
        # the partial calls it with its own parameters, so the bound values
        # are constants of the call its rule sees (and refuses, if it must)
        func = obj.func
    fname = getattr(func, "__name__", None)
    if fname == "<lambda>" and hasattr(func, "__code__"):
        fname = f"lambda_{func.__code__.co_firstlineno}"
    if not fname or not fname.isidentifier():
        raise SourceUnavailableError(f"s2sad cannot differentiate {obj!r}: the function it "
                                     f"binds has no Python source (and no name to call it by)")
    try:
        inner = inspect.signature(func)
    except (TypeError, ValueError):
        inner = None
        if primitive:  # a ufunc: the parameters its rule declares
            from .registry import REGISTRY
            inner = REGISTRY.lookup(func).signature
    if inner is None:
        raise S2sadTypeError(f"s2sad cannot differentiate {obj!r}: the signature of "
                        f"{fname} is unknown") from None
    params = list(inner.parameters.values())
    if primitive:
        # its rule's required parameters and what the partial binds; the other
        # optional ones (out=, keepdims=, ...) keep numpy's defaults, as a
        # rule implements only constants for them (a parameter is no constant)
        from .registry import REGISTRY
        required = REGISTRY.lookup(func).required
        params = [p for i, p in enumerate(params) if p.name in required
                  or p.name in obj.keywords or i < len(obj.args)]
    if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params):
        raise S2sadTypeError(f"s2sad cannot differentiate a partial of {fname}, which takes *args or "
                        f"**kwargs: give it plain parameters")
    namespace = {fname: func}
    taken = {fname} | {p.name for p in params}
    hidden = []  # bound floats and arrays: keyword-only parameters with their values
    fixed = []  # the hidden parameters of positionally bound values

    def bound(p, value, by_keyword):
        if isinstance(value, (float, np.floating, np.ndarray)) and not isinstance(value, bool):
            # a keyword-bound value may be overridden by keyword, as functools
            # allows; a positionally bound one gets a name no caller can pass
            name = p.name if by_keyword else fresh_name(p.name + "_bound", taken, sep="_")
            taken.add(name)
            hidden.append(f"{name}={constant(p.name + '_value', value)}")
            if not by_keyword:
                fixed.append(name)
            return name
        return constant(p.name, value)

    def constant(base, value):
        if primitive and _literal(value):
            return repr(value)  # the rule sees `axis=0` written as a constant
        n = fresh_name(base, taken, sep="_")
        namespace[n] = value
        return n

    positional = [p for p in params if p.kind != p.KEYWORD_ONLY]
    if len(obj.args) > len(positional):
        raise S2sadTypeError(f"partial of {fname}: {len(obj.args)} bound arguments for "
                        f"{len(positional)} positional parameters")
    unknown = set(obj.keywords) - {p.name for p in params}
    if unknown:
        raise S2sadTypeError(f"partial of {fname}: unknown keyword(s) {sorted(unknown)}")
    call_args = [bound(p, v, False) for p, v in zip(positional, obj.args)]
    keywords, plain, kwonly = [], [], []
    for p in params[len(obj.args):]:
        if p.name in obj.keywords:
            keywords.append(f"{p.name}={bound(p, obj.keywords[p.name], True)}")
            continue
        own = p.name if p.default is p.empty else \
            f"{p.name}={constant(p.name + '_default', p.default)}"
        if p.kind == p.KEYWORD_ONLY:
            kwonly.append(own)
            keywords.append(f"{p.name}={p.name}")
        else:
            plain.append(own)
            if p.default is p.empty or p.kind == p.POSITIONAL_ONLY:
                call_args.append(p.name)
            else:
                keywords.append(f"{p.name}={p.name}")
    own = plain + (["*"] + hidden + kwonly if hidden or kwonly else [])
    name = "partial_" + fname
    filename = f"<s2sad: functools.partial of {fname}, #{next(_COUNT)}>"
    text = (f"def {name}({', '.join(own)}):\n"
            f"    return {fname}({', '.join(call_args + keywords)})\n")
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    exec(compile(text, filename, "exec"), namespace)  # noqa: S102 - our own source
    fn = namespace.pop(name)
    fn.__s2sad_partial__ = obj
    fn.__s2sad_fixed__ = tuple(fixed)  # not the partial's parameters: never `wrt`
    return fn


def _literal(value):
    """A value whose repr is a Python literal of the same value (ints, bools,
    None, strings, and tuples or lists of them)."""
    if value is None or type(value) in (bool, int, str):
        return True
    return type(value) in (tuple, list) and all(_literal(v) for v in value)


def fixed_parameters(fn):
    """The parameters of an unpartial'd function that hold positionally bound
    values: not parameters of the partial, so `wrt` never counts or names them."""
    return getattr(fn, "__s2sad_fixed__", ())
