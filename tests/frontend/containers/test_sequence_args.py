"""A list or tuple argument: the type questions asked of it folded, its
uses as a list refused (transforms/frontend/containers/sequence_args.py)."""
import numpy as np
import pytest

from frontend.passes import lowered, source
from gradcheck import check_grad, check_tree_grad
from s2sad.transforms.errors import UnsupportedSyntaxError
from s2sad.transforms.frontend.containers import sequence_args


def asks(xs):
    if isinstance(xs, list):
        return np.sum(np.asarray(xs) ** 2)
    return 0.0


def concatenates(xs):
    ys = xs + [1.0]
    return np.sum(np.asarray(ys))


def test_the_question_is_answered():
    _, after = lowered(sequence_args, asks, [1.0, 2.0])
    assert after == source('''
        def asks(xs):
            if True:
                return np.sum(np.asarray(xs) ** 2)
            return 0.0''')


def test_a_list_use_is_refused():
    with pytest.raises(UnsupportedSyntaxError, match="argument 'xs', a list of numbers"):
        lowered(sequence_args, concatenates, [1.0, 2.0])


def test_gradient(jit):
    check_grad(asks, [np.array([0.5, -1.0])], jit=jit)


# ---- isinstance(x, dict) of an array or number argument: False ----

def vector_of(value):
    """A flatten recursing by type (autograd's examples' flatten): called
    with an array, its dict branch, which reads value.items(), never runs."""
    if isinstance(value, dict):
        return np.concatenate([vector_of(v) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        return np.concatenate([vector_of(v) for v in value])
    return np.ravel(value)


def l2_norm(params):
    flat = vector_of(params)
    return np.dot(flat, flat)


def scaled(x, s):
    if isinstance(s, (list, tuple)):
        return np.sum(x * s[0])
    return np.sum(x * s)


def test_a_container_question_of_an_array_is_false():
    _, after = lowered(sequence_args, vector_of, np.ones(3))
    assert "if False:" in after


def test_recursion_by_type_over_a_container(jit):
    layers = [(np.array([[0.3, -0.2], [0.5, 0.1]]), np.array([0.1, -0.2])),
              (np.array([[0.1], [-0.3]]), np.array([0.7]))]
    check_tree_grad(l2_norm, (layers,), jit=jit)
    check_tree_grad(l2_norm, ({"w": np.array([1.0, -2.0]), "b": np.array([[0.5]])},), jit=jit)


def test_a_number_is_not_a_list(jit):
    check_grad(scaled, [np.array([0.5, -1.0]), 2.0], wrt=(0, 1), jit=jit)
