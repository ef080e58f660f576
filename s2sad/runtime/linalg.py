"""scipy.linalg as generated code calls it, and the pieces of its gradient
rules: each helper is plain numpy that numba compiles as it is
(`register_jitable`), with scipy's semantics.

scipy's Cholesky-based functions read one triangle of their matrix (the
lower with lower=True, else the upper) and never the other, so the matrix
they factor is the symmetric one built from that triangle
(`symmetric_from`), and a gradient lands in that triangle only
(`fold_triangle`, the adjoint of `symmetric_from`): finite differences of
scipy's own results agree entry by entry, symmetric input or not.
cho_factor returns the factor in that triangle and a's other triangle as it
was (LAPACK leaves it), as here. The Python versions import scipy.linalg
where they call it: a program that never does waits for no scipy."""
import numpy as np
from s2sad.lazy_numba import overload, register_jitable, types

__all__ = ["np_cholesky", "la_cholesky", "la_cho_factor", "la_cho_solve", "la_solve_triangular", "la_solve",
           "la_inv", "la_det", "solves_symmetric", "symmetric_from", "fold_triangle", "cholesky_grad",
           "cholesky_tangent", "cho_solve_grad_c", "cho_solve_tangent",
           "solve_triangular_grad_a", "solve_triangular_tangent", "solve_grad_a", "solve_tangent",
           "cho_factor_grad", "cho_factor_tangent",
           "solve_triangular_adjoint", "transposes", "la_expm", "expm_frechet", "la_eigh",
           "eigh_grad", "eigh_tangent"]


# ---- triangles --------------------------------------------------------------------
# (loops: numba compiles np.tril / np.triu / np.diag several times slower)

@register_jitable
def _tril(a, k=0):
    """np.tril(a, k) of a square matrix."""
    out = np.zeros(a.shape)
    for i in range(a.shape[0]):
        for j in range(min(i + k + 1, a.shape[1])):
            out[i, j] = a[i, j]
    return out


@register_jitable
def _triu(a, k=0):
    """np.triu(a, k) of a square matrix."""
    out = np.zeros(a.shape)
    for i in range(a.shape[0]):
        for j in range(max(i + k, 0), a.shape[1]):
            out[i, j] = a[i, j]
    return out


@register_jitable
def _diagonal_part(a):
    """np.diag(np.diag(a))."""
    out = np.zeros(a.shape)
    for i in range(a.shape[0]):
        out[i, i] = a[i, i]
    return out


@register_jitable
def symmetric_from(a, lower):
    """The symmetric matrix whose lower (or upper) triangle is a's."""
    n = a.shape[0]
    out = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            out[i, j] = a[max(i, j), min(i, j)] if lower else a[min(i, j), max(i, j)]
    return out


@register_jitable
def fold_triangle(g, lower):
    """The adjoint of symmetric_from: the gradient with respect to the
    matrix's read triangle, from the gradient `g` of the symmetric one."""
    n = g.shape[0]
    out = np.zeros((n, n))
    for i in range(n):
        out[i, i] = g[i, i]
        for j in range(i):
            if lower:
                out[i, j] = g[i, j] + g[j, i]
            else:
                out[j, i] = g[i, j] + g[j, i]
    return out


@register_jitable
def _transpose(a):
    """a.T as a new C-contiguous matrix."""
    out = np.empty((a.shape[1], a.shape[0]))
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            out[j, i] = a[i, j]
    return out


@register_jitable
def _triangle(a, lower):
    return _tril(a) if lower else _triu(a)


@register_jitable
def _substitute(t, b, lower, unit):
    """Solve t x = b for a triangular t (lower or upper) by substitution;
    b a vector or a matrix of right-hand sides."""
    n = t.shape[0]
    rhs = np.ascontiguousarray(b).reshape((n, -1))
    m = rhs.shape[1]
    x = np.empty((n, m))
    for c in range(m):
        for step in range(n):
            i = step if lower else n - 1 - step
            s = rhs[i, c]
            if lower:
                for j in range(i):
                    s -= t[i, j] * x[j, c]
            else:
                for j in range(i + 1, n):
                    s -= t[i, j] * x[j, c]
            x[i, c] = s if unit else s / t[i, i]
    return x.reshape(b.shape)


# ---- the functions ----------------------------------------------------------------

def la_cholesky(a, lower=False, check_finite=True):
    """scipy.linalg.cholesky(a, lower)."""
    import scipy.linalg as _la  # (here: scipy loads when a program uses it)
    return _la.cholesky(a, lower=lower, check_finite=check_finite)


@register_jitable
def _cholesky(a, lower):
    factor = np.linalg.cholesky(symmetric_from(a, lower))
    return factor if lower else _transpose(factor)


@overload(la_cholesky)
def _la_cholesky(a, lower=False, check_finite=True):
    return lambda a, lower=False, check_finite=True: _cholesky(a, lower)


def np_cholesky(a, upper=False):
    """np.linalg.cholesky(a, upper=upper): numba's has no `upper` (numpy then
    reads a's upper triangle and returns the upper factor)."""
    return np.linalg.cholesky(a, upper=upper)


@overload(np_cholesky)
def _np_cholesky(a, upper=False):
    if isinstance(a, types.Array) and a.ndim > 2:  # (s2sad.runtime.stack_overloads: each matrix)
        return lambda a, upper=False: np.linalg.cholesky(a, upper)
    return lambda a, upper=False: _cholesky(a, not upper)


def la_cho_factor(a, lower=False, check_finite=True):
    """scipy.linalg.cho_factor(a, lower): (c, lower)."""
    import scipy.linalg as _la
    return _la.cho_factor(a, lower=lower, check_finite=check_finite)


@register_jitable
def _cho_factor(a, lower):
    # the factor in its triangle, a's other triangle as it was
    c = _cholesky(a, lower)
    n = a.shape[0]
    for i in range(n):
        for j in range(i):
            if lower:
                c[j, i] = a[j, i]
            else:
                c[i, j] = a[i, j]
    return c, lower


@overload(la_cho_factor)
def _la_cho_factor(a, lower=False, check_finite=True):
    return lambda a, lower=False, check_finite=True: _cho_factor(a, lower)


def la_cho_solve(c_and_lower, b, check_finite=True):
    """scipy.linalg.cho_solve((c, lower), b)."""
    import scipy.linalg as _la
    return _la.cho_solve(c_and_lower, b, check_finite=check_finite)


@register_jitable
def _cho_solve(c, lower, b):
    factor = _tril(c) if lower else _transpose(_triu(c))
    return _substitute(_transpose(factor), _substitute(factor, b, True, False), False, False)


@overload(la_cho_solve)
def _la_cho_solve(c_and_lower, b, check_finite=True):
    return lambda c_and_lower, b, check_finite=True: _cho_solve(c_and_lower[0],
                                                                c_and_lower[1], b)


def la_solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, check_finite=True):
    """scipy.linalg.solve_triangular (trans 0/'N', 1/'T' or 2/'C')."""
    import scipy.linalg as _la
    return _la.solve_triangular(a, b, trans=trans, lower=lower, unit_diagonal=unit_diagonal,
                                check_finite=check_finite)


def transposes(trans):
    """Whether solve_triangular's `trans` (0/'N', 1/'T' or 2/'C') solves
    with the transpose."""
    return trans not in (0, "N")


@overload(transposes)
def _transposes(trans):
    if isinstance(trans, (types.UnicodeType, types.StringLiteral)):
        return lambda trans: trans != "N"
    return lambda trans: trans != 0


@register_jitable
def _solve_triangular(a, b, transposed, lower, unit):
    t = _triangle(a, lower)
    if transposed:
        return _substitute(_transpose(t), b, not lower, unit)
    return _substitute(t, b, lower, unit)


@overload(la_solve_triangular)
def _la_solve_triangular(a, b, trans=0, lower=False, unit_diagonal=False, check_finite=True):
    if isinstance(trans, (types.UnicodeType, types.StringLiteral)):
        def impl(a, b, trans=0, lower=False, unit_diagonal=False, check_finite=True):
            return _solve_triangular(a, b, trans != "N", lower, unit_diagonal)
        return impl

    def impl_int(a, b, trans=0, lower=False, unit_diagonal=False, check_finite=True):
        return _solve_triangular(a, b, trans != 0, lower, unit_diagonal)
    return impl_int


def la_solve(a, b, lower=False, check_finite=True, assume_a=None):
    """scipy.linalg.solve(a, b, lower, assume_a) for a general, symmetric or
    positive definite a (the symmetric kinds read one triangle)."""
    import scipy.linalg as _la
    return _la.solve(a, b, lower=lower, check_finite=check_finite, assume_a=assume_a)


@register_jitable
def _symmetric_kind(assume_a):
    return assume_a == "sym" or assume_a == "symmetric" or assume_a == "her" or \
        assume_a == "hermitian" or assume_a == "pos" or assume_a == "positive definite"


def solves_symmetric(assume_a):
    """Whether scipy.linalg.solve's assume_a is a symmetric kind (one triangle read)."""
    return _symmetric_solve(assume_a)


@overload(solves_symmetric)
def _solves_symmetric(assume_a):
    if isinstance(assume_a, (types.UnicodeType, types.StringLiteral)):
        return lambda assume_a: _symmetric_kind(assume_a)
    return lambda assume_a: False


@overload(la_solve)
def _la_solve(a, b, lower=False, check_finite=True, assume_a=None):
    if isinstance(assume_a, (types.UnicodeType, types.StringLiteral)):
        def impl(a, b, lower=False, check_finite=True, assume_a=None):
            if _symmetric_kind(assume_a):
                return np.linalg.solve(symmetric_from(a, lower), b)
            return np.linalg.solve(a, b)
        return impl
    return lambda a, b, lower=False, check_finite=True, assume_a=None: np.linalg.solve(a, b)


def la_inv(a, check_finite=True):
    """scipy.linalg.inv(a)."""
    import scipy.linalg as _la
    return _la.inv(a, check_finite=check_finite)


@overload(la_inv)
def _la_inv(a, check_finite=True):
    return lambda a, check_finite=True: np.linalg.inv(a)


def la_det(a, check_finite=True):
    """scipy.linalg.det(a)."""
    import scipy.linalg as _la
    return _la.det(a, check_finite=check_finite)


@overload(la_det)
def _la_det(a, check_finite=True):
    return lambda a, check_finite=True: np.linalg.det(a)


def la_expm(A):
    """scipy.linalg.expm(A) of a matrix."""
    import scipy.linalg as _la
    return _la.expm(A)


# Higham's (2005) [13/13] Pade approximant with scaling and squaring
_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
           129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
           40840800.0, 960960.0, 16380.0, 182.0, 1.0)


@register_jitable
def _expm(A):
    n = A.shape[0]
    norm = 0.0
    for j in range(n):
        col = 0.0
        for i in range(n):
            col += abs(A[i, j])
        norm = max(norm, col)
    squarings = 0
    if norm > 5.371920351148152:
        squarings = int(np.ceil(np.log2(norm / 5.371920351148152)))
    a = np.ascontiguousarray(A) / 2.0 ** squarings
    b = _PADE13
    ident = np.eye(n)
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2)
             + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * ident)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 \
        + b[0] * ident
    r = np.linalg.solve(v - u, v + u)
    for _ in range(squarings):
        r = r @ r
    return r


@overload(la_expm)
def _la_expm(A):
    return lambda A: _expm(np.asarray(A, dtype=np.float64))


def expm_frechet(A, E):
    """The Frechet derivative of expm at A in the direction E: the top right
    block of the exponential of [[A, E], [0, A]] (Higham's block form)."""
    n = A.shape[0]
    block = np.zeros((2 * n, 2 * n))
    block[:n, :n] = A
    block[n:, n:] = A
    block[:n, n:] = E
    return la_expm(block)[:n, n:].copy()


@overload(expm_frechet)
def _expm_frechet(A, E):
    def impl(A, E):
        n = A.shape[0]
        block = np.zeros((2 * n, 2 * n))
        block[:n, :n] = A
        block[n:, n:] = A
        block[:n, n:] = E
        return _expm(block)[:n, n:].copy()
    return impl


def la_eigh(a, lower=True, check_finite=True):
    """scipy.linalg.eigh(a, lower=lower): (eigenvalues ascending, eigenvectors)."""
    import scipy.linalg as _la
    return _la.eigh(a, lower=lower, check_finite=check_finite)


@overload(la_eigh)
def _la_eigh(a, lower=True, check_finite=True):
    return lambda a, lower=True, check_finite=True: np.linalg.eigh(symmetric_from(a, lower))


@register_jitable
def _eigen_gaps(w):
    """F[i, j] = 1 / (w[j] - w[i]) off the diagonal, 0 on it (distinct
    eigenvalues: equal ones give inf, as the derivative does not exist)."""
    n = w.shape[0]
    f = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            if i != j:
                f[i, j] = 1.0 / (w[j] - w[i])
    return f


def eigh_grad(gw, gv, a, lower=True):
    """The gradient of eigh(a, lower) with respect to a's read triangle, from
    the cotangents of the eigenvalues and eigenvectors (either may be the
    number 0 where that output is unused): V (diag(gw) + F * (V^T gv)) V^T,
    symmetrised."""
    w, v = la_eigh(a, lower=lower)
    inner = np.diag(np.broadcast_to(gw, w.shape)) + _eigen_gaps(w) * (v.T @ np.broadcast_to(
        gv, v.shape))
    m = v @ inner @ v.T
    return fold_triangle(0.5 * (m + m.T), lower)


@overload(eigh_grad)
def _eigh_grad(gw, gv, a, lower=True):
    def impl(gw, gv, a, lower=True):
        w, v = np.linalg.eigh(symmetric_from(a, lower))
        n = w.shape[0]
        inner = _eigen_gaps(w) * (v.T @ (np.zeros((n, n)) + gv))
        cw = np.zeros(n) + gw
        for i in range(n):
            inner[i, i] += cw[i]
        m = v @ inner @ v.T
        return fold_triangle(0.5 * (m + m.T), lower)
    return impl


def eigh_tangent(t, a, lower=True):
    """The tangent of eigh(a, lower): (diag(V^T T V), V (F * (V^T T V))),
    with the eigenvectors the primal has (scipy's, or numba's: their signs
    may differ)."""
    w, v = la_eigh(a, lower=lower)
    p = v.T @ symmetric_from(t, lower) @ v
    return np.diag(p).copy(), v @ (_eigen_gaps(w) * p)


@overload(eigh_tangent)
def _eigh_tangent(t, a, lower=True):
    def impl(t, a, lower=True):
        w, v = np.linalg.eigh(symmetric_from(a, lower))
        p = v.T @ symmetric_from(t, lower) @ v
        return np.diag(p).copy(), v @ (_eigen_gaps(w) * p)
    return impl


# ---- pieces of the gradient rules ------------------------------------------------------

@register_jitable
def cholesky_grad(g, factor, lower):
    """The gradient with respect to a's read triangle of cholesky(a, lower)
    = `factor`, from the factor's gradient `g` (Murray 2016: with L lower,
    L^-T tril_half(L^T g) L^-1, symmetrised, folded into the triangle)."""
    low = factor if lower else _transpose(factor)
    gl = _tril(g) if lower else _transpose(_triu(g))
    p = _tril(low.T @ gl)
    p = p - 0.5 * _diagonal_part(p)
    upper = _transpose(low)
    m = _substitute(upper, _transpose(_substitute(upper, p, False, False)), False,
                    False)  # (L^-T P L^-1)^T
    return fold_triangle(_transpose(m), lower)


@register_jitable
def cholesky_tangent(t, factor, lower):
    """The tangent of cholesky(a, lower) = `factor` along a's tangent `t`:
    L tril_half(L^-1 T L^-T) with T built from t's read triangle."""
    low = factor if lower else _transpose(factor)
    s = symmetric_from(t, lower)
    w = _substitute(low, _transpose(_substitute(low, s, True, False)), True, False)
    p = _tril(w)
    p = p - 0.5 * _diagonal_part(p)
    dl = low @ p
    return dl if lower else _transpose(dl)


@register_jitable
def cho_solve_grad_c(gb, x, c, lower):
    """The gradient of cho_solve((c, lower), b) = x with respect to c, from
    gb = cho_solve((c, lower), g): A = L L^T gets -gb x^T, symmetrised and
    carried to L's triangle; c's other triangle is not read."""
    ga = -np.outer(gb, x) if x.ndim == 1 else -(gb.reshape(x.shape[0], -1) @ x.reshape(
        x.shape[0], -1).T)
    s = ga + ga.T
    if lower:
        return _tril(s @ _tril(c))
    return _triu(_triu(c) @ s)


@register_jitable
def cho_solve_tangent(tc, tb, x, c, lower):
    """The tangent of cho_solve((c, lower), b) = x: A^-1 (tb - dA x), dA =
    dL L^T + L dL^T from the tangent of c's triangle."""
    low = _tril(c) if lower else _transpose(_triu(c))
    dl = _tril(tc) if lower else _transpose(_triu(tc))
    da = dl @ low.T + low @ dl.T
    return _cho_solve(c, lower, tb - (da @ x))


@register_jitable
def solve_triangular_grad_a(gb, x, transposed, lower, unit):
    """The gradient of solve_triangular(a, b) = x with respect to a's
    triangle, from gb = op(a)^-T g: op(a) gets -gb x^T."""
    n = x.shape[0]
    gop = -(np.ascontiguousarray(gb).reshape((n, -1)) @ np.ascontiguousarray(x).reshape(
        (n, -1)).T)
    ga = _transpose(gop) if transposed else gop
    ga = _triangle(ga, lower)
    if unit:
        ga = ga - _diagonal_part(ga)
    return ga


@register_jitable
def solve_triangular_adjoint(g, a, transposed, lower, unit):
    """op(a)^-T g: the gradient of solve_triangular(a, b) with respect to b."""
    return _solve_triangular(a, g, not transposed, lower, unit)


@register_jitable
def solve_triangular_tangent(ta, tb, x, a, transposed, lower, unit):
    t = _triangle(ta, lower)
    if unit:
        t = t - _diagonal_part(t)
    op = _transpose(t) if transposed else t
    n = x.shape[0]
    rhs = tb - (op @ np.ascontiguousarray(x).reshape((n, -1))).reshape(x.shape)
    return _solve_triangular(a, rhs, transposed, lower, unit)


def _symmetric_solve(assume_a):
    return assume_a in ("sym", "symmetric", "her", "hermitian", "pos", "positive definite")


def solve_grad_a(gb, x, lower=False, assume_a=None):
    """The gradient of solve(a, b, lower, assume_a) = x with respect to a,
    from gb = A^-T g: -gb x^T, folded into the read triangle for the
    symmetric kinds."""
    n = x.shape[0]
    ga = -(np.reshape(gb, (n, -1)) @ np.reshape(x, (n, -1)).T)
    return fold_triangle(ga, lower) if _symmetric_solve(assume_a) else ga


def solve_tangent(ta, tb, x, a, lower=False, assume_a=None):
    """The tangent of solve(a, b, lower, assume_a) = x: A^-1 (tb - dA x)."""
    return la_solve(a, tb - _product(symmetric_from(ta, lower) if _symmetric_solve(assume_a)
                                     else ta, x), lower=lower, assume_a=assume_a)


@register_jitable
def _product(m, x):
    n = x.shape[0]
    return (m @ np.ascontiguousarray(x).reshape((n, -1))).reshape(x.shape)


@overload(solve_grad_a)
def _solve_grad_a(gb, x, lower=False, assume_a=None):
    general = not isinstance(assume_a, (types.UnicodeType, types.StringLiteral))

    def impl(gb, x, lower=False, assume_a=None):
        n = x.shape[0]
        ga = -(np.ascontiguousarray(gb).reshape((n, -1)) @ np.ascontiguousarray(x).reshape(
            (n, -1)).T)
        if not general and _symmetric_kind(assume_a):
            return fold_triangle(ga, lower)
        return ga
    return impl


@overload(solve_tangent)
def _solve_tangent(ta, tb, x, a, lower=False, assume_a=None):
    general = not isinstance(assume_a, (types.UnicodeType, types.StringLiteral))

    def impl(ta, tb, x, a, lower=False, assume_a=None):
        if not general and _symmetric_kind(assume_a):
            return np.linalg.solve(symmetric_from(a, lower),
                                   tb - _product(symmetric_from(ta, lower), x))
        return np.linalg.solve(a, tb - _product(ta, x))
    return impl


@register_jitable
def cho_factor_grad(gc, factor, lower):
    """The gradient of cho_factor(a, lower)'s c with respect to a, with
    `factor` = cholesky(a, lower): the factor's through cholesky_grad, the
    other triangle (a copy of a's) as it is."""
    other = _triu(gc, 1) if lower else _tril(gc, -1)
    return cholesky_grad(gc, factor, lower) + other


@register_jitable
def cho_factor_tangent(t, factor, lower):
    """The tangent of cho_factor(a, lower) (factor = cholesky(a, lower)):
    (tangent of c, lower)."""
    other = _triu(t, 1) if lower else _tril(t, -1)
    return cholesky_tangent(t, factor, lower) + other, lower
