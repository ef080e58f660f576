"""The plain derivative (optimise=False) and forward mode on programs the
self-check found them wrong on: each against finite differences or the
analytic value the markers define, compiled and as Python."""
import math

import numpy as np
import pytest

import s2sad
from gradcheck import numerical_grad
from s2sad import reset_recording

X = np.array([0.3, -0.2, 0.5])


def pair_unpacked(t):
    a, b = t
    return a * math.sin(b) + b


def through_a_tuple_argument(x, c):
    s = -(pair_unpacked((x[1], c)) + x[0])
    for i in range(2):
        s = s + pair_unpacked([x[i], c])
    return s


@pytest.mark.parametrize("optimise", [True, False])
def test_helper_unpacking_its_tuple_argument(jit, optimise):
    # the plain adjoint added the parts' cotangents to the tuple's with `+`
    # (`dt = dt + (da, db)`): a TypeError, or concatenated tuples
    g = s2sad.grad(through_a_tuple_argument, wrt=(0, 1), jit=jit, optimise=optimise)(X, 0.7)
    for w in (0, 1):
        np.testing.assert_allclose(g[w], numerical_grad(through_a_tuple_argument, (X, 0.7), w),
                                   rtol=1e-6, atol=1e-8)


def reset_after_a_local(x, c):
    a = np.sin(x) * c
    s = 0.0
    for i in range(3):
        s = s + a[i] * c
        if i == 1:
            reset_recording()
    return s * c + np.sum(a * x)


def reset_keeps_arguments(x, c):
    v = 0.5 * x
    reset_recording()
    return np.sum(np.arctan(v) + x * c)


def test_jvp_follows_reset_recording(jit):
    # after reset_recording() the values computed before are constants and the
    # arguments are not: d/dv of reset_after_a_local is, by hand,
    c, v, vc = 0.7, np.array([1.0, -2.0, 0.5]), 0.3
    a = np.sin(X) * c
    s_end = (a[0] + a[1] + a[2]) * c
    expected = a[2] * vc * c + s_end * vc + np.sum(a * v)
    _, t = s2sad.jvp(reset_after_a_local, wrt=(0, 1), jit=jit)(X, c, (v, vc))
    np.testing.assert_allclose(t, expected, rtol=1e-12)
    # forward and reverse agree (the tangent along v against <v, gradient>)
    gx, gc = s2sad.grad(reset_after_a_local, wrt=(0, 1), jit=jit)(X, c)
    np.testing.assert_allclose(t, np.dot(gx, v) + gc * vc, rtol=1e-12)
    _, t2 = s2sad.jvp(reset_keeps_arguments, wrt=(0, 1), jit=jit)(X, c, (v, vc))
    np.testing.assert_allclose(t2, np.sum(v * c + X * vc), rtol=1e-12)


def reset_after_a_branch(x, c):
    if c > 0.0:
        a = x * c
    reset_recording()
    return np.sum(x * c + a)


def test_jvp_refuses_reset_after_a_name_bound_on_some_paths():
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="some paths only"):
        s2sad.jvp(reset_after_a_branch, wrt=(0,), jit=False)(X, 0.7, (np.ones(3),))


def two_outputs_sharing_an_array(x, scale, t):
    p = t * scale
    e = np.exp(scale * x)
    q = p * e
    s = np.sum(q)
    return (np.sum(e), s)


@pytest.mark.parametrize("optimise", [True, False])
def test_a_spread_cotangent_added_to_later_keeps_the_addition(jit, optimise):
    # `de = unreduce(dsum, e)` then `de += dq * p`: scalar_cotangents read the
    # scalar in place of de, dropping the second output's part (a wrong
    # gradient with no error, found by the self-check on a jvp's vjp)
    t = np.array([1.0, 2.0, -1.0])
    g = s2sad.grad(two_outputs_sharing_an_array, jit=jit, optimise=optimise, check=False)(X, 0.5, t)
    np.testing.assert_allclose(g, 0.5 * np.exp(0.5 * X) + 0.25 * np.exp(0.5 * X) * t, rtol=1e-12)
