"""A call made for its effect on an array s2sad cannot follow: refused
(transforms/frontend/effects/calls_for_effect.py)."""
import numpy as np
import pytest

from frontend.passes import lowered
from gradcheck import check_grad
from s2sad.transforms.errors import UnsupportedSyntaxError
from s2sad.transforms.frontend.effects import calls_for_effect


def puts(u):
    w = u * 2.0
    np.put(w, [0], [1.0])
    return np.sum(w)


def sums_on_its_own_line(u):
    w = u * 2.0
    np.sum(w)
    return np.sum(w * u)


def test_a_writing_function_is_refused():
    with pytest.raises(UnsupportedSyntaxError, match=r"np.put\(...\), which writes into an array"):
        lowered(calls_for_effect, puts, np.ones(3))


def test_a_function_with_a_rule_changes_nothing():
    before, after = lowered(calls_for_effect, sums_on_its_own_line, np.ones(3))
    assert before == after


def test_gradient(jit):
    check_grad(sums_on_its_own_line, [np.array([0.5, 1.0, -2.0])], jit=jit)
