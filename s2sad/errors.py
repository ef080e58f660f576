"""Errors and warnings of s2sad."""
from .transforms.errors import (NoForwardModeError, NoGradientError, S2sadError,  # noqa: F401
                                S2sadTypeError, S2sadValueError, SourceUnavailableError,
                                UnsupportedSyntaxError)


class NumbaFallbackWarning(UserWarning):
    """numba could not compile a derivative; it runs as plain Python."""


class CacheWarning(UserWarning):
    """The cache directory cannot be written; compiling in memory instead."""


class MemoryBudgetWarning(UserWarning):
    """A derivative switched a loop to binomial checkpointing because its
    estimated tape exceeds the memory budget (by default half the physical
    memory): its gradient stays exact but may take several times longer.
    Warned once per derivative, naming the function, the loop's line, the
    estimate and the budget. Raise the budget with `memory=` or the
    S2SAD_MEMORY environment variable (e.g. "64GB"), or turn checkpointing
    off with memory="off" (S2SAD_MEMORY=off)."""


class JitError(S2sadError):
    """numba could not compile a derivative and jit="require" was asked for."""


class GradientCheckError(S2sadError, AssertionError):
    """A self-checking derivative (check=True, S2SAD_CHECK=1) failed a check:
    `check` names it ("value", "plain twin", "taylor", "forward vs reverse"),
    `argument` the argument it concerns, `culprit` the optimisation whose
    removal made the plain twin agree (or None)."""

    def __init__(self, message, check=None, argument=None, culprit=None):
        super().__init__(message)
        self.check, self.argument, self.culprit = check, argument, culprit
