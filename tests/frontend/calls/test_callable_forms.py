"""functools.partial and map written as the lambdas and comprehensions
they are (transforms/frontend/calls/callable_forms.py)."""
import functools

import numpy as np

from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.calls import callable_forms


def scale(w, u):
    return w * u


def partial_map(x, w):
    h = functools.partial(scale, w)
    ys = list(map(h, x))
    return sum(ys)


def test_partial_is_a_lambda_and_map_a_comprehension():
    before, after = lowered(callable_forms, partial_map)
    assert "functools.partial(scale, w)" in before
    assert after == source('''
        def partial_map(x, w):
            h_bound = w
            h = lambda u: scale(h_bound, u)
            ys = [h(item) for item in x]
            return sum(ys)''')


def test_gradient(jit):
    check_grad(partial_map, [np.array([0.5, -1.0, 2.0]), 1.5], wrt=(0, 1), jit=jit)


def row_energy(w, row):
    return np.sum(np.sin(w * row))


def summed_rows(w, rows):
    return sum(map(functools.partial(row_energy, w), rows))  # (the partial made in place)


def test_map_of_a_partial_made_in_place():
    _, after = lowered(callable_forms, summed_rows)
    assert after == source('''
        def summed_rows(w, rows):
            map_fn_bound = w
            map_fn = lambda row: row_energy(map_fn_bound, row)
            return sum((map_fn(item) for item in rows))''')


def test_map_of_a_partial_gradient(jit):
    rows = np.array([[0.5, -1.0, 2.0], [0.1, 0.2, 0.3]])
    check_grad(summed_rows, [np.array([1.5, -0.5, 0.2]), rows], wrt=(0, 1), jit=jit)
