"""float32 arguments get float32 gradients, computed in float32: values
match the float64 results to float32 tolerance, and the compiled
derivative of a float32 problem holds no float64 value."""
import math

import numpy as np
import pytest

import s2sad
from gradcheck import numerical_grad

f32 = np.float32
rng = np.random.default_rng(3)


def float64_values(df):
    """The variables numba typed float64 in the compiled derivative of the
    last call (the literals inside np.float32(...) excepted)."""
    entry = df.specialisation()
    dispatcher = getattr(entry.module.jitted(), entry.fname)
    found = {}
    for cres in dispatcher.overloads.values():
        for var, typ in cres.type_annotation.typemap.items():
            if "float64" in str(typ) and not var.startswith("$const"):
                found[var] = str(typ)
    return found


def euler(a, b, c, x0, dt):
    x = x0
    for i in range(200):
        x = x + dt * (a * np.sin(x) - b * x ** 3 + c)
    return x


def elementwise(x, w):
    y = 0.0
    for i in range(x.shape[0]):
        y += w[i] * np.tanh(x[i])
    return y


def buffers(x, k):
    n = x.shape[0]
    u = np.zeros(n)
    for step in range(5):
        for i in range(1, n - 1):
            u[i] = x[i] + k * (x[i - 1] - 2.0 * x[i] + x[i + 1]) + 0.5 * u[i]
    return np.sum(u * u) / n


def vectorised(x, W):
    return np.mean(np.tanh(x @ W) ** 2) + 0.5 * np.sum(x * x)


CASES = [
    (euler, (0.5, 0.1, 0.2, 0.3, 0.01), (0, 1, 2)),
    (elementwise, (rng.normal(size=50), rng.normal(size=50)), (0, 1)),
    (buffers, (rng.normal(size=12), 0.2), (0, 1)),
    (vectorised, (rng.normal(size=(4, 3)), rng.normal(size=(3, 2))), (0, 1)),
]
IDS = [c[0].__name__ for c in CASES]


def as32(args):
    return tuple(a.astype(f32) if isinstance(a, np.ndarray) else f32(a) for a in args)


@pytest.mark.parametrize("fn, args, wrt", CASES, ids=IDS)
def test_reverse_gradient_is_float32_and_matches_float64(fn, args, wrt, jit):
    g64 = s2sad.grad(fn, wrt=wrt, jit=jit)(*args)
    g32 = s2sad.grad(fn, wrt=wrt, jit=jit)(*as32(args))
    for a, b, arg in zip(g32, g64, [args[w] for w in wrt]):
        assert np.asarray(a).dtype == np.float32, (fn.__name__, type(a))
        assert np.shape(a) == np.shape(arg)
        np.testing.assert_allclose(a, b, rtol=2e-3, atol=2e-4)
    for p, b in zip(wrt, g64):  # the float64 derivative itself is right
        np.testing.assert_allclose(b, numerical_grad(fn, args, p), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn, args, wrt", CASES, ids=IDS)
def test_compiled_float32_derivative_has_no_float64_value(fn, args, wrt):
    df = s2sad.grad(fn, wrt=wrt, jit=True)
    df(*as32(args))
    assert float64_values(df) == {}, df.source
    if fn is buffers:  # tapes and the user's buffer are float32
        assert "np.zeros(n, dtype=np.float32)" in df.source


def test_float64_problem_is_unchanged():
    df = s2sad.grad(euler, wrt=(0, 1, 2), jit=True)
    df(0.5, 0.1, 0.2, 0.3, 0.01)
    assert "np.float32" not in df.source
    assert float64_values(df)  # it does compute in float64


@pytest.mark.parametrize("fn, args, wrt", CASES, ids=IDS)
def test_jvp_and_vjp_in_float32(fn, args, wrt, jit):
    args32 = as32(args)
    tangent = args32[wrt[0]] * f32(0.5) + f32(0.25)
    value, t32 = s2sad.jvp(fn, wrt=wrt[0], jit=jit)(*args32, tangent)
    _, t64 = s2sad.jvp(fn, wrt=wrt[0], jit=jit)(*args, np.asarray(tangent, dtype=float)
                                               if np.ndim(tangent) else float(tangent))
    assert np.asarray(t32).dtype == np.float32 and np.asarray(value).dtype == np.float32
    np.testing.assert_allclose(t32, t64, rtol=2e-3, atol=2e-4)
    g = s2sad.vjp(fn, wrt=wrt[0], jit=jit)(*args32, f32(2.0))
    g64 = s2sad.vjp(fn, wrt=wrt[0], jit=jit)(*args, 2.0)
    assert np.asarray(g).dtype == np.float32
    np.testing.assert_allclose(g, g64, rtol=2e-3, atol=2e-4)


def test_hessian_in_float32(jit):
    def f(x):
        return np.sum(np.sin(x) * x ** 2)

    x = rng.normal(size=4)
    h64 = s2sad.hessian(f, jit=jit)(x)
    h32 = s2sad.hessian(f, jit=jit)(x.astype(f32))
    assert h32.dtype == np.float32
    np.testing.assert_allclose(h32, h64, rtol=2e-3, atol=2e-4)
    for mode in ("rev", "fwd"):
        J = s2sad.jacobian(np.sin, mode=mode, jit=jit)(x.astype(f32))
        assert J.dtype == np.float32
        np.testing.assert_allclose(J, np.diag(np.cos(x)), rtol=1e-6, atol=1e-6)


def test_mixed_precision_follows_numpy_promotion(jit):
    x32, w64 = rng.normal(size=5).astype(f32), rng.normal(size=5)
    gx, gw = s2sad.grad(elementwise, wrt=(0, 1), jit=jit)(x32, w64)
    assert gx.dtype == np.float32 and gw.dtype == np.float64  # each its argument's
    ex, ew = s2sad.grad(elementwise, wrt=(0, 1), jit=jit)(x32.astype(float), w64)
    np.testing.assert_allclose(gx, ex, rtol=1e-6)
    np.testing.assert_allclose(gw, ew, rtol=1e-6)  # tanh(x) of float32 x is float32


def test_python_floats_take_the_arrays_precision(jit):
    x = rng.normal(size=6).astype(f32)
    g = s2sad.grad(buffers, wrt=0, jit=jit)(x, 0.2)
    assert g.dtype == np.float32


def test_float32_leaves_of_a_dict(jit):
    def loss(p, x):
        return np.sum(np.tanh(x * p["w"]) * p["s"])

    p = {"w": rng.normal(size=3).astype(f32), "s": f32(1.5)}
    g = s2sad.grad(loss, jit=jit)(p, rng.normal(size=3).astype(f32))
    assert g["w"].dtype == np.float32 and isinstance(g["s"], np.float32)


def backward_loop_with_exit(c, A):
    s = c
    for t in range(2):
        for i in range(A.shape[0] - 1, -1, -1):
            if s * s < -0.7:
                continue
            s = s * 0.5 + (c if s <= -0.5 else A[i, i % 2]) * A[i, 0]
            if s > 100.0:
                return s  # (the inner loop's bounds go on tapes of ints)
    return s


def test_counters_of_a_backward_loop_stay_ints(jit):
    # n, m = A.shape and the counters popped from a tape were taken for
    # floats: the index became float32 and the derivative raised IndexError
    A = np.array([[-0.2, -1.4], [1.0, -0.7], [1.25, -1.0]], dtype=np.float32)
    g = s2sad.grad(backward_loop_with_exit, wrt=(0, 1), jit=jit)(np.float32(-0.9), A)
    g64 = s2sad.grad(backward_loop_with_exit, wrt=(0, 1), jit=jit)(-0.9, A.astype(np.float64))
    assert g[1].dtype == np.float32
    np.testing.assert_allclose(g[1], g64[1], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(g[0], g64[0], rtol=1e-4, atol=1e-5)


def triangular_with_exit(x):
    s = 0.0
    for i in range(x.shape[0]):
        for j in range(i + 1):
            if s > 100.0:
                break  # (the inner loop's trip counts go on a tape of ints)
            s = s * 0.5 + x[j] * x[i]
        if s > 1000.0:
            return s
    return s


def test_counters_read_back_from_an_int_tape_stay_ints(jit):
    x = np.array([0.5, -1.0, 0.25, 2.0], dtype=np.float32)
    g = s2sad.grad(triangular_with_exit, jit=jit)(x)
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, s2sad.grad(triangular_with_exit, jit=jit)(
        x.astype(np.float64)), rtol=1e-4, atol=1e-5)


def max_after_math(x):
    s = np.sum(x)
    s += np.tanh(s - math.log(1.0 + x[0] ** 2))  # a math function of a float32 element
    acc = 0.0
    for i in range(3):
        b = np.empty(3)
        b[:] = np.log1p(x ** 2)
        for j in range(2):
            acc += np.max(b + s)  # recorded on a float32 tape, then matched to its ties
        acc += x[1]
    return acc


def test_math_functions_keep_float32_as_compiled_code_does(jit):
    x = np.array([0.3, -1.4, 0.8], dtype=np.float32)
    got = s2sad.grad(max_after_math, jit=jit)(x)
    assert got.dtype == np.float32
    expected = numerical_grad(max_after_math, (x.astype(np.float64),), 0)
    np.testing.assert_allclose(got, expected, rtol=1e-3, atol=1e-3)


def computed_index_arrays(x, c):
    n = x.shape[0]
    every_other = (np.arange(n) * 2) % n     # an int array from int arithmetic
    order = np.argsort(x)
    e = c * np.sum(x[every_other] * x[every_other])
    for m in range(order.shape[0]):
        e += x[order[m]] * (m + 1) + c * x[(m * 3) % n] ** 3
    return e


def test_int_arrays_computed_in_the_function_stay_ints(jit):
    # `np.arange(n) * 2` was taken for a float expression: its 2 became
    # np.float32(2), the index array float32, and the derivative raised
    # IndexError ("arrays used as indices must be of integer type")
    x = np.array([0.3, -1.2, 0.8, 1.1, -0.4], dtype=np.float32)  # n odd: no repeated index
    g = s2sad.grad(computed_index_arrays, wrt=(0, 1), jit=jit)(x, np.float32(0.7))
    assert g[0].dtype == np.float32
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(g[0], numerical_grad(computed_index_arrays, (x64, 0.7), 0),
                               rtol=1e-3, atol=1e-3)
    np.testing.assert_allclose(g[1], numerical_grad(computed_index_arrays, (x64, 0.7), 1),
                               rtol=1e-3, atol=1e-3)


def index_from_a_shape(x, c):
    idx = np.arange(x.shape[0]) * 2 % x.shape[0]
    return c * np.sum(x[idx] * x[idx])


@pytest.mark.parametrize("optimise", [True, False])
def test_index_array_from_a_shape_stays_int_in_the_plain_derivative(jit, optimise):
    # the plain derivative (no inlined temporaries) reads the size through
    # `shape = x.shape; elem = shape[0]`: elem was taken for a float, the
    # 2 of `np.arange(elem) * 2` became np.float32(2) and indexing raised
    x = np.array([0.3, -1.2, 0.8, 1.1, -0.4], dtype=np.float32)
    g = s2sad.grad(index_from_a_shape, wrt=(0, 1), jit=jit, optimise=optimise)(x, np.float32(0.7))
    assert g[0].dtype == np.float32
    x64 = x.astype(np.float64)
    for w in (0, 1):
        np.testing.assert_allclose(g[w], numerical_grad(index_from_a_shape, (x64, 0.7), w),
                                   rtol=1e-3, atol=1e-3)


def _window(v, start, width):
    stop = start + width  # (width is never an index itself: an int only by its calls)
    return np.sum(v[start:stop] ** 2)


def _halves(v, lo, hi):
    if hi - lo == 1:
        return math.sin(v[lo]) * v[lo]
    mid = (lo + hi) // 2
    return _halves(v, lo, mid) * 0.7 + math.tanh(_halves(v, mid, hi))


def _int_parameters(x, y):
    return _window(x * y, 1, 2) + _halves(x * np.tanh(y), 1, 4)


@pytest.mark.parametrize("jit", [False, True])
def test_int_parameters_stay_ints(jit):
    """A helper's parameter that every call passes an int stays an int in
    the float32 source (`hi - lo` became `hi - np.float32(lo)` and the
    midpoint a float32 index, when `hi` was never itself an index), in a
    recursive helper too."""
    x, y = np.linspace(0.1, 0.5, 4), np.linspace(0.9, -0.3, 4)
    d32 = s2sad.grad(_int_parameters, wrt=(0, 1), jit=jit)
    g32 = d32(x.astype(f32), y.astype(f32))
    g64 = s2sad.grad(_int_parameters, wrt=(0, 1), jit=jit)(x, y)
    for a, b, w in zip(g32, g64, (0, 1)):
        assert a.dtype == f32
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(b, numerical_grad(_int_parameters, (x, y), w), rtol=1e-6, atol=1e-8)
    assert "np.float32(lo)" not in d32.source and "np.float32(start)" not in d32.source
