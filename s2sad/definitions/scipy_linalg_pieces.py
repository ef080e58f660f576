"""The runtime helpers of scipy.linalg's rules that call scipy.linalg
(expm's Frechet derivative, eigh's gradient and tangent with scipy's
eigenvectors), defined as linalg_pieces.py defines the others. Registered
once the user's code imported scipy.linalg (s2sad/libraries.py)."""
import numpy as np
import scipy.linalg as la

from .. import runtime as rt
from .linalg_pieces import _eigen_grad, _fold_triangle, _gaps, _symmetric_from
from .registry import define


# ---- the matrix exponential ---------------------------------------------------------------

@define(rt.expm_frechet)
def expm_frechet(A, E):  # noqa: N803 (scipy's names)
    """The top right block of the exponential of [[A, E], [0, A]]."""
    n = A.shape[0]
    top = np.concatenate((A, E), axis=1)
    bottom = np.concatenate((np.zeros_like(A), A), axis=1)
    return la.expm(np.concatenate((top, bottom), axis=0))[:n, n:]


# ---- eigenvalues ------------------------------------------------------------------------

# (scipy.linalg.eigh, as the primal calls it: its eigenvectors' signs; `lower` a constant)

@define(rt.eigh_grad)
def eigh_grad(gw, gv, a, lower=True):
    if lower:
        w, v = la.eigh(a, lower=True)
    else:
        w, v = la.eigh(a, lower=False)
    return _fold_triangle(_eigen_grad(w, v, gw, gv), lower)


@define(rt.eigh_tangent)
def eigh_tangent(t, a, lower=True):
    if lower:
        w, v = la.eigh(a, lower=True)
    else:
        w, v = la.eigh(a, lower=False)
    p = v.T @ _symmetric_from(t, lower) @ v
    return np.diag(p), v @ (_gaps(w) * p)
