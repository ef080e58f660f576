"""A call with arguments of the types of an earlier one takes a short path
(s2sad/api.py, Derivative._call_like_before): the checks that follow from
types are skipped, those that depend on values must still run. Each test
makes a first call, then a second with the same types that only a value
check can refuse or get right."""
import numpy as np
import pytest

import s2sad
from gradcheck import numerical_grad


def writes_first(x, y):
    x[0] = x[0] * 2.0
    return np.sum(x * y)


def test_an_alias_of_a_written_argument_is_refused_on_later_calls(jit):
    df = s2sad.grad(writes_first, wrt=1, jit=jit)
    a, b = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    assert np.allclose(df(a.copy(), b), [2.0, 2.0])
    same = np.array([1.0, 2.0])
    with pytest.raises(ValueError, match="writes into 'x', and 'y' is the same array"):
        df(same, same)  # (numpy would see the write through y: the copy would not)


def loop(x, y):
    s = 0.0
    for i in range(x.shape[0]):
        s += np.sin(x[i]) * y[i]
    return s


def vector(x):
    out = np.zeros(x.shape[0] - 1)
    for i in range(x.shape[0] - 1):
        out[i] = x[i + 1] * x[i]
    return out


def test_a_seed_of_another_shape_is_refused_on_later_calls(jit):
    dv = s2sad.vjp(vector, jit=jit)
    x = np.array([0.5, -1.0, 2.0, 0.3])
    seed = np.array([1.0, 0.0, 2.0])
    want = np.zeros(4)
    for i in range(3):
        want[i] += seed[i] * x[i + 1]
        want[i + 1] += seed[i] * x[i]
    assert np.allclose(dv(x, seed), want)
    assert np.allclose(dv(x, seed), want)  # (the short path)
    with pytest.raises(ValueError, match="seed has shape"):
        dv(x, np.ones(2))


def test_a_tangent_of_another_shape_is_refused_on_later_calls(jit):
    dj = s2sad.jvp(loop, jit=jit)
    x, y = np.array([0.5, -1.0, 2.0]), np.array([1.0, 2.0, 3.0])
    t = np.array([1.0, 0.5, -2.0])
    value, tangent = dj(x, y, t)
    assert tangent == pytest.approx(np.sum(np.cos(x) * y * t))
    assert dj(x, y, t)[1] == pytest.approx(tangent)  # (the short path)
    with pytest.raises(ValueError, match="tangent of 'x' must have its shape"):
        dj(x, y, np.ones(5))  # (compiled, it would read past the tangent's end)


def with_default(x, y, scale=2.0):
    return scale * loop(x, y)


def test_keyword_calls(jit):
    df = s2sad.grad(with_default, jit=jit)
    x, y = np.array([0.5, -1.0, 2.0]), np.array([1.0, 2.0, 3.0])
    want = numerical_grad(lambda x, y: with_default(x, y), (x, y), 0)
    assert np.allclose(df(x, y=y), want)
    assert np.allclose(df(x=x, y=y), want)
    assert np.allclose(df(x, y), want)
    assert np.allclose(df(x, y=y, scale=3.0), 1.5 * want)
    assert np.allclose(df(y=y, x=x, scale=3.0), 1.5 * want)
    with pytest.raises(TypeError):
        df(x)  # (y missing: the binder's own error)
    with pytest.raises(TypeError):
        df(x, x=x)  # (x twice)
    with pytest.raises(TypeError):
        df(x, y, z=1.0)  # (no such parameter)
