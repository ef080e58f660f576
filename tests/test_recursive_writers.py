"""Recursive helpers that write into arrays they are given
(frontend/effects/writing_copies.py): the copy writing into copies of them
calls itself, and the kind of its result (the value and the arrays, a
tuple) is a fixed point reached from the base case, not an unknown.

cmpad's determinant (GradBench's reference algorithm) links the rows and
columns left in two integer arrays it writes and restores at every level;
it crashed the front end with a RecursionError."""
import numpy as np
import pytest

import s2sad
from gradcheck import check_grad

rng = np.random.default_rng(51)


def det_of_minor(A, n, m, r, c):
    R0 = r[n]
    Cj = c[n]
    if m == 1:
        return A[R0, Cj]
    detM = 0.0
    sign = 1.0
    r[n] = r[R0]  # row R0 removed from the sub-minors
    Cj1 = n
    for j in range(m):
        M0j = A[R0, Cj]
        c[Cj1] = c[Cj]  # column Cj removed
        detS = det_of_minor(A, n, m - 1, r, c)
        c[Cj1] = Cj  # and restored
        detM = detM + sign * M0j * detS
        Cj1 = Cj
        Cj = c[Cj]
        sign = -sign
    r[n] = R0
    return detM


def det(A):
    n = A.shape[0]
    r = np.empty(n + 1, dtype=np.int64)
    c = np.empty(n + 1, dtype=np.int64)
    for i in range(n + 1):
        r[i] = i + 1
        c[i] = i + 1
    r[n] = 0
    c[n] = 0
    return det_of_minor(A, n, n, r, c)


@pytest.mark.parametrize("n", [1, 3, 4])
def test_linked_rows_and_columns(jit, n):
    A = rng.normal(size=(n, n))
    assert det(A) == pytest.approx(np.linalg.det(A))
    g = s2sad.grad(det, jit=jit)(A)
    np.testing.assert_allclose(g, np.linalg.det(A) * np.linalg.inv(A).T, rtol=1e-9, atol=1e-12)


def fill(out, x, n):
    if n == 0:
        return
    out[n - 1] = x * n + out[n - 1]
    fill(out, x, n - 1)


def filled(x):
    out = np.ones(4)
    fill(out, x, 4)
    return np.sum(out ** 2)


def test_writes_a_differentiated_array(jit):
    check_grad(filled, (0.7,), jit=jit)


def fill_summed(out, x, n):
    if n == 0:
        return 0.0
    out[n - 1] = x[n - 1] * out[n - 1]
    return fill_summed(out, x, n - 1) + out[n - 1]


def summed(x):
    out = np.arange(1.0, 5.0)
    s = fill_summed(out, x, 4)
    return s * np.sum(out * x)


def test_a_refusal_in_the_copy_names_the_users_line():
    """The copy is read as its tree at the lines of the helper's source: the
    message names this file and the line of the call, not the copy's text."""
    with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
        s2sad.grad(summed, jit=False)(np.ones(4))
    line = fill_summed.__code__.co_firstlineno + 4
    assert f"{__file__}:{line}, in fill_summed" in str(info.value), str(info.value)
    assert "inside an expression" in str(info.value)
