"""A helper returning a value and a function it defines, the function left
unused by the caller (transforms/frontend/functions/unused_returned_functions.py)."""
import numpy as np

from frontend.passes import lowered
from gradcheck import check_grad
from s2sad.transforms.frontend.functions import unused_returned_functions


def scaled_pair(x, s):
    def unscale(v):
        return v / s
    return x * s, unscale


def keeps_the_value(x, s):
    y, _ = scaled_pair(x, s)
    return np.sum(y ** 2)


def test_the_caller_calls_a_copy_returning_the_value():
    before, after = lowered(unused_returned_functions, keeps_the_value)
    assert "y, _ = scaled_pair(x, s)" in before
    assert "y = scaled_pair_values(x, s)" in after


def test_value_kept(jit):
    check_grad(keeps_the_value, [np.array([0.3, -1.1]), 1.9], wrt=(0, 1), jit=jit)


def uses_the_function(x, s):
    y, undo = scaled_pair(x, s)
    return np.sum(y) + undo


def test_a_function_read_is_left_as_it_is():
    _, after = lowered(unused_returned_functions, uses_the_function)
    assert "y, undo = scaled_pair(x, s)" in after


def value_and_number(x):
    return x * 2.0, 3.0


def keeps_a_number(x):
    y, _ = value_and_number(x)
    return np.sum(y)


def test_a_value_not_a_function_is_left_as_it_is():
    _, after = lowered(unused_returned_functions, keeps_a_number)
    assert "y, _ = value_and_number(x)" in after


# ---- the function made by another helper (autograd-style flatten stand-ins) ----------

def unflattener(like):
    """Rebuilds the pair from a vector."""
    def unflatten(v):
        return v[:like.size].reshape(like.shape), v[like.size:]
    return unflatten


def flatten_pair(W, b):
    return np.concatenate((np.ravel(W), b)), unflattener(W)


def pair_norm(W, b):
    flat, _ = flatten_pair(W, b)
    return np.dot(flat, flat) + np.sum(np.tanh(W))


def logging_maker(like):
    print("made")  # (an effect: the call is not dropped)

    def unflatten(v):
        return v
    return unflatten


def flatten_logged(x):
    return x * 2.0, logging_maker(x)


def keeps_logged(x):
    y, _ = flatten_logged(x)
    return np.sum(y)


def test_a_made_function_dropped():
    _, after = lowered(unused_returned_functions, pair_norm)
    assert "flat = flatten_pair_values(W, b)" in after
    _, after = lowered(unused_returned_functions, keeps_logged)
    assert "y, _ = flatten_logged(x)" in after


def test_a_made_function_dropped_gradient(jit):
    check_grad(pair_norm, [np.array([[0.3, -1.1], [0.5, 0.2]]), np.array([1.9, -0.4])],
               wrt=(0, 1), jit=jit)
