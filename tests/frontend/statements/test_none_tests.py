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


def default_filled(x, w=None, r=None):
    if w is None:
        w = np.ones(x.shape[0]) * 2.0
    if r is not None:
        w = w * r
    return np.sum(x * w)


def test_decided_before_the_parameter_is_rebound():
    # (a parameter rebound later holds its argument until then: the idiom of
    # a default of None)
    _, after = lowered(none_tests, default_filled, np.ones(3), None, None)
    assert after == source('''
        def default_filled(x, w=None, r=None):
            if True:
                w = np.ones(x.shape[0]) * 2.0
            if False:
                w = w * r
            return np.sum(x * w)''')


def test_gradient_with_a_default_filled(jit):
    check_grad(default_filled, [np.array([0.5, 1.0, -2.0])], jit=jit)
    check_grad(default_filled, [np.array([0.5, 1.0, -2.0]), np.array([1.0, 2.0, 3.0])],
               wrt=(0, 1), jit=jit)
