"""A write whose index is computed from the array it writes (h[h < 0] = 0,
the in-place ReLU; h[np.argmax(h)] = c): Python evaluates the index once,
before the write. The reverse sweep and the tangent come after the write,
so the index is named first (normalize.written_index) rather than
evaluated again on the written array, which gave wrong gradients."""
import numpy as np
import pytest

from gradcheck import check_grad, check_jvp

X = np.array([0.5, -1.0, 2.0, 0.3, -0.4])


def clamp_negatives(x):
    h = x * 1.0
    h[h < 0] = 0.5
    return np.sum(h ** 2)


def shift_large(x):
    h = x * 1.0
    h[h > 1.0] -= 1.5
    return np.sum(h ** 3)


def replace_largest(x):
    h = x * 2.0
    h[np.argmax(h)] = 0.1
    return np.sum(h * h)


def two_largest(x):
    h = np.sin(x) + x
    h[np.argsort(h)[-2:]] = 0.01
    return np.sum(h * x)


def through_nonzero(x):
    h = x * 1.0
    h[np.nonzero(h < 0)[0]] = 0.25 * h[np.nonzero(h < 0)[0]]
    return np.sum(h ** 2)


def a_band(x):
    h = x * 3.0
    h[(h > -1.0) & (h < 1.0)] = 0.0
    return np.sum(h * x)


def prefix_to_the_largest(x):
    h = x * 1.0
    h[:np.argmax(h)] = 2.0 * h[:np.argmax(h)]
    return np.sum(h ** 2)


def relu_layers(x, W):
    h = x * 1.0
    for _ in range(3):
        h = W @ h
        h[h < 0] = 0.0
    return np.sum(h)


def rows_with_a_negative(A):
    B = A * 1.0
    B[np.min(B, axis=1) < 0, 0] = 0.0
    return np.sum(B * B)


W = np.array([[0.6, -0.2, 0.1, 0.3, 0.2], [0.1, 0.7, -0.5, 0.2, 0.1],
              [-0.3, 0.2, 0.8, 0.1, 0.4], [0.2, 0.1, 0.3, 0.5, -0.6],
              [0.4, -0.1, 0.2, -0.2, 0.9]])
A = np.array([[0.5, -1.0, 2.0], [0.3, 0.4, 1.1], [-0.2, 0.7, 0.9]])

CASES = [(clamp_negatives, (X,)), (shift_large, (X,)), (replace_largest, (X,)),
         (two_largest, (X,)), (through_nonzero, (X,)), (a_band, (X,)),
         (prefix_to_the_largest, (X,)), (relu_layers, (X, W)), (rows_with_a_negative, (A,))]


@pytest.mark.parametrize("f, args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_gradient(f, args, jit):
    check_grad(f, args, jit=jit)


@pytest.mark.parametrize("f, args", CASES, ids=[f.__name__ for f, _ in CASES])
def test_tangent(f, args, jit):
    check_jvp(f, args, jit=jit)


def test_the_index_is_evaluated_once_before_the_write():
    import s2sad
    code = [line.strip() for line in s2sad.grad(clamp_negatives, jit=False).source.splitlines()
            if not line.strip().startswith("#")]  # (comments quote the user's line)
    assert "mask = h < 0" in code and not any("h[h < 0]" in line for line in code)


def test_a_plain_index_keeps_its_form():
    import s2sad

    def shift(x):
        y = np.zeros(x.shape[0] + 1)
        for i in range(x.shape[0]):
            y[i + 1] = x[i] * 2.0
        return np.sum(y * y)
    source = s2sad.grad(shift, jit=False).source
    assert "y[i + 1] = " in source


def shifted_then_clamped(x):
    h = x - 0.2  # a new array, whose tangent the rule gives as dx itself
    h[h < 0.0] = 0.0
    return np.sum(h * h) + np.sum(np.sin(x))


def test_the_tangent_of_a_shifted_array_is_its_own(jit):
    """`dh = dx` for `h = x - 0.2`: the write into h then wrote into dx (the
    caller's tangent), and the tangent of sin(x) read it (found by the
    fuzzer's masked writes: forward and reverse disagreed)."""
    import s2sad
    x = np.array([0.5, -1.0, 2.0, 0.1])
    v = np.array([0.3, -0.7, 1.1, 0.4])
    given = v.copy()
    _, t = s2sad.jvp(shifted_then_clamped, jit=jit)(x, v)
    np.testing.assert_array_equal(v, given)
    eps = 1e-6
    fd = (shifted_then_clamped(x + eps * v) - shifted_then_clamped(x - eps * v)) / (2 * eps)
    np.testing.assert_allclose(t, fd, rtol=1e-6)
