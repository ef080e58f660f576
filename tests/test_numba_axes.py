"""Calls numba has no implementation of, compiled through s2sad's helpers
(s2sad/runtime/axes.py, runtime/reductions.py): x.astype(dtype), np.squeeze
with an axis, np.diff / repeat / roll / flip / sort along an axis, np.pad, and
np.atleast_1d / 2d of a number. Gradients against finite differences and
values against numpy's, compiled (a fallback to Python fails the test: see
conftest.py) and as Python."""
import numpy as np
import pytest

import s2sad
from gradcheck import check_grad, check_jvp

A = (np.arange(12.0).reshape(3, 4) * 0.37) % 1.3 - 0.4
W = np.linspace(0.1, 1.0, 12).reshape(3, 4)
T3 = np.random.default_rng(3).uniform(-1.0, 1.0, (2, 3, 4))


def astypes(x):
    return np.sum(x.astype(np.float64) ** 2) + np.sum(x.astype(float) * np.arange(4).astype(
        np.float64)) + np.sum(x.astype("float64"))


def squeezes(x):
    return (np.sum(np.squeeze(x[None, :, :], axis=0) * W)
            + np.sum(np.squeeze(x[:, None, :, None], axis=(1, 3)) * W)
            + np.sum(x[:, :1].squeeze(axis=1) ** 2))


def diffs(x):
    return (np.sum(np.diff(x, axis=0) ** 2) + np.sum(np.diff(x, 2, axis=1) ** 2)
            + np.sum(np.diff(x) ** 2) + np.sum(np.diff(x, n=1, axis=-2) * 0.5))


def repeats(x):
    return (np.sum(np.repeat(x, 2, axis=0) ** 2) + np.sum(np.repeat(x, 3, axis=-1) * 2.0)
            + np.sum(np.repeat(x, 2) ** 3) + np.sum(x.repeat(2, axis=1) ** 2))


def rolls(x):
    return (np.sum(np.roll(x, 1, axis=0) * W) + np.sum(np.roll(x, -2, axis=1) * W)
            + np.sum(np.roll(x, 5) * W) + np.sum(np.roll(x, 1, axis=(0, 1)) * W))


def flips(x):
    return (np.sum(np.flip(x, axis=0) * W) + np.sum(np.flip(x, 1) ** 2 * W)
            + np.sum(np.flip(x, axis=(0, 1)) * W) + np.sum(np.flip(x, axis=-1)[0] ** 3)
            + np.sum(np.flip(x) * W))


def sorts(x):
    return (np.sum(np.sort(x, axis=0) * W) + np.sum(np.sort(x) * W)
            + np.sum(np.sort(x, axis=None) * np.arange(12.0)) + np.sum(np.sort(x, -2) * W))


def pads(x):
    return (np.sum(np.pad(x, 1) ** 2) + np.sum(np.pad(x, ((1, 0), (2, 1)), mode="edge") ** 2)
            + np.sum(np.pad(x, (1, 2), "edge") ** 3) + np.sum(np.pad(x, ((2,), (1,))) * 0.5))


def cube_forms(t):
    return (np.sum(np.diff(t, axis=1) ** 2) + np.sum(np.roll(t, 2, axis=2) * t)
            + np.sum(np.sort(t, axis=1) * t) + np.sum(np.repeat(t, 2, axis=1) ** 2)
            + np.sum(np.pad(t, 1, mode="edge") ** 2))


def at_least(s):
    return np.sum(np.atleast_1d(s * 2.0) * 3.0) + np.sum(np.atleast_2d(s) ** 2)


@pytest.mark.parametrize("fn, args", [
    (astypes, (A,)), (squeezes, (A,)), (diffs, (A,)), (repeats, (A,)), (rolls, (A,)),
    (flips, (A,)), (sorts, (A,)), (pads, (A,)), (cube_forms, (T3,)), (at_least, (0.7,)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_against_finite_differences(fn, args, jit):
    check_grad(fn, args, jit=jit)
    check_jvp(fn, args, jit=jit)


def forms_out(x):
    return (np.squeeze(x[:, None, :], axis=1), np.diff(x, 2, axis=0), np.repeat(x, 2, axis=1),
            np.roll(x, -1, axis=(0, 1)), np.roll(x, 7), np.sort(x, axis=0),
            np.sort(x, axis=None), np.pad(x, ((1, 2), (0, 1)), mode="edge"), np.pad(x, 2),
            x.astype(np.float64), np.flip(x, axis=1), np.flip(x, axis=(0, 1)))


def test_compiled_values_agree_with_numpy():
    x = (np.arange(20.0).reshape(4, 5) * 0.77) % 1.9
    got = s2sad.jvp(forms_out, jit=True)(x, np.zeros_like(x))[0]
    want = forms_out(x)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def scalar_out(s):
    return np.atleast_1d(s), np.atleast_2d(s)


def test_atleast_of_a_number():
    one, two = s2sad.jvp(scalar_out, jit=True)(1.5, 0.0)[0]
    np.testing.assert_array_equal(one, np.atleast_1d(1.5))
    np.testing.assert_array_equal(two, np.atleast_2d(1.5))


def squeeze_wrong_axis(x):
    return np.sum(np.squeeze(x, axis=0))


def test_squeeze_of_a_longer_axis_raises_as_numpy(jit):
    with pytest.raises(ValueError):
        s2sad.grad(squeeze_wrong_axis, jit=jit)(A)
