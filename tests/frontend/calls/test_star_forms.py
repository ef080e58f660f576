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


def scaled_parts(v):
    # a tuple written out, of one length in every return
    return np.tanh(v[:2]), v[2:4] * 2.0, v[4:]


def star_of_a_helper_result(v):
    total = 0.0
    for a, b, c in zip(*scaled_parts(v)):
        total = total + a * b + np.sin(c)
    return total


def test_star_of_a_helper_result_is_bound_then_indexed():
    _, after = lowered(star_forms, star_of_a_helper_result)
    assert "star_0, star_1, star_2 = scaled_parts(v)" in after
    assert "zip(star_0, star_1, star_2)" in after


def test_star_of_a_helper_result_gradient(jit):
    check_grad(star_of_a_helper_result, [np.array([0.3, -0.8, 1.2, 0.5, -0.4, 0.9])], jit=jit)


# ---- randn(*shape): numpy's legacy draws given the dimensions one by one ------------

def reparameterised(mean, log_std):
    rs = np.random.RandomState(2)  # (made here: one function of the arguments)
    noise = rs.randn(*mean.shape)
    return np.sum(np.tanh(noise * np.exp(log_std) + mean))


def uniform_noise(x):
    return x * np.random.rand(*x.shape)


def test_draw_dimensions_given_as_the_size():
    _, after = lowered(star_forms, reparameterised)
    assert after == source('''
        def reparameterised(mean, log_std):
            rs = np.random.RandomState(2)
            noise = rs.standard_normal(mean.shape)
            return np.sum(np.tanh(noise * np.exp(log_std) + mean))''')
    _, after = lowered(star_forms, uniform_noise)
    assert after == source('''
        def uniform_noise(x):
            return x * np.random.random_sample(x.shape)''')


def test_draw_dimensions_gradient(jit):
    mean = np.array([[0.2, -0.4, 0.1], [0.3, 0.0, -1.0]])
    check_grad(reparameterised, [mean, 0.5 * mean], wrt=(0, 1), jit=jit)
