"""Star arguments and star targets of known length written out
(transforms/frontend/calls/star_forms.py)."""
import numpy as np

from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.calls import star_forms


def scale(w, u):
    return w * u


def star_call(x, y):
    args = (x, y)
    return scale(*args)


def star_target(x):
    first, *rest = x[0], x[1], x[2]
    return first * rest[0] + rest[1]


def test_a_star_argument_is_its_elements():
    before, after = lowered(star_forms, star_call)
    assert after == source('''
        def star_call(x, y):
            args = (x, y)
            return scale(args[0], args[1])''')


def test_a_star_target_takes_the_rest():
    _, after = lowered(star_forms, star_target)
    assert "*rest" not in after


def test_gradient(jit):
    check_grad(star_call, [0.5, 2.0], wrt=(0, 1), jit=jit)
    check_grad(star_target, [np.array([1.0, 2.0, 3.0])], jit=jit)
