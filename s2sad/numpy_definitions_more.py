"""More numpy functions s2sad differentiates through definitions (see
numpy_definitions.py, which registers them and says which arguments and
values each call may use): polynomials, convolution, covariance,
interpolation, np.select, matrix powers, matrix norms and `order="F"`
reshapes. Each follows numpy's documented semantics for what it takes;
what it does not take is refused where the call is bound, naming the
user's line."""
import numpy as np

from .runtime.spectral import reduced_svd, singular_values


def polyval(p, x):
    """np.polyval: Horner's scheme, highest power first (p and x both
    differentiated)."""
    y = p[0] + 0.0 * x
    for i in range(1, len(p)):
        y = y * x + p[i]
    return y


def _full_convolution(a, v):
    """sum_j a[i - j] v[j] for every i: one shifted copy of a per element of v."""
    if a.ndim != 1 or v.ndim != 1:
        raise ValueError("np.convolve takes 1-d arrays")
    n = a.shape[0]
    m = v.shape[0]
    if n == 0 or m == 0:
        raise ValueError("np.convolve: a and v must not be empty")
    full = np.zeros(n + m - 1)
    for j in range(m):
        full[j:j + n] = full[j:j + n] + a * v[j]
    return full


def convolve_full(a, v):
    """np.convolve(a, v) (mode 'full')."""
    return _full_convolution(a, v)


def convolve_same(a, v):
    """np.convolve(a, v, 'same'): max(len(a), len(v)) values, centred as numpy centres them."""
    full = _full_convolution(a, v)
    start = (min(a.shape[0], v.shape[0]) - 1) // 2
    return full[start:start + max(a.shape[0], v.shape[0])]


def convolve_valid(a, v):
    """np.convolve(a, v, 'valid'): where the shorter array lies wholly inside the longer."""
    full = _full_convolution(a, v)
    return full[min(a.shape[0], v.shape[0]) - 1:max(a.shape[0], v.shape[0])]


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


def interp(x, xp, fp, left=None, right=None, period=None):
    """np.interp: piecewise linear through (xp, fp), xp increasing; fp[0]
    (or left) below xp[0], fp[-1] (or right) above xp[-1]. x, xp and fp are
    all differentiated (xp through the slope of the piece x falls in); at a
    knot, the derivative of the piece to its right, where numpy evaluates."""
    if isinstance(x, (int, float)):
        return _interp_point(x, xp, fp, left, right)
    n = fp.shape[0]  # (numpy requires len(xp) == len(fp))
    if n < 2:
        raise ValueError("s2sad differentiates np.interp with at least 2 points")
    i = np.minimum(np.maximum(np.searchsorted(xp, x, side="right") - 1, 0), n - 2)
    lo = xp[i]
    flo = fp[i]
    y = flo + (x - lo) / (xp[i + 1] - lo) * (fp[i + 1] - flo)
    y = np.where(x >= xp[n - 1], fp[n - 1], y)
    if right is not None:
        y = np.where(x > xp[n - 1], right, y)
    if left is None:
        y = np.where(x < xp[0], fp[0], y)
    else:
        y = np.where(x < xp[0], left, y)
    return y


def _interp_point(x, xp, fp, left, right):
    """np.interp at one point (a number)."""
    n = xp.shape[0]
    if n < 2:
        raise ValueError("s2sad differentiates np.interp with at least 2 points")
    if x < xp[0]:
        if left is None:
            return fp[0]
        return left * 1.0
    if x > xp[n - 1]:
        if right is None:
            return fp[n - 1]
        return right * 1.0
    if x == xp[n - 1]:
        return fp[n - 1]
    i = np.searchsorted(xp, x, side="right") - 1
    return fp[i] + (x - xp[i]) / (xp[i + 1] - xp[i]) * (fp[i + 1] - fp[i])


def select(condlist, choicelist, default=0):
    """np.select of conditions and choices of one shape (each given as a
    list, stacked): the first choice whose condition holds, else default."""
    out = default + 0.0 * choicelist[0] + np.zeros(np.shape(condlist[0]))
    for k in range(len(condlist) - 1, -1, -1):
        out = np.where(condlist[k] != 0, choicelist[k], out)  # (a bool: no gradient)
    return out


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


def reshape_fortran(a, shape):
    """np.reshape(a, shape, order="F"): the C-order reshape of the reversed
    axes, reversed back."""
    if isinstance(shape, int):
        return np.ravel(np.transpose(a))
    # (numba reshapes contiguous arrays only)
    return np.transpose(np.reshape(np.ascontiguousarray(np.transpose(a)), shape[::-1]))


# ---- matrix norms: one definition per order (a constant) -------------------------------
# (the parameter a definition is chosen by, np.convolve's mode, np.reshape's order and here
# np.linalg.norm's ord, is not passed to it: numpy_definitions.DECIDED)
# A 2-d array without axis is a matrix; anything else (a 1-d array, an int
# axis) keeps its vector norm, through the rule of np.linalg.norm.

def norm_1(x, axis=None, keepdims=False):
    """ord=1: the largest column sum of |x| (a vector's: sum |x|)."""
    if x.ndim == 2 and axis is None:
        return np.max(np.sum(np.abs(x), axis=0))
    return np.linalg.norm(x, 1, axis=axis)


def norm_minus_1(x, axis=None, keepdims=False):
    """ord=-1: the smallest column sum of |x| (a vector's: 1 / sum(1 / |x|))."""
    if x.ndim == 2 and axis is None:
        return np.min(np.sum(np.abs(x), axis=0))
    if x.ndim != 1 and axis is None:
        raise ValueError("Improper number of dimensions to norm.")
    return np.sum(np.abs(x) ** -1.0, axis=axis) ** (1.0 / -1.0)


def norm_inf(x, axis=None, keepdims=False):
    """ord=inf: the largest row sum of |x| (a vector's: max |x|)."""
    if x.ndim == 2 and axis is None:
        return np.max(np.sum(np.abs(x), axis=1))
    if x.ndim != 1 and axis is None:
        raise ValueError("Improper number of dimensions to norm.")
    return np.max(np.abs(x), axis=axis)


def norm_minus_inf(x, axis=None, keepdims=False):
    """ord=-inf: the smallest row sum of |x| (a vector's: min |x|)."""
    if x.ndim == 2 and axis is None:
        return np.min(np.sum(np.abs(x), axis=1))
    if x.ndim != 1 and axis is None:
        raise ValueError("Improper number of dimensions to norm.")
    return np.min(np.abs(x), axis=axis)


def norm_nuc(x, axis=None, keepdims=False):
    """ord='nuc': the sum of the singular values."""
    if x.ndim != 2 or axis is not None:
        raise ValueError("s2sad differentiates np.linalg.norm with ord='nuc' of a matrix only")
    return np.sum(singular_values(np.atleast_2d(x)))  # (a matrix here: typed for any x)


def norm_2(x, axis=None, keepdims=False):
    """ord=2: the largest singular value (a vector's: its 2-norm)."""
    if x.ndim == 2 and axis is None:
        return np.max(singular_values(x))
    return np.linalg.norm(x, 2, axis=axis)


def norm_minus_2(x, axis=None, keepdims=False):
    """ord=-2: the smallest singular value (a vector's: sum(|x|^-2)^-1/2)."""
    if x.ndim == 2 and axis is None:
        return np.min(singular_values(x))
    if x.ndim != 1 and axis is None:
        raise ValueError("Improper number of dimensions to norm.")
    return np.sum(np.abs(x) ** -2.0, axis=axis) ** (1.0 / -2.0)


# ---- np.linalg.svd: chosen by compute_uv and full_matrices (constants) -------------------

def svd_values(a, full_matrices=True, hermitian=False):
    """np.linalg.svd(a, compute_uv=False): the singular values, descending."""
    return singular_values(a)


def svd_reduced(a, full_matrices=False, hermitian=False):
    """np.linalg.svd(a, full_matrices=False): (U, s, Vh) with k = min(m, n) columns."""
    return reduced_svd(a)


def vdot(a, b):
    """np.vdot of real arrays: the sum of the products of the flattened
    arrays (complex ones, which it conjugates, are refused upstream)."""
    return np.sum(np.ravel(a) * np.ravel(b))


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """np.median of the flattened array: the middle of its sorted values, or
    the mean of the two middle ones for an even count (the gradient goes
    through the sort's permutation). Only the defaults of the other
    parameters are implemented (numpy_definitions refuses the rest)."""
    s = np.sort(np.ravel(a))
    n = s.shape[0]
    return 0.5 * (s[(n - 1) // 2] + s[n // 2])


def _middle(a, axis):
    """The middle of the values of `a` sorted along `axis` (the mean of the
    two middle ones for an even count), the axis moved last so one index
    reads every slice's middle."""
    s = np.moveaxis(np.sort(a, axis=axis), axis, -1)
    n = s.shape[-1]
    return 0.5 * (s[..., (n - 1) // 2] + s[..., n // 2])


def median_axis(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """np.median along an int axis."""
    return _middle(a, axis)


def median_axis_kept(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """np.median along an int axis with keepdims=True: the axis stays, of length 1."""
    return np.expand_dims(_middle(a, axis), axis)


def eigvalsh(a, UPLO="L"):  # noqa: N803 (numpy's parameter name)
    """np.linalg.eigvalsh: the eigenvalues of np.linalg.eigh (which reads
    the one triangle UPLO names)."""
    return np.linalg.eigh(a, UPLO)[0]


def meshgrid(x, y, indexing="xy"):
    """np.meshgrid of two arrays (flattened, as numpy does): the grids whose
    rows repeat x and whose columns repeat y ('xy'), or the transposes of
    those ('ij')."""
    xs, ys = np.ravel(x), np.ravel(y)
    if indexing == "xy":
        return np.outer(np.ones(ys.size), xs), np.outer(ys, np.ones(xs.size))
    if indexing == "ij":
        return np.outer(xs, np.ones(ys.size)), np.outer(np.ones(xs.size), ys)
    raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
