"""Jacobians, batch Jacobians, Hessian-vector products and Hessians, against
finite differences of first derivatives, and the TensorFlow guide's
examples."""
import numpy as np
import pytest

import s2sad

rng = np.random.default_rng(3)


def sigmoid_shift(x, delta):
    return 1.0 / (1.0 + np.exp(-(x + delta)))


def dense(x, W, b):
    return np.maximum(x @ W + b, 0.0)


def two_layer_loss(W1, x, W2):
    h = np.tanh(x @ W1)
    out = h @ W2
    return np.mean(out * out)


def rowwise(x, W):
    y = np.empty((x.shape[0], W.shape[1]))
    for b in range(x.shape[0]):
        for j in range(W.shape[1]):
            s = 0.0
            for i in range(x.shape[1]):
                s += np.tanh(x[b, i] * W[i, j])
            y[b, j] = s * x[b, 0]
    return y


def scalar_loop(x, w):
    y = 0.0
    for i in range(x.shape[0]):
        y += w[i] * np.tanh(x[i]) * x[0]
    return y


def fd_jacobian(f, args, wrt, eps=1e-6):
    x = np.asarray(args[wrt], dtype=float)
    out = np.asarray(f(*args))
    J = np.empty(out.shape + x.shape)
    for idx in np.ndindex(*x.shape):
        up, down = list(args), list(args)
        xp, xm = x.copy(), x.copy()
        xp[idx] += eps
        xm[idx] -= eps
        up[wrt], down[wrt] = xp, xm
        J[(...,) + idx] = (np.asarray(f(*up)) - np.asarray(f(*down))) / (2 * eps)
    return J


@pytest.mark.parametrize("mode", ["rev", "fwd", "auto"])
def test_jacobian_of_dense_layer(mode, jit):
    x, W, b = rng.normal(size=(7, 5)), rng.normal(size=(5, 10)), rng.normal(size=10)
    J = s2sad.jacobian(dense, wrt=1, mode=mode, jit=jit)(x, W, b)
    assert J.shape == (7, 10, 5, 10)
    np.testing.assert_allclose(J, fd_jacobian(dense, (x, W, b), 1), atol=1e-6)
    # summed over the output axes it is the gradient
    np.testing.assert_allclose(J.sum(axis=(0, 1)), s2sad.grad(dense, wrt=1, jit=jit)(x, W, b),
                               atol=1e-3)


def test_jacobian_of_sigmoid_wrt_scalar(jit):
    x = np.linspace(-10.0, 10.0, 201)
    J = s2sad.jacobian(sigmoid_shift, wrt="delta", jit=jit)(x, 0.0)
    s = sigmoid_shift(x, 0.0)
    assert J.shape == (201,)
    np.testing.assert_allclose(J, s * (1 - s), atol=1e-12)


def test_batch_jacobian_is_the_diagonal_of_the_jacobian(jit):
    x, W = rng.normal(size=(4, 3)), rng.normal(size=(3, 2))
    bj = s2sad.batch_jacobian(rowwise, jit=jit)(x, W)
    full = s2sad.jacobian(rowwise, jit=jit)(x, W)  # (4, 2, 4, 3)
    assert bj.shape == (4, 2, 3)
    for b in range(4):
        np.testing.assert_allclose(bj[b], full[b, :, b, :], atol=1e-12)
    np.testing.assert_allclose(full, fd_jacobian(rowwise, (x, W), 0), atol=1e-6)


def test_hessian_of_two_layer_loss_and_newton_step(jit):
    local = np.random.default_rng(11)  # (not the module's: the data must not depend on
    # which tests ran before, and CI runs a sample of them)
    x, W1 = local.normal(size=(8, 3)), local.normal(size=(3, 4)) * 0.5
    W2 = local.normal(size=(4, 2))
    H = s2sad.hessian(two_layer_loss, jit=jit)(W1, x, W2)
    assert H.shape == (3, 4, 3, 4)
    flat = H.reshape(12, 12)
    np.testing.assert_allclose(flat, flat.T, atol=1e-10)  # symmetric to rounding
    g = s2sad.grad(two_layer_loss, jit=jit)
    np.testing.assert_allclose(H, fd_jacobian(g, (W1, x, W2), 0), atol=1e-5)
    # a damped Newton direction (damped so that H + damping I is positive
    # definite: away from a minimum the Hessian is indefinite) is a descent
    # direction, along which a backtracking line search reduces the loss
    damping = max(0.0, -np.linalg.eigvalsh(flat).min()) + 0.1
    gradient = g(W1, x, W2).ravel()
    step = np.linalg.solve(flat + damping * np.eye(12), gradient)
    assert gradient @ step > 0
    before = two_layer_loss(W1, x, W2)
    assert any(two_layer_loss(W1 - t * step.reshape(W1.shape), x, W2) < before
               for t in 0.5 ** np.arange(12))


def test_hvp_and_hessian_of_loop_code(jit):
    x, w = np.linspace(-1.0, 1.0, 4), np.arange(1.0, 5.0)
    g = s2sad.grad(scalar_loop, jit=jit)
    H = s2sad.hessian(scalar_loop, jit=jit)(x, w)
    np.testing.assert_allclose(H, fd_jacobian(g, (x, w), 0), atol=1e-6)
    v = rng.normal(size=4)
    np.testing.assert_allclose(s2sad.hvp(scalar_loop, jit=jit)(x, w, v), H @ v, atol=1e-12)


def test_jvp_with_tuple_wrt(jit):
    x, W, b = rng.normal(size=(2, 3)), rng.normal(size=(3, 2)), rng.normal(size=2)
    tW, tb = rng.normal(size=W.shape), rng.normal(size=b.shape)
    value, t = s2sad.jvp(dense, wrt=(1, 2), jit=jit)(x, W, b, (tW, tb))
    eps = 1e-6
    fd = (dense(x, W + eps * tW, b + eps * tb) - dense(x, W - eps * tW, b - eps * tb)) / (2 * eps)
    np.testing.assert_allclose(value, dense(x, W, b))
    np.testing.assert_allclose(t, fd, atol=1e-6)


def sin_cubic(x):
    return np.sin(x) * x * x


def loss_of_inputs(x, W):
    h = np.tanh(x @ W)
    return np.sum(h * h)


def input_gradient_penalty(x, W):
    g = s2sad.grad(loss_of_inputs, wrt=0)(x, W)
    return np.sum(g ** 2)


def test_grad_of_grad(jit):
    x = 0.7
    expected = -np.sin(x) * x * x + 4 * x * np.cos(x) + 2 * np.sin(x)
    assert s2sad.grad(s2sad.grad(sin_cubic), jit=jit)(x) == pytest.approx(expected)
    xs, w = np.linspace(-1.0, 1.0, 4), np.arange(1.0, 5.0)
    H = s2sad.hessian(scalar_loop, jit=jit)(xs, w)
    # grad of a vector-valued gradient: the gradient of its sum
    np.testing.assert_allclose(s2sad.grad(s2sad.grad(scalar_loop), jit=jit)(xs, w),
                               H.sum(axis=0), atol=1e-10)


def test_gradient_inside_a_differentiated_function(jit):
    """Input-gradient regularisation, as in the TensorFlow guide."""
    x, W = rng.normal(size=(4, 3)), rng.normal(size=(3, 2))
    got = s2sad.grad(input_gradient_penalty, wrt=1, jit=jit)(x, W)
    np.testing.assert_allclose(got, fd_jacobian(input_gradient_penalty, (x, W), 1), atol=1e-6)


# ---- keyword-only parameters ---------------------------------------------------

def cubic_keyword_only(x, *, w, scale=2.0):
    return scale * np.sum(w * x ** 3)


def square_keyword_only(x, *, w):
    return w * x ** 2


def test_keyword_only_parameters(jit):
    x, w = np.array([0.5, -1.5, 2.0]), np.array([1.0, 3.0, -2.0])
    expected = np.diag(3.0 * 6.0 * w * x)  # scale 3 x d2/dx2 of w x^3
    got = s2sad.hessian(cubic_keyword_only, jit=jit)(x, w=w, scale=3.0)
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    np.testing.assert_allclose(s2sad.hessian(cubic_keyword_only, jit=jit)(x, w=w),
                               expected * 2.0 / 3.0, rtol=1e-12)
    # w.r.t. a keyword-only parameter: the function is linear in it
    np.testing.assert_allclose(s2sad.hessian(cubic_keyword_only, wrt="w", jit=jit)(x, w=w),
                               np.zeros((3, 3)), atol=0)
    for mode in ("rev", "fwd"):
        jac = s2sad.jacobian(square_keyword_only, mode=mode, jit=jit)(x, w=w)
        np.testing.assert_allclose(jac, np.diag(2.0 * w * x), rtol=1e-12)
    np.testing.assert_allclose(s2sad.vjp(square_keyword_only, jit=jit)(x, np.ones(3), w=w),
                               2.0 * w * x, rtol=1e-12)
