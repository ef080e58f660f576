"""A function a helper makes, bound to a name and called later, is called
where it is made (transforms/frontend/functions/made_function_names.py)."""
import numpy as np
import pytest

import s2sad
from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.functions import made_function_names


def descent_step(a):
    return lambda x: x - 0.05 * (x * x - a)


def newton_step(a):
    def step(x):
        return 0.5 * (x + a / x)
    return step


def iterate(make, a, x0, tol):
    step = make(a)  # (a module-level helper passed: a copy calling it)
    x, x_prev = step(x0), x0
    while np.abs(x - x_prev) > tol:
        x, x_prev = step(x), x
    return x


def root(a):
    return iterate(descent_step, a, 10.0, 1e-4)


def newton_root(a):
    return iterate(newton_step, a, 3.0, 1e-10)


def three_steps(a, x):
    step = newton_step(a)
    a = a + 1.0  # (the step reads the value a had when it was made)
    y = step(x)
    y = step(y)
    return step(y) * a


def test_called_where_made():
    _, after = lowered(made_function_names, three_steps)
    assert after == source('''
        def three_steps(a, x):
            step_a = a
            a = a + 1.0
            y = newton_step(step_a)(x)
            y = newton_step(step_a)(y)
            return newton_step(step_a)(y) * a''')


@pytest.mark.parametrize("fn", [root, newton_root])
def test_fixed_point_gradient(jit, fn):
    check_grad(fn, [2.0], jit=jit, rtol=1e-4)


def test_gradient(jit):
    check_grad(three_steps, [2.0, 1.5], wrt=(0, 1), jit=jit)


def nested_steps(a, x):
    step = newton_step(a)
    return step(step(x))  # (a call's argument: left, and refused)


def test_other_uses_refused(jit):
    with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
        s2sad.grad(nested_steps, jit=jit)(2.0, 1.5)
    assert "test_made_function_names.py" in str(info.value)
