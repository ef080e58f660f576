"""Python's sum, max and min of an array: numpy's reductions over the first
axis (transforms/frontend/calls/builtin_reductions.py)."""
import numpy as np
import pytest

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


def started(x):
    return sum(x * x, 2) * sum(x * x, start=1.5)


def test_sum_with_a_start_adds_it_first():
    # (builtin_forms.py wrote the start first; this pass sums the rows)
    _, after = lowered(builtin_reductions, started, np.ones((2, 3)))
    assert after == source('''
        def started(x):
            prod = x * x
            sum2 = np.sum(prod, axis=0)
            total = 2 + sum2
            prod2 = x * x
            sum3 = np.sum(prod2, axis=0)
            total2 = 1.5 + sum3
            result = total * total2
            return result''')


def test_max_of_a_vector():
    _, after = lowered(builtin_reductions, largest, np.ones(3))
    assert "np.max(" in after


def test_gradient(jit):
    check_grad(reduced, [np.arange(6.0).reshape(2, 3)], jit=jit)
    check_grad(started, [np.arange(6.0).reshape(2, 3)], jit=jit)
    check_grad(started, [np.array([0.5, 3.0, -1.0])], jit=jit)
    check_grad(largest, [np.array([0.5, 3.0, -1.0])], jit=jit)


def smallest_of_a_row(x):
    return min(x[1]) ** 2 + max(x[0])


def started_by_rows(x):
    return sum(x[0], start=1.5) ** 2 + sum(x[1], 0.5)


def started_over_items(x):
    return sum((v * v for v in x[0]), start=2.0) * x[1, 0]


def test_min_and_max_of_a_row():
    """(min(x[0]) was bound to the two-argument rule: refused.)"""
    _, after = lowered(builtin_reductions, smallest_of_a_row, np.ones((2, 3)))
    assert "np.min(" in after and "np.max(" in after


def test_sum_with_a_start_adds_it(jit):
    """(sum(x, start=s) had no gradient defined; Python adds the start.)"""
    x = np.array([[0.5, 3.0, -1.0], [2.0, -0.7, 1.1]])
    check_grad(smallest_of_a_row, [x], jit=jit)
    check_grad(started_by_rows, [x], jit=jit)
    check_grad(started_over_items, [x], jit=jit)
    assert started_by_rows(x) == pytest.approx((1.5 + 2.5) ** 2 + (0.5 + 2.4))
