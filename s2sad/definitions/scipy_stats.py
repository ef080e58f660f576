"""scipy.stats functions s2sad differentiates through definitions in terms
of functions that have rules: the normal distribution's
scipy.stats.norm.logpdf, pdf, cdf and logcdf, Student's t's
scipy.stats.t.logpdf and pdf, and scipy.stats.multivariate_normal.logpdf.

Imported when the user's process has imported scipy.stats
(s2sad/libraries.py), not with s2sad: `import scipy.stats` takes about 0.6 s, and only code that
imported it already can call it."""
import numpy as np
import scipy.special as _special
import scipy.stats as _stats

from .registry import define

# (bound methods of scipy's distribution objects compare equal across lookups)
_NORM_LOGPDF = _stats.norm.logpdf
_MULTIVARIATE_NORMAL_LOGPDF = _stats.multivariate_normal.logpdf
_NORM_PDF, _NORM_CDF, _NORM_LOGCDF = _stats.norm.pdf, _stats.norm.cdf, _stats.norm.logcdf
_T_LOGPDF, _T_PDF = _stats.t.logpdf, _stats.t.pdf


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
