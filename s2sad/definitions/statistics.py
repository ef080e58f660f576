"""Statistics s2sad differentiates through definitions in terms of
functions that have rules: np.cov, the normal distribution's
scipy.stats.norm.logpdf, pdf, cdf and logcdf, Student's t's
scipy.stats.t.logpdf and pdf, and scipy.stats.multivariate_normal.logpdf."""
import numpy as np
import scipy.special as _special

from .registry import chooses, const, define, refuse_given

try:  # (bound methods of scipy's distribution objects compare equal across lookups)
    import scipy.stats as _stats
    _NORM_LOGPDF = _stats.norm.logpdf
    _MULTIVARIATE_NORMAL_LOGPDF = _stats.multivariate_normal.logpdf
    _NORM_PDF, _NORM_CDF, _NORM_LOGCDF = _stats.norm.pdf, _stats.norm.cdf, _stats.norm.logcdf
    _T_LOGPDF, _T_PDF = _stats.t.logpdf, _stats.t.pdf
except ImportError:  # pragma: no cover - scipy is a dependency
    _NORM_LOGPDF = _MULTIVARIATE_NORMAL_LOGPDF = None
    _NORM_PDF = _NORM_CDF = _NORM_LOGCDF = _T_LOGPDF = _T_PDF = None


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


@define(_NORM_LOGPDF)
def norm_logpdf(x, loc=0.0, scale=1.0):
    """scipy.stats.norm.logpdf: the normal log-density, loc and scale
    differentiated too."""
    z = (x - loc) / scale
    return -0.5 * z * z - np.log(scale) - 0.5 * np.log(2.0 * np.pi)


@define(_NORM_PDF)
def norm_pdf(x, loc=0.0, scale=1.0):
    """scipy.stats.norm.pdf: the normal density."""
    z = (x - loc) / scale
    return np.exp(-0.5 * z * z) / (scale * np.sqrt(2.0 * np.pi))


@define(_NORM_CDF)
def norm_cdf(x, loc=0.0, scale=1.0):
    """scipy.stats.norm.cdf, through scipy.special.ndtr as scipy computes it."""
    return _special.ndtr((x - loc) / scale)


@define(_NORM_LOGCDF)
def norm_logcdf(x, loc=0.0, scale=1.0):
    """scipy.stats.norm.logcdf, through scipy.special.log_ndtr (finite far
    into the left tail, as scipy's)."""
    return _special.log_ndtr((x - loc) / scale)


@define(_T_LOGPDF)
def t_logpdf(x, df, loc=0.0, scale=1.0):
    """scipy.stats.t.logpdf: Student's t log-density, df, loc and scale
    differentiated too."""
    z = (x - loc) / scale
    return (_special.gammaln(0.5 * (df + 1.0)) - _special.gammaln(0.5 * df)
            - 0.5 * np.log(df * np.pi) - np.log(scale) - 0.5 * (df + 1.0) * np.log1p(z * z / df))


@define(_T_PDF)
def t_pdf(x, df, loc=0.0, scale=1.0):
    """scipy.stats.t.pdf: Student's t density."""
    return np.exp(t_logpdf(x, df, loc, scale))


@define(_MULTIVARIATE_NORMAL_LOGPDF)
def multivariate_normal_logpdf(x, mean=None, cov=None, allow_singular=False):
    """scipy.stats.multivariate_normal.logpdf of one point (x 1-D) or of
    each row of x, for a covariance matrix (positive definite)."""
    if allow_singular:
        raise ValueError("s2sad differentiates multivariate_normal.logpdf with "
                         "allow_singular=False only")
    if cov is None:
        raise ValueError("s2sad differentiates multivariate_normal.logpdf with a covariance "
                         "matrix given (cov=...)")
    if mean is None:
        d = x
    else:
        d = x - mean
    k = cov.shape[0]
    quad = np.sum(d * np.linalg.solve(cov, d.T).T, axis=-1)
    return -0.5 * quad - 0.5 * np.linalg.slogdet(cov)[1] - 0.5 * k * np.log(2.0 * np.pi)
