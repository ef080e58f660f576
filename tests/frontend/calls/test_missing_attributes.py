"""An attribute ndarrays do not have raises numpy's AttributeError, as the
function does when it runs (transforms/frontend/calls/missing_attributes.py)."""
import numpy as np
import pytest

from frontend.passes import lowered
from gradcheck import check_grad
from s2sad.transforms.frontend.calls import missing_attributes


def removed(x):
    return np.sum(x * 2.0) + x.ptp()


def present(x):
    return np.sum(x * 2.0) + x.sum()


def test_the_error_numpy_gives():
    with pytest.raises(AttributeError, match="'numpy.ndarray' object has no attribute 'ptp'"):
        removed(np.ones(3))
    with pytest.raises(AttributeError, match="no attribute 'ptp'"):
        lowered(missing_attributes, removed, np.ones(3))


def test_attributes_arrays_have_pass():
    before, after = lowered(missing_attributes, present, np.ones(3))
    assert before == after


def test_gradient(jit):
    check_grad(present, [np.array([1.0, -2.0, 0.5])], jit=jit)
