"""A for loop over a generator is the generator's body with the loop's body
where it yields (transforms/frontend/functions/inline_generators.py)."""
import numpy as np
import pytest

import s2sad
from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.functions import inline_generators


def squares(x):
    for i in range(x.shape[0]):
        yield x[i] * x[i]


def with_yield(x):
    total = 0.0
    for v in squares(x):
        total = total + v
    return total


def test_the_loop_body_runs_where_the_generator_yields():
    _, after = lowered(inline_generators, with_yield)
    assert after == source('''
        def with_yield(x):
            total = 0.0
            squares_x = x
            for i in range(squares_x.shape[0]):
                v = squares_x[i] * squares_x[i]
                total = total + v
            return total''')


def test_with_yield(jit):
    check_grad(with_yield, [np.array([1.0, 2.0, 3.0])], jit=jit)


def pairs(x, scale=2.0):
    n = x.shape[0]
    i = 0
    while i < n - 1:
        yield i, x[i] * x[i + 1] * scale
        i += 1
    yield n, np.sum(x)  # (a second yield: the loop's body a second time)


def windows(x, k):
    for i in range(x.shape[0] - k + 1):
        yield x[i:i + k]


def several(x):
    # the generator's names meet the function's (i), a default, tuples
    # yielded and unpacked, a generator looping over another
    s = 0.0
    i = 10.0
    for i, v in pairs(x):
        s = s + v * i
    for w in windows(x, 2):
        for v in squares(w):
            s = s + np.sin(v)
    return s


def test_several_generators(jit):
    check_grad(several, [np.array([1.0, 2.0, 3.0, -0.5])], jit=jit)


def stops(x):
    s = 0.0
    for v in squares(x):
        if v > 3.0:
            break
        s = s + v
    return s


def summed(x):
    return sum(squares(x))


@pytest.mark.parametrize("fn, match", [
    (stops, r"test_inline_generators.py:\d+, in stops: break in a loop over a generator"),
    (summed, r"test_inline_generators.py:\d+, in summed: a generator \(squares\) used other "
             r"than as the iterable of a for loop.*for v in squares"),
])
def test_refused_with_the_line(fn, match):
    with pytest.raises(s2sad.UnsupportedSyntaxError, match=match):
        s2sad.grad(fn, jit=False)(np.array([1.0, 2.0]))
