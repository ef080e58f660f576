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


OFFSETS = np.array([0.5, -1.0, 2.0])


def shifted(u, shift=OFFSETS, squash=np.tanh):
    # defaults that are an array and a function, evaluated once by the def
    return squash(u + shift)


def through_defaults(x):
    return np.sum(shifted(x) * shifted(x, squash=np.sin))


def test_defaults_that_are_objects_are_read_by_name():
    # (the function default binds a copy of the helper, module_function_args.py)
    _, after = lowered(bind, through_defaults, np.ones(3))
    assert after == source('''
        def through_defaults(x):
            return np.sum(shifted_tanh(x, shifted_tanh_shift_default) * shifted_sin(x, shifted_sin_shift_default))''')


def test_defaults_that_are_objects_gradient(jit):
    check_grad(through_defaults, [np.array([0.3, -0.4, 1.2])], jit=jit)
