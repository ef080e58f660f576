"""has_aux: `return pair` must be a tuple of two values, checked once the
kinds are known (transforms/frontend/containers/aux_pairs.py)."""
import numpy as np
import pytest

import s2sad
from frontend.passes import lowered
from gradcheck import numerical_grad
from s2sad.transforms.frontend.containers import aux_pairs


def pair_of(x):
    return np.sum(x ** 2), x[0]


def returns_pair(x):
    p = pair_of(x)
    return p


def returns_three(x):
    p = (np.sum(x), x[0], x[1])
    return p


def test_a_pair_passes():
    before, after = lowered(aux_pairs, returns_pair, np.ones(3), has_aux=True)
    assert before == after


def test_three_values_are_refused():
    with pytest.raises(TypeError, match="two-element tuple"):
        lowered(aux_pairs, returns_three, np.ones(3), has_aux=True)


def test_gradient(jit):
    x = np.array([1.0, -2.0, 0.5])
    g, aux = s2sad.grad(returns_pair, has_aux=True, jit=jit)(x)
    np.testing.assert_allclose(g, numerical_grad(lambda u: pair_of(u)[0], [x], 0), rtol=1e-6)
    assert aux == 1.0
