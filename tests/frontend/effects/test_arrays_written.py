"""A helper's `p += e` given an array writes into the caller's array: the
function is specialised again with the call rewritten
(transforms/frontend/effects/arrays_written.py)."""
import numpy as np
import pytest

from frontend.passes import lowered
from gradcheck import check_grad
from s2sad.transforms.frontend.context import Restart
from s2sad.transforms.frontend.effects import arrays_written


def bump(p, e):
    p += e
    return 0.0


def bumps(u):
    w = u * 1.0
    bump(w, 2.0)
    return np.sum(w * u)


def bumps_a_number(x):
    w = x * 1.0
    bump(w, 2.0)
    return w * x


def test_an_array_argument_restarts():
    with pytest.raises(Restart) as again:
        lowered(arrays_written, bumps, np.ones(3))
    assert len(again.value.arrays) == 1


def test_a_number_argument_is_rebound_only():
    before, after = lowered(arrays_written, bumps_a_number, 1.0)
    assert before == after


def test_gradient(jit):
    # w = u + 2 in place: sum((u + 2) * u), whose gradient is 2u + 2
    check_grad(bumps, [np.array([0.5, 1.0, -2.0])], jit=jit)
    check_grad(bumps_a_number, [0.7], jit=jit)
