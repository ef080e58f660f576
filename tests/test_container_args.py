"""Tuples and lists given to a helper (`h((a, b))`, `h([u, v])`, a tuple
variable): the helper's cotangent for the container is split back onto its
parts. Reverse and forward mode against finite differences, compiled and as
Python. (A tuple argument was taken as a constant: a zero gradient with no
error.)"""
import numpy as np
import pytest

from gradcheck import check_grad, check_jvp

X = np.array([0.9, -1.4, 2.2])


def product(t):
    return t[0] * t[1]


def weighted(parts):
    return np.sum(parts[0] * parts[1]) + parts[0][1]


def unpacked(pair):
    a, b = pair
    return a * np.sin(b)


def nested(t):
    return t[0][0] * t[0][1] + t[1] ** 2


def loops_over(items):
    total = 0.0
    for v in items:
        total = total + v * v
    return total


def tuple_variable(x):
    pair = (x[0], x[1] * 2.0)
    return product(pair) + product([x[2], x[0]])


def tuple_of_arrays(x):
    return weighted((x, x * x)) + weighted([np.sin(x), x])


def unpacks_in_helper(x):
    return unpacked((x[0], x[1])) + unpacked([x[2] ** 2, x[0]])


def nested_tuple(x):
    return nested(((x[0], x[1]), x[2]))


def iterates_in_helper(x):
    return loops_over((x[0], x[1], x[2] * x[0]))


def constant_part(x):
    return product((x[1], 3.0)) + product((2.0, 5.0))


CASES = [tuple_variable, tuple_of_arrays, unpacks_in_helper, nested_tuple,
         iterates_in_helper, constant_part]


# numba has no mutable container for the cotangent of a nested tuple (a
# tuple holding a tuple and a number): that derivative runs as Python
PYTHON_ONLY = {nested_tuple}
JIT = [pytest.param(f, jit, id=f"{f.__name__}-{jit}") for f in CASES
       for jit in (False, True) if not (jit and f in PYTHON_ONLY)]


@pytest.mark.parametrize("f,jit", JIT)
def test_reverse(f, jit):
    check_grad(f, (X.copy(),), jit=jit)


@pytest.mark.parametrize("f,jit", JIT)
def test_forward(f, jit):
    check_jvp(f, (X.copy(),), jit=jit)
