"""A reshape of an array that may not be contiguous (a slice) compiles:
np.reshape and the method become reshape_of (s2sad/runtime/axes.py), which
copies a non-contiguous array first, as numpy does; numba reshapes only
contiguous arrays (autograd's bayesian_neural_net fell back to Python)."""
import numpy as np
import pytest

import s2sad
from gradcheck import check_grad


def layers(weights, x):
    """weights (samples, k): its columns cut into a matrix per sample."""
    W = weights[:, :6].reshape((weights.shape[0], 2, 3))
    b = weights[:, 6:9].reshape(weights.shape[0], 1, 3)
    return np.sum(np.tanh(np.einsum("mnd,mdo->mno", x, W) + b))


def unpack(weights, m, n):
    return weights[:, : m * n].reshape((len(weights), m, n))


def in_a_helper(weights, x):
    return np.sum(np.einsum("mnd,mdo->mno", x, unpack(weights, 2, 3)) ** 2)


def function_form(v):
    return np.sum(np.reshape(v[::2], (2, 2)) @ np.reshape(v[1::2], (2, 2)))


W = np.linspace(-1.0, 1.2, 20).reshape(2, 10)
X = np.linspace(0.3, -0.8, 10).reshape(1, 5, 2)


@pytest.mark.parametrize("fn", [layers, in_a_helper])
def test_reshape_of_a_slice(jit, fn):
    check_grad(fn, [W, X], wrt=(0, 1), jit=jit)


def test_function_form_of_strided_slices(jit):
    check_grad(function_form, [np.linspace(-1.0, 1.0, 8)], jit=jit)


def test_compiled_without_fallback():
    df = s2sad.grad(layers, jit="require")
    assert df(W, X).shape == W.shape
