"""The writes numpy hides in calls, spelled as stores
(transforms/frontend/effects/hidden_writes.py, numpy_writes.py)."""
import numpy as np

from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.effects import hidden_writes


def fills(u):
    v = np.empty(3)
    v.fill(2.0)
    np.multiply(u, v, out=v)
    w = np.zeros(3)
    np.copyto(w, v * u)
    return np.sum(v * w)


def test_stores():
    _, after = lowered(hidden_writes, fills, np.ones(3))
    assert after == source('''
        def fills(u):
            v = np.empty(3)
            v[...] = 2.0
            v[...] = np.multiply(u, v)
            w = np.zeros(3)
            w[...] = v * u
            return np.sum(v * w)''')


def test_gradient(jit):
    check_grad(fills, [np.array([0.5, 1.0, -2.0])], jit=jit)
