"""Linear algebra of numpy.linalg: det, inv, solve, slogdet, eigh, svd
(through the helpers s2sad's definitions call: s2sad/definitions/linalg.py),
pinv and cholesky, of single matrices (stacks of them: stacks.py); names
like `svd_grad` are helpers of `s2sad.runtime.spectral`, names like
`cholesky_grad` of `s2sad.runtime.linalg` (scipy.linalg's rules, in
scipy_linalg.py, call them too). Derivatives of derivatives go through the
helpers' definitions (s2sad/definitions/linalg_pieces.py)."""
# flake8: noqa: F821  (runtime helpers are globals of the generated module)
import numpy as np

from ..extend import (ARRAY, BOOL, K, MATRICES, MATRIX, UPLO, adjoint, by_definition, first_arg,
                      given, nondifferentiable, numba_form, tangent, Values)
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


@adjoint(np.linalg.solve, when=lambda a, b: a.ndim == 2 and b.ndim == 1)
def solve_vector(g, ans, a, b):
    gb = np.linalg.solve(a.T, g)
    return -np.outer(gb, ans), gb


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


# ---- the helpers generated code calls ---------------------------------------------------

# np.linalg.cholesky only with upper= (numba has the others): a helper with its rule
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
