"""scipy.linalg: Cholesky factorisation and solves, triangular and general
solves, inv, det, expm (its Frechet derivative) and eigh; names like
`cholesky_grad` are helpers of `s2sad.runtime.linalg` (which says which
triangle each function reads: gradients land there only), whose own
derivatives go through their definitions (s2sad/definitions/linalg_pieces.py,
scipy_linalg_pieces.py). Registered once the user's code imported
scipy.linalg (s2sad/libraries.py)."""
# flake8: noqa: F821  (runtime helpers are globals of the generated module)
import numpy as np
import scipy.linalg as la

from ..extend import (BOOL, K, MATRIX, REGISTRY, VECTOR_OR_MATRIX, adjoint, constant, first_arg,
                      give_helpers_their_rules, numba_form, tangent, Values)
from ..runtime import linalg as rl


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


# every call of a function is a call of its helper, which takes the function's rule
# (s2sad/forms.py)
for _fn, _helper in [(la.cholesky, rl.la_cholesky), (la.cho_factor, rl.la_cho_factor),
                     (la.cho_solve, rl.la_cho_solve), (la.solve_triangular, rl.la_solve_triangular),
                     (la.solve, rl.la_solve), (la.inv, rl.la_inv), (la.det, rl.la_det),
                     (la.expm, rl.la_expm), (la.eigh, rl.la_eigh)]:
    numba_form(_fn, _helper)
give_helpers_their_rules(REGISTRY)
