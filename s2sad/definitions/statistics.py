"""np.cov, differentiated through a definition in terms of functions that
have rules (scipy.stats' distributions: scipy_stats.py)."""
import numpy as np

from .registry import chooses, const, refuse_given


def _variables(m, rowvar):
    """The variables of np.cov's m (or y) as rows: a 1-d array is one
    variable; rowvar=False takes columns (of a 2-d array with more than one row)."""
    X = np.atleast_2d(m)
    if not rowvar and X.shape[0] != 1:
        X = X.T
    return X


def _covariance(X, bias, ddof):
    """The covariance of the rows of X, normalised by n - ddof (ddof None:
    n - 1, or n with bias=True)."""
    if ddof is None:
        if bias:
            d = 0.0
        else:
            d = 1.0
    else:
        d = ddof * 1.0
    centred = X - np.expand_dims(np.mean(X, axis=1), 1)
    return (centred @ centred.T) / (X.shape[1] - d)


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None):
    """np.cov(m) without weights. numpy squeezes the result: one variable
    given 1-d is a number."""
    c = _covariance(_variables(m, rowvar), bias, ddof)
    if m.ndim == 1:
        return c[0, 0]
    if c.shape[0] == 1:
        raise ValueError("s2sad: np.cov of one variable given as a 2-d array is a 0-d array "
                         "in numpy; pass the variable as a 1-d array")
    return c


def cov_with_y(m, y, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None):
    """np.cov(m, y) without weights: y's variables after m's."""
    return _covariance(np.concatenate((_variables(m, rowvar), _variables(y, rowvar)), axis=0),
                       bias, ddof)


@chooses(np.cov, table="definition: m; y; rowvar; bias; ddof (fweights, aweights, dtype refused)")
def _cov(given):
    refuse_given(np.cov, given, {
        "fweights": ((None,), "Leave out fweights (weights are not implemented)"),
        "aweights": ((None,), "Leave out aweights (weights are not implemented)"),
        "dtype": ((None,), "Leave out dtype")})
    if "y" in given and const(given["y"]) is not None:
        return cov_with_y  # (a matrix: numpy squeezes only a single variable)
    return cov
