"""A helper drawing random numbers is inlined where it is called, so the
gradient is that of the numbers the call drew
(transforms/frontend/functions/drawing_helpers.py)."""
import numpy as np
import pytest

import s2sad
from frontend.passes import lowered, source
from gradcheck import check_grad, numerical_grad
from s2sad.transforms.frontend.functions import drawing_helpers


def shifted_noise(params, n, rs):
    half = np.shape(params)[0] // 2
    mean, log_std = params[:half], params[half:]
    return rs.randn(n, half) * np.exp(log_std) + mean


def bound(params):
    rs = np.random.RandomState(0)  # (one function of params: the draws start the same)
    samples = shifted_noise(params, 5, rs)
    return np.mean(np.sin(samples) * samples)


def test_inlined_where_called():
    _, after = lowered(drawing_helpers, bound)
    assert after == source('''
        def bound(params):
            rs = np.random.RandomState(0)
            shifted_noise_params = params
            shifted_noise_n = 5
            shifted_noise_rs = rs
            shifted_noise_half = np.shape(shifted_noise_params)[0] // 2
            shifted_noise_mean, shifted_noise_log_std = (shifted_noise_params[:shifted_noise_half], shifted_noise_params[shifted_noise_half:])
            samples = shifted_noise_rs.randn(shifted_noise_n, shifted_noise_half) * np.exp(shifted_noise_log_std) + shifted_noise_mean
            return np.mean(np.sin(samples) * samples)''')


def test_generator_given(jit):
    check_grad(bound, [np.array([0.3, -0.2, -1.0, 0.5])], jit=jit)


# ---- a generator of the module; a helper calling one that draws; comprehensions ----

STATE = np.random.RandomState(3)


def noise(n):
    return STATE.standard_normal(n)


def scaled(x):
    e = noise(x.shape[0])  # (drawn here, in a helper whose derivative is taken)
    return np.sum(x * x * e)


def outer(x):
    return 2.0 * scaled(x)  # (scaled's derivative is taken: it must not draw again)


def component(p, w):
    return w * scaled(p) + STATE.uniform(0.5, 1.5)


def mixture(params, w):
    # the derivative's forward sweep makes the draws once; its reverse sweep reads them
    terms = np.stack([component(p, w) for p in params])
    return np.sum(terms) * 1.0


def from_state(f):
    """f with the random state it starts from reset before each call: one
    function of its arguments, for finite differences."""
    def g(*args):
        STATE.seed(3)
        return f(*args)
    return g


@pytest.mark.parametrize("fn", [outer, mixture])
def test_draws_of_helpers_called(jit, fn):
    args = [np.array([0.5, -1.5, 2.0])] if fn is outer else \
        [np.array([[0.5, -1.5, 2.0], [1.0, 0.2, -0.3]]), 0.7]
    wrt = (0,) if fn is outer else (0, 1)
    got = from_state(s2sad.grad(fn, wrt=wrt, jit=jit))(*args)
    for k, g in zip(wrt, got):
        np.testing.assert_allclose(g, numerical_grad(from_state(fn), args, k), rtol=1e-5,
                                   atol=1e-6)
    # the value is one call's, from the state as it was
    value = from_state(s2sad.value_and_grad(fn, jit=jit))(*args)[0]
    assert value == pytest.approx(from_state(fn)(*args))


# ---- what stays a call: refused where its derivative would draw again ----------

def early(x, rs):
    if x[0] > 10.0:
        return x
    return x * rs.randn(x.shape[0])


def uses_early(x):
    rs = np.random.RandomState(0)
    return np.sum(early(x, rs) ** 2)


def test_not_inlinable_refused(jit):
    with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
        s2sad.grad(uses_early, jit=jit)(np.array([0.5, 1.0]))
    message = str(info.value)
    assert "test_drawing_helpers.py" in message and "in early" in message
    assert "random generator" in message and "pass them to the helper" in message
