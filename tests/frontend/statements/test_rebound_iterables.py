"""The name a loop runs over, rebound in its body
(frontend/statements/rebound_iterables.py): Python iterates over the object
the name held when the loop started. Each gradient is checked against
finite differences, compiled and as Python, and unoptimised; the value
against Python's. (Before, each was a wrong gradient with no error: the
loop read its rows from the rebound name.)"""
import numpy as np
import pytest

import s2sad
from frontend.passes import lowered
from gradcheck import check_grad, numerical_grad
from s2sad.transforms.frontend.statements import rebound_iterables

A = np.arange(6.0).reshape(3, 2) / 5 + 0.1
X = np.linspace(0.1, 0.5, 4)
W = np.linspace(0.3, 0.9, 4)


def rows_of_a_rebound_matrix(A):
    s = 0.0
    for row in A:
        A = A * 0.9
        s += row @ row + np.sum(A)
    return s


def elements_of_a_rebound_vector(x):
    s = 0.0
    for e in x:
        x = np.sin(x)
        s += e * np.sum(x)
    return s


def zipped_with_a_rebound_vector(x, w):
    s = 0.0
    for a, b in zip(x, w):
        w = w * a
        s += a * b
    return s + np.sum(w)


def a_slice_of_a_rebound_vector(x):
    s = 0.0
    for k, e in enumerate(x[1:]):
        x = x + e * k
        s += e * x[0]
    return s


CASES = [(rows_of_a_rebound_matrix, (A,), 0), (elements_of_a_rebound_vector, (X,), 0),
         (zipped_with_a_rebound_vector, (X, W), (0, 1)), (a_slice_of_a_rebound_vector, (X,), 0)]


@pytest.mark.parametrize("f, args, wrt", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_gradient(f, args, wrt, jit):
    check_grad(f, [a.copy() for a in args], wrt=wrt, jit=jit)


@pytest.mark.parametrize("f, args, wrt", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_unoptimised_derivative(f, args, wrt):
    value, g = s2sad.value_and_grad(f, wrt=wrt, jit=False, optimise=False, check=False)(
        *[a.copy() for a in args])
    np.testing.assert_allclose(value, f(*[a.copy() for a in args]), rtol=1e-12)
    g = g if isinstance(wrt, tuple) else (g,)
    for k, gk in zip(wrt if isinstance(wrt, tuple) else (wrt,), g):
        np.testing.assert_allclose(gk, numerical_grad(f, [a.copy() for a in args], k),
                                   rtol=1e-6, atol=1e-8)


def test_the_loop_runs_over_a_name_of_its_own():
    _, after = lowered(rebound_iterables, rows_of_a_rebound_matrix, A.copy())
    lines = [line.strip() for line in after.splitlines()]
    assert "A_iterated = A" in lines and "for row in A_iterated:" in lines
    assert "A = A * 0.9" in lines
