"""Rules written per argument kinds (`@adjoint(..., when=...)`): where the
kinds settle what a generic runtime helper would decide inside numba (the
ndims of a product's operands, a reduction over the whole array), the
derivative is numpy itself. numba compiles it in less time (each generic
helper cost 0.1-0.4 s of a first call's compile), and it reads as a person
would write it.

Each case is checked against finite differences, compiled and as Python
(and every derivative the tests build checks itself), and its source is
checked for the spelling: finite differences cannot see which one ran.
The systematic grid (tests/systematic) covers every rank pair of np.dot,
np.matmul, `@` and np.linalg.solve."""
import numpy as np
import pytest

import s2sad
from gradcheck import check_grad

rng = np.random.default_rng(11)


def logistic(w, X, y):
    z = X @ w
    return np.mean(np.log1p(np.exp(-y * z)))


def quadratic(x, A, b):
    return 0.5 * x @ (A @ x) - np.dot(b, x)


def row_products(v, M):
    return np.sum(np.tanh(np.matmul(v, M)))


def solved(A, b):
    return np.sum(np.linalg.solve(A, b) ** 2)


def summed(x):
    return np.sum(np.sin(x)) * np.mean(x * x)


MATRIX = rng.normal(size=(4, 4)) + 4.0 * np.eye(4)
CASES = [
    (logistic, (rng.normal(size=3), rng.normal(size=(6, 3)), np.sign(rng.normal(size=6))), 0,
     ["dw = dz @ X", "np.full(log1p.shape, dmean) / log1p.size"]),
    (quadratic, (rng.normal(size=4), MATRIX, rng.normal(size=4)), (0, 1, 2),
     ["np.outer("]),
    (row_products, (rng.normal(size=3), rng.normal(size=(3, 5))), (0, 1),
     ["np.outer(v, ", "M @ "]),
    (solved, (MATRIX, rng.normal(size=4)), (0, 1), ["-np.outer("]),
    (summed, (rng.normal(size=(2, 3)),), 0, ["np.full("]),
]


@pytest.mark.parametrize("f, args, wrt, spelled", CASES, ids=[c[0].__name__ for c in CASES])
def test_known_ndims_differentiate_as_numpy(f, args, wrt, spelled, jit):
    check_grad(f, args, wrt=wrt, jit=jit)
    src = s2sad.grad(f, wrt=wrt, jit=False).source_for(*args)
    for text in spelled:
        assert text in src, (text, src)
    for helper in ("matmul_grad_left", "matmul_grad_right", "unreduce", "reduced_count"):
        assert helper not in src, (helper, src)


def stacked(a, b):
    return np.sum(np.matmul(a, b) ** 2)


def along_axis(x):
    return np.sum(np.mean(x * x, axis=0))


@pytest.mark.parametrize("f, args", [
    (stacked, (rng.normal(size=(2, 3, 4)), rng.normal(size=(4,)))),
    (along_axis, (rng.normal(size=(3, 2)),)),
], ids=["stacked_matmul", "mean_over_an_axis"])
def test_other_kinds_keep_the_general_rule(f, args, jit):
    """A stack of matrices, a reduction over an axis: the general rule (a
    variant that matched them would give the wrong shape)."""
    check_grad(f, args, wrt=0, jit=jit)


def list_mean(x):
    return np.mean([x[0] * x[1], x[1]])


def test_a_list_given_to_a_reduction_keeps_the_general_rule(jit):
    """np.mean of a list literal (no .shape of its own in Python)."""
    check_grad(list_mean, (rng.normal(size=2),), jit=jit)
