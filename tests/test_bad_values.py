"""Bad values at run time: shapes that do not fit, NaN and inf, indices out
of range, runaway recursion, seeds and tangents of the wrong shape, helpers
redefined after differentiation. Each gives an error naming the derivative
and the user's line and saying what to do, or the right numbers; never a
crash or memory garbage."""
import math
import os
import sys
import warnings

import numpy as np
import pytest

import s2sad
from s2sad import api

HERE = os.path.basename(__file__)


def line_of(fn, text):
    """Line number in this file of `text` inside `fn`."""
    import inspect
    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, ln in enumerate(lines) if text in ln)


# ---- shapes ------------------------------------------------------------------

def weighted(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        s += w[i] * np.tanh(x[i])
    return s


def sum_of_squares(x):
    return np.sum(x * x)


def test_new_shapes_and_layouts_get_their_own_specialisation(jit):
    df = s2sad.grad(sum_of_squares, jit=jit)
    # same kind, other layout (numba compiles it again); other ndim (s2sad
    # generates again); a scalar
    for x in (np.arange(3.0), np.arange(8.0)[::2], np.arange(6.0).reshape(2, 3), 2.0):
        g = df(x)
        np.testing.assert_allclose(g, 2 * np.asarray(x), rtol=1e-6)
        assert np.shape(g) == np.shape(x)


def test_arguments_too_short_for_the_loop_raise_index_error(jit):
    df = s2sad.grad(weighted, jit=jit)
    np.testing.assert_allclose(df(np.zeros(3), np.ones(3)), np.ones(3))  # cached
    with pytest.raises(IndexError) as info:
        df(np.zeros(3), np.ones(2))  # same kinds: the cached specialisation
    message = str(info.value)
    assert f"{HERE}:{line_of(weighted, 's += w[i]')}" in message  # the user's line
    assert "derivative of weighted" in message and "w float64 array of shape (2,)" in message
    assert "check that the arguments' shapes" in message


def write_past_the_end(x, n):
    buf = np.zeros(3)
    for i in range(n):
        buf[i] = x * i
    return np.sum(buf)


def test_writes_out_of_range_raise_index_error_not_corrupt_memory(jit):
    df = s2sad.grad(write_past_the_end, jit=jit)
    assert df(1.5, 3) == pytest.approx(3.0)
    with pytest.raises(IndexError, match=f"{HERE}:{line_of(write_past_the_end, 'buf[i] =')}"):
        df(1.5, 400)


def test_boundscheck_can_be_turned_off(jit):
    df = s2sad.grad(weighted, jit=jit, boundscheck=False)
    np.testing.assert_allclose(df(np.zeros(3), np.ones(3)), np.ones(3))
    checked = s2sad.grad(weighted, jit=jit)
    checked(np.zeros(3), np.ones(3))
    if jit:  # compiled separately: numba's cache does not key on the flag
        assert df._last.module.name != checked._last.module.name


def broadcast_mismatch(x, w):
    return np.sum(x * w)


def test_shapes_that_do_not_broadcast(jit):
    with pytest.raises(ValueError, match="derivative of broadcast_mismatch.*shape"):
        s2sad.grad(broadcast_mismatch, jit=jit)(np.ones(3), np.ones(2))


# ---- NaN and inf ---------------------------------------------------------------

def scalar_math(x):
    return math.sin(x) * math.log(x) + math.sqrt(x) / x + math.exp(x) + x ** 2.5 \
        + math.atan2(x, 1.0) + math.pow(x, 3.0)


def array_math(x):
    return np.sum(np.sin(x) * np.log(x) + np.sqrt(x) / x + np.exp(x))


def loop_math(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += math.tan(x[i]) / (x[i] - x[i]) + math.lgamma(x[i])
    return s


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 0.0, -1.0, 800.0])
def test_nan_and_inf_propagate_without_exception(value):
    results = []
    for jit in (True, False):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no RuntimeWarning either, as compiled
            results.append((s2sad.grad(scalar_math, jit=jit)(value),
                            s2sad.grad(array_math, jit=jit)(np.full(2, value)),
                            s2sad.grad(loop_math, jit=jit)(np.full(2, value))))
    compiled, python = results
    for a, b in zip(compiled, python):
        np.testing.assert_array_equal(a, b)  # the same IEEE results, NaN included
    if math.isnan(value):
        assert math.isnan(compiled[0]) and np.isnan(compiled[1]).all()


def test_python_mode_returns_floats_as_compiled_code_does():
    assert type(s2sad.grad(scalar_math, jit=False)(0.5)) is float


# ---- recursion -----------------------------------------------------------------

def power_by_recursion(x, n):
    if n == 0:
        return 1.0
    return x * power_by_recursion(x, n - 1)


def cube(x):
    return power_by_recursion(x, 3)  # a literal: numba types it apart from n - 1


def test_recursion_works(jit):
    assert s2sad.grad(cube, jit=jit)(2.0) == pytest.approx(12.0)
    assert s2sad.grad(power_by_recursion, jit=jit)(2.0, 5) == pytest.approx(80.0)


def test_runaway_recursion_is_a_recursion_error_not_a_crash(jit):
    with pytest.raises(RecursionError) as info:
        s2sad.grad(power_by_recursion, jit=jit)(1.0, -1)  # never reaches n == 0
    assert "derivative of power_by_recursion" in str(info.value)
    assert "sys.setrecursionlimit" in str(info.value)


def test_compiled_recursion_follows_the_recursion_limit():
    df = s2sad.grad(power_by_recursion)
    assert df(1.0, 900) == pytest.approx(900.0)  # deeper than any test needs
    with pytest.raises(RecursionError):
        df(1.0, sys.getrecursionlimit() + 10)


# ---- seeds and tangents ----------------------------------------------------------

def elementwise(x):
    return np.sin(x) * 2.0


def looped_output(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = x[i] * x[i]
    return out


def pair(x):
    return np.sum(x), np.sum(x * x)


def scalar_out(x):
    return np.sum(x)


@pytest.mark.parametrize("fn,seed,says", [
    (elementwise, np.ones(1), r"seed has shape \(1,\), but the output has shape \(3,\)"),
    (elementwise, 1.0, "the output is a 1-d array"),
    (elementwise, np.ones((3, 1)), "the output is a 1-d array"),
    (looped_output, np.ones(2), r"seed has shape \(2,\), but the output has shape \(3,\)"),
    (looped_output, np.ones(5), r"seed has shape \(5,\), but the output has shape \(3,\)"),
    (scalar_out, np.ones(3), "the output is a float"),
    (pair, 1.0, "tuple of 2 values"),
    (pair, (1.0, 2.0, 3.0), "tuple of 2 values"),
    (pair, (1.0, np.ones(2)), "the output is a float"),
], ids=["broadcastable", "float for array", "wrong ndim", "too short", "too long",
        "array for float", "float for tuple", "tuple too long", "tuple item"])
def test_seed_of_the_wrong_shape_is_a_value_error(fn, seed, says, jit):
    df = s2sad.vjp(fn, jit=jit)
    df(np.ones(3), np.ones(3) if fn not in (scalar_out, pair) else (1.0 if fn is scalar_out
                                                                     else (1.0, 1.0)))
    with pytest.raises(ValueError, match=says) as info:
        df(np.ones(3), seed)
    assert f"vjp of {fn.__name__} ({__file__}" in str(info.value)


def test_tangent_of_the_wrong_shape_is_a_value_error(jit):
    with pytest.raises(ValueError, match=r"tangent of 'x' must have its shape \(3,\)"):
        s2sad.jvp(elementwise, jit=jit)(np.ones(3), np.ones(2))
    with pytest.raises(ValueError, match="must be a tuple of 2 tangents"):
        s2sad.jvp(weighted, wrt=(0, 1), jit=jit)(np.ones(3), np.ones(3), np.ones(3))


# ---- a helper redefined after the derivative was made -----------------------------

def helper(v):
    return v * v


SCALE = 2.0


def uses_helper(x):
    return SCALE * helper(x)


def new_helper(v):
    return v * v * v


def test_redefined_helper_and_constant_are_picked_up(jit, monkeypatch):
    generated = []
    monkeypatch.setattr(api, "GENERATE_HOOKS", [lambda d, kinds: generated.append(kinds)])
    df = s2sad.grad(uses_helper, jit=jit)
    assert df(3.0) == pytest.approx(12.0)
    monkeypatch.setitem(globals(), "helper", new_helper)  # as `def helper` again would
    assert df(3.0) == pytest.approx(54.0)
    assert "v * v * v" in df.source
    monkeypatch.setitem(globals(), "SCALE", 1.0)
    assert df(3.0) == pytest.approx(27.0)
    assert df(3.0) == pytest.approx(27.0)
    assert len(generated) == 3  # once per definition, not per call
