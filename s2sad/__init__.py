"""s2sad: source-to-source automatic differentiation for numeric Python.

    @s2sad.grad
    def f(x, w): ...

gives a function computing df/dx from readable generated source (see
`.source`), compiled with numba.

Importing the package is quick: the names below that need numba, scipy or
the gradient rules are imported at their first use (PEP 562), so a script
that only imports s2sad, or catches its errors, does not pay for them."""
import importlib
from typing import TYPE_CHECKING

from .version import __version__
from .errors import (CacheWarning, GradientCheckError, JitError, MemoryBudgetWarning,
                     NoForwardModeError,
                     NoGradientError, NumbaFallbackWarning, S2sadError, S2sadTypeError,
                     S2sadValueError, SourceUnavailableError, UnsupportedSyntaxError)
# (eager, as the function must stay `s2sad.export` over the module of its name)
from .export import export

if TYPE_CHECKING:  # (for type checkers and the API docs' static reader: never run)
    from .api import grad, jvp, value_and_grad, vjp  # noqa: F401
    from .checking import check_grads  # noqa: F401
    from .checkpointing import checkpoint, checkpointed  # noqa: F401
    from .custom import (custom_gradient, custom_vjp, non_differentiable,  # noqa: F401
                         register_gradient)
    from .guessed_kinds import GuessedKindsError  # noqa: F401
    from .higher import batch_jacobian, hessian, hvp, jacobian  # noqa: F401
    from .markers import reset_recording, stop_gradient, stop_recording  # noqa: F401
    from .transforms.optimise.pipeline import OPTIMISATIONS  # noqa: F401

# public name -> the module that defines it, imported when the name is first used
_LAZY = {
    "grad": "api", "value_and_grad": "api", "vjp": "api", "jvp": "api",
    "check_grads": "checking",
    "custom_gradient": "custom", "custom_vjp": "custom", "non_differentiable": "custom",
    "register_gradient": "custom",
    "checkpoint": "checkpointing", "checkpointed": "checkpointing",
    "batch_jacobian": "higher", "hessian": "higher", "hvp": "higher", "jacobian": "higher",
    "reset_recording": "markers", "stop_gradient": "markers", "stop_recording": "markers",
    "OPTIMISATIONS": "transforms.optimise.pipeline",
    "GuessedKindsError": "guessed_kinds",
}

__all__ = ["grad", "value_and_grad", "vjp", "jvp", "check_grads", "stop_gradient", "stop_recording",
           "reset_recording", "custom_gradient", "custom_vjp", "register_gradient",
           "non_differentiable", "export", "jacobian", "batch_jacobian", "hessian", "hvp", "JitError", "NumbaFallbackWarning", "CacheWarning", "S2sadError",
           "SourceUnavailableError", "UnsupportedSyntaxError"]
__all__ += ["checkpoint", "checkpointed", "GradientCheckError", "OPTIMISATIONS", "MemoryBudgetWarning",
            "NoGradientError", "S2sadTypeError", "S2sadValueError", "NoForwardModeError"]
__all__ += ["GuessedKindsError"]


def __getattr__(name):
    if name in _LAZY:
        value = getattr(importlib.import_module("." + _LAZY[name], __name__), name)
        globals()[name] = value  # (later uses find it without this hook)
        return value
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    # a submodule not imported yet (s2sad.runtime, s2sad.api, ...), as the
    # package's eager import used to leave them all as attributes
    try:
        return importlib.import_module("." + name, __name__)
    except ModuleNotFoundError as exc:
        if exc.name != f"{__name__}.{name}":
            raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
