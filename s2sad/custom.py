"""Custom and registered gradients.

Inside a differentiated function a call to a custom-gradient function
becomes `y, residuals = <f>_fwd(args)` in the forward sweep and
`<f>_bwd(residuals, dy)` in the reverse sweep: numba cannot return
closures, so a TensorFlow-style `backward` closure is split off by the
compiler and the values it uses are carried as residuals."""
import functools

from . import rules  # noqa: F401  (the built-in rules first: a registration here overrides them)
from .extend import REGISTRY, K, Rule


class custom_gradient:
    """TensorFlow style: the function returns `(value, backward)` where
    `backward(dy)` returns the cotangent of each input (a tuple for several).

        @s2sad.custom_gradient
        def clip_gradients(y):
            def backward(dy):
                return clip_by_norm(dy, 0.5)
            return y, backward

    Called directly, it returns the value."""

    __s2sad_custom__ = "gradient"

    def __init__(self, fn):
        functools.update_wrapper(self, fn)
        self.fn = fn

    def __call__(self, *args):
        return self.fn(*args)[0]


class custom_vjp:
    """JAX style: `f = custom_vjp(f); f.defvjp(fwd, bwd)` with
    `fwd(*args) -> (value, residuals)` and `bwd(residuals, dy) -> tuple of
    cotangents`, one per argument."""

    __s2sad_custom__ = "vjp"

    def __init__(self, fn):
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.fwd = self.bwd = None

    def defvjp(self, fwd, bwd):
        self.fwd, self.bwd = fwd, bwd
        return self

    def __call__(self, *args):
        return self.fn(*args)


def _unknown(args, kws):
    return K.UNKNOWN


def register_gradient(fn, rule=None):
    """Register `rule(dy, result, *args) -> cotangents` (one per argument, a
    tuple for several) as the gradient of `fn`, a function s2sad cannot read
    (a numba kernel, a C function). Used by every later derivative. Usable
    as a decorator: `@s2sad.register_gradient(kernel)`."""
    if rule is None:
        return lambda r: register_gradient(fn, r)
    registered = Rule(None, _unknown, name=getattr(fn, "__name__", str(fn)), function=rule)
    registered.user = True  # (a gradient the user chose: s2sad/self_check.py)
    REGISTRY.register(fn, registered)
    return rule


def non_differentiable(fn):
    """Declare that `fn` has no gradient: its results are constants."""
    declared = Rule(None, _unknown, nondiff=True, name=getattr(fn, "__name__", str(fn)))
    declared.user = True
    REGISTRY.register(fn, declared)
    return fn
