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
