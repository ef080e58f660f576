"""scipy.special and scipy.linalg: every rule over ranks, broadcasting
partners, axis forms and keyword spellings, special points (xlogy at x = 0,
the Bessel functions at 0, the normal's far tail), non-symmetric matrices
(scipy reads one triangle), and the calls the rules refuse."""
import numpy as np
import scipy.special

from .cases import SHAPES, const, make, matrix, rank_name, signed, uni

SP = "scipy.special"
LA = "scipy.linalg"
ANY = uni(-2.0, 2.0)
UNIT = uni(0.05, 0.95)

UNARY = {"gammaln": uni(0.3, 4.0), "digamma": uni(0.3, 4.0), "psi": uni(0.3, 4.0),
         "erf": ANY, "erfc": ANY, "erfinv": uni(-0.9, 0.9), "ndtr": uni(-3.0, 3.0),
         "log_ndtr": uni(-8.0, 3.0), "ndtri": UNIT, "expit": uni(-4.0, 4.0), "logit": UNIT,
         "log_expit": uni(-5.0, 5.0), "i0": signed(0.1, 3.0), "i1": signed(0.1, 3.0),
         "i0e": signed(0.1, 3.0), "i1e": signed(0.1, 3.0)}
BINARY = {"betaln": (uni(0.3, 3.0), uni(0.3, 3.0)), "xlogy": (ANY, uni(0.2, 3.0)),
          "xlog1py": (ANY, uni(-0.8, 3.0))}
PAIRS = [((), ()), ((3,), ()), ((), (3,)), ((2, 3), (3,)), ((2, 1), (1, 3))]


def _rule(name):
    # the rule's name is the function's (scipy.special.digamma is psi)
    return f"{SP}.{getattr(scipy.special, name).__name__}"


def special_cases():
    out = []
    for name, dom in UNARY.items():
        for shape in (SHAPES[0], SHAPES[1], SHAPES[2]):
            out.append(make(_rule(name), f"{name}/{rank_name(shape)}", f"{SP}.{name}(x)",
                            {"x": (shape, dom)}))
    out.append(make(_rule("gammaln"), "gammaln/negative", f"{SP}.gammaln(x)",
                    {"x": ((3,), uni(-1.8, -1.2))}))
    for name in ("i0", "i1", "i0e", "i1e"):
        out.append(make(_rule(name), f"zero/{name}", f"{SP}.{name}(x)",
                        {"x": ((), const(np.array([0.0, 0.5, -0.5])))}))
    for name, (dx, dy) in BINARY.items():
        for sx, sy in PAIRS:
            out.append(make(_rule(name), f"{name}/{rank_name(sx)}_{rank_name(sy)}",
                            f"{SP}.{name}(x, y)", {"x": (sx, dx), "y": (sy, dy)}))
    out.append(make(_rule("xlogy"), "zero/xlogy(0, y)", f"{SP}.xlogy(x, y)",
                    {"x": ((), const(np.zeros(3))), "y": ((3,), uni(0.2, 3.0))}))
    out.append(make(_rule("xlog1py"), "zero/xlog1py(0, y)", f"{SP}.xlog1py(x, y)",
                    {"x": ((), const(np.zeros(3))), "y": ((3,), uni(-0.5, 3.0))}))
    for n in (0, 1, 2):
        for shape in (SHAPES[0], SHAPES[2]):
            out.append(make(_rule("polygamma"), f"polygamma/{n}/{rank_name(shape)}",
                            f"{SP}.polygamma({n}, x)", {"x": (shape, uni(0.3, 4.0))}))
    out.append(make(_rule("polygamma"), "polygamma/keywords", f"{SP}.polygamma(n=3, x=x)",
                    {"x": ((3,), uni(0.5, 3.0))}))
    for d in (1, 3):
        for shape in (SHAPES[0], SHAPES[1]):
            out.append(make(_rule("multigammaln"), f"multigammaln/{d}/{rank_name(shape)}",
                            f"{SP}.multigammaln(x, {d})", {"x": (shape, uni(1.5, 4.0))}))
    out.append(make(_rule("multigammaln"), "multigammaln/keywords",
                    f"{SP}.multigammaln(a=x, d=2)", {"x": ((), uni(1.0, 3.0))}))
    return out


AXES = {1: [None, 0, -1], 2: [None, 0, 1, -1, (0, 1)], 3: [None, 1, (0, 2), (-1, 0)]}


def _axis_text(axis):
    return "" if axis is None else f", axis={axis}"


def softmax_cases():
    out = []
    for rank, axes in AXES.items():
        shape = SHAPES[rank]
        n = rank_name(shape)
        for axis in axes:
            a = _axis_text(axis)
            out.append(make(_rule("logsumexp"), f"logsumexp/{n}{a}", f"{SP}.logsumexp(x{a})",
                            {"x": (shape, ANY)}))
            out.append(make(_rule("logsumexp"), f"logsumexp/{n}{a}/keepdims",
                            f"{SP}.logsumexp(x{a}, keepdims=True)", {"x": (shape, ANY)}))
            out.append(make(_rule("softmax"), f"softmax/{n}{a}", f"{SP}.softmax(x{a})",
                            {"x": (shape, ANY)}))
            out.append(make(_rule("log_softmax"), f"log_softmax/{n}{a}",
                            f"{SP}.log_softmax(x{a})", {"x": (shape, ANY)}))
    # constant weights b, of a's shape or broadcasting to it
    for name, sb in [("same", (2, 3)), ("row", (3,)), ("scalar", ())]:
        out.append(make(_rule("logsumexp"), f"logsumexp/b={name}",
                        f"{SP}.logsumexp(x, axis=1, b=b)",
                        {"x": ((2, 3), ANY), "b": (sb, uni(0.2, 2.0))}, wrt=(0,)))
    out.append(make(_rule("logsumexp"), "logsumexp/positional", f"{SP}.logsumexp(x, 0)",
                    {"x": ((2, 3), ANY)}))
    out.append(make(_rule("logsumexp"), "logsumexp/b_keepdims",
                    f"{SP}.logsumexp(x, axis=0, b=b, keepdims=True)",
                    {"x": ((2, 3), ANY), "b": ((2, 3), uni(0.2, 2.0))}, wrt=(0,)))
    out.append(make(_rule("logsumexp"), "logsumexp/-inf",
                    f"{SP}.logsumexp(x + np.array([0.0, -np.inf, 0.0]), axis=-1)",
                    {"x": ((2, 3), ANY)}))
    out.append(make(_rule("softmax"), "softmax/positional", f"{SP}.softmax(x, 1)",
                    {"x": ((2, 3), ANY)}))
    return out


SPD = matrix(3)  # diagonally dominant: the symmetric matrix either triangle makes is too


def linalg_cases():
    out = []
    first = dict(second_order=False)  # second derivatives through linalg rules: refused
    m = {"x": ((3, 3), SPD)}
    for spelling in ("", ", lower=True", ", lower=False", ", check_finite=False"):
        out.append(make(f"{LA}.cholesky", f"cholesky{spelling}",
                        f"{LA}.cholesky(x{spelling})", m, **first))
        out.append(make(f"{LA}.cho_factor", f"cho_factor{spelling}",
                        f"{LA}.cho_factor(x{spelling})[0]", m, **first))
    for rank in (1, 2):
        shape = (3,) if rank == 1 else (3, 2)
        r = rank_name(shape)
        xy = {"x": ((3, 3), SPD), "y": (shape, ANY)}
        for lower in (True, False):
            out.append(make(f"{LA}.cho_solve", f"cho_solve/{r}/lower={lower}",
                            f"{LA}.cho_solve((c, low), y)", xy, **first,
                            prelude=(f"c, low = {LA}.cho_factor(x, lower={lower})",)))
        out.append(make(f"{LA}.cho_solve", f"cho_solve/{r}/pair", f"{LA}.cho_solve(cf, y)",
                        xy, **first, prelude=(f"cf = {LA}.cho_factor(x)",)))
        out.append(make(f"{LA}.cho_solve", f"cho_solve/{r}/keywords",
                        f"{LA}.cho_solve(c_and_lower=cf, b=y, check_finite=False)", xy,
                        **first, prelude=(f"cf = {LA}.cho_factor(x, lower=True)",)))
        for trans in (0, 1, 2, "'N'", "'T'", "'C'"):
            for lower in (True, False):
                out.append(make(f"{LA}.solve_triangular",
                                f"solve_triangular/{r}/trans={trans}/lower={lower}",
                                f"{LA}.solve_triangular(x, y, trans={trans}, lower={lower})",
                                xy, **first))
        out.append(make(f"{LA}.solve_triangular", f"solve_triangular/{r}/unit_diagonal",
                        f"{LA}.solve_triangular(x, y, lower=True, unit_diagonal=True)", xy,
                        **first))
        out.append(make(f"{LA}.solve_triangular", f"solve_triangular/{r}/default",
                        f"{LA}.solve_triangular(x, y)", xy, **first))
        for spelling in ("", ", assume_a='gen'", ", assume_a='sym'", ", assume_a='pos'",
                         ", assume_a='pos', lower=True", ", assume_a='symmetric', lower=True",
                         ", check_finite=False"):
            out.append(make(f"{LA}.solve", f"solve/{r}{spelling}", f"{LA}.solve(x, y{spelling})",
                            xy, **first))
    for spelling in ("", ", check_finite=False"):
        out.append(make(f"{LA}.inv", f"inv{spelling}", f"{LA}.inv(x{spelling})",
                        {"x": ((3, 3), matrix(3))}, **first))
        out.append(make(f"{LA}.det", f"det{spelling}", f"{LA}.det(x{spelling})",
                        {"x": ((3, 3), matrix(3, sign=-1.0))}, **first))
    for name, scale in [("small", 0.3), ("scaled", 4.0)]:
        out.append(make(f"{LA}.expm", f"expm/{name}", f"{LA}.expm(x)",
                        {"x": ((3, 3), uni(-scale, scale))}, **first))
    out.append(make(f"{LA}.expm", "expm/keyword", f"{LA}.expm(A=x)",
                    {"x": ((2, 2), uni(-1.0, 1.0))}, **first))
    # eigh: eigenvalues apart; expressions the eigenvectors' signs do not change
    spread_out = {"x": ((3, 3), _distinct_eigenvalues)}
    for spelling in ("", ", lower=False", ", lower=True, check_finite=False"):
        out.append(make(f"{LA}.eigh", f"eigh/values{spelling}", f"{LA}.eigh(x{spelling})[0]",
                        spread_out, **first))
        out.append(make(f"{LA}.eigh", f"eigh/vectors{spelling}", "vecs * vecs * vals",
                        spread_out, **first,
                        prelude=(f"vals, vecs = {LA}.eigh(x{spelling})",)))
    out.append(make(f"{LA}.eigh", "eigh/matrix_function", "vecs @ np.diag(vals ** 3) @ vecs.T",
                    spread_out, **first, prelude=(f"vals, vecs = {LA}.eigh(x)",)))
    return out


def _distinct_eigenvalues(rng, shape):
    """Not symmetric (eigh reads one triangle), eigenvalues about 2 apart."""
    m = rng.uniform(-0.5, 0.5, shape)
    return m + np.diag([0.0, 2.0, 4.0])


def refusal_cases():
    m = {"x": ((3, 3), SPD)}
    xy = {"x": ((3, 3), SPD), "y": ((3,), ANY)}
    rows = [
        (_rule("logsumexp"), "return_sign", f"{SP}.logsumexp(x, return_sign=True)[0]",
         {"x": ((3,), ANY)}),
        (_rule("logsumexp"), "b_needs_gradient", f"{SP}.logsumexp(x, b=y)",
         {"x": ((3,), ANY), "y": ((3,), uni(0.2, 2.0))}),
        (_rule("polygamma"), "float_order", f"{SP}.polygamma(x, 2.0)", {"x": ((), uni(1, 2))}),
        (_rule("multigammaln"), "d_array", f"{SP}.multigammaln(2.5, x)", {"x": ((), uni(1, 2))}),
        (f"{LA}.cholesky", "overwrite_a", f"{LA}.cholesky(x, overwrite_a=True)", m),
        (f"{LA}.cholesky", "lower_variable", f"{LA}.cholesky(x, lower=bool(x[0, 0] > 0))", m),
        (f"{LA}.solve", "assume_a_banded", f"{LA}.solve(x, y, assume_a='banded')", xy),
        (f"{LA}.solve", "transposed", f"{LA}.solve(x, y, transposed=True)", xy),
        (f"{LA}.solve_triangular", "trans_3", f"{LA}.solve_triangular(x, y, trans=3)", xy),
        (f"{LA}.inv", "overwrite_a", f"{LA}.inv(x, overwrite_a=True)", m),
        (f"{LA}.eigh", "eigvals_only", f"{LA}.eigh(x, eigvals_only=True)", m),
        (f"{LA}.eigh", "b", f"{LA}.eigh(x, b=y)[0]", {"x": ((3, 3), SPD), "y": ((3, 3), SPD)}),
    ]
    return [make(rule, f"refuse/{name}", expr, inputs, kind="refuse")
            for rule, name, expr, inputs in rows]


def cases():
    return special_cases() + softmax_cases() + linalg_cases() + refusal_cases()
