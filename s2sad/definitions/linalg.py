"""np.linalg functions (and forms of them) s2sad differentiates through
definitions in terms of functions that have rules: np.linalg.matrix_power,
np.linalg.eigvalsh, the matrix norms of np.linalg.norm (ord 1, -1, 2, -2,
inf, -inf, 'nuc') and np.linalg.svd's reduced and values-only forms."""
import numpy as np

from ..runtime.spectral import reduced_svd, singular_values
from .registry import NotImplementedArgument, chosen, chooses, const, define, refuse_given


@define(np.linalg.matrix_power, table="definition: a: a 2-d array; n: an int (negative: of "
                                         "the inverse)")
def matrix_power(a, n):
    """np.linalg.matrix_power of a matrix to an int power (negative: of its
    inverse), by repeated products."""
    if a.ndim != 2:
        raise ValueError("s2sad differentiates np.linalg.matrix_power of a 2-d array only")
    if n < 0:
        base = np.linalg.inv(a)
        k = -n
    else:
        base = a * 1.0
        k = n
    result = np.eye(a.shape[0])
    for _ in range(k):
        result = result @ base
    return result


@define(np.linalg.eigvalsh, table="definition: a; UPLO (np.linalg.eigh's eigenvalues)")
def eigvalsh(a, UPLO="L"):  # noqa: N803 (numpy's parameter name)
    """np.linalg.eigvalsh: the eigenvalues of np.linalg.eigh (which reads
    the one triangle UPLO names)."""
    return np.linalg.eigh(a, UPLO)[0]


@chosen(decided="ord")
def norm_1(x, axis=None, keepdims=False):
    """ord=1: the largest column sum of |x| (a vector's: sum |x|)."""
    if x.ndim == 2 and axis is None:
        return np.max(np.sum(np.abs(x), axis=0))
    return np.linalg.norm(x, 1, axis=axis)


@chosen(decided="ord")
def norm_minus_1(x, axis=None, keepdims=False):
    """ord=-1: the smallest column sum of |x| (a vector's: 1 / sum(1 / |x|))."""
    if x.ndim == 2 and axis is None:
        return np.min(np.sum(np.abs(x), axis=0))
    if x.ndim != 1 and axis is None:
        raise ValueError("Improper number of dimensions to norm.")
    return np.sum(np.abs(x) ** -1.0, axis=axis) ** (1.0 / -1.0)


@chosen(decided="ord")
def norm_inf(x, axis=None, keepdims=False):
    """ord=inf: the largest row sum of |x| (a vector's: max |x|)."""
    if x.ndim == 2 and axis is None:
        return np.max(np.sum(np.abs(x), axis=1))
    if x.ndim != 1 and axis is None:
        raise ValueError("Improper number of dimensions to norm.")
    return np.max(np.abs(x), axis=axis)


@chosen(decided="ord")
def norm_minus_inf(x, axis=None, keepdims=False):
    """ord=-inf: the smallest row sum of |x| (a vector's: min |x|)."""
    if x.ndim == 2 and axis is None:
        return np.min(np.sum(np.abs(x), axis=1))
    if x.ndim != 1 and axis is None:
        raise ValueError("Improper number of dimensions to norm.")
    return np.min(np.abs(x), axis=axis)


@chosen(decided="ord")
def norm_nuc(x, axis=None, keepdims=False):
    """ord='nuc': the sum of the singular values."""
    if x.ndim != 2 or axis is not None:
        raise ValueError("s2sad differentiates np.linalg.norm with ord='nuc' of a matrix only")
    return np.sum(singular_values(np.atleast_2d(x)))  # (a matrix here: typed for any x)


@chosen(decided="ord")
def norm_2(x, axis=None, keepdims=False):
    """ord=2: the largest singular value (a vector's: its 2-norm)."""
    if x.ndim == 2 and axis is None:
        return np.max(singular_values(x))
    return np.linalg.norm(x, 2, axis=axis)


@chosen(decided="ord")
def norm_minus_2(x, axis=None, keepdims=False):
    """ord=-2: the smallest singular value (a vector's: sum(|x|^-2)^-1/2)."""
    if x.ndim == 2 and axis is None:
        return np.min(singular_values(x))
    if x.ndim != 1 and axis is None:
        raise ValueError("Improper number of dimensions to norm.")
    return np.sum(np.abs(x) ** -2.0, axis=axis) ** (1.0 / -2.0)


_MATRIX_NORMS = {1: norm_1, -1: norm_minus_1, 2: norm_2, -2: norm_minus_2,
                 float("inf"): norm_inf, -float("inf"): norm_minus_inf, "nuc": norm_nuc}


@chooses(np.linalg.norm, table="definition with ord 1, -1, 2, -2, inf, -inf, 'nuc': the matrix "
                                "norm of a 2-d array without axis, else the vector norm (a pair "
                                "of axes refused)")
def _norm(given):
    """ord=1, -1, 2, -2, inf, -inf or 'nuc': a matrix norm of a 2-d array
    without axis, else a vector norm (keepdims=True: the rule, or its refusal)."""
    if "ord" not in given:
        return None
    order = const(given["ord"])
    chosen_norm = _MATRIX_NORMS.get(order) if not isinstance(order, bool) else None
    if chosen_norm is None or ("keepdims" in given and const(given["keepdims"]) is not False):
        return None  # the rule (None, 'fro', vector orders; anything else refused there)
    axis = given.get("axis")
    if type(axis).__name__ == "Tuple" and len(axis.elts) != 1:
        raise NotImplementedArgument(
            "s2sad differentiates the matrix norms (ord 1, -1, 2, -2, inf, -inf, 'nuc') of a "
            "2-d array without axis: transpose the array instead of giving a pair of axes")
    if type(axis).__name__ == "Tuple":
        return None  # a vector norm over a 1-tuple of axes: the rule
    return chosen_norm


@chosen(decided="compute_uv")
def svd_values(a, full_matrices=True, hermitian=False):
    """np.linalg.svd(a, compute_uv=False): the singular values, descending."""
    return singular_values(a)


@chosen(decided="compute_uv")
def svd_reduced(a, full_matrices=False, hermitian=False):
    """np.linalg.svd(a, full_matrices=False): (U, s, Vh) with k = min(m, n) columns."""
    return reduced_svd(a)


@chooses(np.linalg.svd, table="definition: a: a 2-d array; full_matrices: False, or compute_uv: "
                              "False (hermitian refused); distinct nonzero singular values")
def _svd(given):
    refuse_given(np.linalg.svd, given, {"hermitian": ((False,), "Leave out hermitian=True "
                                                      "(the general svd gives the same values)")})
    if "compute_uv" in given and const(given["compute_uv"]) is not True:
        refuse_given(np.linalg.svd, given, {"compute_uv": ((False,), "Write compute_uv as "
                                                            "the constant True or False")})
        return svd_values
    refuse_given(np.linalg.svd, given, {"full_matrices": ((False,), (
        "Pass full_matrices=False: the full U or Vh of a non-square matrix is completed with "
        "vectors the gradient does not determine (the reduced ones suffice: "
        "U[:, :k] @ np.diag(s) @ Vh[:k])"))})
    if "full_matrices" not in given:
        raise NotImplementedArgument(
            "s2sad differentiates np.linalg.svd(a, full_matrices=False) (or compute_uv=False); "
            "numpy's default full_matrices=True completes U or Vh of a non-square matrix with "
            "vectors the gradient does not determine: pass full_matrices=False")
    return svd_reduced
