"""A range stored in a name and looped over later: the loop runs over the
range call itself (transforms/frontend/statements/stored_ranges.py)."""
import numpy as np
import pytest

from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.statements import stored_ranges


def stored_range(x):
    n = x.shape[0]
    r = range(1, n)
    s = 0.0
    for t in r:
        s = s + x[t] * x[t - 1]
    for t in r:
        s = s * x[t]
    return s


def rebound_bound(x, n):
    r = range(n)
    n = n - 1
    s = 0.0
    for t in r:
        s = s + x[t]
    return s


def stored_in_a_loop(x):
    s = 0.0
    for i in range(2):
        r = range(i, 3)
        for t in r:
            s = s + x[t]
    return s


def used_otherwise(x):
    r = range(3)
    s = 0.0
    for t in r:
        s = s + x[t]
    return s * len(r)


def test_the_loops_run_over_the_call():
    before, after = lowered(stored_ranges, stored_range)
    assert "    for t in r:" in before.splitlines()
    assert after == source('''
        def stored_range(x):
            n = x.shape[0]
            r = range(1, n)
            s = 0.0
            for t in range(1, n):
                s = s + x[t] * x[t - 1]
            for t in range(1, n):
                s = s * x[t]
            return s''')


@pytest.mark.parametrize("fn", [stored_in_a_loop, used_otherwise])
def test_left_as_written_where_the_values_may_differ(fn):
    before, after = lowered(stored_ranges, fn)
    assert before == after


def test_gradient(jit):
    check_grad(stored_range, [np.array([0.5, 1.5, -2.0, 0.7])], jit=jit)


def of_an_expression(x):
    r = range(1, x.shape[0] - 1, 2)
    s = 0.0
    for t in r:
        s = s + x[t] * x[t - 1]
    return s


def test_arguments_held_where_the_range_is_stored():
    # (x.shape[0] - 1 evaluated where the range is: the same value in the loop)
    _, after = lowered(stored_ranges, of_an_expression)
    assert after == source('''
        def of_an_expression(x):
            r_stop = x.shape[0] - 1
            r = range(1, r_stop, 2)
            s = 0.0
            for t in range(1, r_stop, 2):
                s = s + x[t] * x[t - 1]
            return s''')
    _, after = lowered(stored_ranges, rebound_bound)
    assert after == source('''
        def rebound_bound(x, n):
            r_stop = n
            r = range(r_stop)
            n = n - 1
            s = 0.0
            for t in range(r_stop):
                s = s + x[t]
            return s''')


@pytest.mark.parametrize("fn, args", [(of_an_expression, [np.array([0.5, 1.5, -2.0, 0.7, 0.3])]),
                                      (rebound_bound, [np.array([0.5, 1.5, -2.0]), 3])])
def test_gradient_of_held_arguments(fn, args, jit):
    check_grad(fn, args, jit=jit)
