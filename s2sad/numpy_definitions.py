"""numpy (and scipy.stats) functions s2sad differentiates through a definition in terms of
functions that have rules, as jax.numpy defines them: a call of
`np.average(x, axis=0, weights=w)` is a call of `average` below, read as
source, differentiated and compiled like a user's helper (so every
argument, weights too, gets its gradient). Each definition follows numpy's
documented semantics for the parameters it takes; a parameter it does not
take is refused when the call is bound, as for any helper."""
import numpy as np

from . import numpy_definitions_keywords as kw
from . import numpy_definitions_more as more
from . import numpy_definitions_ufuncs as ufuncs


def average(a, axis=None, weights=None):
    """np.average: the mean, or sum(a * w) / sum(w), with w of a's shape or
    1-D along an int axis."""
    if weights is None:
        return np.mean(a, axis=axis)
    if axis is None:  # weights of a's shape (numpy raises otherwise)
        return np.sum(a * weights) / np.sum(weights * np.ones_like(a))
    if weights.ndim == a.ndim:
        return np.sum(a * weights, axis=axis) / np.sum(weights * np.ones_like(a), axis=axis)
    # 1-D weights along `axis`: that axis last, where they broadcast
    return np.sum(np.moveaxis(a, axis, -1) * weights, axis=-1) / np.sum(weights)


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """np.trapezoid: the trapezoidal rule along `axis`, with sample points
    `x` (1-D along the axis, or of y's shape) or a spacing `dx`."""
    ys = np.moveaxis(y, axis, -1)
    mid = (ys[..., 1:] + ys[..., :-1]) * 0.5
    if x is None:
        return np.sum(mid, axis=-1) * dx
    if x.ndim == 1:
        return np.sum(mid * (x[1:] - x[:-1]), axis=-1)
    xs = np.moveaxis(x, axis, -1)
    return np.sum(mid * (xs[..., 1:] - xs[..., :-1]), axis=-1)


def nansum(a, axis=None):
    """np.nansum: NaNs count as zero (and get a zero gradient)."""
    return np.sum(np.where(np.isnan(a), 0.0, a), axis=axis)


def nanmean(a, axis=None):
    """np.nanmean: the mean of the entries that are not NaN."""
    kept = ~np.isnan(a)
    return np.sum(np.where(kept, a, 0.0), axis=axis) / np.sum(kept, axis=axis)


def cumprod(a, axis=None):
    """np.cumprod: a running product (so a zero entry has the gradient its
    products give), of the flattened array (axis None) or along an axis."""
    if axis is not None and a.ndim > 1:
        return _cumprod_along(a, axis)
    flat = np.ravel(a)
    out = np.empty(flat.shape[0])
    total = 1.0
    for i in range(flat.shape[0]):
        total = total * flat[i]
        out[i] = total
    return out


def _cumprod_along(a, axis):
    """np.cumprod along `axis` of an array of 2 or more dimensions: running
    products of its slices along the axis."""
    moved = np.moveaxis(a, axis, 0)
    out = np.empty(moved.shape)
    total = np.ones_like(moved[0])
    for i in range(moved.shape[0]):
        total = total * moved[i]
        out[i] = total
    return np.moveaxis(out, 0, axis)


def take(a, indices, axis=None):
    """np.take: elements of the flattened array (axis None) or, along an
    axis, at a 1-D array (or list) of indices."""
    if axis is None:
        return np.ravel(a)[indices]
    picked = np.asarray(indices)
    if picked.ndim != 1:
        raise ValueError("s2sad differentiates np.take along an axis with a 1-D array of "
                         "indices only (index the axis instead: A[:, i])")
    return np.moveaxis(np.moveaxis(a, axis, 0)[picked], 0, axis)


def norm_logpdf(x, loc=0.0, scale=1.0):
    """scipy.stats.norm.logpdf: the normal log-density, loc and scale
    differentiated too."""
    z = (x - loc) / scale
    return -0.5 * z * z - np.log(scale) - 0.5 * np.log(2.0 * np.pi)


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


_DEFINITIONS = {np.average: average, np.nansum: nansum, np.nanmean: nanmean,
                np.cumprod: cumprod, np.take: take, np.polyval: more.polyval,
                np.interp: more.interp, np.select: more.select,
                np.linalg.matrix_power: more.matrix_power, np.vdot: more.vdot,
                np.median: more.median, np.trapezoid: trapezoid,
                np.linalg.eigvalsh: more.eigvalsh, np.meshgrid: more.meshgrid}
try:  # (bound methods of scipy's distribution objects compare equal across lookups)
    import scipy.stats as _stats
    _DEFINITIONS[_stats.norm.logpdf] = norm_logpdf
    _DEFINITIONS[_stats.multivariate_normal.logpdf] = multivariate_normal_logpdf
except ImportError:  # pragma: no cover - scipy is a dependency
    pass


# what a definition raises for an argument it does not implement (the binder,
# which names the line, catches it): one of the compiler's errors
from .transforms.errors import NotImplementedArgument  # noqa: E402


def numpy_definition(obj, call=None, caller=None):
    """The definition s2sad differentiates a call of `obj` through, or None.
    With `call` (its gast.Call, as written), also the definitions chosen by
    what the call gives (np.convolve's mode, np.max's initial=, a matrix
    norm's ord): a function with a gradient rule keeps its rule for every
    other call, and always within a definition (`caller`), which calls the
    rule. Raises NotImplementedArgument for what no definition implements."""
    try:
        definition = _DEFINITIONS.get(obj)
        chooser = _BY_CALL.get(obj)
    except TypeError:  # unhashable
        return None
    if call is None:
        return definition
    if chooser is None or getattr(caller, "__module__", None) in _OWN_MODULES:
        if definition is not None and obj in _NOT_IMPLEMENTED:
            _refuse_given(obj, _given(obj, call), _NOT_IMPLEMENTED[obj])
        return definition
    given = _given(obj, call)
    chosen = None if given is None else chooser(given)
    return definition if chosen is None else chosen  # (no definition: the rule)


_OWN_MODULES = (__name__, more.__name__, ufuncs.__name__, kw.__name__)


def _given(fn, call):
    """{parameter: node} of `call` bound to numpy's signature of `fn`, or
    None where it does not bind (reported where the call is bound)."""
    import inspect
    if any(type(a).__name__ == "Starred" for a in call.args) or any(
            k.arg is None for k in call.keywords):
        return None
    try:
        bound = inspect.signature(fn).bind(*call.args, **{k.arg: k.value for k in call.keywords})
    except (TypeError, ValueError):
        return None
    return dict(bound.arguments)


def _const(node, missing=object()):
    """The value a node writes as a constant (`1`, `-2`, `'nuc'`, `np.inf`,
    `-np.inf`), or `missing`."""
    kind = type(node).__name__
    if kind == "Constant":
        return node.value
    if kind == "Attribute" and node.attr == "inf" and type(node.value).__name__ == "Name" \
            and node.value.id in ("np", "numpy", "math"):
        return float("inf")
    if kind == "UnaryOp" and type(node.op).__name__ == "USub":
        inner = _const(node.operand, missing)
        if isinstance(inner, (int, float)) and not isinstance(inner, bool):
            return -inner
    return missing


_NOT_CONSTANT = object()


def _dotted(fn):
    """`add.accumulate` for a ufunc's method, else the function's name."""
    owner = getattr(fn, "__self__", None)
    return f"{owner.__name__}.{fn.__name__}" if isinstance(owner, np.ufunc) else fn.__name__


def _refuse_given(fn, given, allowed):
    """Refuse a parameter of `allowed` ({name: (values allowed, what to do)})
    given with another value (or not as a constant)."""
    for name, (values, hint) in allowed.items():
        if name in given and _const(given[name], _NOT_CONSTANT) not in values:
            raise NotImplementedArgument(
                f"s2sad's definition of np.{_dotted(fn)} does not implement its parameter "
                f"'{name}' given as written here. {hint}")


_NOT_IMPLEMENTED = {
    np.interp: {"period": ((None,), "Leave out period (periodic interpolation is not "
                                     "implemented): wrap x into one period with np.mod")},
}


def _median(given):
    """np.median of the flattened array, or along an int axis (keepdims
    written as a constant)."""
    _refuse_given(np.median, given, {
        "out": ((None,), "Leave out out="),
        "overwrite_input": ((False,), "Leave out overwrite_input")})
    keep = _const(given["keepdims"], _NOT_CONSTANT) if "keepdims" in given else False
    if keep not in (True, False):
        raise NotImplementedArgument("s2sad's definition of np.median takes keepdims written "
                                     "as True or False")
    axis = given.get("axis")
    if axis is None or _const(axis, _NOT_CONSTANT) is None:
        if keep:
            raise NotImplementedArgument(
                "s2sad's definition of np.median does not implement keepdims=True without an "
                "axis: reshape the median instead")
        return more.median
    if type(axis).__name__ in ("Tuple", "List"):
        raise NotImplementedArgument(
            "s2sad's definition of np.median takes one int axis (not a tuple): move the axes "
            "together and reshape them into one first")
    return more.median_axis_kept if keep else more.median_axis


def _cov(given):
    _refuse_given(np.cov, given, {
        "fweights": ((None,), "Leave out fweights (weights are not implemented)"),
        "aweights": ((None,), "Leave out aweights (weights are not implemented)"),
        "dtype": ((None,), "Leave out dtype")})
    if "y" in given and _const(given["y"], _NOT_CONSTANT) is not None:
        return more.cov_with_y  # (a matrix: numpy squeezes only a single variable)
    return more.cov


def _convolve(given):
    mode = _const(given["mode"], _NOT_CONSTANT) if "mode" in given else "full"
    chosen = {"full": more.convolve_full, "same": more.convolve_same,
              "valid": more.convolve_valid}.get(mode) if isinstance(mode, str) else None
    if chosen is None:
        raise NotImplementedArgument("s2sad differentiates np.convolve with mode 'full', "
                                     "'same' or 'valid', written as a constant")
    return chosen


def _keywords_chosen(fn, plain, kept, by=("where", "initial"), needs_initial=False):
    """A reduction given where= or initial= (`by`): its definition in
    numpy_definitions_keywords, the one keeping the reduced axes for
    keepdims=True; without them, the rule (None)."""
    def choose(given):
        if not set(by) & set(given):
            return None
        name = fn.__name__
        _refuse_given(fn, given, {"out": ((None,), "Leave out out= (assign the result)")})
        if "dtype" in given and _const(given["dtype"], _NOT_CONSTANT) is not None:
            raise NotImplementedArgument(
                f"s2sad differentiates np.{name} with dtype= float64 only (float, np.float64, "
                f"'float64' or None): compute in float64, and cast the result with "
                f".astype() outside the differentiated function")
        for unsupported in ("mean", "correction"):
            if unsupported in given:
                raise NotImplementedArgument(
                    f"s2sad's definition of np.{name} with where= does not implement "
                    f"'{unsupported}=': leave it out (ddof= is implemented)")
        if needs_initial and "where" in given and "initial" not in given and \
                _const(given["where"], _NOT_CONSTANT) is not True:
            raise NotImplementedArgument(
                f"np.{name} with where= needs initial= (numpy raises ValueError: the "
                f"reduction has no identity): give initial=, e.g. -np.inf for a maximum")
        keep = _const(given["keepdims"], _NOT_CONSTANT) if "keepdims" in given else False
        if keep not in (True, False):
            raise NotImplementedArgument(f"s2sad's definition of np.{name} with "
                                         f"{' or '.join(by)}= takes keepdims written as True "
                                         f"or False")
        return kept if keep else plain
    return choose


_KEYWORD_CHOOSERS = {
    np.sum: _keywords_chosen(np.sum, kw.sum_masked, kw.sum_masked_kept),
    np.prod: _keywords_chosen(np.prod, kw.prod_masked, kw.prod_masked_kept),
    np.nansum: _keywords_chosen(np.nansum, kw.nansum_masked, kw.nansum_masked_kept,
                                by=("where", "initial", "keepdims")),
    np.mean: _keywords_chosen(np.mean, kw.mean_masked, kw.mean_masked_kept, by=("where",)),
    np.var: _keywords_chosen(np.var, kw.var_masked, kw.var_masked_kept, by=("where",)),
    np.std: _keywords_chosen(np.std, kw.std_masked, kw.std_masked_kept, by=("where",)),
    **{f: _keywords_chosen(f, kw.max_masked, kw.max_masked_kept, needs_initial=True)
       for f in (np.max, np.amax)},
    **{f: _keywords_chosen(f, kw.min_masked, kw.min_masked_kept, needs_initial=True)
       for f in (np.min, np.amin)},
}
# (the definitions take where=, initial=, axis= and ddof= by keyword; numpy's out=None and
# keepdims, which chose the definition, are not passed)
_KEYWORD_DECIDED = {d: ("out", "keepdims", "dtype") for d in (
    kw.sum_masked, kw.sum_masked_kept, kw.prod_masked, kw.prod_masked_kept, kw.nansum_masked,
    kw.nansum_masked_kept, kw.mean_masked, kw.mean_masked_kept, kw.var_masked,
    kw.var_masked_kept, kw.std_masked, kw.std_masked_kept, kw.max_masked, kw.max_masked_kept,
    kw.min_masked, kw.min_masked_kept)}


def _diff(given):
    """np.diff with prepend= or append=."""
    if "prepend" not in given and "append" not in given:
        return None
    return kw.diff_padded


def _average(given):
    """np.average with returned= or keepdims= (constants)."""
    flags = []
    for name in ("returned", "keepdims"):
        value = _const(given[name], _NOT_CONSTANT) if name in given else False
        if value not in (True, False):
            raise NotImplementedArgument(f"s2sad's definition of np.average takes {name} "
                                         f"written as True or False")
        flags.append(value is True)
    return {(False, False): average, (True, False): kw.average_returned,
            (False, True): kw.average_kept, (True, True): kw.average_returned_kept}[tuple(flags)]


def _reshape(given):
    if "order" not in given:
        return None
    order = _const(given["order"], _NOT_CONSTANT)
    if order == "C":
        return None  # numpy's default: the rule
    if order == "F":
        return more.reshape_fortran
    raise NotImplementedArgument("s2sad differentiates np.reshape with order 'C' or 'F', "
                                 "written as a constant (order 'A' depends on the memory "
                                 "layout of the array)")


_MATRIX_NORMS = {1: more.norm_1, -1: more.norm_minus_1, 2: more.norm_2, -2: more.norm_minus_2,
                 float("inf"): more.norm_inf, -float("inf"): more.norm_minus_inf,
                 "nuc": more.norm_nuc}


def _norm(given):
    """ord=1, -1, 2, -2, inf, -inf or 'nuc': a matrix norm of a 2-d array
    without axis, else a vector norm (keepdims=True: the rule, or its refusal)."""
    if "ord" not in given:
        return None
    order = _const(given["ord"], _NOT_CONSTANT)
    chosen = _MATRIX_NORMS.get(order) if not isinstance(order, bool) else None
    if chosen is None or ("keepdims" in given and _const(given["keepdims"]) is not False):
        return None  # the rule (None, 'fro', vector orders; anything else refused there)
    axis = given.get("axis")
    if type(axis).__name__ == "Tuple" and len(axis.elts) != 1:
        raise NotImplementedArgument(
            "s2sad differentiates the matrix norms (ord 1, -1, 2, -2, inf, -inf, 'nuc') of a "
            "2-d array without axis: transpose the array instead of giving a pair of axes")
    if type(axis).__name__ == "Tuple":
        return None  # a vector norm over a 1-tuple of axes: the rule
    return chosen


def _svd(given):
    _refuse_given(np.linalg.svd, given, {"hermitian": ((False,), "Leave out hermitian=True "
                                                       "(the general svd gives the same values)")})
    if "compute_uv" in given and _const(given["compute_uv"], _NOT_CONSTANT) is not True:
        _refuse_given(np.linalg.svd, given, {"compute_uv": ((False,), "Write compute_uv as "
                                                             "the constant True or False")})
        return more.svd_values
    _refuse_given(np.linalg.svd, given, {"full_matrices": ((False,), (
        "Pass full_matrices=False: the full U or Vh of a non-square matrix is completed with "
        "vectors the gradient does not determine (the reduced ones suffice: "
        "U[:, :k] @ np.diag(s) @ Vh[:k])"))})
    if "full_matrices" not in given:
        raise NotImplementedArgument(
            "s2sad differentiates np.linalg.svd(a, full_matrices=False) (or compute_uv=False); "
            "numpy's default full_matrices=True completes U or Vh of a non-square matrix with "
            "vectors the gradient does not determine: pass full_matrices=False")
    return more.svd_reduced


# the parameter each definition chosen by a call's constant is chosen by: not passed to it
DECIDED = {**_KEYWORD_DECIDED, average: ("returned", "keepdims"),
           kw.average_returned: ("returned", "keepdims"),
           kw.average_kept: ("returned", "keepdims"),
           kw.average_returned_kept: ("returned", "keepdims"),
           more.svd_values: "compute_uv", more.svd_reduced: "compute_uv",
           more.convolve_full: "mode", more.convolve_same: "mode", more.convolve_valid: "mode",
           more.reshape_fortran: "order", **{d: "ord" for d in _MATRIX_NORMS.values()}}


def definition_arguments(obj, call, definition):
    """The arguments (positional, keyword nodes) `call` passes to
    `definition`: as written, or for a definition chosen by a constant
    (DECIDED), every other one by keyword."""
    decided = DECIDED.get(definition)
    if decided is None:
        return list(call.args), list(call.keywords)
    import gast
    given = _given(obj, call)
    decided = (decided,) if isinstance(decided, str) else decided
    return [], [gast.keyword(arg=k, value=v) for k, v in given.items() if k not in decided]


_BY_CALL = {**_KEYWORD_CHOOSERS, np.diff: _diff, np.average: _average,
            np.cov: _cov, np.convolve: _convolve, np.reshape: _reshape,
            np.linalg.norm: _norm, np.linalg.svd: _svd, np.median: _median}
# np.ptp (keepdims chooses), ufuncs' accumulate and at (numpy_definitions_ufuncs.py)
_DEFINITIONS.update(ufuncs.DEFINITIONS)
_NOT_IMPLEMENTED.update(ufuncs.NOT_IMPLEMENTED)
_BY_CALL[np.ptp] = lambda given: ufuncs._keepdims(given, _const, _NOT_CONSTANT, _refuse_given)


# ---- the README's rule table (s2sad/rule_table.py): what each definition implements ----
TABLE = [
    (np.average, "definition: a; axis: None or an int; weights: None, of a's shape or 1-d along "
                 "axis (differentiated); returned, keepdims: constants"),
    (np.nansum, "definition: a; axis (NaNs: gradient 0); initial=, where=, keepdims="),
    (np.nanmean, "definition: a; axis (NaNs: gradient 0)"),
    (np.cumprod, "definition: a; axis: None or an int"),
    (np.trapezoid, "definition: y; x: None, 1-d along axis or of y's shape (differentiated); "
                   "dx; axis: an int"),
    (np.take, "definition: a; indices (no gradient); axis: None, or an int with 1-d indices"),
    (np.polyval, "definition (Horner): p; x"),
    (np.convolve, "definition: a: 1-d; v: 1-d; mode: 'full', 'same' or 'valid' (a constant)"),
    (np.cov, "definition: m; y; rowvar; bias; ddof (fweights, aweights, dtype refused)"),
    (np.interp, "definition: x; xp (increasing, differentiated); fp; left; right (period "
                "refused)"),
    (np.select, "definition: condlist (no gradient); choicelist (of one shape); default"),
    (np.linalg.matrix_power, "definition: a: a 2-d array; n: an int (negative: of the inverse)"),
    (np.linalg.svd, "definition: a: a 2-d array; full_matrices: False, or compute_uv: False "
                    "(hermitian refused); distinct nonzero singular values"),
    (np.max, "definition with where= (and initial=, which numpy requires with it) or initial=: "
             "np.maximum of initial and the maximum of the kept entries (keepdims too; out= "
             "refused)"),
    (np.amax, "definition with where= / initial= (as np.max)"),
    (np.min, "definition with where= (and initial=) or initial= (as np.max)"),
    (np.amin, "definition with where= / initial= (as np.max)"),
    (np.sum, "definition with where= or initial=: the sum of the kept entries plus initial "
             "(the mask: no gradient; keepdims too; out= refused)"),
    (np.prod, "definition with where= or initial= (the product of the kept entries times "
              "initial)"),
    (np.mean, "definition with where= (the kept entries' mean)"),
    (np.var, "definition with where= (ddof too; mean= and correction= refused)"),
    (np.std, "definition with where= (ddof too; zero spread: gradient 0)"),
    (np.diff, "definition with prepend= / append= (a number or an array, differentiated)"),
    (np.reshape, "definition with order='F' (order 'A' refused)"),
    (np.linalg.eigvalsh, "definition: a; UPLO (np.linalg.eigh's eigenvalues)"),
    (np.meshgrid, "definition: x; y (two arrays); indexing: 'xy' or 'ij' (sparse, copy "
                  "refused)"),
    (np.linalg.norm, "definition with ord 1, -1, 2, -2, inf, -inf, 'nuc': the matrix norm of a "
                     "2-d array without axis, else the vector norm (a pair of axes refused)"),
]
TABLE += ufuncs.TABLE
