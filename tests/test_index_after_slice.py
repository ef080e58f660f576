"""Reads through one index array after slices (`x[1:, idx]`, `x[:, [0, 2]]`,
`x[:, idx, 1:]`): the cotangent is scattered along the index array's axis,
repeated and negative indices adding up as numpy's np.add.at does; against
central finite differences, reverse and forward mode, compiled and as
Python. The forms numpy reorders (an int or `...` with the slices) stay
refused with the line."""
import numpy as np
import pytest

import s2sad
from gradcheck import check_grad, check_jvp

rng = np.random.default_rng(3)
X = rng.normal(size=(3, 4))
X3 = rng.normal(size=(3, 4, 5))
IDX = np.array([0, 2, -1, 2])  # a repeat and a negative index
W = rng.normal(size=(2, 4))


def after_slice(x, idx):
    return np.sum(x[1:, idx] * W)


def list_after_slice(x):
    return np.sum(np.sin(x[:, [2, 0, 2]]))


def between_slices(x, idx):
    return np.sum(x[:, idx, 1:] ** 2)


def after_two_slices(x, idx):
    return np.sum(x[::2, 1:, idx] * 1.5)


def read_twice(x, idx):
    y = x[1:, idx]
    return np.sum(y[0] * y[1]) + np.sum(x[:, idx][:, 1:] ** 2)


def two_dimensional_index(x, idx):
    return np.sum(np.cos(x[1:, idx]))


CASES = [(after_slice, (X, IDX)), (list_after_slice, (X,)), (between_slices, (X3, IDX)),
         (after_two_slices, (X3, IDX)), (read_twice, (X, IDX))]


@pytest.mark.parametrize("f, args", CASES, ids=[c[0].__name__ for c in CASES])
def test_index_array_after_slices(f, args):
    check_grad(f, args, wrt=0, jit=False)
    check_jvp(f, args, wrt=0, jit=False)


@pytest.mark.parametrize("f, args", CASES[:2], ids=[c[0].__name__ for c in CASES[:2]])
def test_index_array_after_slices_compiled(f, args):
    # numba compiles them (scatter_sum_axis); 3-d cases compile for tens of seconds
    check_grad(f, args, wrt=0, jit=True)
    check_jvp(f, args, wrt=0, jit=True)


def test_two_dimensional_index_array():
    # numpy keeps the index array's two axes in its place; numba reads 1-d index arrays only
    check_grad(two_dimensional_index, (X, np.array([[0, 3], [3, 1]])), wrt=0, jit=False)


def test_repeats_add_up():
    g = s2sad.grad(after_slice, jit=False)(X, IDX)
    expected = np.zeros_like(X)
    np.add.at(expected, (slice(1, None), IDX), W)
    np.testing.assert_array_equal(g, expected)


def int_then_slice(x, idx):
    return np.sum(x[0, 1:, idx])


def ellipsis_then_index(x, idx):
    return np.sum(x[..., idx])


@pytest.mark.parametrize("f", [int_then_slice, ellipsis_then_index])
def test_reordered_forms_are_refused_with_the_line(f):
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="index array") as info:
        s2sad.grad(f, jit=False)(X3, IDX)
    assert f"test_index_after_slice.py:{f.__code__.co_firstlineno + 1}" in str(info.value)


# ---- writes through an index array written in place (np.array([0, 2, 0])) ----------------
# numpy keeps the last write of a repeated position, also for `y[idx] += v`: the
# earlier writers get no gradient (this was a silently wrong gradient: the in-place
# array was not seen as an index array, so no last-writer mask was applied)

def add_through_literal_array(x, v):
    y = x * 1.0
    y[np.array([0, 2, 0])] += v
    return np.sum(y * y)


def add_through_literal_array_after_int(x, v):
    y = x * 1.0
    y[1, np.array([0, 2, 0])] += v
    return np.sum(y * y)


def add_after_slice(x, v):
    y = x * 1.0
    y[1:, np.array([0, 2, 0])] += v
    return np.sum(y * y)


WRITES = [(add_through_literal_array, (X, rng.normal(size=(3, 4)))),
          (add_through_literal_array_after_int, (X, rng.normal(size=3))),
          (add_after_slice, (X, rng.normal(size=(2, 3))))]


@pytest.mark.parametrize("f, args", WRITES, ids=[w[0].__name__ for w in WRITES])
def test_repeated_writes_through_a_literal_array_keep_the_last(f, args):
    check_grad(f, args, wrt=(0, 1), jit=False)
