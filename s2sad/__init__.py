"""s2sad: source-to-source automatic differentiation for numeric Python.

    @s2sad.grad
    def f(x, w): ...

gives a function computing df/dx from readable generated source (see
`.source`), compiled with numba."""
from .version import __version__
from .api import grad, jvp, value_and_grad, vjp
from .checking import check_grads
from .custom import (custom_gradient, custom_vjp, non_differentiable,
                     register_gradient)
from .export import export
from .checkpointing import checkpoint, checkpointed
from .higher import batch_jacobian, hessian, hvp, jacobian
from .markers import reset_recording, stop_gradient, stop_recording
from .errors import (CacheWarning, GradientCheckError, JitError, MemoryBudgetWarning,
                     NoForwardModeError,
                     NoGradientError, NumbaFallbackWarning, S2sadError, S2sadTypeError,
                     S2sadValueError, SourceUnavailableError, UnsupportedSyntaxError)
from .transforms.optimise.pipeline import OPTIMISATIONS

__all__ = ["grad", "value_and_grad", "vjp", "jvp", "check_grads", "stop_gradient", "stop_recording",
           "reset_recording", "custom_gradient", "custom_vjp", "register_gradient",
           "non_differentiable", "export", "jacobian", "batch_jacobian", "hessian", "hvp", "JitError", "NumbaFallbackWarning", "CacheWarning", "S2sadError",
           "SourceUnavailableError", "UnsupportedSyntaxError"]
__all__ += ["checkpoint", "checkpointed", "GradientCheckError", "OPTIMISATIONS", "MemoryBudgetWarning",
            "NoGradientError", "S2sadTypeError", "S2sadValueError", "NoForwardModeError"]
from .guessed_kinds import GuessedKindsError  # noqa: E402
__all__ += ["GuessedKindsError"]
