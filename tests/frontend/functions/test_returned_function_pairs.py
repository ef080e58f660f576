"""A helper returning a value and a nested function, the caller calling the
function (transforms/frontend/functions/returned_function_pairs.py)."""
import numpy as np

from frontend.passes import lowered
from gradcheck import check_grad
from s2sad.transforms.frontend.functions import returned_function_pairs


def shifted(x, s):
    offset = np.exp(s)

    def unshift(v):
        return v * x - offset
    return x + offset, unshift


def shift_and_back(x, s):
    y, back = shifted(x, s)
    return np.sum(back(y) ** 2)


def test_the_captures_are_returned_or_passed():
    before, after = lowered(returned_function_pairs, shift_and_back)
    assert "y, back = shifted(x, s)" in before
    # (x is the caller's parameter, passed as it is; offset is the helper's, returned)
    assert "y, back_offset = shifted_captures(x, s)" in after
    assert "shifted_unshift(y, offset=back_offset, x=x)" in after


def test_shift_and_back(jit):
    check_grad(shift_and_back, [np.array([0.3, -0.4]), 0.6], wrt=(0, 1), jit=jit)


def passes_the_function(x, s):
    y, back = shifted(x, s)
    return np.sum(np.apply_along_axis(back, 0, y))


def test_a_function_read_other_than_by_a_call_is_left_as_it_is():
    _, after = lowered(returned_function_pairs, passes_the_function)
    assert "y, back = shifted(x, s)" in after


def rebinding(x, s):
    y, back = shifted(x, s)
    x = x * 2.0
    return np.sum(back(y))


def test_a_rebound_argument_is_returned_not_passed():
    _, after = lowered(returned_function_pairs, rebinding)
    assert "y, back_offset, back_x = shifted_captures" in after


def test_rebinding(jit):
    check_grad(rebinding, [np.array([0.3, -0.4]), 0.6], wrt=(0, 1), jit=jit)
