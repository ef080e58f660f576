"""s2sad: source-to-source automatic differentiation for numeric Python.

    @s2sad.grad
    def f(x, w): ...

gives a function computing df/dx from readable generated source (see
`.source`), compiled with numba."""
__version__ = "0.1.0"

from .api import grad, jvp, value_and_grad, vjp  # noqa: E402
from .checking import check_grads  # noqa: E402
from .custom import (custom_gradient, custom_vjp, non_differentiable,  # noqa: E402
                     register_gradient)
from .export import export  # noqa: E402
from .checkpointing import checkpoint, checkpointed  # noqa: E402
from .higher import batch_jacobian, hessian, hvp, jacobian  # noqa: E402
from .markers import reset_recording, stop_gradient, stop_recording  # noqa: E402
from .errors import (CacheWarning, GradientCheckError, JitError,  # noqa: E402
                     NumbaFallbackWarning, S2sadError, SourceUnavailableError,
                     UnsupportedSyntaxError)
from .transforms.optimise.pipeline import OPTIMISATIONS  # noqa: E402

__all__ = ["grad", "value_and_grad", "vjp", "jvp", "check_grads", "stop_gradient", "stop_recording",
           "reset_recording", "custom_gradient", "custom_vjp", "register_gradient",
           "non_differentiable", "export", "jacobian", "batch_jacobian", "hessian", "hvp", "JitError", "NumbaFallbackWarning", "CacheWarning", "S2sadError",
           "SourceUnavailableError", "UnsupportedSyntaxError"]
__all__ += ["checkpoint", "checkpointed", "GradientCheckError", "OPTIMISATIONS"]
from .guessed_kinds import GuessedKindsError  # noqa: E402
__all__ += ["GuessedKindsError"]
