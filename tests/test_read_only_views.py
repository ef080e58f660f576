"""An adjoint whose first contribution is numpy's read-only view (np.diag
of a matrix, also np.diagonal and np.broadcast_to) and which later contributions
add to: it is a copy (transforms/optimise/cleanup.py, zero propagation).
It was the view itself, and the next `dx += e` raised "output array is
read-only" as Python (numba's np.diag returns a new array)."""
import numpy as np

import s2sad
from gradcheck import check_grad

rng = np.random.default_rng(7)
A = rng.normal(size=(3, 3))


def diag_twice(x):
    return np.sum(np.diag(x) @ A @ np.diag(x))


def diagonal_and_more(x):
    M = np.outer(x, x) + A
    return np.sum(np.diag(M) ** 2) + np.sum(np.sin(x) * x)


def diag_in_a_loop(x):
    s = 0.0
    for k in range(3):
        s = s + np.sum(np.diag(x * k) @ A) * np.sum(x)
    return s


def test_gradients(jit):
    x = rng.normal(size=3)
    for fn in (diag_twice, diagonal_and_more, diag_in_a_loop):
        check_grad(fn, [x], jit=jit)


def test_the_copy_is_made_only_where_the_adjoint_is_added_to():
    d = s2sad.grad(diag_twice, jit=False)
    d(np.ones(3))
    assert d.source.count("np.copy(np.diag(") == 1


def test_second_order(jit):
    x = rng.normal(size=3)
    H = s2sad.hessian(diag_twice, jit=jit)(x)
    np.testing.assert_allclose(H, A + A.T, rtol=1e-10, atol=1e-12)  # (the function is x^T A x)
