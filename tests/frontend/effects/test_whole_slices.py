"""`u[...]` of an array with axes is `u[:]` (transforms/frontend/effects/whole_slices.py)."""
import numpy as np

from frontend.passes import lowered
from gradcheck import check_grad
from s2sad.transforms.frontend.effects import whole_slices


def slices(u):
    w = np.zeros(3)
    w[...] = u * 2.0
    return np.sum(w * u)


def test_a_slice():
    before, after = lowered(whole_slices, slices, np.ones(3))
    assert "    w[...] = w2" in before.splitlines()
    assert "    w[:] = w2" in after.splitlines()


def test_gradient(jit):
    check_grad(slices, [np.array([0.5, 1.0, -2.0])], jit=jit)
