"""What the eval modules share: the Function record, compiling a primal
with numba, and converting inputs and outputs."""
import types

import numba
import numpy as np


class Function:
    """One eval function: `inputs(message input) -> args` (not timed),
    `compute(*args) -> result` (timed, once per run), `output(result) ->
    JSON-ready value` (not timed)."""

    def __init__(self, compute, inputs, output=None):
        self.compute, self.inputs = compute, inputs
        self.output = output or to_json


def unavailable(what, exc):
    """A Function that fails every evaluate with the reason it could not be
    built (the eval goes on with its other functions)."""
    def fail(*args):
        raise RuntimeError(f"s2sad cannot differentiate {what}: "
                           f"{type(exc).__name__}: {exc}") from exc
    return Function(fail, lambda inp: ())


def primal(fn, jit, derivatives=None):
    """`fn` compiled with numba (jit true) or `fn` itself. numba cannot call
    plain Python functions, so the helpers `fn` calls from its own module are
    compiled too, in a copy of the module's namespace: the module keeps its
    plain functions, which are what s2sad reads and differentiates. (numba
    does not check bounds by default; the eval modules compile their
    derivatives with boundscheck=False too: gmm's gradient is 20% faster.)
    `derivatives` maps the names of s2sad derivatives that `fn` calls (an
    inner gradient) to example arguments: numba cannot call a derivative
    object either, so the copy calls its compiled function instead."""
    if not jit:
        return fn
    namespace = dict(fn.__globals__)
    for name, example in (derivatives or {}).items():
        namespace[name] = compiled(fn.__globals__[name], example)
    for name, obj in fn.__globals__.items():
        if isinstance(obj, types.FunctionType) and obj.__module__ == fn.__module__:
            copy = types.FunctionType(obj.__code__, namespace, obj.__name__, obj.__defaults__,
                                      obj.__closure__)
            namespace[name] = numba.njit(copy)  # compiled lazily, on the first call
    return namespace[fn.__name__]


def compiled(derivative, example):
    """A numba function computing what `derivative(*args)` returns, for
    arguments of the kinds of `example`: s2sad's compiled entry (which
    returns the value too) for those kinds."""
    derivative(*example)  # generates and compiles it for these kinds
    entry = derivative.specialisation()
    dispatcher = getattr(entry.module.jitted(), entry.fname)
    if derivative.mode == "jvp" or derivative.with_value:
        return dispatcher  # (value, tangent) or (value, gradient), as the call returns
    return numba.njit(lambda *args: dispatcher(*args)[1])


def vector(values):
    """A C-contiguous float64 array (JSON integers included): the argument
    kind everything was compiled for."""
    return np.ascontiguousarray(np.asarray(values, dtype=np.float64))


def matrix(rows, ncols):
    """A 2-D float64 array, also for an empty list (0 rows of `ncols`)."""
    return vector(rows).reshape(-1, ncols)


def to_json(value):
    """numpy arrays and scalars, tuples and dicts as plain JSON values."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (np.floating, float)):
        return float(value)
    if isinstance(value, (np.integer, int)) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {k: to_json(v) for k, v in value.items()}
    return value
