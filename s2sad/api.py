"""The public API: grad, value_and_grad and vjp."""
import functools
import inspect
import threading

import numpy as np

from . import backend, cache
from .generate import generate
from .transforms import kinds as K

_JIT_CHOICES = (True, False, "require", "auto")


def grad(fn=None, wrt=0, *, jit=True, stop_gradients=()):
    """Gradient of `fn` with respect to `wrt`.

    `wrt` is an argument position or name, or the name of a variable
    assigned once in `fn`, or a tuple of them (then a tuple of gradients is
    returned). A non-scalar output is summed first, as in `tf.gradients`.
    `stop_gradients` names variables no gradient flows through (partial
    derivatives, as in `tf.gradients`). Usable as `@grad` or `@grad(...)`."""
    if fn is None:
        return lambda f: grad(f, wrt, jit=jit, stop_gradients=stop_gradients)
    return Derivative(fn, wrt, jit, "grad", False, stop_gradients)


def value_and_grad(fn=None, wrt=0, *, jit=True, stop_gradients=()):
    """Like `grad`, but returns `(value, gradient)`."""
    if fn is None:
        return lambda f: value_and_grad(f, wrt, jit=jit, stop_gradients=stop_gradients)
    return Derivative(fn, wrt, jit, "grad", True, stop_gradients)


def vjp(fn=None, wrt=0, *, jit=True, stop_gradients=()):
    """Vector-Jacobian product: `vjp(f)(*args, seed)` weights the outputs of
    `f` by `seed` (shape of the output; a tuple for a tuple output), like
    `grad_ys` in `tf.gradients`."""
    if fn is None:
        return lambda f: vjp(f, wrt, jit=jit, stop_gradients=stop_gradients)
    return Derivative(fn, wrt, jit, "vjp", False, stop_gradients)


def jvp(fn=None, wrt=0, *, jit=True):
    """Forward mode: `jvp(f)(*args, tangent)` returns `(value, jvp)`, the
    derivative of `f` along `tangent` (a tuple of tangents for a tuple
    `wrt`), like `jax.jvp`."""
    if fn is None:
        return lambda f: jvp(f, wrt, jit=jit)
    return Derivative(fn, wrt, jit, "jvp", True)


class Derivative:
    """A derivative of a Python function, generated and compiled for the
    kinds of arguments it is called with (float or array, ndim, dtype)."""

    __s2sad_derivative__ = True

    def __init__(self, fn, wrt, jit, mode, with_value, stop_gradients=()):
        if jit not in _JIT_CHOICES:
            raise ValueError(f"jit must be one of {_JIT_CHOICES}, not {jit!r}")
        functools.update_wrapper(self, fn)
        del self.__wrapped__  # a derivative is not its function (inspect.unwrap)
        self.fn, self.jit, self.mode, self.with_value = fn, jit, mode, with_value
        self.signature = self.__signature__ = inspect.signature(fn)
        self.wrt, self.single = _resolve_wrt(fn, self.signature, wrt)
        if isinstance(stop_gradients, str):
            stop_gradients = (stop_gradients,)
        self.stop_gradients = tuple(stop_gradients)
        self._entries = {}
        self._last = None
        self._lock = threading.Lock()

    def __repr__(self):
        return f"<s2sad {self.mode} of {self.fn.__qualname__} wrt {self.wrt}>"

    def __call__(self, *args, **kwargs):
        extra = []
        if self.mode in ("vjp", "jvp"):
            what = "seed" if self.mode == "vjp" else "tangent"
            if len(args) < 1:
                raise TypeError(f"a {self.mode} takes the function's arguments and then a {what}")
            *args, last = args
            extra = [last] if self.mode == "vjp" or self.single else list(last)
        bound = self.signature.bind(*args, **kwargs)
        bound.apply_defaults()
        values = [_as_value(v) for v in bound.arguments.values()]
        values += [_as_value(v) for v in extra]
        entry = self._entry(tuple(K.of_value(v) for v in values[:len(bound.arguments)]))
        value, grads = entry(*values)
        return (value, grads) if self.with_value else grads

    def _entry(self, kinds):
        entry = self._entries.get(kinds)
        if entry is None:
            with self._lock:  # threads asking for the same kinds compile once
                entry = self._entries.get(kinds)
                if entry is None:
                    entry = self._build(kinds)
                    self._entries[kinds] = entry
        self._last = entry
        return entry

    def _target(self, kinds):
        """The function to differentiate: for grad(grad(f)), the generated
        gradient of f for these argument kinds."""
        if getattr(self.fn, "__s2sad_derivative__", False):
            return self.fn.gradient_function(kinds)
        return self.fn

    def _generate(self, kinds):
        return generate(self._target(kinds), kinds, self.wrt, self.mode, self.single,
                        self.stop_gradients)

    def _build(self, kinds):
        gen = self._generate(kinds)
        name = "s2sad_" + cache.module_key(gen.source, gen.key_extra)
        module = backend.CompiledModule.get(name, gen.source, gen.functions, gen.namespace)
        code = _innermost(self.fn).__code__
        label = f"{self.fn.__qualname__} ({code.co_filename}:{code.co_firstlineno})"
        jit = self.jit
        if jit == "auto":  # numba for loops; numpy's vectorised loops otherwise
            jit = _has_loops(gen.source)
        entry = backend.Entry(module, gen.entry, jit, label)
        entry.generated = gen
        return entry

    def gradient_function(self, arg_kinds):
        """The generated function computing what this derivative returns, as
        plain Python with source: what s2sad differentiates for grad(grad(f))
        or for a grad(...) call inside a differentiated function."""
        if self.mode != "grad" or self.with_value:
            raise TypeError("only a grad (not value_and_grad, vjp or jvp) can be differentiated "
                            "again in reverse mode")
        key = ("gradient",) + tuple(arg_kinds)
        if key not in self._entries:
            gen = generate(self.fn, arg_kinds, self.wrt, "gradient", self.single,
                           self.stop_gradients)
            name = "s2sad_" + cache.module_key(gen.source, gen.key_extra)
            module = backend.CompiledModule.get(name, gen.source, gen.functions, gen.namespace)
            self._entries[key] = module.python.__dict__[gen.entry]
        return self._entries[key]

    def specialisation_for(self, values):
        """The compiled entry for these (bound, converted) argument values."""
        return self._entry(tuple(K.of_value(v) for v in values))

    def specialisation(self):
        """The compiled entry of the last call (or, before any call, of
        the kinds guessed from the source)."""
        if self._last is None:
            return self._entry(tuple(_guess_kinds(_innermost(self.fn))))
        return self._last

    @property
    def source(self):
        """The generated derivative module, for the kinds of the last call
        (before any call: for kinds guessed from how the arguments are used,
        an indexed argument being an array of that many dimensions)."""
        if self._last is not None:
            return self._last.generated.source
        return self._generate(_guess_kinds(_innermost(self.fn))).source

    def source_for(self, *args, **kwargs):
        """The generated derivative module for arguments like these."""
        bound = self.signature.bind(*args, **kwargs)
        bound.apply_defaults()
        kinds = [K.of_value(_as_value(v)) for v in bound.arguments.values()]
        return self._generate(kinds).source


def _has_loops(source):
    import ast
    return any(isinstance(n, (ast.For, ast.While)) for n in ast.walk(ast.parse(source)))


def _innermost(fn):
    while getattr(fn, "__s2sad_derivative__", False):
        fn = fn.fn
    return fn


def _as_value(v):
    if isinstance(v, (list, tuple)) and v and all(isinstance(e, (int, float)) for e in v):
        return np.asarray(v, dtype=float)
    if isinstance(v, np.ndarray) and v.ndim == 0:
        return v.item()
    return v


def _resolve_wrt(fn, signature, wrt):
    params = list(signature.parameters)
    single = not isinstance(wrt, (tuple, list))
    items = [wrt] if single else list(wrt)
    if not items:
        raise ValueError(f"wrt is empty: name at least one argument of {fn.__name__}")
    positions = []
    for w in items:
        if isinstance(w, str):
            if not w.isidentifier():
                raise ValueError(f"wrt names '{w}', which is not a Python name")
            # an argument, or a variable of the function (checked when compiled)
            positions.append(params.index(w) if w in params else w)
        elif isinstance(w, (int, np.integer)) and not isinstance(w, bool):
            if not -len(params) <= w < len(params):
                raise ValueError(f"wrt={w} is out of range: {fn.__name__} has {len(params)} "
                                 f"argument(s)")
            positions.append(int(w) % len(params))
        else:
            raise TypeError(f"wrt must be an argument position or name, or a tuple of them; "
                            f"got {w!r}")
    return tuple(positions), single


def _guess_kinds(fn):
    """Argument kinds guessed from the source: `x[i, j]` makes x a 2-D array."""
    import gast
    from .transforms.source import parse_function
    tree = parse_function(fn).tree
    args = [a.id for a in tree.args.args]
    ndims = {a: 0 for a in args}
    for node in gast.walk(tree):
        if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name) \
                and node.value.id in ndims:
            idx = node.slice
            n = len(idx.elts) if isinstance(idx, gast.Tuple) else 1
            ndims[node.value.id] = max(ndims[node.value.id], n)
        if isinstance(node, gast.Attribute) and node.attr in ("shape", "T", "size") \
                and isinstance(node.value, gast.Name) and node.value.id in ndims:
            ndims[node.value.id] = max(ndims[node.value.id], 1)
    return [K.array(ndims[a]) if ndims[a] else K.FLOAT for a in args]
