"""`a = b = v` in Python's order (transforms/frontend/statements/chained_assignments.py)."""
import numpy as np

from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.statements import chained_assignments


def chained(x):
    a = b = x * 2.0
    return a + b * a


def into_an_element(x):
    y = np.zeros(2)
    y[0] = z = x * 3.0
    return np.sum(y) * z


def test_the_value_once_then_the_targets():
    _, after = lowered(chained_assignments, chained)
    assert after == source('''
        def chained(x):
            a = x * 2.0
            b = a
            return a + b * a''')


def test_a_first_target_that_is_not_a_name():
    _, after = lowered(chained_assignments, into_an_element)
    assert after == source('''
        def into_an_element(x):
            y = np.zeros(2)
            chained = x * 3.0
            y[0] = chained
            z = chained
            return np.sum(y) * z''')


def test_gradient(jit):
    check_grad(chained, [0.7], jit=jit)
    check_grad(into_an_element, [0.7], jit=jit)
