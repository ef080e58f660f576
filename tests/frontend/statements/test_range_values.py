"""A range stored in a name and read by index or len() (numba indexes no
range): its arguments, with `range_item` raising IndexError as Python does
(transforms/frontend/statements/range_values.py)."""
import numpy as np
import pytest

import s2sad
from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.statements import range_values


def indexed_range(x, r=None):
    if r is None:
        r = range(1, x.shape[0], 2)
    s = x[r[0]] * x[r[-1]]
    for t in r:
        s = s + x[t] * x[t - 1]
    return s


def test_its_arguments():
    _, after = lowered(range_values, indexed_range, np.ones(5), None)
    assert after == source('''
        def indexed_range(x, r=None):
            r_stop = x.shape[0]
            s = x[range_item(1, r_stop, 2, 0)] * x[range_item(1, r_stop, 2, -1)]
            for t_index in range(len(range(1, r_stop, 2))):
                t = range_item(1, r_stop, 2, t_index)
                s = s + x[t] * x[t - 1]
            return s''')


def test_gradient(jit):
    check_grad(indexed_range, (np.array([0.3, -0.5, 0.8, 1.2, 0.7]),), jit=jit)
    check_grad(indexed_range, (np.array([0.3, -0.5, 0.8, 1.2]),), jit=jit)


def read_at(x, k):
    r = range(0, x.shape[0] - 1)
    return x[r[k]] * 2.0


@pytest.mark.parametrize("k", [4, -5])
def test_an_index_out_of_range_raises_index_error(k, jit):
    x = np.array([0.3, -0.5, 0.8, 1.2, 0.7])
    with pytest.raises(IndexError):
        read_at(x, k)
    with pytest.raises(IndexError):
        s2sad.grad(read_at, jit=jit)(x, k)
