"""numpy functions differentiated through s2sad's definitions chosen by the
call (s2sad/definitions/: polyval, convolve, cov, interp,
select, matrix_power, max/min with initial=, matrix norms, order="F"
reshapes, svd) and np.linalg's eigh, svd and pinv rules: ranks, keyword
and positional spellings, special points (knots of interp, ties with
initial, zeros), and the calls that are refused."""
import numpy as np

from .cases import const, make, matrix, rank_name, signed, spread, uni

ANY = uni(-2.0, 2.0)
V = {"x": ((4,), ANY)}
M = {"x": ((3, 4), ANY)}
XP = "np.array([0.0, 1.0, 2.5, 4.0])"
LINALG = dict(second_order=False)  # second derivatives through linalg rules: refused
# polyval, select and matrix_power are loops: their second derivatives are refused (the
# derivative of a tape of the first derivative)
FIRST = dict(second_order=False)


def _distinct(rng, shape):
    """Not symmetric (eigh reads the lower triangle), eigenvalues about 2 apart."""
    return rng.uniform(-0.5, 0.5, shape) + np.diag([0.0, 2.0, 4.0])


def _separated(rng, shape):
    """Singular values apart (svd's vectors need them distinct)."""
    u, _ = np.linalg.qr(rng.normal(size=(shape[0], shape[0])))
    v, _ = np.linalg.qr(rng.normal(size=(shape[1], shape[1])))
    k = min(shape)
    s = np.zeros(shape)
    s[range(k), range(k)] = np.linspace(3.0, 1.0, k)
    return u @ s @ v.T


def polynomial_cases():
    out = []
    for sp, sx in [((3,), ()), ((4,), (3,)), ((2,), (2, 3)), ((1,), (3,))]:
        out.append(make("numpy.polyval", f"polyval/{rank_name(sp)}_{rank_name(sx)}",
                        "np.polyval(p, x)", {"p": (sp, ANY), "x": (sx, ANY)}, **FIRST))
    out.append(make("numpy.polyval", "polyval/keywords", "np.polyval(x=x, p=p)",
                    {"p": ((3,), ANY), "x": ((3,), ANY)}, **FIRST))
    out.append(make("numpy.polyval", "polyval/list", "np.polyval([1.0, p, 2.0], x)",
                    {"p": ((), ANY), "x": ((3,), ANY)}, **FIRST))
    out.append(make("numpy.polyval", "zero/polyval", "np.polyval(p, x)",
                    {"p": ((3,), ANY), "x": ((), const(0.0))}, **FIRST))
    for n, m in [(4, 3), (3, 4), (3, 3), (5, 1), (1, 4)]:
        for mode in ("", ", 'full'", ", mode='same'", ", 'valid'"):
            out.append(make("numpy.convolve", f"convolve/{n}_{m}{mode or '/default'}",
                            f"np.convolve(a, v{mode})", {"a": ((n,), ANY), "v": ((m,), ANY)}))
    out.append(make("numpy.convolve", "convolve/keywords", "np.convolve(v=v, a=a, mode='same')",
                    {"a": ((4,), ANY), "v": ((2,), ANY)}))
    return out


def statistics_cases():
    out = []
    forms = ["", ", rowvar=False", ", bias=True", ", ddof=0", ", ddof=2", ", rowvar=False, bias=True",
             ", None, False, True", ", ddof=1, bias=True"]
    for shape in [(2, 5), (3, 4), (4, 3)]:
        for form in forms:
            out.append(make("numpy.cov", f"cov/{rank_name(shape)}{form}", f"np.cov(x{form})",
                            {"x": (shape, ANY)}))
    for form in ("", ", ddof=0", ", bias=True"):
        out.append(make("numpy.cov", f"cov/1d{form}", f"np.cov(x{form})", V))
    xy = {"x": ((2, 4), ANY), "y": ((4,), ANY)}
    for shape in [(5,), (4,), (2, 3), (1,)]:  # odd and even counts, a matrix (flattened)
        out.append(make("numpy.median", f"median/{rank_name(shape)}", "np.median(x)",
                        {"x": (shape, ANY)}))
    out.append(make("numpy.median", "median/method", "np.median(x, axis=None)", V))
    # along an axis (odd and even counts along it, each spelling, keepdims)
    for shape, spelled in [((3, 4), "np.median(x, 0)"), ((3, 4), "np.median(x, axis=1)"),
                           ((3, 4), "np.median(x, axis=-1, keepdims=True)"),
                           ((2, 3, 2), "np.median(x, axis=1)"),
                           ((2, 3, 2), "np.median(x, axis=0, keepdims=True)"),
                           ((5,), "np.median(x, axis=0)")]:
        out.append(make("numpy.median", f"median/{rank_name(shape)}_"
                        + spelled[12:-1].replace(" ", "").replace(",", "_").replace("=", ""),
                        spelled, {"x": (shape, ANY)}))
    # quantiles (the flattened array, one q; numpy's linear method), at the ends too
    for shape in [(5,), (4,), (2, 3)]:
        for q in ("0.3", "0.0", "1.0", "0.5"):
            out.append(make("numpy.quantile", f"quantile/{rank_name(shape)}_{q}",
                            f"np.quantile(x, {q})", {"x": (shape, ANY)}))
        out.append(make("numpy.percentile", f"percentile/{rank_name(shape)}",
                        "np.percentile(x, 62.5)", {"x": (shape, ANY)}))
    out.append(make("numpy.percentile", "percentile/keywords",
                    "np.percentile(a=x, q=30.0, axis=None)", V))
    for shape in [(4,), (2, 3)]:
        out.append(make("numpy.vdot", f"vdot/{rank_name(shape)}", "np.vdot(x, y)",
                        {"x": (shape, ANY), "y": (shape, ANY)}))
    out += [make("numpy.cov", "cov/y", "np.cov(x, y)", xy),
            make("numpy.cov", "cov/y_keyword", "np.cov(x, y=y, ddof=0)", xy),
            make("numpy.cov", "cov/y_rowvar", "np.cov(x, y, rowvar=False)",
                 {"x": ((4, 2), ANY), "y": ((4,), ANY)}),
            make("numpy.cov", "cov/y_none", "np.cov(x, None)", M)]
    return out


def interpolation_cases():
    out = []
    inside = uni(-0.5, 4.5)
    for sx in [(), (5,), (2, 3)]:
        n = rank_name(sx)
        args = {"x": (sx, inside), "fp": ((4,), ANY)}
        out += [make("numpy.interp", f"interp/{n}", f"np.interp(x, {XP}, fp)", args),
                make("numpy.interp", f"interp/{n}/left_right",
                     f"np.interp(x, {XP}, fp, left=-3.0, right=fp[0] * 2.0)", args),
                make("numpy.interp", f"interp/{n}/xp", "np.interp(x, np.sort(xp), fp)",
                     {"x": (sx, uni(0.5, 1.5)), "xp": ((4,), spread(0.0, 2.0, gap=0.4)),
                      "fp": ((4,), ANY)})]
    out.append(make("numpy.interp", "interp/keywords", f"np.interp(fp=fp, xp={XP}, x=x)",
                    {"x": ((3,), inside), "fp": ((4,), ANY)}))
    # at the knots: numpy evaluates the piece to the right (the last knot: the last value)
    out.append(make("numpy.interp", "kink/interp_knots", f"np.interp(x, {XP}, fp)",
                    {"x": ((), const(np.array([1.0, 2.5, 0.0, 4.0]))), "fp": ((4,), ANY)},
                    kind="tie"))
    both = {"x": ((4,), ANY), "y": ((4,), ANY)}
    out += [make("numpy.select", "select/two", "np.select([x > 0.5, x < -1.0], [x * y, y], 0.5)",
                 both, **FIRST),
            make("numpy.select", "select/default", "np.select([x > 0.0], [x ** 2])", V, **FIRST),
            make("numpy.select", "select/default_array",
                 "np.select([x > 0.0, y > 0.0], [x, y], default=x * y)", both, **FIRST),
            make("numpy.select", "select/matrix", "np.select([x > 0.0, x < -0.5], [x, x * x])",
                 M, **FIRST),
            make("numpy.select", "tie/select_overlap",
                 "np.select([x > -9.0, x > 0.0], [2.0 * x, y])", both, kind="tie", **FIRST)]
    out.append(make("numpy.searchsorted", "searchsorted/constant",
                    f"x * np.searchsorted({XP}, x)", {"x": ((3,), uni(-0.5, 4.5))}))
    return out


def extremum_cases():
    out = []
    spread_m = {"x": ((3, 4), spread(-2.0, 2.0))}
    for fn in ("max", "amax", "min", "amin"):
        for form in ["initial=0.0", "initial=-5.0", "initial=5.0", "axis=0, initial=0.3",
                     "axis=1, initial=-0.1", "axis=(0, 1), initial=0.0", "None, None, False, 0.1",
                     "axis=0, initial=0.0, where=True", "axis=-1, initial=0.5, keepdims=False"]:
            out.append(make(f"numpy.{fn}", f"{fn}/initial/{form}", f"np.{fn}(x, {form})",
                            spread_m))
    out.append(make("numpy.max", "max/initial/method", "x.max(axis=0, initial=0.0)", spread_m))
    # a tie between the maximum and initial: np.maximum's gradient (shared)
    out.append(make("numpy.max", "tie/max_initial", "np.max(x, initial=1.0)",
                    {"x": ((), const(np.array([1.0, -0.5, 0.2])))}, kind="tie"))
    for form in ["", "axis=0", "axis=1, keepdims=True", "axis=(0, 1)", "axis=-1"]:
        out.append(make("numpy.ptp", f"ptp/{form or 'all'}", f"np.ptp(x, {form})" if form
                        else "np.ptp(x)", spread_m))
    return out


def norm_cases():
    out = []
    away = signed(0.2, 2.0)
    for shape in [(3, 3), (2, 4), (4, 2)]:
        for order in ["1", "-1", "np.inf", "-np.inf", "'nuc'", "2", "-2"]:
            out.append(make("numpy.linalg.norm", f"norm/matrix/{rank_name(shape)}/ord={order}",
                            f"np.linalg.norm(x, {order})", {"x": (shape, _separated)}, **LINALG))
    for order in ["1", "-1", "np.inf", "-np.inf", "2", "-2"]:
        out.append(make("numpy.linalg.norm", f"norm/vector/ord={order}",
                        f"np.linalg.norm(x, ord={order})", {"x": ((4,), away)}))
        out.append(make("numpy.linalg.norm", f"norm/vector_axis/ord={order}",
                        f"np.linalg.norm(x, {order}, axis=1)", {"x": ((2, 3), away)}))
    out.append(make("numpy.linalg.norm", "norm/matrix/keywords", "np.linalg.norm(x=x, ord=1, "
                    "axis=None, keepdims=False)", {"x": ((3, 3), away)}))
    out.append(make("numpy.linalg.norm", "norm/matrix/keepdims", "np.linalg.norm(x, 1, "
                    "keepdims=True)", {"x": ((3, 4), away)}))
    out.append(make("numpy.linalg.norm", "tie/norm_inf_rows", "np.linalg.norm(x, np.inf)",
                    {"x": ((), const(np.array([[1.0, -2.0], [2.5, 0.5]])))}, kind="tie"))
    return out


def reshape_cases():
    out = []
    for shape, targets in {(6,): ["(2, 3)", "(3, 2)", "6"], (2, 3): ["(3, 2)", "6", "(1, 6)"],
                           (2, 3, 2): ["(3, 4)", "(12,)", "(2, 2, 3)"]}.items():
        n = rank_name(shape)
        x = {"x": (shape, ANY)}
        for t in targets:
            out.append(make("numpy.reshape", f"reshape/F/{n}/{t}",
                            f"np.reshape(x, {t}, order='F')", x))
            out.append(make("numpy.reshape", f"reshape/F/{n}/method/{t}",
                            f"x.reshape({t}, order='F')", x))
    out.append(make("numpy.reshape", "reshape/F/varargs", "x.reshape(3, 2, order='F')",
                    {"x": ((2, 3), ANY)}))
    out.append(make("numpy.reshape", "reshape/C", "np.reshape(x, (3, 2), order='C')",
                    {"x": ((2, 3), ANY)}))
    return out


def grid_cases():
    out = []
    xy = {"x": ((3,), ANY), "y": ((2,), ANY)}
    for indexing in ("", ", indexing='xy'", ", indexing='ij'"):
        out.append(make("numpy.meshgrid", f"meshgrid/{indexing or 'default'}", "gx * gy ** 2",
                        xy, prelude=(f"gx, gy = np.meshgrid(x, y{indexing})",)))
    out.append(make("numpy.meshgrid", "meshgrid/2d_flattened", "gx * np.sin(gy)",
                    {"x": ((2, 2), ANY), "y": ((3,), ANY)},
                    prelude=("gx, gy = np.meshgrid(x, y)",)))
    return out


def linalg_cases():
    out = []
    out += [make("numpy.linalg.eigh", "eigh/values", "np.linalg.eigh(x)[0]",
                 {"x": ((3, 3), _distinct)}, **LINALG),
            make("numpy.linalg.eigvalsh", "eigvalsh/L", "np.linalg.eigvalsh(x)",
                 {"x": ((3, 3), _distinct)}, **LINALG),
            make("numpy.linalg.eigvalsh", "eigvalsh/U", "np.linalg.eigvalsh(x, 'U')",
                 {"x": ((3, 3), _distinct)}, **LINALG),
            make("numpy.linalg.eigvalsh", "eigvalsh/UPLO_keyword", "np.linalg.eigvalsh(x, UPLO='U')",
                 {"x": ((3, 3), _distinct)}, **LINALG),
            make("numpy.linalg.eigh", "eigh/vectors", "vecs * vecs * vals",
                 {"x": ((3, 3), _distinct)}, prelude=("vals, vecs = np.linalg.eigh(x)",),
                 **LINALG),
            make("numpy.linalg.eigh", "eigh/UPLO_L", "np.linalg.eigh(x, UPLO='L')[0]",
                 {"x": ((3, 3), _distinct)}, **LINALG),
            # numpy reads one triangle: the other's elements have derivative 0 (not symmetric)
            make("numpy.linalg.eigh", "eigh/UPLO_U", "np.linalg.eigh(x, UPLO='U')[0]",
                 {"x": ((3, 3), _distinct)}, **LINALG),
            make("numpy.linalg.eigh", "eigh/U_positional", "vecs * vecs * vals",
                 {"x": ((3, 3), _distinct)}, prelude=("vals, vecs = np.linalg.eigh(x, 'U')",),
                 **LINALG),
            make("numpy.linalg.eigh", "eigh/u_lowercase", "np.linalg.eigh(x, 'u')[0]",
                 {"x": ((3, 3), _distinct)}, **LINALG),
            make("numpy.linalg.eigh", "eigh/stack", "vecs[..., 0] * vals",
                 {"x": ((2, 3, 3), _distinct)}, prelude=("vals, vecs = np.linalg.eigh(x)",),
                 **LINALG),
            make("numpy.linalg.eigh", "eigh/stack_U", "vecs[..., 1] * vals",
                 {"x": ((2, 3, 3), _distinct)},
                 prelude=("vals, vecs = np.linalg.eigh(x, UPLO='U')",), **LINALG),
            make("numpy.linalg.eigh", "eigh/matrix_function",
                 "vecs @ np.diag(vals ** 3) @ vecs.T", {"x": ((3, 3), _distinct)},
                 prelude=("vals, vecs = np.linalg.eigh(x)",), **LINALG)]
    spd = {"x": ((3, 3), matrix(3))}  # diagonally dominant: either triangle's symmetric matrix
    out += [make("numpy.linalg.cholesky", "cholesky", "np.linalg.cholesky(x)", spd, **LINALG),
            make("numpy.linalg.cholesky", "cholesky/upper", "np.linalg.cholesky(x, upper=True)",
                 spd, **LINALG),
            make("numpy.linalg.cholesky", "cholesky/upper=False",
                 "np.linalg.cholesky(x, upper=False)", spd, **LINALG),
            make("numpy.linalg.cholesky", "cholesky/stack", "np.linalg.cholesky(x)",
                 {"x": ((), matrix(3, (2,)))}, **LINALG),
            make("numpy.linalg.cholesky", "cholesky/stack_upper",
                 "np.linalg.cholesky(x, upper=True)", {"x": ((), matrix(3, (2,)))}, **LINALG),
            make("numpy.linalg.cholesky", "cholesky/logdet",
                 "2.0 * np.sum(np.log(np.diag(np.linalg.cholesky(x))))", spd, **LINALG)]
    for shape in [(3, 3), (2, 4), (4, 2)]:
        n = rank_name(shape)
        x = {"x": (shape, _separated)}
        out += [make("numpy.linalg.svd", f"svd/{n}/values", "np.linalg.svd(x, compute_uv=False)",
                     x, **LINALG),
                make("numpy.linalg.svd", f"svd/{n}/values_positional",
                     "np.linalg.svd(x, False, False)", x, **LINALG),
                make("numpy.linalg.svd", f"svd/{n}/reduced", "u @ np.diag(s ** 2) @ vh", x,
                     prelude=("u, s, vh = np.linalg.svd(x, full_matrices=False)",), **LINALG),
                make("numpy.linalg.svd", f"svd/{n}/vectors", "np.outer(u[:, 0], vh[0]) + s[1]",
                     x, prelude=("u, s, vh = np.linalg.svd(x, full_matrices=False)",), **LINALG),
                make("numpy.linalg.pinv", f"pinv/{n}", "np.linalg.pinv(x)", x, **LINALG),
                make("numpy.linalg.pinv", f"pinv/{n}/rcond", "np.linalg.pinv(x, rcond=1e-10)", x,
                     **LINALG)]
    for k in (0, 1, 2, 3, -1, -2):
        out.append(make("numpy.linalg.matrix_power", f"matrix_power/{k}",
                        f"np.linalg.matrix_power(x, {k})", {"x": ((3, 3), matrix(3))}, **FIRST))
    out.append(make("numpy.linalg.matrix_power", "matrix_power/keywords",
                    "np.linalg.matrix_power(n=2, a=x)", {"x": ((2, 2), matrix(2))}, **FIRST))
    return out


def older_definition_cases():
    """The definitions of s2sad/definitions/reductions.py and shapes.py (tests/test_numpy_definitions.py has more)."""
    m = {"x": ((2, 3), ANY)}
    return [make("numpy.average", "average/plain", "np.average(x)", m),
            make("numpy.average", "average/axis_weights", "np.average(x, axis=1, weights=y)",
                 {"x": ((2, 3), ANY), "y": ((3,), uni(0.2, 2.0))}),
            make("numpy.nansum", "nansum/axis", "np.nansum(x, axis=0)", m),
            make("numpy.nanmean", "nanmean/plain", "np.nanmean(x)", m),
            make("numpy.nanmax", "nanmax/plain", "np.nanmax(x)", m),
            make("numpy.nanmax", "nanmax/axis", "np.nanmax(x, axis=1)", m),
            make("numpy.nanmin", "nanmin/plain", "np.nanmin(x)", m),
            make("numpy.nanmin", "nanmin/axis", "np.nanmin(a=x, axis=0)", m),
            make("numpy.cumprod", "cumprod/flat", "np.cumprod(x)", m, **FIRST),
            make("numpy.cumprod", "cumprod/axis", "np.cumprod(x, axis=1)", m, **FIRST),
            make("numpy.cumprod", "cumprod/method", "x.cumprod(axis=0)", m, **FIRST),
            make("numpy.take", "take/axis", "np.take(x, [2, 0], axis=1)", m),
            make("numpy.trapezoid", "trapezoid/dx", "np.trapezoid(x, dx=0.5, axis=0)", m),
            make("numpy.trapezoid", "trapezoid/x", "np.trapezoid(x, x=y)",
                 {"x": ((2, 3), ANY), "y": ((3,), uni(0.2, 2.0))}),
            make("numpy.take", "take/flat", "np.take(x, np.array([4, 1, 1]))", m)]


def refusal_cases():
    sq = {"x": ((3, 3), matrix(3))}
    rows = [
        ("numpy.convolve", "mode_circular", "np.convolve(x, x, mode='circular')", V),
        ("numpy.convolve", "mode_short", "np.convolve(x, x, 's')", V),
        ("numpy.cov", "aweights", "np.cov(x, aweights=np.ones(4))", M),
        ("numpy.cov", "fweights", "np.cov(x, fweights=np.ones(4, dtype=np.int64))", M),
        ("numpy.cov", "dtype", "np.cov(x, dtype=np.float32)", M),
        ("numpy.interp", "period", f"np.interp(x, {XP}, x, period=4.0)", V),
        ("numpy.median", "axis_tuple", "np.median(x, axis=(0, 1))", M),
        ("numpy.median", "keepdims", "np.median(x, keepdims=True)", M),
        ("numpy.quantile", "axis", "np.quantile(x, 0.3, axis=0)", M),
        ("numpy.quantile", "method", "np.quantile(x, 0.3, method='nearest')", M),
        ("numpy.percentile", "several_q", "np.percentile(x, [25.0, 75.0])", M),
        ("numpy.max", "where_without_initial", "np.max(x, where=x > 0)", M),
        ("numpy.max", "initial_out", "np.max(x, initial=0.0, out=np.empty(()))", M),
        ("numpy.reshape", "order_A", "np.reshape(x, (4, 3), order='A')", M),
        ("numpy.reshape", "order_variable", "np.reshape(x, 12, order=('F' if x[0, 0] > 9 "
         "else 'F'))", M),
        ("numpy.linalg.norm", "matrix_ord1_axes", "np.linalg.norm(x, 1, axis=(0, 1))", M),
        ("numpy.linalg.svd", "full_matrices_default", "np.linalg.svd(x)[1]", M),
        ("numpy.linalg.svd", "full_matrices_True", "np.linalg.svd(x, full_matrices=True)[1]", M),
        ("numpy.linalg.svd", "hermitian", "np.linalg.svd(x, compute_uv=False, hermitian=True)",
         sq),
        ("numpy.linalg.eigh", "UPLO_X", "np.linalg.eigh(x, UPLO='X')[0]", sq),
        ("numpy.linalg.pinv", "hermitian", "np.linalg.pinv(x, hermitian=True)", sq),
        ("numpy.linalg.pinv", "rtol", "np.linalg.pinv(x, rtol=1e-8)", sq),
        ("numpy.linalg.svd", "stack", "np.linalg.svd(x, full_matrices=False)[1]",
         {"x": ((2, 3, 3), ANY)}),
    ]
    return [make(rule, f"refuse/{name}", expr, inputs, kind="refuse")
            for rule, name, expr, inputs in rows]


def cases():
    return (polynomial_cases() + statistics_cases() + interpolation_cases() + extremum_cases()
            + norm_cases() + reshape_cases() + grid_cases() + linalg_cases()
            + older_definition_cases()
            + refusal_cases())
