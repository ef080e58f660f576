"""A helper returning a function, called at once (`make_grad(ans, x)(g)`), as
autograd's gradient makers are written and custom gradients call them
(transforms/frontend/functions/returned_functions.py)."""
import numpy as np

import s2sad
from frontend.passes import lowered
from gradcheck import check_grad
from s2sad.transforms.frontend.functions import returned_functions


def make_scaled(w):
    def scaled(u):
        return u * w
    return scaled


def calls_what_it_makes(x, w):
    return make_scaled(w)(x) ** 2


def test_the_helper_is_copied_returning_its_call():
    """(returned_closures.py, earlier in the list, takes the helpers whose
    nested function it can merge; this pass the others: either way the
    made function is not called.)"""
    _, after = lowered(returned_functions, calls_what_it_makes)
    assert "make_scaled" in after and ")(" not in after


def test_called_at_once(jit):
    check_grad(calls_what_it_makes, [0.7, -1.3], wrt=(0, 1), jit=jit)


def make_power(p, shift=0.0):
    if p == 2:
        return lambda u: u * u + shift
    return lambda u: u * u * u + shift


def lambdas_and_branches(x):
    return np.sum(make_power(2)(x) + make_power(3, shift=1.0)(x))


def test_returned_lambdas_on_each_branch(jit):
    check_grad(lambdas_and_branches, [np.array([0.4, -0.8])], jit=jit)


# a custom_vjp whose bwd calls gradient makers, and whose fwd calls the
# function itself (benchmarks/adbench/ba_objective.py's cross, as ADBench
# wrote autograd's cross.defgrad(make_grad_cross_0, argnum=0))
@s2sad.custom_vjp
def cross(a, b):
    out = np.empty(3)
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]
    return out


def make_grad_cross_0(ans, a, b):
    def gradient_product(g):
        return cross(g, -b)
    return gradient_product


def make_grad_cross_1(ans, a, b):
    def gradient_product(g):
        return cross(g, a)
    return gradient_product


def cross_fwd(a, b):
    return cross(a, b), (a, b)


def cross_bwd(residuals, g):
    a, b = residuals
    return make_grad_cross_0(None, a, b)(g), make_grad_cross_1(None, a, b)(g)


cross.defvjp(cross_fwd, cross_bwd)


def uses_cross(a, b):
    return np.sum(cross(a * a, b) ** 2)


def test_custom_vjp_calling_gradient_makers(jit):
    check_grad(uses_cross, [np.array([0.3, -0.4, 1.2]), np.array([1.0, 2.0, 0.5])],
               wrt=(0, 1), jit=jit)


@s2sad.custom_vjp
def cube(x):
    return x * x * x


def cube_fwd(x):
    return cube(x), x


def cube_bwd(res, g):
    scale = lambda u: 3.0 * res * res * u  # noqa: E731 - a closure the bwd calls
    return scale(g)


cube.defvjp(cube_fwd, cube_bwd)


def uses_cube(x):
    return np.sum(cube(x) * 2.0)


def test_custom_vjp_whose_bwd_calls_a_closure(jit):
    check_grad(uses_cube, [np.array([0.5, -1.5, 2.0])], jit=jit)
