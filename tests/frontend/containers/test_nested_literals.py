"""A list of lists used as an array is that array
(transforms/frontend/containers/nested_literals.py)."""
import numpy as np

from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.containers import nested_literals


def nested_list(a, b):
    M = [[a, b], [b, a]]
    return np.sum(np.asarray(M) @ np.asarray(M))


def used_as_a_list(a, b):
    M = [[a, b], [b, a]]
    N = M + [[a, a]]
    return N[2][0] * b


def test_an_array():
    _, after = lowered(nested_literals, nested_list, 1.0, 2.0)
    assert after == source('''
        def nested_list(a, b):
            M = np.array([[a, b], [b, a]])
            return np.sum(np.asarray(M) @ np.asarray(M))''')


def test_a_list_of_lists_used_as_a_list_stays():
    before, after = lowered(nested_literals, used_as_a_list, 1.0, 2.0)
    assert "np.array" not in after


def test_gradient(jit):
    check_grad(nested_list, [0.5, 1.5], wrt=(0, 1), jit=jit)
