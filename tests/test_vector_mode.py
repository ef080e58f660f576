"""jacobian and hessian run all their passes in one call into the generated
code (s2sad/vector_mode.py): the results against analytic Jacobians and
finite differences, in both modes, and the number of calls."""
import numpy as np
import pytest

import s2sad
from s2sad import backend, vector_mode
from gradcheck import hessian_by_differences

rng = np.random.default_rng(7)


def chain(x, a):
    """y[i] = a sin(x[i]) + x[i-1]^2 (x[-1] for i = 0): a loop."""
    y = np.empty(x.shape[0])
    for i in range(x.shape[0]):
        y[i] = a * np.sin(x[i]) + x[i - 1] ** 2
    return y


def chain_jacobian(x, a):
    n = x.shape[0]
    jac = np.diag(a * np.cos(x))
    for i in range(n):
        jac[i, i - 1] += 2 * x[i - 1]
    return jac


def matrix_out(x):
    """A (2, 3) output of a (3,) argument: y[0] = x * x[0], y[1] = exp(x)."""
    y = np.empty((2, x.shape[0]))
    for j in range(x.shape[0]):
        y[0, j] = x[j] * x[0]
        y[1, j] = np.exp(x[j])
    return y


def pair_out(x):
    return x[0] * x[1], np.sin(x)


def rosenbrock(x):
    s = 0.0
    for i in range(x.shape[0] - 1):
        s += 100.0 * (x[i + 1] - x[i] ** 2) ** 2 + (1.0 - x[i]) ** 2
    return s


def rosenbrock_hessian(x):
    n = x.shape[0]
    h = np.zeros((n, n))
    for i in range(n - 1):
        h[i, i] += 1200.0 * x[i] ** 2 - 400.0 * x[i + 1] + 2.0
        h[i + 1, i + 1] += 200.0
        h[i, i + 1] -= 400.0 * x[i]
        h[i + 1, i] -= 400.0 * x[i]
    return h


def jacobian_by_differences(f, x, eps=1e-6):
    cols = []
    for k in range(x.size):
        e = np.zeros_like(x)
        e.flat[k] = eps
        cols.append(np.ravel((np.asarray(f(x + e)) - np.asarray(f(x - e))) / (2 * eps)))
    return np.array(cols).T


@pytest.mark.parametrize("mode", ["fwd", "rev"])
def test_jacobian_of_a_loop(jit, mode):
    x = rng.uniform(0.5, 1.5, 6)
    for _ in range(2):  # (the second call: the driver alone)
        jac = s2sad.jacobian(chain, mode=mode, jit=jit)(x, 1.7)
        np.testing.assert_allclose(jac, chain_jacobian(x, 1.7), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(jac, jacobian_by_differences(lambda v: chain(v, 1.7), x),
                               rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("mode", ["fwd", "rev"])
def test_jacobian_of_a_matrix_output(jit, mode):
    x = rng.uniform(0.5, 1.5, 3)
    jac = s2sad.jacobian(matrix_out, mode=mode, jit=jit)(x)
    assert jac.shape == (2, 3, 3)
    expected = np.zeros((2, 3, 3))
    expected[0] = np.diag(np.full(3, x[0]))
    expected[0, :, 0] += x
    expected[1] = np.diag(np.exp(x))
    np.testing.assert_allclose(jac, expected, rtol=1e-12)


@pytest.mark.parametrize("mode", ["fwd", "rev"])
def test_jacobian_of_a_tuple_output(jit, mode):
    x = rng.uniform(0.5, 1.5, 4)
    d_product, d_sin = s2sad.jacobian(pair_out, mode=mode, jit=jit)(x)
    np.testing.assert_allclose(d_product, [x[1], x[0], 0.0, 0.0], rtol=1e-12)
    np.testing.assert_allclose(d_sin, np.diag(np.cos(x)), rtol=1e-12)


def test_jacobian_of_a_float_argument(jit):
    jac = s2sad.jacobian(lambda t: np.array([np.sin(t), t * t]), jit=jit)(0.3)
    np.testing.assert_allclose(jac, [np.cos(0.3), 0.6], rtol=1e-12)


def test_hessian(jit):
    x = rng.uniform(0.5, 1.5, 5)
    for _ in range(2):
        h = s2sad.hessian(rosenbrock, jit=jit)(x)
        np.testing.assert_allclose(h, rosenbrock_hessian(x), rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(h, hessian_by_differences(rosenbrock, x), rtol=1e-4, atol=1e-3)


def test_keyword_only_arguments_take_the_ordinary_calls(jit):
    def scaled(x, *, a):
        return chain(x, a)

    x = rng.uniform(0.5, 1.5, 4)
    jac = s2sad.jacobian(scaled, mode="rev", jit=jit)(x, a=0.5)
    np.testing.assert_allclose(jac, chain_jacobian(x, 0.5), rtol=1e-12)


@pytest.mark.parametrize("mode", ["fwd", "rev"])
def test_one_batch_of_passes(mode):
    """A Jacobian is one batch of n passes and, after the first call of its
    kind (an ordinary call: the checks), one call of generated code."""
    x = rng.uniform(0.5, 1.5, 5)
    jac = s2sad.jacobian(chain, mode=mode, jit=True)
    batches = []
    vector_mode.BATCH_HOOKS.append(lambda d, n: batches.append(n))
    try:
        jac(x, 2.0)
        assert batches == [5]
        calls = []
        original = backend.Entry.__call__

        def counted(self, *args):
            calls.append(self.fname)
            return original(self, *args)

        backend.Entry.__call__ = counted
        try:
            result = jac(x, 2.0)
        finally:
            backend.Entry.__call__ = original
    finally:
        vector_mode.BATCH_HOOKS.pop()
    assert len(calls) == 1 and calls[0].startswith("batch_"), calls
    np.testing.assert_allclose(result, chain_jacobian(x, 2.0), rtol=1e-12)


def test_the_driver_is_compiled():
    x = rng.uniform(0.5, 1.5, 5)
    s2sad.jacobian(chain, mode="fwd", jit=True)(x, 2.0)
    drivers = [d for d in vector_mode._drivers.values()
               if d.label.startswith("chain") and d.jit is True]
    assert drivers and all(hasattr(d._call, "py_func") for d in drivers)


def leading(x, k):
    return x[:k[0]] * 2.0


@pytest.mark.parametrize("mode", ["fwd", "rev"])
def test_an_output_whose_shape_depends_on_a_value(jit, mode):
    """The output's shape kept from an earlier call of the same argument
    kinds is checked against the compiled passes' values: here it changes
    with the value of k."""
    jac = s2sad.jacobian(leading, mode=mode, jit=jit)
    x = np.arange(1.0, 6.0)
    for k in (3, 2, 4, 4):
        np.testing.assert_array_equal(jac(x, np.array([k])), 2.0 * np.eye(5)[:k])


def test_a_hessian_is_one_call():
    x = rng.uniform(0.5, 1.5, 6)
    hess = s2sad.hessian(rosenbrock, jit=True)
    hess(x)
    calls = []
    original = backend.Entry.__call__

    def counted(self, *args):
        calls.append(self.fname)
        return original(self, *args)

    backend.Entry.__call__ = counted
    try:
        result = hess(x)
    finally:
        backend.Entry.__call__ = original
    assert len(calls) == 1 and calls[0].startswith("batch_"), calls
    np.testing.assert_allclose(result, rosenbrock_hessian(x), rtol=1e-12, atol=1e-9)
