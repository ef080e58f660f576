"""Sparse Jacobians and Hessians by colouring: `jacobian(f, sparse=True)`
and `hessian(f, sparse=True)` against analytic Jacobians and finite
differences, the number of passes against the number of colours, and the
colouring itself against its definition."""
import numpy as np
import pytest
import scipy.sparse as sp

import s2sad
from s2sad import colouring, vector_mode
from gradcheck import hessian_by_differences

rng = np.random.default_rng(11)


def laplacian_residual(u):
    """5-point stencil with zero boundary values, plus a cubic term."""
    n, m = u.shape
    r = np.empty((n, m))
    for i in range(n):
        for j in range(m):
            s = 4.0 * u[i, j] + u[i, j] ** 3
            if i > 0:
                s -= u[i - 1, j]
            if i < n - 1:
                s -= u[i + 1, j]
            if j > 0:
                s -= u[i, j - 1]
            if j < m - 1:
                s -= u[i, j + 1]
            r[i, j] = s
    return r


def laplacian_jacobian(u):
    n, m = u.shape
    jac = np.zeros((n * m, n * m))
    for i in range(n):
        for j in range(m):
            row = i * m + j
            jac[row, row] = 4.0 + 3.0 * u[i, j] ** 2
            for di, dj in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                if 0 <= i + di < n and 0 <= j + dj < m:
                    jac[row, (i + di) * m + j + dj] = -1.0
    return jac


def banded(x):
    """Bandwidth 2: y[i] depends on x[i-2 .. i+2]."""
    n = x.shape[0]
    y = np.empty(n)
    for i in range(n):
        s = np.sin(x[i])
        for k in range(max(0, i - 2), min(n, i + 3)):
            s += x[i] * x[k]
        y[i] = s
    return y


def blocks(x):
    """(b, 3) -> (b, 3), each row a map of its own row."""
    y = np.empty_like(x)
    for b in range(x.shape[0]):
        y[b, 0] = x[b, 0] * x[b, 1]
        y[b, 1] = np.exp(x[b, 2]) + x[b, 0]
        y[b, 2] = x[b, 0] * x[b, 1] * x[b, 2]
    return y


def dense_first_row(x):
    """Row 0 dense, the others diagonal: reverse mode needs 2 passes,
    forward mode one per input."""
    y = np.empty(x.shape[0])
    y[0] = np.sum(x * x)
    for i in range(1, x.shape[0]):
        y[i] = np.sin(x[i])
    return y


def chained_quartic(x):
    s = 0.0
    for i in range(x.shape[0] - 1):
        s += (x[i + 1] - x[i] ** 2) ** 2 + x[i] ** 4
    return s


def jacobian_by_differences(f, x, eps=1e-6):
    cols = []
    for k in range(x.size):
        e = np.zeros_like(x)
        e.flat[k] = eps
        cols.append(np.ravel((f(x + e) - f(x - e)) / (2 * eps)))
    return np.array(cols).T


class Passes:
    """The batches of passes run while it is entered (vector_mode.BATCH_HOOKS)."""

    def __enter__(self):
        self.seen = []
        self.hook = lambda derivative, n: self.seen.append(n)
        vector_mode.BATCH_HOOKS.append(self.hook)
        return self.seen

    def __exit__(self, *exc):
        vector_mode.BATCH_HOOKS.remove(self.hook)


def test_laplacian(jit):
    u = rng.uniform(-1.0, 1.0, (7, 6))
    jac = s2sad.jacobian(laplacian_residual, sparse=True, jit=jit)
    with Passes() as probe:
        result = jac(u)
    assert isinstance(result, sp.csr_array) and result.shape == (42, 42)
    expected = laplacian_jacobian(u)
    np.testing.assert_allclose(result.toarray(), expected, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(result.toarray(), jacobian_by_differences(laplacian_residual, u),
                               rtol=1e-6, atol=1e-7)
    assert result.nnz == np.count_nonzero(expected)
    colours = colouring.column_colours(expected)
    # the probe (two dense Jacobians), the compressed passes (the pattern's
    # colours, not 42), and the self-check's reverse pass
    assert probe == [42, 42, colours.max() + 1, 1] and colours.max() + 1 < 10
    with Passes() as again:  # the pattern is kept: only the compressed passes
        jac(u + 0.1)
    assert again == [colours.max() + 1]


def test_banded(jit):
    x = rng.uniform(-1.0, 1.0, 12)
    result = s2sad.jacobian(banded, sparse=True, jit=jit)(x)
    fd = jacobian_by_differences(banded, x)
    np.testing.assert_allclose(result.toarray(), fd, rtol=1e-6, atol=1e-8)
    assert result.nnz == np.count_nonzero(np.abs(fd) > 1e-12)
    band = np.abs(np.subtract.outer(np.arange(12), np.arange(12))) <= 2
    assert not result.toarray()[~band].any()


def test_block_diagonal_with_a_given_pattern(jit):
    x = rng.uniform(0.5, 1.5, (5, 3))
    pattern = sp.block_diag([np.ones((3, 3))] * 5, format="csr")
    jac = s2sad.jacobian(blocks, sparsity=pattern, jit=jit)
    with Passes() as passes:  # no probe: the compressed passes (and the self-check's)
        result = jac(x)
    assert passes == [3, 1]
    fd = jacobian_by_differences(blocks, x)
    np.testing.assert_allclose(result.toarray(), fd, rtol=1e-6, atol=1e-8)
    dense = s2sad.jacobian(blocks, jit=jit)(x).reshape(15, 15)
    np.testing.assert_allclose(result.toarray(), dense, rtol=1e-12, atol=1e-14)


def test_reverse_mode_where_it_takes_fewer_passes(jit):
    x = rng.uniform(0.5, 1.5, 8)
    jac = s2sad.jacobian(dense_first_row, sparse=True, jit=jit)
    jac(x)
    with Passes() as passes:
        result = jac(x)
    assert passes == [2]  # rows coloured: row 0, then every other row
    expected = np.diag(np.cos(x))
    expected[0] = 2.0 * x
    np.testing.assert_allclose(result.toarray(), expected, rtol=1e-12)
    forward = s2sad.jacobian(dense_first_row, sparse=True, mode="fwd", jit=jit)
    np.testing.assert_allclose(forward(x).toarray(), expected, rtol=1e-12)


def test_sparse_hessian(jit):
    x = rng.uniform(0.5, 1.5, 9)
    hess = s2sad.hessian(chained_quartic, sparse=True, jit=jit)
    hess(x)
    with Passes() as passes:
        result = hess(x)
    assert isinstance(result, sp.csr_array) and result.shape == (9, 9)
    assert passes == [3]  # tridiagonal: three colours
    np.testing.assert_allclose(result.toarray(), s2sad.hessian(chained_quartic, jit=jit)(x),
                               rtol=1e-12)
    np.testing.assert_allclose(result.toarray(), hessian_by_differences(chained_quartic, x),
                               rtol=1e-4, atol=1e-4)


def scaled(x, b):
    return x * b


def test_a_zero_in_another_argument_is_no_structural_zero(jit):
    """The probe moves the other float arguments too: a pattern probed
    where b[0] is 0 holds where it is not."""
    x = rng.uniform(0.5, 1.5, 4)
    jac = s2sad.jacobian(scaled, sparse=True, jit=jit)
    b = np.array([0.0, 1.0, 2.0, 3.0])
    np.testing.assert_array_equal(jac(x, b).toarray(), np.diag(b))
    b = np.array([5.0, 1.0, 2.0, 3.0])
    np.testing.assert_array_equal(jac(x, b).toarray(), np.diag(b))


def gathered(x, idx):
    y = np.empty(idx.shape[0])
    for i in range(idx.shape[0]):
        y[i] = 2.0 * x[idx[i]]
    return y


def test_the_pattern_is_kept_per_index_array(jit):
    """An int array's values are part of what a probed pattern is kept for:
    the pattern of x[idx] moves with idx."""
    x = rng.uniform(0.5, 1.5, 5)
    jac = s2sad.jacobian(gathered, sparse=True, jit=jit)
    for idx in ([0, 1, 2], [4, 3, 2], [0, 1, 2]):
        expected = np.zeros((3, 5))
        expected[np.arange(3), idx] = 2.0
        np.testing.assert_array_equal(jac(x, np.array(idx)).toarray(), expected)


def test_a_boolean_pattern_and_a_wrong_one():
    x = rng.uniform(0.5, 1.5, 6)
    band = np.abs(np.subtract.outer(np.arange(6), np.arange(6))) <= 2
    result = s2sad.jacobian(banded, sparsity=band, jit=False)(x)
    np.testing.assert_allclose(result.toarray(), jacobian_by_differences(banded, x),
                               rtol=1e-6, atol=1e-8)
    with pytest.raises(ValueError, match=r"sparsity= has shape \(5, 6\).*\(6, 6\)"):
        s2sad.jacobian(banded, sparsity=band[:5], jit=False)(x)


def test_a_pattern_that_misses_a_nonzero_fails_the_self_check():
    x = rng.uniform(0.5, 1.5, 6)
    tridiagonal = np.abs(np.subtract.outer(np.arange(6), np.arange(6))) <= 1
    with pytest.raises(s2sad.GradientCheckError, match="outside its sparsity pattern"):
        s2sad.jacobian(banded, sparsity=tridiagonal, jit=False, check=True)(x)


def test_a_tuple_output_is_refused():
    with pytest.raises(ValueError, match="one array output"):
        s2sad.jacobian(lambda x: (x * 2.0, x), sparse=True, jit=False)(np.ones(3))


@pytest.mark.parametrize("seed", range(5))
def test_colouring_separates_columns_sharing_a_row(seed):
    pattern = sp.random_array((30, 25), density=0.1, rng=np.random.default_rng(seed)) != 0
    colours = colouring.column_colours(pattern)
    dense = pattern.toarray()
    for i in range(25):
        for j in range(i + 1, 25):
            if (dense[:, i] & dense[:, j]).any():
                assert colours[i] != colours[j]
    assert colouring.is_valid(pattern, colours)
    assert set(colours) == set(range(colours.max() + 1))
