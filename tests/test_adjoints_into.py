"""A helper's vjp that adds into its caller's adjoint (transforms/optimise/
adjoints_into.py): `dA += vjp_f(A, ...)` becomes `vjp_f_into(A, ..., dA)`
where the helper's vjp only ever adds into its fresh adjoint.

Each program is checked against finite differences or a closed form,
compiled and as Python, with the optimisation on and off (the numbers
must not move), and its source says whether the variant was used: where
the precondition holds (a recursion, a helper called in a loop) and where
it does not (the helper rebinds its argument, the caller passes a slice,
the helper's adjoint is read)."""
import numpy as np
import pytest

import s2sad
from gradcheck import check_grad

rng = np.random.default_rng(50)


def det_rows(M, row, used):
    n = M.shape[0]
    if row == n - 2:
        a = -1
        b = -1
        for j in range(n):
            if (used >> j) & 1 == 0:
                if a < 0:
                    a = j
                else:
                    b = j
        return M[row, a] * M[row + 1, b] - M[row, b] * M[row + 1, a]
    total = 0.0
    sign = 1.0
    for j in range(n):
        if (used >> j) & 1 == 0:
            total += sign * M[row, j] * det_rows(M, row + 1, used | (1 << j))
            sign = -sign
    return total


def det(M):
    return det_rows(M, 0, 0)


@pytest.mark.parametrize("n", [2, 3, 5, 6])
def test_recursion_adds_into_one_adjoint(jit, n):
    A = rng.normal(size=(n, n))
    df = s2sad.grad(det, jit=jit)
    g = df(A)
    np.testing.assert_allclose(g, np.linalg.det(A) * np.linalg.inv(A).T, rtol=1e-9, atol=1e-10)
    src = df.source_for(A)
    if n > 2:  # (a 2 x 2 determinant has no recursive call)
        assert "vjp_det_rows_into(M, total2, t2, ddet_rows2, dM)" in src \
            or "_into(" in src, src
        assert "dM += vjp_det_rows" not in src, src
    plain = s2sad.grad(det, jit=jit, optimise="-adjoints_into")
    assert "_into(" not in plain.source_for(A)
    np.testing.assert_allclose(plain(A), g, rtol=1e-12, atol=1e-13)


def row_energy(W, i, x):
    r = 0.0
    for j in range(x.shape[0]):
        r += W[i, j] * x[j]
    return r * r


def energy(W, x):
    s = 0.0
    for i in range(W.shape[0]):
        s += row_energy(W, i, x) * (i + 1.0)
    return s


def test_helper_called_in_a_loop(jit):
    W, x = rng.normal(size=(5, 4)), rng.normal(size=4)
    df = check_grad(energy, (W, x), wrt=(0, 1), jit=jit)
    plain = s2sad.grad(energy, wrt=(0, 1), jit=jit, optimise="-adjoints_into")
    for a, b in zip(df(W, x), plain(W, x)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-13)


def rebinding(A, k):
    A = A * 2.0  # the parameter rebound: its adjoint is not the caller's any more
    return A[k] * A[k]


def calls_rebinding(A):
    s = 0.0
    for k in range(A.shape[0]):
        s += rebinding(A, k)
    return s


def on_a_slice(A, k):
    return np.sum(A * A) * k


def calls_on_slices(A):
    s = 0.0
    for k in range(3):
        s += on_a_slice(A[k:k + 2], k + 1.0)
    return s


def reads_its_adjoint(A, k):
    B = A[::-1]  # a view of A: its adjoint is added into dA reversed
    return B[k] * A[k]


def calls_reading(A):
    s = 0.0
    for k in range(A.shape[0]):
        s += reads_its_adjoint(A, k)
    return s


@pytest.mark.parametrize("f", [calls_rebinding, calls_on_slices, calls_reading])
def test_where_it_may_not_apply_the_numbers_still_agree(jit, f):
    A = rng.normal(size=6)
    (g,) = check_grad(f, (A,), jit=jit)(A)
    plain = s2sad.grad(f, jit=jit, optimise="-adjoints_into")
    np.testing.assert_allclose(g, plain(A), rtol=1e-12, atol=1e-13)


def test_a_slice_is_not_passed_as_the_adjoint():
    """The caller passes A[k:k + 2]: its adjoint is a part of dA, so the
    call keeps its `+=` (into the slice) rather than adding into dA."""
    A = rng.normal(size=6)
    src = s2sad.grad(calls_on_slices, jit=False).source_for(A)
    assert "dA +=" not in src.replace("dA[", "") or "_into(" not in src, src
    assert "_into(A[" not in src, src


def test_a_rebound_parameter_has_no_variant():
    A = rng.normal(size=6)
    src = s2sad.grad(calls_rebinding, jit=False).source_for(A)
    assert "def vjp_rebinding_into" not in src, src
