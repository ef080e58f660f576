"""A function writing into a module-level array (a work buffer): the
generated derivative writes into the same array and its gradient follows
the values written (transforms/program.py collects it as a module-level
name; it was taken for a local, and the derivative raised NameError). What
the array holds after the derivative ran is not what the function leaves
in it (the reverse sweep restores the values it overwrote). numba takes
module-level arrays as read-only constants: compiled, the derivative falls
back to Python, with a warning."""
import warnings

import numpy as np
import pytest

import s2sad
from gradcheck import numerical_grad

BUF = np.zeros(4)


def through_a_buffer(x):
    BUF[:] = x * 2
    BUF[1:] += BUF[:-1] * x[0]
    return np.sum(BUF ** 2)


def test_gradient():
    x = np.array([0.5, -1.0, 2.0, 0.25])
    want = numerical_grad(through_a_buffer, [x], 0)
    got = s2sad.grad(through_a_buffer, jit=False)(x)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


def test_compiled_falls_back_with_a_warning():
    x = np.array([0.5, -1.0, 2.0, 0.25])
    with pytest.warns(s2sad.NumbaFallbackWarning):
        got = s2sad.grad(through_a_buffer, jit=True)(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_allclose(got, numerical_grad(through_a_buffer, [x], 0), rtol=1e-6,
                                   atol=1e-8)
