"""x.flat and x.mT as the functions they stand for
(transforms/frontend/calls/array_attributes.py)."""
import numpy as np

from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.calls import array_attributes


def attributes(x):
    return np.sum(x.flat) * x.mT[0, 1]


def test_respelled():
    _, after = lowered(array_attributes, attributes, np.ones((2, 3)))
    assert after == source('''
        def attributes(x):
            return np.sum(np.ravel(x)) * np.swapaxes(x, -1, -2)[0, 1]''')


def test_gradient(jit):
    check_grad(attributes, [np.arange(6.0).reshape(2, 3) + 0.5], jit=jit)
