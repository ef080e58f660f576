"""A name started as a number and made an array by its first update in
straight-line code (transforms/frontend/statements/number_starts.py)."""
import numpy as np

from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.statements import number_starts


def starts(a):
    res = 0
    res = res + a
    res = res + a * 2.0
    return np.sum(res)


def test_the_number_goes_into_the_first_update():
    before, after = lowered(number_starts, starts, np.ones(3))
    assert before.splitlines()[1:3] == ["    res = 0", "    res = res + a"]
    assert after == source('''
        def starts(a):
            res = 0 + a
            prod = a * 2.0
            res = res + prod
            sum2 = np.sum(res)
            return sum2''')


def test_gradient(jit):
    check_grad(starts, [np.array([0.5, 1.0, -2.0])], jit=jit)
