"""A comprehension's list kept as an array: used as a list, refused; given
to np.array, copied; summed, along its first axis
(transforms/frontend/containers/materialised_lists.py)."""
import numpy as np
import pytest

from frontend.passes import lowered
from gradcheck import check_grad
from s2sad.transforms.errors import UnsupportedSyntaxError
from s2sad.transforms.frontend.containers import materialised_lists


def materialised(x):
    ys = [v * 2.0 for v in x]
    return np.sum(np.array(ys)) + sum(ys)


def concatenated(x):
    ys = [v * 2.0 for v in x]
    zs = ys + [1.0]
    return zs[0]


def test_copied_and_summed():
    before, after = lowered(materialised_lists, materialised, np.ones(3))
    assert before.splitlines()[-1] == "    return np.sum(np.array(ys)) + sum(ys)"
    assert after.splitlines()[-1] == "    return np.sum(np.copy(ys)) + np.sum(ys, axis=0)"


def test_a_list_use_is_refused():
    with pytest.raises(UnsupportedSyntaxError, match=r"`\+` on a list \(concatenation\)"):
        lowered(materialised_lists, concatenated, np.ones(3))


def test_gradient(jit):
    check_grad(materialised, [np.array([0.5, -1.0, 2.0])], jit=jit)
