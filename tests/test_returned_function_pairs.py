"""A helper returning a value together with a function it defines, as
autograd programs flatten their parameters (`return vector, unflatten`),
whose caller keeps only the value."""
import warnings

import numpy as np
import pytest

import s2sad
from gradcheck import check_grad, numerical_grad


def flatten(params):
    vector = np.concatenate((np.ravel(params[0]), np.ravel(params[1])))

    def unflatten(v):
        out = []
        start = 0
        for w in params:
            out.append(np.reshape(v[start:start + w.size], w.shape))
            start += w.size
        return out
    return vector, unflatten


def squared_norm(params):
    flat, _ = flatten(params)
    return np.sum(flat ** 2)


W0 = np.array([[0.3, -1.2], [0.8, 2.0]])
B0 = np.array([0.5, -0.7])


def test_list_argument_with_the_function_discarded(jit):
    got = s2sad.grad(squared_norm, jit=jit)([W0, B0])
    got = got[0] if isinstance(got, tuple) else got
    for k, leaf in enumerate((W0, B0)):
        def by_leaf(x, k=k):
            leaves = [W0, B0]
            leaves[k] = x
            return squared_norm(leaves)
        np.testing.assert_allclose(got[k], numerical_grad(by_leaf, [leaf], 0),
                                   rtol=1e-5, atol=1e-6)


def flatten_layer(W, b):
    def unflatten(v):
        return np.reshape(v[:W.size], W.shape), v[W.size:]
    return np.concatenate((np.ravel(W), b)), unflatten


def weighted_flat(W, b):
    flat, unused = flatten_layer(W, b)
    weights = np.arange(1.0, 7.0)
    return np.sum(np.sin(flat) * weights)


def test_arrays_packed_then_flattened(jit):
    check_grad(weighted_flat, [W0, B0], wrt=(0, 1), jit=jit)


def pair_by_lambda(x, scale):
    y = np.tanh(x) * scale
    return y, lambda v: v / scale


def indexed_pair(x, scale):
    return np.sum(pair_by_lambda(x, scale)[0] ** 3)


def test_returned_lambda_left_by_an_index(jit):
    check_grad(indexed_pair, [np.array([0.2, -0.9, 1.4]), 1.7], wrt=(0, 1), jit=jit)


def three_values(x):
    def undo(v):
        return v - 1.0
    if np.sum(x) > 0.0:
        return x * 2.0, undo, np.exp(x)
    return x * 3.0, undo, np.cos(x)


def middle_discarded(x):
    a, _, c = three_values(x)
    return np.sum(a * c)


def test_function_between_values_on_each_branch(jit):
    check_grad(middle_discarded, [np.array([0.4, 0.9])], jit=jit)
    check_grad(middle_discarded, [np.array([-0.4, -0.9])], jit=jit)


# the function the helper returns, called by the caller


def layer_round_trip(W, b):
    flat, unflat = flatten_layer(W, b)
    doubled = np.sin(flat) * 2.0
    W2, b2 = unflat(doubled)
    return np.sum(W2 @ b2) + np.sum(W2 * W)


def test_arrays_flattened_then_unflattened(jit):
    check_grad(layer_round_trip, [W0, B0], wrt=(0, 1), jit=jit)


def standardise(x):
    centre = np.mean(x)
    spread = np.sqrt(np.mean((x - centre) ** 2))

    def restore(z):
        return z * spread + centre
    return (x - centre) / spread, restore


def squash_and_restore(x):
    z, back = standardise(x)
    squashed = np.tanh(z)
    return np.sum(back(squashed) ** 2)


def test_called_function_capturing_values_the_helper_computes(jit):
    check_grad(squash_and_restore, [np.array([0.3, -1.2, 2.5, 0.1])], jit=jit)


def restore_an_expression(x, s):
    z, back = standardise(x)
    return np.sum(back(np.tanh(z) * s) * back(z))


def test_called_twice_with_expressions(jit):
    check_grad(restore_an_expression, [np.array([0.3, -1.2, 2.5, 0.1]), 0.7], wrt=(0, 1),
               jit=jit)


def rescaled_on_each_branch(x):
    scale = 1.0

    def rescale(v):
        return v * scale
    scale = np.exp(x[0])  # (the function reads the value its variable has at the return)
    if x[1] > 0:
        return x * 2.0, rescale
    scale = scale * x[1]
    return x * 3.0, rescale


def reads_the_final_capture(x):
    y, rescale = rescaled_on_each_branch(x)
    return np.sum(rescale(y) ** 2)


def test_captures_as_they_are_at_the_return(jit):
    check_grad(reads_the_final_capture, [np.array([0.3, 0.2, 0.5])], jit=jit)
    check_grad(reads_the_final_capture, [np.array([0.3, -0.2, 0.5])], jit=jit)


# the function called, the helper given a list: the gradient w.r.t. a list
# parameter the nested function reads only the shapes of is a zero per element


def test_list_argument_with_the_function_called(jit):
    def doubled_second(params):
        flat, unflat = flatten(params)
        doubled = flat * 2.0
        second = unflat(doubled)[1]
        return np.sum(second ** 2)
    u, v = np.array([0.4, -1.5, 0.9]), np.array([1.2, 0.3, -0.8])
    got = s2sad.grad(doubled_second, jit=jit)([u, v])
    got = got[0] if isinstance(got, tuple) else got
    np.testing.assert_allclose(got[0], np.zeros(3), atol=0.0)
    np.testing.assert_allclose(got[1], 8.0 * v, rtol=1e-12)


def test_list_of_uneven_elements(jit):
    """The nested function's list of a matrix and a vector: each element
    its own (a list stored as one array would broadcast the vector)."""
    def second_of_uneven(params):
        flat, unflat = flatten(params)
        return np.sum(unflat(flat)[1] ** 2)
    got = s2sad.grad(second_of_uneven, jit=jit)([W0, B0])
    got = got[0] if isinstance(got, tuple) and len(got) == 1 else got
    np.testing.assert_array_equal(got[0], np.zeros_like(W0))
    np.testing.assert_allclose(got[1], 2.0 * B0, rtol=1e-12)