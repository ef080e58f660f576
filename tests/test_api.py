"""The public API: decorator forms, wrt, value_and_grad, vjp, signatures,
readable source and the guarantees around them."""
import inspect
import math

import numpy as np
import pytest

import s2sad
from gradcheck import numerical_grad

X = np.linspace(-1.0, 1.0, 5)
W = np.arange(1.0, 6.0)


def f(x, w):
    y = 0.0
    for i in range(x.shape[0]):
        y += w[i] * np.tanh(x[i])
    return y


def expected_dx(x, w):
    return w * (1 - np.tanh(x) ** 2)


@s2sad.grad
def df_decorated(x, w):
    y = 0.0
    for i in range(x.shape[0]):
        y += w[i] * np.tanh(x[i])
    return y


@s2sad.grad(wrt="w", jit=False)
def df_by_name(x, w):
    return np.sum(w * np.tanh(x))


def test_decorator_forms():
    np.testing.assert_allclose(df_decorated(X, W), expected_dx(X, W))
    np.testing.assert_allclose(df_by_name(X, W), np.tanh(X))


def test_wrt_forms(jit):
    dx, dw = s2sad.grad(f, wrt=(0, 1), jit=jit)(X, W)
    np.testing.assert_allclose(dx, expected_dx(X, W))
    np.testing.assert_allclose(dw, np.tanh(X))
    (dw2,) = s2sad.grad(f, wrt=("w",), jit=jit)(X, W)
    np.testing.assert_allclose(dw2, np.tanh(X))
    np.testing.assert_allclose(s2sad.grad(f, wrt=-1, jit=jit)(X, W), np.tanh(X))


def test_value_and_grad(jit):
    v, g = s2sad.value_and_grad(f, wrt=0, jit=jit)(X, W)
    assert v == pytest.approx(f(X, W))
    np.testing.assert_allclose(g, expected_dx(X, W))


def with_defaults(x, scale=2.0, power=3):
    return scale * x ** power


def test_signature_defaults_and_keywords(jit):
    df = s2sad.grad(with_defaults, jit=jit)
    assert inspect.signature(df) == inspect.signature(with_defaults)
    assert df.__name__ == "with_defaults"
    assert df(1.5) == pytest.approx(2.0 * 3 * 1.5 ** 2)
    assert df(1.5, power=2, scale=1.0) == pytest.approx(3.0)
    assert s2sad.grad(with_defaults, wrt="scale", jit=jit)(1.5, power=2) == pytest.approx(2.25)


def vector_output(x):
    return x * x


def test_vjp_weights_outputs(jit):
    seed = np.array([1.0, 0.0, 2.0, 0.0, -1.0])
    g = s2sad.vjp(vector_output, jit=jit)(X, seed)
    np.testing.assert_allclose(g, 2 * X * seed)
    # grad of a non-scalar output is the gradient of its sum (tf.gradients)
    np.testing.assert_allclose(s2sad.grad(vector_output, jit=jit)(X), 2 * X)


def pair(x, y):
    return x * y, x + 2.0 * y


def test_vjp_of_tuple_output(jit):
    dx, dy = s2sad.vjp(pair, wrt=(0, 1), jit=jit)(1.5, 2.0, (1.0, 10.0))
    assert dx == pytest.approx(2.0 + 10.0)
    assert dy == pytest.approx(1.5 + 20.0)


def unconnected(x, y):
    return x * x


def test_argument_without_influence_gets_zeros(jit):
    dx, dy = s2sad.grad(unconnected, wrt=(0, 1), jit=jit)(X, W)
    np.testing.assert_allclose(dx, 2 * X)
    np.testing.assert_array_equal(dy, np.zeros_like(W))


def test_gradients_have_argument_shapes_and_inputs_are_untouched(jit):
    A = np.arange(6.0).reshape(2, 3)
    before = A.copy()

    g = s2sad.grad(matrix_function, jit=jit)(A)
    assert g.shape == A.shape
    np.testing.assert_array_equal(A, before)
    np.testing.assert_allclose(g, numerical_grad(matrix_function, (A,), 0), rtol=1e-6)


def matrix_function(A):
    for i in range(A.shape[0]):
        A[i, 0] = A[i, 0] * A[i, 1]
    return np.sum(np.sin(A))


def test_source_is_readable():
    df = s2sad.grad(f, wrt=(0, 1))
    src = df.source  # before any call: kinds guessed from indexing
    assert "def grad_f(x, w):" in src
    assert "# y += w[i] * np.tanh(x[i])" in src
    assert "dx[i] = " in src and "dw[i] " in src
    df(X, W)
    assert df.source == src
    compile(src, "<generated>", "exec")  # valid Python


def test_jit_false_runs_the_same_code():
    a = s2sad.grad(f, jit=False)
    b = s2sad.grad(f, jit=True)
    np.testing.assert_allclose(a(X, W), b(X, W))
    assert a.source_for(X, W) == b.source_for(X, W)


def test_lists_are_accepted_as_arrays(jit):
    g = s2sad.grad(f, jit=jit)([0.1, 0.2], [1.0, 2.0])
    np.testing.assert_allclose(g, expected_dx(np.array([0.1, 0.2]), np.array([1.0, 2.0])))


def float_and_int(x, n):
    return x ** n


def test_integer_argument_is_a_constant(jit):
    assert s2sad.grad(float_and_int, jit=jit)(2.0, 3) == pytest.approx(12.0)
    with pytest.raises(TypeError, match="argument 'n' is int"):
        s2sad.grad(float_and_int, wrt=1, jit=jit)(2.0, 3)


def test_wrt_errors():
    with pytest.raises(ValueError, match="neither an argument nor a variable"):
        s2sad.grad(f, wrt="z")(X, W)
    with pytest.raises(ValueError, match="out of range"):
        s2sad.grad(f, wrt=5)
    with pytest.raises(TypeError, match="argument position or name"):
        s2sad.grad(f, wrt=1.5)
    with pytest.raises(ValueError, match="jit must be"):
        s2sad.grad(f, jit="sometimes")


def scalar_math(x):
    return math.exp(math.sin(x))


def test_math_scalars(jit):
    x = 0.3
    assert s2sad.grad(scalar_math, jit=jit)(x) == pytest.approx(math.cos(x) * math.exp(math.sin(x)))


# ---- jit="auto": numba, or numpy for whole-array code on big arrays -------------

def softplus_total(x):
    return np.sum(np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0.0))


def softplus_loop(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += math.log1p(math.exp(-abs(x[i]))) + max(x[i], 0.0)
    return s


def expected_softplus(x):
    return 1.0 / (1.0 + np.exp(-x))


def compilations(monkeypatch):
    from s2sad import backend
    seen = []
    monkeypatch.setattr(backend, "COMPILE_HOOKS", [lambda *a: seen.append(a)])
    return seen


def test_auto_runs_whole_array_code_on_big_arrays_as_numpy(monkeypatch):
    from s2sad import backend
    seen = compilations(monkeypatch)
    big = np.linspace(-3.0, 3.0, backend.AUTO_NUMPY_FROM)
    df = s2sad.grad(softplus_total)  # jit="auto" is the default
    np.testing.assert_allclose(df(big), expected_softplus(big), rtol=1e-12)
    assert seen == []  # nothing compiled for it
    small = np.linspace(-3.0, 3.0, 8)
    np.testing.assert_allclose(df(small), expected_softplus(small), rtol=1e-12)
    assert len(seen) == 1  # small arrays: numba
    np.testing.assert_allclose(df(big[::-1]), expected_softplus(big[::-1]), rtol=1e-12)
    assert len(seen) == 1


def test_auto_compiles_loops_whatever_the_size(monkeypatch):
    from s2sad import backend
    seen = compilations(monkeypatch)
    big = np.linspace(-3.0, 3.0, backend.AUTO_NUMPY_FROM)
    # (check=False: the self-check compiles its twin too when a call is slow,
    # as on a busy machine)
    np.testing.assert_allclose(s2sad.grad(softplus_loop, check=False)(big),
                               expected_softplus(big), rtol=1e-12)
    assert len(seen) == 1


def test_jit_true_compiles_whole_array_code_on_big_arrays():
    from s2sad import backend
    big = np.linspace(-3.0, 3.0, backend.AUTO_NUMPY_FROM)
    df = s2sad.grad(softplus_total, jit=True)
    np.testing.assert_allclose(df(big), expected_softplus(big), rtol=1e-12)
    assert hasattr(df._last._call, "py_func")  # a numba dispatcher


def scaled_by_mode(x, w, mode):
    if mode == "double":
        return 2.0 * np.sum(w * np.tanh(x))
    return np.sum(w * np.tanh(x))


def test_calls_with_other_argument_types_take_their_own_derivative(jit):
    # a call with the argument types of an earlier call reuses its derivative
    # without checking again; any other types must still be checked and
    # generated for: rank, dtype, a 0-d array, a list, a string's text
    df = s2sad.grad(f, wrt=(0, 1), jit=jit)
    for _ in range(2):
        gx, gw = df(X, W)
        np.testing.assert_allclose(gx, expected_dx(X, W))
        assert gx.dtype == np.float64
    gx32, _ = df(X.astype(np.float32), W.astype(np.float32))
    assert gx32.dtype == np.float32
    np.testing.assert_allclose(gx32, expected_dx(X, W), rtol=1e-5)
    with pytest.raises(TypeError, match="argument 'x' is"):
        df(np.arange(3), W)  # integers: not differentiable
    with pytest.raises(TypeError, match="argument 'x' is"):
        df(np.arange(3), W)  # (again: the failed call left nothing behind)
    gx, gw = df(list(X), W)
    np.testing.assert_allclose(gx, expected_dx(X, W))
    g = s2sad.grad(scaled_by_mode, wrt=0, jit=jit)
    np.testing.assert_allclose(g(X, W, "double"), 2 * expected_dx(X, W))
    np.testing.assert_allclose(g(X, W, "single"), expected_dx(X, W))
    np.testing.assert_allclose(g(X, W, "double"), 2 * expected_dx(X, W))
