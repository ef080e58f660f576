"""Errors and warnings of s2sad."""
from .transforms.errors import (S2sadError, SourceUnavailableError,  # noqa: F401
                                UnsupportedSyntaxError)


class NumbaFallbackWarning(UserWarning):
    """numba could not compile a derivative; it runs as plain Python."""


class CacheWarning(UserWarning):
    """The cache directory cannot be written; compiling in memory instead."""


class JitError(S2sadError):
    """numba could not compile a derivative and jit="require" was asked for."""
