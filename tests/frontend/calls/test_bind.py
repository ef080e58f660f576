"""Every call bound to its callee's signature (transforms/frontend/calls/bind.py,
binder.py, respellings.py)."""
import numpy as np

from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.calls import bind


def helper(u, v=2.0, *, w=3.0):
    return u * v + w


def calls(x):
    a = helper(v=x, u=x)
    b = np.sum(x, 0, keepdims=True)
    c = np.clip(x, None, 1.0)
    d = np.sum(x, dtype=float)
    return a + np.sum(b) + np.sum(c) + d


def test_calls_in_canonical_form():
    before, after = lowered(bind, calls, np.ones(3))
    assert after == source('''
        def calls(x):
            a = helper(x, x, 3.0)
            b = keep_axes(np.sum(x, axis=0), x, 0)
            c = np.minimum(x, 1.0)
            d = np.sum(np.asarray(x, dtype=np.float64))
            return a + np.sum(b) + np.sum(c) + d''')


def test_a_helper_copy_binds_only_helper_calls():
    _, after = lowered(bind, calls, copy=True)
    assert "helper(x, x, 3.0)" in after and "np.sum(x, 0, keepdims=True)" in after


def test_gradient(jit):
    check_grad(calls, [np.array([0.5, 1.5, 2.0])], jit=jit)
