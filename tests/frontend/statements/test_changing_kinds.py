"""`sum(res)` of a name bound to a number and, in a loop, to an array:
refused with both lines (transforms/frontend/statements/changing_kinds.py)."""
import numpy as np
import pytest

from frontend.passes import lowered
from gradcheck import check_grad
from s2sad.transforms.errors import UnsupportedSyntaxError
from s2sad.transforms.frontend.statements import changing_kinds


def changing(a):
    res = 0
    for i in range(3):
        res = res + a
    return sum(res)


def as_array(a):
    res = np.zeros_like(a)
    for i in range(3):
        res = res + a
    return sum(res)


def test_refused_with_the_lines():
    line = changing.__code__.co_firstlineno
    with pytest.raises(UnsupportedSyntaxError,
                       match=rf"sum\(res\) of a name bound to a number \(line {line + 1}\)"):
        lowered(changing_kinds, changing, np.ones(3))


def test_the_suggested_form_passes():
    before, after = lowered(changing_kinds, as_array, np.ones(3))
    assert before == after


def test_gradient(jit):
    check_grad(as_array, [np.array([0.5, 1.0, -2.0])], jit=jit)
