"""Python's sum, max and min of an array: numpy's reductions over the first
axis (transforms/frontend/calls/builtin_reductions.py)."""
import numpy as np

from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.calls import builtin_reductions


def reduced(x):
    return sum(x * x)


def largest(v):
    return max(v * 2.0)


def test_sum_of_a_matrix_adds_its_rows():
    before, after = lowered(builtin_reductions, reduced, np.ones((2, 3)))
    assert "sum2 = sum(prod)" in before
    assert after == source('''
        def reduced(x):
            prod = x * x
            sum2 = np.sum(prod, axis=0)
            return sum2''')


def test_max_of_a_vector():
    _, after = lowered(builtin_reductions, largest, np.ones(3))
    assert "np.max(" in after


def test_gradient(jit):
    check_grad(reduced, [np.arange(6.0).reshape(2, 3)], jit=jit)
    check_grad(largest, [np.array([0.5, 3.0, -1.0])], jit=jit)
