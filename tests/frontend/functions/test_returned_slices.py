"""A helper returning a slice object is inlined where it is called
(transforms/frontend/functions/returned_slices.py)."""
import numpy as np

from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.functions import returned_slices

DATA = np.arange(24.0).reshape(8, 3) / 10.0
BATCH = 2


def batch_rows(it):
    k = it % 4
    return slice(k * BATCH, (k + 1) * BATCH)


def batch_loss(w, it):
    rows = batch_rows(it)
    return np.sum(np.tanh(np.dot(DATA[rows], w)))


def test_inlined_where_called():
    _, after = lowered(returned_slices, batch_loss)
    assert after == source('''
        def batch_loss(w, it):
            batch_rows_it = it
            batch_rows_k = batch_rows_it % 4
            rows = slice(batch_rows_k * BATCH, (batch_rows_k + 1) * BATCH)
            return np.sum(np.tanh(np.dot(DATA[rows], w)))''')


def test_gradient(jit):
    check_grad(batch_loss, [np.array([0.5, -1.0, 0.3]), 5], jit=jit)
