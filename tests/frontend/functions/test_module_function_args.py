"""A module-level function passed to a helper: the helper is copied for it
(transforms/frontend/functions/module_function_args.py, bound_copies.py)."""
import math

import numpy as np
import pytest

import s2sad
from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.functions import module_function_args


def step(a, x):
    return 0.5 * (x + a / x)


def fixed_point(f, a, x0):
    x = x0
    for _ in range(20):
        x = f(a, x)
    return x


def sqrt_fp(a):
    return fixed_point(step, a, 1.0)


def test_the_helper_is_copied_for_the_function():
    _, after = lowered(module_function_args, sqrt_fp)
    assert after == source('''
        def sqrt_fp(a):
            return fixed_point_step(a, 1.0)''')


def test_fixed_point(jit):
    check_grad(sqrt_fp, [2.0], jit=jit)
    assert s2sad.grad(sqrt_fp, jit=jit)(2.0) == pytest.approx(0.5 / math.sqrt(2.0))


def integrate(f, lo, hi, n=40):
    h = (hi - lo) / n
    s = 0.0
    for i in range(n):
        s = s + f(lo + (i + 0.5) * h) * h
    return s


def bump(u):
    return math.exp(-u * u)


cubed = lambda u: u * u * u  # noqa: E731 - a lambda bound at module level


def quadratures(a):
    # by keyword, with a default left out, numpy's and math's functions
    return (integrate(bump, 0.0, a) + integrate(np.cos, 0.0, a, n=10)
            + integrate(f=cubed, lo=a, hi=2.0 * a) + integrate(math.sin, 0.0, a))


def test_functions_of_every_kind(jit):
    check_grad(quadratures, [0.7], jit=jit)


def apply_once(g, x):
    return g(x)


def twice(g, x):
    return apply_once(g, apply_once(g, x))


def repeat(f, x, n):
    if n == 0:
        return x
    return repeat(f, f(x), n - 1)


def passed_on(x):
    # a helper passing the function on to another helper, or to itself
    return np.sum(twice(np.tanh, x) * repeat(np.sin, x, 3))


def test_passed_on_and_recursive(jit):
    check_grad(passed_on, [np.array([0.3, -0.5, 0.9])], jit=jit)


def rebinds(f, x):
    f = np.cos
    return f(x)


def uses_rebinding(x):
    return rebinds(np.sin, x)


def test_a_helper_rebinding_the_parameter_is_left_as_it_is():
    _, after = lowered(module_function_args, uses_rebinding)
    assert "rebinds(np.sin, x)" in after
    with pytest.raises(s2sad.NoGradientError, match=r"'f \(a local variable\)'.*"
                       r"test_module_function_args.py:\d+, in rebinds.*module-level name"):
        s2sad.grad(uses_rebinding, jit=False)(0.3)
