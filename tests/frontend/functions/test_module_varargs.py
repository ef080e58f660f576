"""A module-level helper taking *args or **kwargs is copied for each form of
call (transforms/frontend/functions/module_varargs.py)."""
import numpy as np

from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.functions import module_varargs


def stacked_affine(w, n, *columns, **opts):
    # the n-row columns side by side, a column of ones appended, times w
    ones = np.ones((n, 1))
    return np.dot(np.hstack(columns + (ones,)), w) * opts["gain"]


def two_layers(w, a, b):
    h = np.tanh(stacked_affine(w[:3], 4, a, b, gain=1.0))
    return np.sum(stacked_affine(w[3:], 4, h, gain=0.5) ** 2)


def test_a_copy_per_form_of_call():
    _, after = lowered(module_varargs, two_layers)
    assert after == source('''
        def two_layers(w, a, b):
            h = np.tanh(stacked_affine_2(w[:3], 4, columns_0=a, columns_1=b, opts_gain=1.0))
            return np.sum(stacked_affine_1(w[3:], 4, columns_0=h, opts_gain=0.5) ** 2)''')


def test_gradient(jit):
    rs = np.random.RandomState(0)
    a, b = rs.randn(4, 1), rs.randn(4, 1)
    check_grad(two_layers, [rs.randn(6, 2), a, b], wrt=(0, 1, 2), jit=jit)
