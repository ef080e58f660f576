"""numpy (and scipy.stats) functions s2sad differentiates through a
definition in terms of functions that have rules, as jax.numpy defines
them: a call of `np.average(x, axis=0, weights=w)` is a call of
`reductions.average`, read as source, differentiated and compiled like a
user's helper (so every argument, weights too, gets its gradient). Each
definition follows numpy's documented semantics for the parameters it
takes; a parameter it does not take is refused when the call is bound, as
for any helper.

Each is registered beside it (registry.py: `define`, `chooses`, `chosen`),
by topic:

    reductions         np.average, nansum, nanmean, cumprod, trapezoid, median, quantile,
                       percentile, ptp
    masked_reductions  np.sum, prod, nansum, mean, var, std, max, min with where= / initial=
    shapes             np.take, select, meshgrid, reshape(order='F'), diff(prepend=, append=)
    linalg             np.linalg.matrix_power, eigvalsh, the matrix norms, svd
    contractions       np.vdot, np.convolve
    elementwise        np.polyval, np.interp, the ufuncs' accumulate and at
    statistics         np.cov
    scipy_stats        scipy.stats.norm.logpdf, t.logpdf, multivariate_normal.logpdf, ...
                       (registered once the user's code imported scipy.stats: s2sad/libraries.py)
    derivative_pieces  the runtime helpers of derivatives that are not linear (np.prod's
                       second derivatives, slogdet's tangent), for their own derivatives
    linalg_pieces      those of np.linalg's and scipy.linalg's rules (cholesky_grad, ...)
    scipy_linalg_pieces  those that call scipy.linalg (expm_frechet, eigh_grad): registered
                       once the user's code imported scipy.linalg (s2sad/libraries.py)"""
from . import (contractions, derivative_pieces, elementwise, linalg,  # noqa: F401
               linalg_pieces, masked_reductions, reductions, shapes, statistics)
from .registry import (DECIDED, TABLE, NotImplementedArgument, definition_arguments,  # noqa: F401
                       numpy_definition)
