"""numpy.linalg: eigh, svd and pinv, and np.searchsorted (an index, no
gradient), used by s2sad's definitions (numpy_definitions_more.py: interp,
matrix norms). Names like `svd_grad` are helpers of
`s2sad.runtime.spectral` (see there)."""
# flake8: noqa: F821  (runtime helpers are globals of the generated module)
import numpy as np

from ..runtime import spectral as rm
from ..extend import (K, BOOL, MATRICES, MATRIX, UPLO, adjoint, nondifferentiable, refused,
                      tangent, Values)

nondifferentiable(np.searchsorted, kind=lambda args, kws: K.INT if args[1].is_scalar
                  else K.array(args[1].ndim, "i"))


# ---- eigh: symmetric matrices, one triangle read (UPLO 'L', numpy's default, or 'U') ----

@adjoint(np.linalg.eigh, kind=lambda args, kws: K.tuple_of(
    [K.array(args[0].ndim - 1, "f"), K.array(args[0].ndim, "f")]),
    values={"a": MATRICES, "UPLO": UPLO})
def eigh(g, ans, a, UPLO="L"):
    # distinct eigenvalues (equal ones: inf); the gradient lands in the triangle numpy reads
    # (s2sad.runtime.stacks: a matrix or a stack of them)
    return eigh_uplo_grad(g[0], g[1], a, UPLO)


@adjoint(np.linalg.eigh, when=lambda a: a.ndim == 2)
def eigh_lower(g, ans, a):
    # one matrix, its lower triangle read: the helper numba compiles
    return eigh_lower_grad(g[0], g[1], a)


@tangent(np.linalg.eigh)
def eigh_tangent_rule(t, ans, a, UPLO="L"):
    return eigh_uplo_tangent(t, a, UPLO)


@tangent(np.linalg.eigh, when=lambda a: a.ndim == 2)
def eigh_lower_tangent_rule(t, ans, a, UPLO="L"):
    # (chosen when the call gives no UPLO: the lower triangle)
    return eigh_lower_tangent(t, a)


# ---- svd (through s2sad's definitions: the reduced factors, or the singular values) ----

@adjoint(rm.reduced_svd, kind=lambda args, kws: K.tuple_of(
    [K.array(2, "f"), K.array(1, "f"), K.array(2, "f")]), values={"a": MATRIX})
def reduced_svd(g, ans, a):
    # distinct nonzero singular values; recomputed, as the triple is unpacked where it is made
    return svd_grad(g[0], g[1], g[2], a)


@tangent(rm.reduced_svd)
def reduced_svd_tangent(t, ans, a):
    return svd_tangent(t, a)


@adjoint(rm.singular_values, kind=lambda args, kws: K.array(1, "f"), values={"a": MATRIX})
def singular_values(g, ans, a):
    return svd_values_grad(g, a)


@tangent(rm.singular_values)
def singular_values_tangent(t, ans, a):
    return svd_values_tangent(t, a)


# ---- pinv at constant rank ---------------------------------------------------------------

# the cutoff only decides which singular values count as zero: not the gradient at constant rank
_RCOND = Values("None or a number", lambda n, k: k.tag in ("none", "int", "float"),
                gradient_free=True)


@adjoint(np.linalg.pinv, kind=lambda args, kws: K.array(2, "f"),
         values={"a": MATRIX, "rcond": _RCOND})
def pinv(g, ans, a, rcond=None):
    return pinv_grad(g, ans, a)


@tangent(np.linalg.pinv)
def pinv_tangent_rule(t, ans, a, rcond=None):
    return pinv_tangent(t, ans, a)


refused(rm.eigh_lower_grad, rm.svd_grad, rm.svd_values_grad, rm.pinv_grad, rm.pinv_tangent, rm.svd_values_tangent,
        kind=lambda args, kws: K.UNKNOWN,
        reason="second derivatives through np.linalg's svd and pinv rules are not implemented")
refused(rm.eigh_lower_tangent, kind=lambda args, kws: K.tuple_of([K.array(1, "f"), K.array(2, "f")]),
        reason="second derivatives through np.linalg's eigh rule are not implemented")
refused(rm.svd_tangent, kind=lambda args, kws: K.tuple_of(
    [K.array(2, "f"), K.array(1, "f"), K.array(2, "f")]),
    reason="second derivatives through np.linalg's svd rule are not implemented")


# ---- cholesky: numpy's reads the lower triangle (upper=True: the upper one) --------------

@adjoint(np.linalg.cholesky, kind=lambda args, kws: K.array(args[0].ndim, "f"),
         values={"a": MATRICES, "upper": BOOL})
def np_cholesky(g, ans, a, upper=False):
    # (scipy.linalg.cholesky's helpers: the gradient lands in the triangle numpy reads)
    return cholesky_grad(g, ans, not upper)


@tangent(np.linalg.cholesky)
def np_cholesky_tangent(t, ans, a, upper=False):
    return cholesky_tangent(t, ans, not upper)
