"""A helper's primal copy runs without s2sad's markers
(transforms/frontend/functions/markers.py)."""
import numpy as np

import s2sad
from frontend.passes import lowered, source
from s2sad.transforms.frontend.functions import markers


def marked(x):
    y = s2sad.stop_gradient(x * 2.0)
    with s2sad.stop_recording():
        z = x * 3.0
    return x * y + z


def uses_marked(x):
    return marked(x) + 1.0


def test_stripped_from_the_copy():
    _, after = lowered(markers, marked, copy=True)
    assert after == source('''
        def marked(x):
            y = x * 2.0
            z = x * 3.0
            return x * y + z''')


def test_gradient(jit):
    # x * stop_gradient(2x) + (3x, not recorded) + 1: the derivative is 2x
    np.testing.assert_allclose(s2sad.grad(uses_marked, jit=jit)(1.5), 3.0)
