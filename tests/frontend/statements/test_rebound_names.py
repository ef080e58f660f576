"""A name bound again in straight-line code to a value of another kind
gets a name per binding (transforms/frontend/statements/rebound_names.py)."""
import numpy as np

from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.statements import rebound_names


def gram_minus_kernel(z):
    # a similarity matrix minus the Gram matrix, of the rows of z
    d = np.expand_dims(z, 1) - np.expand_dims(z, 0)
    return np.exp(-np.sum(d * d, axis=2)) - np.dot(z, z.T)


def rows_of(v):
    v = np.reshape(v, (2, 3))  # the parameter, 1-d, made 2-d
    m = gram_minus_kernel(v)
    return np.sum(m * m)


def test_each_binding_its_own_name():
    _, after = lowered(rebound_names, rows_of, np.ones(6))
    assert after == source('''
        def rows_of(v):
            reshape = np.reshape(v, (2, 3))
            v2 = reshape
            m = gram_minus_kernel(v2)
            prod = m * m
            sum2 = np.sum(prod)
            return sum2''')


def test_gradient(jit):
    check_grad(rows_of, [np.array([0.3, -0.2, 0.8, 1.1, 0.4, -0.6])], jit=jit)


def same_kind(v):
    v = v * 2.0  # the same kind: left as it is
    return np.sum(v * v)


def test_same_kind_left_as_written():
    before, after = lowered(rebound_names, same_kind, np.ones(3))
    assert after == before
