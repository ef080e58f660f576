"""Nested differentiation: a function that calls an s2sad derivative (grad,
value_and_grad or jvp) differentiated again, in reverse and forward mode,
directly and through a helper, against finite differences."""
import math

import numpy as np
import pytest

import s2sad
from gradcheck import numerical_grad


def potential(x, w):
    a0 = x[0] - 10.0
    a1 = x[1] - (10.0 - w)
    return 1.0 / math.sqrt(a0 * a0 + a1 * a1) + w * np.sin(x[0])


grad_potential = s2sad.grad(potential, wrt=0)
value_and_grad_potential = s2sad.value_and_grad(potential, wrt=0)
jvp_potential = s2sad.jvp(potential, wrt=0)
jvp_potential_both = s2sad.jvp(potential, wrt=(0, 1))


def force_reverse(x, w):
    return -grad_potential(x, w)


def force_forward(x, w):
    """-grad p, one jvp per axis: what a user without reverse mode writes."""
    e0 = np.zeros(2)
    e0[0] = 1.0
    e1 = np.zeros(2)
    e1[1] = 1.0
    _, d0 = jvp_potential(x, w, e0)
    _, d1 = jvp_potential(x, w, e1)
    f = np.empty(2)
    f[0] = -d0
    f[1] = -d1
    return f


def euler_reverse(w):
    x = np.zeros(2)
    x[0] = 1.0
    x[1] = 3.0
    v = np.zeros(2)
    for _ in range(5):
        v = v + 0.1 * force_reverse(x, w)
        x = x + 0.1 * v
    return x[0] * x[1]


def euler_forward(w):
    x = np.zeros(2)
    x[0] = 1.0
    x[1] = 3.0
    v = np.zeros(2)
    for _ in range(5):
        v = v + 0.1 * force_forward(x, w)
        x = x + 0.1 * v
    return x[0] * x[1]


def directional(w):
    x = np.zeros(2)
    x[0] = 0.5 * w
    x[1] = 2.0
    t = np.ones(2)
    value, slope = jvp_potential(x, w, t)
    return value * slope


def directional_both(w):
    """A jvp w.r.t. two arguments takes a tuple of tangents."""
    x = np.zeros(2)
    x[0] = w
    x[1] = 2.0
    t = np.ones(2)
    _, slope = jvp_potential_both(x, w, (t, w))
    return slope * slope


def directional_named_tuple(w):
    x = np.zeros(2)
    x[0] = w
    x[1] = 2.0
    t = np.ones(2)
    tangents = (t, 2.0)
    _, slope = jvp_potential_both(x, w, tangents)
    return slope


def energy_and_slope(w):
    x = np.zeros(2)
    x[0] = w
    x[1] = 1.5
    e, g = value_and_grad_potential(x, w)
    return e * g[0] + g[1]


NESTED = [euler_reverse, euler_forward, directional, directional_both, directional_named_tuple,
          energy_and_slope]


@pytest.mark.parametrize("fn", NESTED, ids=lambda f: f.__name__)
def test_reverse_over_inner_derivative(fn, jit):
    for w in (0.3, -0.8):
        got = s2sad.grad(fn, jit=jit)(w)
        assert got == pytest.approx(numerical_grad(fn, [w], 0), rel=1e-6, abs=1e-8)


@pytest.mark.parametrize("fn", NESTED, ids=lambda f: f.__name__)
def test_forward_over_inner_derivative(fn, jit):
    for w in (0.3, -0.8):
        value, slope = s2sad.jvp(fn, jit=jit)(w, 1.0)
        assert value == pytest.approx(fn(w))
        assert slope == pytest.approx(numerical_grad(fn, [w], 0), rel=1e-6, abs=1e-8)


def test_inner_modes_agree(jit):
    """The same trajectory with the inner gradient by reverse or by forward
    mode: equal values and equal outer derivatives in both outer modes."""
    w = 0.4
    assert euler_reverse(w) == pytest.approx(euler_forward(w))
    g_rr = s2sad.grad(euler_reverse, jit=jit)(w)
    g_rf = s2sad.grad(euler_forward, jit=jit)(w)
    g_fr = s2sad.jvp(euler_reverse, jit=jit)(w, 1.0)[1]
    g_ff = s2sad.jvp(euler_forward, jit=jit)(w, 1.0)[1]
    assert g_rr == pytest.approx(g_rf) == pytest.approx(g_fr) == pytest.approx(g_ff)


def test_helper_calling_a_derivative_compiles():
    """The helper's primal copy calls the generated jvp, not the derivative
    object numba cannot type: jit="require" would raise otherwise."""
    df = s2sad.grad(euler_forward, jit="require")
    assert df(0.3) == pytest.approx(numerical_grad(euler_forward, [0.3], 0), rel=1e-6)
    assert "jvp_potential(" in df.source
    assert "jvp_potential" not in s2sad.grad(euler_reverse).source_for(0.3)


def test_jvp_of_jvp_is_the_second_derivative(jit):
    """jvp(jvp(f)) with unit tangents: f'' for a scalar function."""
    second = s2sad.jvp(s2sad.jvp(sine, jit=jit), jit=jit)
    (value, slope), (dvalue, curvature) = second(0.7, 1.0, 1.0)
    assert value == pytest.approx(math.sin(0.7))
    assert slope == dvalue == pytest.approx(math.cos(0.7))
    assert curvature == pytest.approx(-math.sin(0.7))


def sine(x):
    return math.sin(x)


vjp_potential = s2sad.vjp(potential)


def calls_vjp(w):
    x = np.ones(2)
    return np.sum(vjp_potential(x, w, 1.0))


def test_vjp_inside_a_differentiated_function_is_refused():
    with pytest.raises(TypeError, match="a vjp cannot be differentiated again"):
        s2sad.grad(calls_vjp)(0.5)
