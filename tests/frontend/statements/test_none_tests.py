"""`w is None` and type questions of an argument decided by its kind
(transforms/frontend/statements/none_tests.py)."""
import numpy as np

from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.statements import none_tests


def none_test(x, w=None):
    if w is None:
        return x * 2.0
    if isinstance(x, np.ndarray):
        return np.sum(x * w)
    return x * w


def test_decided():
    _, after = lowered(none_tests, none_test, 1.0, 3.0)
    assert after == source('''
        def none_test(x, w=None):
            if False:
                return x * 2.0
            if False:
                return np.sum(x * w)
            return x * w''')


def test_gradient(jit):
    check_grad(none_test, [0.5, 1.5], wrt=(0, 1), jit=jit)
    check_grad(none_test, [np.array([0.5, 1.0]), 1.5], wrt=(0, 1), jit=jit)
