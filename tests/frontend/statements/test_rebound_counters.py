"""A loop's target rebound in its body (frontend/statements/rebound_counters.py):
Python gives the target the iterator's next value at each iteration, whatever
the body did to it, and the body's rebinding is a value the reverse sweep
must see. Each program's gradient is checked against finite differences,
compiled and as Python, and unoptimised; its value against Python's."""
import numpy as np
import pytest

import s2sad
from frontend.passes import lowered
from gradcheck import check_grad, numerical_grad
from s2sad.transforms.frontend.statements import rebound_counters

X = np.array([0.3, -0.7, 1.1, 0.45, 0.9])


def shifted_in_a_branch(x):
    """The wrong gradient (no error) before: the reverse sweep indexed x
    with the header's i, not the body's i - 3."""
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        j = i
        if i > 1:
            i = i - 3
        out[j] = x[i] ** 2 * (i + 10.0)
    return np.sum(out * np.arange(1.0, x.shape[0] + 1))


def shifted_in_place(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        k = i
        i -= 2
        out[k] = np.sin(x[i]) * x[k] * i
    return np.sum(out * out)


def element_rebound(x):
    s = 0.0
    acc = np.zeros(x.shape[0])
    for k, e in enumerate(x):
        e = e * e + 1.0
        acc[k] = e * x[k - 1]
    return np.sum(acc ** 2) + s


def read_after_the_loop(x):
    out = np.zeros(3)
    for i in range(3):
        out[i] = x[i] * x[i + 1]
        i = i + 1
    return np.sum(out ** 2) * x[i]  # (i: the last iteration's value, rebound: 3)


PROGRAMS = [shifted_in_a_branch, shifted_in_place, element_rebound, read_after_the_loop]


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_gradient(f, jit):
    check_grad(f, [X.copy()], jit=jit)


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_unoptimised_derivative(f):
    value, g = s2sad.value_and_grad(f, jit=False, optimise=False, check=False)(X.copy())
    np.testing.assert_allclose(value, f(X.copy()), rtol=1e-12)
    np.testing.assert_allclose(g, numerical_grad(f, [X.copy()], 0), rtol=1e-6, atol=1e-7)


def test_the_loop_counts_with_a_name_of_its_own():
    _, after = lowered(rebound_counters, shifted_in_a_branch, X.copy())
    lines = [line.strip() for line in after.splitlines()]
    assert "for i_loop in range(x.shape[0]):" in lines and "i = i_loop" in lines


def test_an_array_updated_in_place_keeps_its_loop():
    def rows(A):
        for row in A:
            row *= 2.0   # (writes into A's row: not a rebinding)
        return np.sum(A)
    _, after = lowered(rebound_counters, rows, np.ones((2, 3)))
    assert "for row in A:" in after
