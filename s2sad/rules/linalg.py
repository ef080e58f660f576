"""Linear algebra. numpy.linalg: det, inv, solve, slogdet, eigh, svd
(through the helpers s2sad's definitions call: s2sad/definitions/linalg.py),
pinv and cholesky, of single matrices (stacks of them: stacks.py); names
like `svd_grad` are helpers of `s2sad.runtime.spectral`. scipy.linalg:
Cholesky factorisation and solves, triangular and general solves, inv,
det, expm (its Frechet derivative) and eigh; names like `cholesky_grad`
are helpers of `s2sad.runtime.linalg` (which says which triangle each
function reads: gradients land there only). Derivatives of derivatives go
through the helpers' definitions (s2sad/definitions/linalg_pieces.py)."""
# flake8: noqa: F821  (runtime helpers are globals of the generated module)
import numpy as np
import scipy.linalg as la

from ..extend import (ARRAY, BOOL, K, MATRICES, MATRIX, UPLO, VECTOR_OR_MATRIX, adjoint,
                      by_definition, constant, first_arg, given, nondifferentiable, numba_form,
                      tangent, Values)
from ..runtime import linalg as rl
from ..runtime import spectral as rm


# ---- det, inv, solve ------------------------------------------------------------------------

@adjoint(np.linalg.det, kind=lambda args, kws: K.array(args[0].ndim - 2, "f"),
         values={"a": MATRICES})
def det(g, ans, a):
    return g * ans * np.linalg.inv(a).T


@adjoint(np.linalg.inv, kind=first_arg, values={"a": MATRICES})
def inv(g, ans, a):
    return -(ans.T @ g @ ans.T)


@adjoint(np.linalg.det, when=lambda a: a.ndim > 2)
def det_stacked(g, ans, a):
    return (g * ans)[..., None, None] * np.swapaxes(np.linalg.inv(a), -1, -2)


@adjoint(np.linalg.inv, when=lambda a: a.ndim > 2)
def inv_stacked(g, ans, a):
    return -(np.swapaxes(ans, -1, -2) @ g @ np.swapaxes(ans, -1, -2))


def _solve_kind(args, kws):
    """numpy's solve: b is a vector when 1-d, else a (stack of) matrices."""
    a, b = args
    if b.ndim == 1:
        return K.array(a.ndim - 1, "f")
    return K.array(max(a.ndim, b.ndim), "f")


@adjoint(np.linalg.solve, kind=_solve_kind, values={"a": MATRICES, "b": ARRAY})
def solve(g, ans, a, b):
    gb = np.linalg.solve(a.T, g)
    return -matmul_grad_left(gb, a, ans), gb


@tangent(np.linalg.det)
def det_tangent(t, ans, a):
    return ans * np.trace(np.linalg.solve(a, t))


@tangent(np.linalg.det, when=lambda a: a.ndim > 2)
def det_stacked_tangent(t, ans, a):
    # det times the tangent of log|det|, trace(a^-1 t) per matrix (a helper numba compiles)
    return ans * slogdet_stack_tangent(t, a)[1]


@tangent(np.linalg.inv)
def inv_tangent(t, ans, a):
    return -(ans @ t @ ans)


@tangent(np.linalg.solve)
def solve_tangent(ta, tb, ans, a, b):
    return np.linalg.solve(a, tb - ta @ ans)


# ---- slogdet: (sign, log|det|); the sign is locally constant --------------------------------

@adjoint(np.linalg.slogdet, kind=lambda args, kws: K.tuple_of(
    [K.array(args[0].ndim - 2, "f")] * 2), values={"a": MATRICES})
def slogdet(g, ans, a):
    return g[1] * np.linalg.inv(a).T


@tangent(np.linalg.slogdet)
def slogdet_tangent_rule(t, ans, a):
    # (0.0, trace(solve(a, t))): one expression, as tangent templates are
    return slogdet_tangent(t, a)


# ---- eigh, svd, pinv, cholesky --------------------------------------------------------------

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


# (their derivatives: through their definitions, s2sad/definitions/linalg_pieces.py)
by_definition(rm.eigh_lower_grad, rm.svd_grad, rm.svd_values_grad, rm.pinv_grad,
              rm.pinv_tangent, rm.svd_values_tangent, kind=lambda args, kws: K.UNKNOWN)
by_definition(rm.eigh_lower_tangent,
              kind=lambda args, kws: K.tuple_of([K.array(1, "f"), K.array(2, "f")]))
by_definition(rm.svd_tangent, kind=lambda args, kws: K.tuple_of(
    [K.array(2, "f"), K.array(1, "f"), K.array(2, "f")]))


@adjoint(np.linalg.cholesky, kind=lambda args, kws: K.array(args[0].ndim, "f"),
         values={"a": MATRICES, "upper": BOOL})
def np_cholesky(g, ans, a, upper=False):
    # (scipy.linalg.cholesky's helpers: the gradient lands in the triangle numpy reads)
    return cholesky_grad(g, ans, not upper)


@tangent(np.linalg.cholesky)
def np_cholesky_tangent(t, ans, a, upper=False):
    return cholesky_tangent(t, ans, not upper)


# ---- scipy.linalg ----------------------------------------------------------------------------

# check_finite only decides whether scipy checks for inf and nan first
_CHECK_FINITE = Values("True or False, written as a constant",
                       lambda n, k: constant(n) is True or constant(n) is False,
                       gradient_free=True)
_TRANS = Values("0, 1, 2, 'N', 'T' or 'C', written as a constant",
                lambda n, k: constant(n) in (0, 1, 2, "N", "T", "C")
                and not isinstance(constant(n), bool))
_ASSUME_A = Values("None, 'gen', 'general', 'sym', 'symmetric', 'her', 'hermitian', 'pos' or "
                   "'positive definite', written as a constant",
                   lambda n, k: constant(n) in (None, "gen", "general", "sym", "symmetric",
                                                 "her", "hermitian", "pos",
                                                 "positive definite"))
_CHO = Values("the (c, lower) pair cho_factor returns", lambda n, k: k.tag == "tuple"
              and len(k.items) == 2 and k.items[0].is_array and k.items[0].ndim == 2)


# ---- Cholesky ------------------------------------------------------------------------

@adjoint(la.cholesky, kind=first_arg, diff_argnums=(0,),
         values={"a": MATRIX, "lower": BOOL, "check_finite": _CHECK_FINITE})
def cholesky(g, ans, a, lower=False, check_finite=True):
    return cholesky_grad(g, ans, lower)


@tangent(la.cholesky)
def cholesky_tangent_rule(t, ans, a, lower=False, check_finite=True):
    return cholesky_tangent(t, ans, lower)


@adjoint(la.cho_factor, kind=lambda args, kws: K.tuple_of([K.array(2, "f"), K.BOOL]),
         diff_argnums=(0,), values={"a": MATRIX, "lower": BOOL, "check_finite": _CHECK_FINITE})
def cho_factor(g, ans, a, lower=False, check_finite=True):
    # (the pair is unpacked where it is made, so the factor is computed again)
    return cho_factor_grad(g[0], la_cholesky(a, lower), lower)


@tangent(la.cho_factor)
def cho_factor_tangent_rule(t, ans, a, lower=False, check_finite=True):
    return cho_factor_tangent(t, la_cholesky(a, lower), lower)


@adjoint(la.cho_solve, kind=lambda args, kws: K.float_result(args[1]),
         values={"c_and_lower": _CHO, "b": VECTOR_OR_MATRIX, "check_finite": _CHECK_FINITE})
def cho_solve(g, ans, c_and_lower, b, check_finite=True):
    gb = la_cho_solve(c_and_lower, g)
    return (cho_solve_grad_c(gb, ans, c_and_lower[0], c_and_lower[1]), None), gb


@tangent(la.cho_solve)
def cho_solve_tangent_rule(tc_and_lower, tb, ans, c_and_lower, b, check_finite=True):
    return cho_solve_tangent(tc_and_lower[0], tb, ans, c_and_lower[0], c_and_lower[1])


# ---- triangular and general solves, inv, det ----------------------------------------------

@adjoint(la.solve_triangular, kind=lambda args, kws: K.float_result(args[1]),
         values={"a": MATRIX, "b": VECTOR_OR_MATRIX, "trans": _TRANS, "lower": BOOL,
                 "unit_diagonal": BOOL, "check_finite": _CHECK_FINITE})
def solve_triangular(g, ans, a, b, trans=0, lower=False, unit_diagonal=False,
                     check_finite=True):
    gb = solve_triangular_adjoint(g, a, transposes(trans), lower, unit_diagonal)
    return solve_triangular_grad_a(gb, ans, transposes(trans), lower, unit_diagonal), gb


@tangent(la.solve_triangular)
def solve_triangular_tangent_rule(ta, tb, ans, a, b, trans=0, lower=False, unit_diagonal=False,
                                  check_finite=True):
    return solve_triangular_tangent(ta, tb, ans, a, transposes(trans), lower, unit_diagonal)


@adjoint(la.solve, kind=lambda args, kws: K.float_result(args[1]),
         values={"a": MATRIX, "b": VECTOR_OR_MATRIX, "lower": BOOL,
                 "check_finite": _CHECK_FINITE, "assume_a": _ASSUME_A})
def scipy_solve(g, ans, a, b, lower=False, check_finite=True, assume_a=None):
    # the symmetric kinds solve with the symmetric matrix a's triangle makes: its own transpose
    gb = la_solve(a.T, g, lower=not lower, assume_a=assume_a)
    return solve_grad_a(gb, ans, lower, assume_a), gb


@tangent(la.solve)
def solve_tangent_rule(ta, tb, ans, a, b, lower=False, check_finite=True, assume_a=None):
    return solve_tangent(ta, tb, ans, a, lower, assume_a)


@adjoint(la.inv, kind=first_arg, values={"a": MATRIX, "check_finite": _CHECK_FINITE})
def scipy_inv(g, ans, a, check_finite=True):
    return -(ans.T @ g @ ans.T)


@tangent(la.inv)
def scipy_inv_tangent(t, ans, a, check_finite=True):
    return -(ans @ t @ ans)


@adjoint(la.det, kind=lambda args, kws: K.FLOAT, values={"a": MATRIX,
                                                         "check_finite": _CHECK_FINITE})
def scipy_det(g, ans, a, check_finite=True):
    return g * ans * np.linalg.inv(a).T


@tangent(la.det)
def scipy_det_tangent(t, ans, a, check_finite=True):
    return ans * np.trace(np.linalg.solve(a, t))


@adjoint(la.expm, kind=first_arg, values={"A": MATRIX})
def expm(g, ans, A):
    # the adjoint of the Frechet derivative L(A, .) is L(A^T, .)
    return expm_frechet(A.T, g)


@tangent(la.expm)
def expm_tangent(t, ans, A):
    return expm_frechet(A, t)


@adjoint(la.eigh, kind=lambda args, kws: K.tuple_of([K.array(1, "f"), K.array(2, "f")]),
         diff_argnums=(0,), values={"a": MATRIX, "lower": BOOL, "check_finite": _CHECK_FINITE})
def scipy_eigh(g, ans, a, lower=True, check_finite=True):
    # symmetric a, distinct eigenvalues (equal ones: inf); recomputed, as the pair is unpacked
    return eigh_grad(g[0], g[1], a, lower)


@tangent(la.eigh)
def scipy_eigh_tangent_rule(t, ans, a, lower=True, check_finite=True):
    return eigh_tangent(t, a, lower)


# ---- the helpers generated code calls ---------------------------------------------------

# every call of a function is a call of its helper, which takes the function's rule
# (s2sad/forms.py); np.linalg.cholesky only with upper= (numba has the others)
for _fn, _helper in [(la.cholesky, rl.la_cholesky), (la.cho_factor, rl.la_cho_factor),
                     (la.cho_solve, rl.la_cho_solve), (la.solve_triangular, rl.la_solve_triangular),
                     (la.solve, rl.la_solve), (la.inv, rl.la_inv), (la.det, rl.la_det),
                     (la.expm, rl.la_expm), (la.eigh, rl.la_eigh)]:
    numba_form(_fn, _helper)
numba_form(np.linalg.cholesky, rl.np_cholesky, when=given("upper"))
# (their derivatives: through their definitions, s2sad/definitions/linalg_pieces.py)
by_definition(rl.cholesky_grad, rl.cholesky_tangent, rl.cho_factor_grad, rl.cho_solve_grad_c,
              rl.cho_solve_tangent, rl.solve_triangular_grad_a, rl.solve_triangular_tangent,
              rl.solve_triangular_adjoint, rl.solve_grad_a, rl.solve_tangent, rl.expm_frechet,
              rl.eigh_grad, kind=lambda args, kws: K.UNKNOWN)
by_definition(rl.eigh_tangent,
              kind=lambda args, kws: K.tuple_of([K.array(1, "f"), K.array(2, "f")]))
by_definition(rl.cho_factor_tangent,
              kind=lambda args, kws: K.tuple_of([K.array(2, "f"), K.BOOL]))
nondifferentiable(rl.transposes, rl.solves_symmetric, kind=lambda args, kws: K.BOOL)
