"""Writes through a second name of an array's memory (transforms/analysis/aliases.py):
refused with an error naming the file, the line of the second name and the
line of the write, because the derivative follows values by name and would
miss the write; second names nothing writes through are differentiated."""
import inspect
import math

import numpy as np
import pytest

import s2sad
from gradcheck import check_grad

rng = np.random.default_rng(3)


def another_name(a):
    B = np.zeros(3)
    C = B
    for j in range(3):
        C[j] = a[j] * 2.0
    return np.sum(B * B)


def row_view(a):
    B = np.zeros((2, 4))
    row = B[0, 1:]  # (a row's whole view is written back: frontend/effects/view_writes.py)
    for j in range(3):
        row[j] = a[j] * 2.0
    return np.sum(B * B)


def slice_view(a):
    B = np.zeros(4)
    s = B[1:]
    s[0] = a[0] * 3.0
    return np.sum(B * B)


def reshaped(a):
    B = np.zeros(4)
    R = B.reshape((2, 2))
    R[0, 1] = a[0] * 3.0
    return np.sum(B * B)


def write_then_read_view(a):
    B = a * 1.0
    row = B[0]                  # a view, read after B is written
    B[0, 1] = B[0, 0] * 5.0
    return np.sum(row * row)


def in_place_add(a):
    B = a * 2.0
    C = B
    C += 1.0                    # in place on arrays: B changes too
    return np.sum(B * a)


def through_a_chain(a):
    B = a * 2.0
    C = B
    D = C[1:]                   # a view of B through C: a wrong gradient, no error
    B[1] = 5.0
    return np.sum(D * a[1:])


def in_a_list_literal(a):
    B = a * 2.0
    parts = [B, a]              # parts[0] is B itself
    B[0] = 5.0
    return np.sum(parts[0] * a)


def line_of(fn, text):
    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, line in enumerate(lines) if text in line)


@pytest.mark.parametrize("fn, alias, made, write", [
    (reshaped, "'R' is a view of 'B'", "R = B.reshape", "R[0, 1] ="),
    (write_then_read_view, "'row' is a view of 'B'", "row = B[0]", "B[0, 1] ="),
    (through_a_chain, "'D' is a view of 'B'", "D = C[1:]", "B[1] ="),
])
def test_a_write_through_a_second_name_is_refused(fn, alias, made, write, jit):
    a = rng.normal(size=(2, 3)) if fn is write_then_read_view else rng.normal(size=3)
    with pytest.raises(s2sad.UnsupportedSyntaxError) as err:
        s2sad.grad(fn, jit=jit)(a)
    msg = str(err.value)
    assert f"test_aliases.py:{line_of(fn, made)}, in {fn.__name__}" in msg, msg
    assert alias in msg and f"line {line_of(fn, write)} writes into" in msg, msg
    assert ".copy()" in msg, msg


@pytest.mark.parametrize("fn", [row_view, slice_view], ids=lambda f: f.__name__)
def test_a_write_through_a_slice_goes_back_into_the_array(fn, jit):
    """row = B[0, 1:], s = B[1:]: the slice is a copy whose writes go back
    into B by B's name (frontend/effects/view_writes.py)."""
    check_grad(fn, [rng.normal(size=3)], jit=jit)


@pytest.mark.parametrize("fn", [another_name, in_place_add, in_a_list_literal],
                         ids=lambda f: f.__name__)
def test_another_name_of_the_whole_array_is_that_array(fn, jit):
    """C = B, parts = [B, a]: while B is not rebound, C is B, and the function
    is differentiated with B's name for both (frontend/effects/view_writes.py)."""
    check_grad(fn, [rng.normal(size=3)], jit=jit)


def read_only_view(x, w):
    n = x.shape[0]
    total = 0.0
    for i in range(n):
        row = x[i]                  # a view nothing writes through
        for j in range(row.shape[0]):
            total += w[j] * math.tanh(row[j])
    return total


def written_before_the_view(a):
    B = np.zeros((2, 3))
    for j in range(3):
        B[0, j] = a[j] * a[j]
    row = B[0]                      # made after the writes
    return np.sum(row * 2.0)


def copied_row(a):
    B = np.zeros((2, 3))
    row = B[0].copy()
    for j in range(3):
        row[j] = a[j] * 2.0        # writes into the copy only
    return np.sum(row * row) + np.sum(B)


def early_return(a, flag):
    R = np.zeros(3)
    if flag > 0.0:
        return R                    # the returned name is not written after
    for j in range(3):
        R[j] = a[j] * 3.0
    return R


@pytest.mark.parametrize("fn, args", [
    (read_only_view, (rng.normal(size=(4, 3)), rng.normal(size=3))),
    (written_before_the_view, (rng.normal(size=3),)),
    (copied_row, (rng.normal(size=3),)),
])
def test_second_names_nothing_writes_through(fn, args, jit):
    check_grad(fn, args, wrt=0, jit=jit)


def test_an_early_return_of_an_array_written_later(jit):
    a = rng.normal(size=3)
    for flag in (1.0, -1.0):
        J = s2sad.jacobian(early_return, wrt=0, jit=jit)(a, flag)
        expected = np.zeros((3, 3)) if flag > 0 else 3.0 * np.eye(3)
        np.testing.assert_allclose(J, expected)


# ---- a returned view of an array the reverse sweep restores -----------------------

def view_of_a_written_array(x):
    a = np.zeros((2, 3))
    a[:, :] += x.reshape(2, 3)
    return np.reshape(a, (6,))  # a view of a, whose old values the reverse sweep puts back


def test_a_returned_view_keeps_its_values(jit):
    """The value returned is what the function returns, though the reverse
    sweep restores the array it views (in the plain derivative too)."""
    x = np.arange(6.0)
    for optimise in (None, False):
        value, g = s2sad.value_and_grad(view_of_a_written_array, jit=jit, optimise=optimise)(x)
        np.testing.assert_array_equal(value, x)
        np.testing.assert_array_equal(g, np.ones(6))


# ---- a tape of an array that is later written in place ---------------------------

def swapped_buffers(x, k, n):
    u = x.copy()
    w = np.zeros_like(x)
    m = x.shape[0]
    total = 0.0
    for t in range(n):
        for i in range(1, m - 1):
            w[i] = u[i] + k * (u[i + 1] - 2.0 * u[i] + u[i - 1])
        w[0] = u[0]
        w[m - 1] = u[m - 1]
        total = total - 0.5 * w[1] * w[1]  # reads the buffer's values of this step
        u, w = w, u  # ... which a later step overwrites
    return np.sum(u * u) + total


@pytest.mark.parametrize("wrt", [0, 1])
def test_tape_of_a_swapped_buffer_holds_its_values(jit, wrt):
    x = np.sin(np.linspace(0.0, 3.0, 8))
    check_grad(swapped_buffers, (x, 0.2, 9), wrt=wrt, jit=jit)
