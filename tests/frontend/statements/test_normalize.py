"""One primitive operation per statement, on named operands
(transforms/frontend/statements/normalize.py)."""
import numpy as np

from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.statements import normalize


def norm(x, y):
    return np.sin(x * y) + x.sum()


def test_one_operation_per_statement():
    _, after = lowered(normalize, norm, np.ones(3), 2.0)
    assert after == source('''
        def norm(x, y):
            prod = x * y
            sin = np.sin(prod)
            sum2 = np.sum(x)
            result = sin + sum2
            return result''')


def test_gradient(jit):
    check_grad(norm, [np.array([0.5, 1.0, -2.0]), 1.5], wrt=(0, 1), jit=jit)
