"""A loop over a tuple or list literal: the body once per element
(transforms/frontend/containers/literal_loops.py)."""
import numpy as np

from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.containers import literal_loops


def literal_loop(a, b):
    s = 0.0
    for w in (a, b):
        s = s + w * w
    return s


def test_unrolled():
    _, after = lowered(literal_loops, literal_loop, 1.0, 2.0)
    assert after == source('''
        def literal_loop(a, b):
            s = 0.0
            w = a
            s = s + w * w
            w = b
            s = s + w * w
            return s''')


def test_gradient(jit):
    check_grad(literal_loop, [0.5, 1.5], wrt=(0, 1), jit=jit)


def sliced_layers(x, W1, b1, W2, b2, W3, b3):
    layers = [(W1, b1), (W2, b2), (W3, b3)]
    for W, b in layers[:-1]:  # the hidden layers
        x = np.tanh(W @ x + b)
    for k, (W, b) in enumerate(layers[::-2]):  # the last and the first, counted from 0
        x = np.sin(W @ x + b) * (k + 1.0)
    W, b = layers[-1]
    return np.sum(W @ x + b)


def test_a_slice_with_constant_bounds_is_the_loop_over_its_elements():
    args = [np.ones(2)] + [np.ones((2, 2)), np.ones(2)] * 3
    _, after = lowered(literal_loops, sliced_layers, *args)
    assert "for " not in after
    assert after.count("layers[0]") == 2 and after.count("layers[2]") == 1
    assert "k = 0" in after and "k = 1" in after


def test_a_slice_gradient(jit):
    rng = np.random.default_rng(0)
    args = [rng.normal(size=2)] + [rng.normal(size=s) * 0.5 for _ in range(3)
                                   for s in ((2, 2), (2,))]
    check_grad(sliced_layers, args, wrt=tuple(range(7)), jit=jit)


def past_the_end(x, W1, b1):
    layers = [(W1, b1)]
    for W, b in layers[1:]:  # no layer: the body never runs
        x = np.tanh(W @ x + b)
    return np.sum(x ** 2)


def test_a_loop_over_an_empty_slice_runs_nothing(jit):
    args = [np.array([0.3, -0.7]), np.ones((2, 2)), np.ones(2)]
    _, after = lowered(literal_loops, past_the_end, *args)
    assert "for " not in after
    check_grad(past_the_end, args, wrt=(0, 1, 2), jit=jit)
