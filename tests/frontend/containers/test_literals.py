"""A list or tuple literal bound once: a variable per element; sum() of one:
additions (transforms/frontend/containers/literals.py)."""
import numpy as np

from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.containers import literals


def literal(a, b):
    v = [1.0, a, 3.0]
    return v[1] * v[-1] + sum([a, b]) + min(a, b, 2.0)


def test_variables_and_additions():
    _, after = lowered(literals, literal, 1.0, 2.0)
    assert after == source('''
        def literal(a, b):
            v_0, v_1, v_2 = (1.0, a, 3.0)
            return v_1 * v_2 + (0 + a + b) + min(min(a, b), 2.0)''')


def test_gradient(jit):
    check_grad(literal, [0.5, 1.5], wrt=(0, 1), jit=jit)


def joined(w, a, b):
    # a tuple of values that need a gradient, joined with another tuple
    parts = (a, np.tanh(b))
    return np.sum(np.dot(np.hstack(parts + (np.ones((3, 1)),)), w) ** 2)


def test_a_tuple_joined_with_a_literal_is_one_literal():
    rs = np.random.RandomState(1)
    _, after = lowered(literals, joined, rs.randn(3, 2), rs.randn(3, 1), rs.randn(3, 1))
    assert "np.hstack((parts_0, parts_1, np.ones((3, 1))))" in after


def test_joined_gradient(jit):
    rs = np.random.RandomState(1)
    check_grad(joined, [rs.randn(3, 2), rs.randn(3, 1), rs.randn(3, 1)], wrt=(0, 1, 2), jit=jit)
