"""A list or tuple argument: the type questions asked of it folded, its
uses as a list refused (transforms/frontend/containers/sequence_args.py)."""
import numpy as np
import pytest

from frontend.passes import lowered, source
from gradcheck import check_grad
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
