"""Custom gradients (TensorFlow and JAX style), registered gradients for
opaque functions, and non-differentiable functions."""
import math

import numba
import numpy as np
import pytest

import s2sad
from gradcheck import check_grad


def clip_by_norm(t, clip_norm):
    norm = math.sqrt(t * t)
    return t * clip_norm / max(norm, clip_norm)


@s2sad.custom_gradient
def clip_gradients(y):
    def backward(dy):
        return clip_by_norm(dy, 0.5)
    return y, backward


def clipped_square(v):
    return clip_gradients(v * v)


def test_clip_gradients_seed_example(jit):
    # d(v*v)/dv at v = 2 is 4; the clipped incoming gradient 0.5 makes it 2
    assert s2sad.grad(clipped_square, jit=jit)(2.0) == pytest.approx(2.0)
    assert clip_gradients(3.0) == 3.0  # called directly: the value


@s2sad.custom_gradient
def log1pexp(x):
    e = np.exp(x)

    def backward(dy):
        return dy * (1.0 - 1.0 / (1.0 + e))
    return np.log(1.0 + e), backward


def softplus_sum(x):
    return np.sum(log1pexp(x))


def test_numerically_stable_log1pexp(jit):
    x = np.array([0.0, 10.0, 1000.0])
    with np.errstate(over="ignore"):
        g = s2sad.grad(softplus_sum, jit=jit)(x)
    np.testing.assert_allclose(g, [0.5, 1.0 / (1.0 + math.exp(-10.0)), 1.0])
    assert np.all(np.isfinite(g))  # exp(1000) overflows; the naive rule gives nan


@s2sad.custom_vjp
def straight_round(x):
    return np.round(x)


def straight_round_fwd(x):
    return np.round(x), 0.0


def straight_round_bwd(residuals, g):
    return (g,)


straight_round.defvjp(straight_round_fwd, straight_round_bwd)


def quantised(w, x):
    s = 0.0
    for i in range(x.shape[0]):
        s += straight_round(w * x[i]) * x[i]
    return s


def test_straight_through_round(jit):
    x = np.array([0.3, 1.7, -2.2])
    # round() passes its incoming gradient through unchanged
    assert s2sad.grad(quantised, jit=jit)(1.3, x) == pytest.approx(np.sum(x * x))
    assert straight_round(1.6) == 2.0


@s2sad.custom_gradient
def scaled_product(a, b):
    p = a * b

    def backward(dy):
        return dy * b * 10.0, dy * a
    return p, backward


def uses_in_branch_and_loop(a, b):
    s = 0.0
    for i in range(3):
        if i != 1:
            s += scaled_product(a, b * i)
    return s


def test_custom_gradient_with_several_inputs_in_loop_and_branch(jit):
    da, db = s2sad.grad(uses_in_branch_and_loop, wrt=(0, 1), jit=jit)(1.5, 2.0)
    # only i = 0 and i = 2 run: d/da = 10 * (0 + 2b), d/db = a * (0 + 2)
    assert da == pytest.approx(10.0 * 4.0)
    assert db == pytest.approx(1.5 * 2.0)
    v, _ = s2sad.value_and_grad(uses_in_branch_and_loop, jit=jit)(1.5, 2.0)
    assert v == pytest.approx(uses_in_branch_and_loop(1.5, 2.0))


@numba.njit
def cube_kernel(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = x[i] ** 3
    return out


@s2sad.register_gradient(cube_kernel)
def cube_kernel_grad(dy, y, x):
    return dy * 3.0 * x ** 2


def uses_kernel(x):
    return np.sum(cube_kernel(x) * x)


@numba.njit
def jitter(x):
    return x + 1e-9 * math.sin(1e9 * x)


s2sad.non_differentiable(jitter)


def uses_non_differentiable(x):
    return x * jitter(x)


def test_registered_gradient_for_numba_kernel(jit):
    x = np.array([0.5, -1.0, 2.0])
    np.testing.assert_allclose(s2sad.grad(uses_kernel, jit=jit)(x), 4.0 * x ** 3)


def test_non_differentiable(jit):
    assert s2sad.grad(uses_non_differentiable, jit=jit)(2.0) == pytest.approx(jitter(2.0))


def test_custom_gradient_shows_in_source():
    src = s2sad.grad(clipped_square).source_for(2.0)
    assert "def clip_gradients_bwd(residuals, dy):" in src
    assert "clip_by_norm(dy, 0.5)" in src
    assert "def clip_by_norm(t, clip_norm):" in src


# ---- a custom_vjp bwd returning a bare value (JAX asks for a tuple) ----------------

@s2sad.custom_vjp
def doubled_square(x):
    return np.sum(x ** 2)


def doubled_square_fwd(x):
    return np.sum(x ** 2), x


def doubled_square_bwd(x, g):
    return 4 * g * x  # twice the true gradient, not in a tuple: the one cotangent


doubled_square.defvjp(doubled_square_fwd, doubled_square_bwd)


def uses_doubled_square(x):
    return 3.0 * doubled_square(x)


@pytest.mark.parametrize("x", [np.array([1.5]), np.array([1.0, 2.0, 3.0]), 2.0],
                         ids=["length-1", "vector", "scalar"])
def test_custom_vjp_bwd_returning_one_value(x, jit):
    g = s2sad.grad(uses_doubled_square, jit=jit)(x)
    assert np.shape(g) == np.shape(x)  # (a length-1 array was taken apart: a scalar)
    np.testing.assert_allclose(g, 12.0 * np.asarray(x))


@s2sad.custom_vjp
def pair_product(a, b):
    return a * b


def pair_product_fwd(a, b):
    return a * b, (a, b)


def pair_product_bwd(res, g):
    return g * res[1]  # one value for two arguments


pair_product.defvjp(pair_product_fwd, pair_product_bwd)


def uses_pair_product(a, b):
    return pair_product(a, b) + a


def test_custom_vjp_bwd_returning_one_value_for_two_arguments_is_refused(jit):
    with pytest.raises(TypeError, match=r"test_custom\.py:\d+: the bwd of custom_vjp "
                                        r"pair_product returns one value"):
        s2sad.grad(uses_pair_product, wrt=(0, 1), jit=jit)(2.0, 3.0)


# ---- a custom vjp called where nothing is differentiated, and by jacobian ---------------

@s2sad.custom_vjp
def capped_square(x):
    return np.minimum(x * x, 4.0)


def capped_square_fwd(x):
    return capped_square(x), x  # (JAX's form: the fwd calls the function itself)


def capped_square_bwd(x, g):
    return (2.0 * g * x * (x * x < 4.0),)


capped_square.defvjp(capped_square_fwd, capped_square_bwd)


def rotated(v, w):
    return capped_square(v) * w  # a helper: its primal copy calls capped_square


def uses_rotated(v, w):
    return np.sum(np.sin(rotated(v, w)))


def test_helper_calling_a_custom_vjp(jit):
    check_grad(uses_rotated, [np.array([0.5, -1.5, 3.0]), np.array([1.0, 2.0, -0.5])],
               wrt=(0, 1), jit=jit)


def squares_and_total(v):
    return capped_square(v), np.sum(v)


def test_jacobian_auto_takes_reverse_mode_for_a_custom_vjp(jit):
    # (3 outputs + 1 > 3 inputs: auto would take forward mode, which a custom vjp lacks)
    v = np.array([0.5, -1.5, 3.0])
    jv, jt = s2sad.jacobian(squares_and_total, jit=jit)(v)
    np.testing.assert_allclose(jv, np.diag(2.0 * v * (v * v < 4.0)))
    np.testing.assert_allclose(jt, np.ones(3))
    with pytest.raises(s2sad.NoForwardModeError, match="No forward-mode rule for the custom "
                                                       "gradient 'capped_square'"):
        s2sad.jacobian(squares_and_total, mode="fwd", jit=jit)(v)


def _softplus_sum(v):
    return np.sum(np.log1p(np.exp(v)))


softplus_sum = s2sad.custom_vjp(_softplus_sum)
# fwd and bwd given as lambdas: the generated module must name them
softplus_sum.defvjp(lambda v: (_softplus_sum(v), v),
                    lambda v, g: (g / (1.0 + np.exp(-v)),))


def scaled_softplus(w):
    return 2.0 * softplus_sum(w * w)


def test_custom_vjp_rules_written_as_lambdas(jit):
    check_grad(scaled_softplus, (np.array([0.3, -1.2, 0.8]),), jit=jit)
