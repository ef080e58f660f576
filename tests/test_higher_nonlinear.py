"""Second and third derivatives through the rules whose gradients are
products (dot, matmul, einsum, kron, cross: cotangent helpers linear in the
cotangent and in the other operand), np.prod and np.cumprod, and linear
algebra (np.linalg and scipy.linalg: helpers differentiated through their
definitions, s2sad/definitions/linalg_pieces.py), against finite
differences of each function's gradient written here by hand in numpy
(higher_orders.py): forward over reverse, reverse over reverse and to third
order, jit on and off."""
import numpy as np
import pytest
import scipy.linalg as sla

from higher_orders import MODES, check_orders

X = np.array([0.3, -0.5, 0.7, 0.9, -0.4, 0.6])
EYE2 = np.eye(2)


def _pad(*parts):
    """The gradient of x from those of its slices x[:k0], x[k0:k1], ... (each
    (start, values))."""
    g = np.zeros(6)
    for start, values in parts:
        values = np.ravel(values)
        g[start:start + values.size] += values
    return g


# ---- elementwise broadcast, reductions, cumulative products ----------------------------------

def broadcast(x):
    return np.sum(np.sin(x.reshape(2, 3) * x[:3]))


def grad_broadcast(x):
    a, b = x.reshape(2, 3), x[:3]
    c = np.cos(a * b)
    return _pad((0, c * b), (0, np.sum(c * a, axis=0)))


def prod_all(x):
    return np.prod(x)


def grad_prod_all(x):
    return np.array([np.prod(np.delete(x, i)) for i in range(x.size)])


def prod_rows(x):
    return np.sum(np.sin(np.prod(x.reshape(2, 3), axis=1)))


def grad_prod_rows(x):
    a = x.reshape(2, 3)
    c = np.cos(np.prod(a, axis=1))
    return np.array([[c[r] * np.prod(np.delete(a[r], j)) for j in range(3)] for r in range(2)])


def cumulative_product(x):
    return np.sum(np.sin(np.cumprod(x)))


def grad_cumulative_product(x):
    c = np.cumprod(x)
    w = np.cos(c) * c
    return np.array([np.sum(w[i:]) / x[i] for i in range(x.size)])


def norm_cubed(x):
    return np.linalg.norm(x) ** 3


def grad_norm_cubed(x):
    return 3.0 * np.sqrt(np.sum(x * x)) * x


# ---- products -------------------------------------------------------------------------------

def dot_nd(x):
    return np.sum(np.sin(np.dot(x.reshape(1, 2, 3), x[:3])))


def matmul_stack(x):
    return np.sum(np.sin(np.matmul(x.reshape(1, 2, 3), x[:3])))


def grad_stack_times_vector(x):
    a, v = x.reshape(2, 3), x[:3]
    c = np.cos(a @ v)
    return _pad((0, np.outer(c, v)), (0, a.T @ c))


def einsum_two(x):
    a = x.reshape(2, 3)
    return np.sum(np.sin(np.einsum("ij,kj->ik", a, a)))


def tensordot(x):
    a = x.reshape(2, 3)
    return np.sum(np.sin(np.tensordot(a, a, axes=([1], [1]))))


def inner(x):
    a = x.reshape(2, 3)
    return np.sum(np.sin(np.inner(a, a)))


def grad_gram(x):
    a = x.reshape(2, 3)
    c = np.cos(a @ a.T)
    return ((c + c.T) @ a).ravel()


def einsum_three(x):
    return np.sin(np.einsum("ij,j,i->", x.reshape(2, 3), x[:3], x[3:5]))


def grad_einsum_three(x):
    a, v, u = x.reshape(2, 3), x[:3], x[3:5]
    ds = np.cos(u @ a @ v)
    return _pad((0, ds * np.outer(u, v)), (0, ds * (a.T @ u)), (3, ds * (a @ v)))


def kron(x):
    return np.sum(np.sin(np.kron(x[:2], x[2:])))


def grad_kron(x):
    p, q = x[:2], x[2:]
    c = np.cos(np.outer(p, q))
    return _pad((0, c @ q), (2, c.T @ p))


def cross(x):
    return np.sum(np.sin(np.cross(x[:3], x[3:])))


def grad_cross(x):
    a, b = x[:3], x[3:]
    g = np.cos(np.cross(a, b))
    return _pad((0, np.cross(b, g)), (3, np.cross(g, a)))


def cross_axes(x):
    a = x.reshape(3, 2)
    return np.sum(np.sin(np.cross(a, 2.0 * a[::-1], axis=0)))


def grad_cross_axes(x):
    a = x.reshape(3, 2)
    b = 2.0 * a[::-1]
    g = np.cos(np.cross(a, b, axis=0))
    return (np.cross(b, g, axis=0) + 2.0 * np.cross(g, a, axis=0)[::-1]).ravel()


# ---- linear algebra -------------------------------------------------------------------------

def det(x):
    return np.sin(np.linalg.det(x[:4].reshape(2, 2) + 3.0 * np.eye(2)))


def grad_det(x):
    a = x[:4].reshape(2, 2) + 3.0 * EYE2
    d = np.linalg.det(a)
    return _pad((0, np.cos(d) * d * np.linalg.inv(a).T))


def inv(x):
    return np.sum(np.sin(np.linalg.inv(x[:4].reshape(2, 2) + 3.0 * np.eye(2))))


def grad_inv(x):
    b = np.linalg.inv(x[:4].reshape(2, 2) + 3.0 * EYE2)
    return _pad((0, -(b.T @ np.cos(b) @ b.T)))


def solve(x):
    return np.sum(np.sin(np.linalg.solve(x[:4].reshape(2, 2) + 3.0 * np.eye(2), x[4:])))


def grad_solve(x):
    a = x[:4].reshape(2, 2) + 3.0 * EYE2
    y = np.linalg.solve(a, x[4:])
    gb = np.linalg.solve(a.T, np.cos(y))
    return _pad((0, -np.outer(gb, y)), (4, gb))


def slogdet(x):
    sign, logdet = np.linalg.slogdet(x[:4].reshape(2, 2) + 3.0 * np.eye(2))
    return np.sin(logdet)


def grad_slogdet(x):
    a = x[:4].reshape(2, 2) + 3.0 * EYE2
    return _pad((0, np.cos(np.linalg.slogdet(a)[1]) * np.linalg.inv(a).T))


def _spd(x):
    a = x[:4].reshape(2, 2)
    return a @ a.T + np.diag(np.array([3.0, 4.0]))


def _through_spd(x, sym):
    """The gradient of x[:4] (a) from `sym`, the symmetric gradient of a
    function of _spd(x) that reads one triangle."""
    return _pad((0, 2.0 * sym @ x[:4].reshape(2, 2)))


def cholesky(x):
    a = x[:4].reshape(2, 2)
    return np.sum(np.sin(np.linalg.cholesky(a @ a.T + np.diag(np.array([3.0, 4.0])))))


def grad_cholesky(x):
    # Murray (2016): S's gradient L^-T P L^-1, P = L^T Lbar with its upper part dropped and
    # its diagonal halved, symmetrised
    low = np.linalg.cholesky(_spd(x))
    p = np.tril(low.T @ np.tril(np.cos(low)))
    p -= 0.5 * np.diag(np.diag(p))
    s = np.linalg.solve(low.T, np.linalg.solve(low.T, p.T).T)
    return _through_spd(x, 0.5 * (s + s.T))


def eigh(x):
    a = x[:4].reshape(2, 2)
    w, v = np.linalg.eigh(a @ a.T + np.diag(np.array([3.0, 4.0])))
    return np.sum(np.sin(w))


def grad_eigh(x):
    w, v = np.linalg.eigh(_spd(x))
    return _through_spd(x, v @ np.diag(np.cos(w)) @ v.T)


def expm(x):
    return np.sum(np.sin(sla.expm(x[:4].reshape(2, 2) * 0.5)))


def grad_expm(x):
    a = x[:4].reshape(2, 2) * 0.5
    return _pad((0, 0.5 * sla.expm_frechet(a.T, np.cos(sla.expm(a)), compute_expm=False)))


def singular_values(x):
    return np.sum(np.sin(np.linalg.svd(x.reshape(2, 3), compute_uv=False)))


def grad_singular_values(x):
    u, s, vh = np.linalg.svd(x.reshape(2, 3), full_matrices=False)
    return ((u * np.cos(s)) @ vh).ravel()


def svd_reconstruction(x):
    # every factor's cotangent (svd_grad): the product is x again, so the gradient is cos(x)
    u, s, vh = np.linalg.svd(x.reshape(2, 3), full_matrices=False)
    return np.sum(np.sin((u * s) @ vh))


def grad_svd_reconstruction(x):
    return np.cos(x)


def solve_triangular(x):
    a = x[:4].reshape(2, 2) + 3.0 * np.eye(2)
    return np.sum(np.sin(sla.solve_triangular(a, x[4:], lower=True)))


def grad_solve_triangular(x):
    t = np.tril(x[:4].reshape(2, 2) + 3.0 * EYE2)
    y = np.linalg.solve(t, x[4:])
    gb = np.linalg.solve(t.T, np.cos(y))
    return _pad((0, np.tril(-np.outer(gb, y))), (4, gb))


def cho_solve(x):
    a = x[:4].reshape(2, 2)
    c = sla.cho_factor(a @ a.T + np.diag(np.array([3.0, 4.0])))
    return np.sum(np.sin(sla.cho_solve(c, x[4:])))


def grad_cho_solve(x):
    s = _spd(x)
    y = np.linalg.solve(s, x[4:])
    gb = np.linalg.solve(s, np.cos(y))
    return _through_spd(x, -0.5 * (np.outer(gb, y) + np.outer(y, gb))) + _pad((4, gb))


def solve_symmetric(x):
    # assume_a="sym": the lower triangle read (the matrix is not symmetric)
    a = x[:4].reshape(2, 2) + 3.0 * np.eye(2)
    return np.sum(np.sin(sla.solve(a, x[4:], lower=True, assume_a="sym")))


def grad_solve_symmetric(x):
    low = np.tril(x[:4].reshape(2, 2) + 3.0 * EYE2)
    s = low + np.tril(low, -1).T
    y = np.linalg.solve(s, x[4:])
    gs = -np.outer(np.linalg.solve(s, np.cos(y)), y)
    folded = np.tril(gs + gs.T, -1) + np.diag(np.diag(gs))
    return _pad((0, folded), (4, np.linalg.solve(s, np.cos(y))))


# name: (f, its gradient, numba cannot compile the derivatives)
CASES = {
    "broadcast": (broadcast, grad_broadcast, False),
    "prod_all": (prod_all, grad_prod_all, False),
    "prod_rows": (prod_rows, grad_prod_rows, False),
    "cumulative_product": (cumulative_product, grad_cumulative_product, False),
    "norm_cubed": (norm_cubed, grad_norm_cubed, False),
    "dot_nd": (dot_nd, grad_stack_times_vector, False),
    "matmul_stack": (matmul_stack, grad_stack_times_vector, False),
    "einsum_two": (einsum_two, grad_gram, False),
    "tensordot": (tensordot, grad_gram, False),
    "inner": (inner, grad_gram, False),
    "einsum_three": (einsum_three, grad_einsum_three, False),
    "kron": (kron, grad_kron, False),
    "cross": (cross, grad_cross, False),
    "cross_axes": (cross_axes, grad_cross_axes, False),
    "det": (det, grad_det, False),
    "inv": (inv, grad_inv, False),
    "solve": (solve, grad_solve, False),
    "slogdet": (slogdet, grad_slogdet, False),
    "cholesky": (cholesky, grad_cholesky, False),
    "eigh": (eigh, grad_eigh, False),
    "expm": (expm, grad_expm, False),
    "singular_values": (singular_values, grad_singular_values, False),
    # (reverse over reverse, and third order: the cotangent of svd's tuple of factors, shapes that
    # differ, is a list numba cannot hold: that derivative runs as Python)
    "svd_reconstruction": (svd_reconstruction, grad_svd_reconstruction,
                           ("rev_over_rev", "third")),
    "solve_triangular": (solve_triangular, grad_solve_triangular, False),
    "cho_solve": (cho_solve, grad_cho_solve, False),
    "solve_symmetric": (solve_symmetric, grad_solve_symmetric, False),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", list(CASES))
def test_rule_to_third_order(case, mode, jit):
    f, grad_f, falls_back = CASES[case]
    if isinstance(falls_back, tuple):  # (only in these modes)
        falls_back = mode in falls_back
    check_orders(f, grad_f, X, mode, jit, falls_back=falls_back)
