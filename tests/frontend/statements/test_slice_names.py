"""A slice object bound to a name and used to index: its bounds bound to
names (transforms/frontend/statements/slice_names.py)."""
import numpy as np

from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.statements import slice_names

DATA = np.arange(24.0).reshape(8, 3) / 10.0


def batch_loss(w, k):
    rows = slice(2 * k, 2 * k + 2)
    every_other = slice(None, None, 2)
    return np.sum(np.tanh(np.dot(DATA[rows], w)) * w[every_other, None].T)


def test_bounds_bound_to_names():
    _, after = lowered(slice_names, batch_loss)
    assert after == source('''
        def batch_loss(w, k):
            rows_lower = 2 * k
            rows_upper = 2 * k + 2
            every_other_step = 2
            return np.sum(np.tanh(np.dot(DATA[rows_lower:rows_upper], w)) * w[::every_other_step, None].T)''')


def test_gradient(jit):
    check_grad(batch_loss, [np.array([0.5, -1.0, 0.3]), 1], jit=jit)
