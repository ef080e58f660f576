"""A grid of index checks (transforms/checks/bounds.py and what the clean-up keeps
for them): for every way the language reaches an index (negative constants,
counters of for and while loops, offsets, strides, conditional expressions,
tests, nested and triangular loops, counters of runs, helpers, reads whose
value nobody uses), the function on a short argument raises IndexError in
Python, and the derivative must raise too, compiled or not; on a long one
the gradient matches finite differences. The other way round, where every
index the function evaluates is at an end of its array (AT_THE_ENDS) or an
index out of range is never evaluated (NOT_REACHED: branches not taken,
loops that do not run, early exits), the derivative raises nothing.

Each case is (function, arguments that fit, arguments one of which is too
short); every argument that is a float or a float array is differentiated."""
import numpy as np
import pytest

import s2sad
from gradcheck import check_grad

X4 = np.array([0.3, -0.7, 1.1, 0.4])
X6 = np.array([0.3, -0.7, 1.1, 0.4, -0.2, 0.9])
A34 = np.arange(12.0).reshape(3, 4) / 7.0 - 0.5


def square(p):
    return p[-3] * p[-3]


def second(p, k):
    return p[k] * 2.0


# ---- negative constant indices ------------------------------------------------

def negative_at_top(x, c):
    return c * x[-3]


def negative_in_for(x, c):
    s = c
    for i in range(3):
        s = s * x[-3]
    return s


def negative_in_while(x, c):
    s = c
    i = 0
    while i < 3:
        s = s * x[-3]
        i += 1
    return s


def negative_in_a_test(x, c):
    s = c * c
    if x[-3] > 10.0:
        s = s * 2.0
    return s + np.sum(x)


def negative_in_a_last_continue(x, c):
    """The fuzzer's program: the flag `continue` sets is read by nobody, but
    the test runs in every iteration."""
    s = c
    for i in range(2):
        s = s * np.sin(x[i])
        if x[-3] > 10.0:
            continue
    return s


def negative_in_a_last_continue_of_a_while(x, c):
    s = c
    i = 0
    while i < 3 and s < 100.0:
        i += 1
        s = s * c + x[0]
        if not (s, x[-3])[1] * s > -100.0:
            continue
    return s


def helper_in_a_last_continue(x, c):
    s = c
    for i in range(2):
        s = s * np.cos(x[i])
        if square(x) > 100.0:
            continue
    return s


def negative_in_the_branch_taken(x, c):
    s = x[-3] * c if c > 0.0 else c
    return s


def negative_in_a_conditional_test(x, c):
    return c * c if x[-3] > 0.0 else 2.0 * c + x[0]


def negative_after_and(x, c):
    s = c
    if c > 0.0 and x[-3] > -10.0:
        s = s * x[0]
    return s


def negative_in_a_while_test(x, c):
    s = c
    i = 0
    while i < 2 and x[-3] > -10.0:
        s = s * x[i]
        i += 1
    return s


def negative_write(x, c):
    n = x.shape[0]
    b = np.zeros(n)
    b[-3] = c
    return np.sum(b * x)


def negative_in_a_matrix(A, c):
    return c * A[-2, 0] + A[0, -4] * A[-1, -1]


def unused_read(x, c):
    t = x[-3]  # noqa: F841 - read for its IndexError only
    return c * np.sum(x)


def unused_read_in_a_loop(x, c):
    s = c
    for i in range(x.shape[0]):
        t = x[i - 5]  # noqa: F841
        s = s * x[i]
    return s


# ---- counters of while loops ------------------------------------------------------

def while_counter(x, c, n):
    s = c
    i = 0
    while i < n:
        s = s + x[i + 1] * c
        i += 1
    return s


def while_counter_down_negative(x, c, n):
    s = c
    i = n - 1
    while i >= 0:
        s = s + x[i - 4] * c
        i -= 1
    return s


def while_counter_in_a_conditional(x, c, n):
    s = c
    i = 0
    while i < n:
        s = s + (x[i + 1] if i % 2 == 1 else x[i]) * c
        i += 1
    return s


def while_true_with_break(x, c, n):
    s = c
    i = 0
    while True:
        if i >= n:
            break
        s = s + x[i + 1] * s
        i += 1
    return s


# ---- counters of for loops ----------------------------------------------------------

def offset_past_the_end(x, y):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * y[i + 1]
    return s


def negative_offsets(x, c, n):
    s = c
    for i in range(n):
        s = s + x[i - 4] * c
    return s


def reversed_range(x, c, n):
    s = c
    for i in range(n - 1, -1, -1):
        s = s * 0.5 + x[i + 1]
    return s


def strided_range(x, c, n):
    s = c
    for i in range(0, n, 2):
        s = s + x[i + 1] * c
    return s


def mirrored(x, c, n):
    s = c
    for i in range(n):
        s = s + x[n - i] * c
    return s


def after_a_break(x, c, n):
    s = c
    for i in range(n):
        if x[i] > 10.0:
            break
        s = s + x[i + 1] * c
    return s


def in_a_conditional_branch(x, c, n):
    s = c
    for i in range(n):
        s = s + (x[i] if i < 2 else x[i + 2]) * c
    return s


def scaled_counter(x, c, n):
    s = c
    for i in range(n):
        s = s + x[2 * i + 1] * c
    return s


# ---- nests ----------------------------------------------------------------------------

def rectangular(A, c, n):
    s = c
    for i in range(n):
        for j in range(A.shape[1] - 1):
            s = s + A[i, j + 1] * c
    return s


def triangular(x, c, n):
    s = c
    for i in range(n):
        for j in range(i + 1):
            s = s + x[i + j] * c
    return s


def triangular_negative(x, c, n):
    s = c
    for i in range(n):
        for j in range(i):
            s = s + x[j - i] * c
    return s


def while_in_for(x, c, n):
    s = c
    for i in range(n):
        k = 0
        while k < 2:
            s = s + x[i + k] * c
            k += 1
    return s


def counter_of_runs(x, c, n):
    s = c
    t = 0
    for i in range(n):
        for j in range(i + 1, n):
            s = s + x[t] * c
            t += 1
    return s


def helper_with_an_index(x, c, n):
    s = c
    for i in range(n):
        s = s + second(x, i + 1) * c
    return s


def strided_counter_of_runs(l, x, n):
    s = 0.0
    t = 0
    for i in range(0, n, 2):
        s += l[t] * x[i]
        t += 1
    return s


def strided_down(x, c, n):
    s = c
    for i in range(n - 1, 0, -2):
        s = s + x[i - 5] * c
    return s


def strided_nest(x, c, n):
    s = c
    for i in range(0, n, 2):
        for j in range(i + 1):
            s = s + x[j + 1] * c
    return s


def strided_constant(x, c):
    s = c
    for i in range(0, 6, 2):
        s = s + x[i + 1] * c
    return s


def strided_constant_down(x, c):
    s = c
    for i in range(6, 0, -2):
        s = s + x[i - 7] * c
    return s


CASES = [
    (negative_at_top, (X4, 0.7), (X4[:2], 0.7)),
    (negative_in_for, (X4, 0.7), (X4[:2], 0.7)),
    (negative_in_while, (X4, 0.7), (X4[:2], 0.7)),
    (negative_in_a_test, (X4, 0.7), (X4[:2], 0.7)),
    (negative_in_a_last_continue, (X4, 0.7), (X4[:2], 0.7)),
    (negative_in_a_last_continue_of_a_while, (X4, 0.7), (X4[:2], 0.7)),
    (helper_in_a_last_continue, (X4, 0.7), (X4[:2], 0.7)),
    (negative_in_the_branch_taken, (X4, 0.7), (X4[:2], 0.7)),
    (negative_in_a_conditional_test, (X4, 0.7), (X4[:2], 0.7)),
    (negative_after_and, (X4, 0.7), (X4[:2], 0.7)),
    (negative_in_a_while_test, (X4, 0.7), (X4[:2], 0.7)),
    (negative_write, (X4, 0.7), (X4[:2], 0.7)),
    (negative_in_a_matrix, (A34, 0.7), (A34[:, :3], 0.7)),
    (unused_read, (X4, 0.7), (X4[:2], 0.7)),
    (unused_read_in_a_loop, (X6, 0.7), (X4, 0.7)),
    (while_counter, (X4, 0.7, 3), (X4[:3], 0.7, 3)),
    (while_counter_down_negative, (X4, 0.7, 4), (X4[:3], 0.7, 4)),
    (while_counter_in_a_conditional, (X6, 0.7, 4), (X4, 0.7, 4)),
    (while_true_with_break, (X4, 0.7, 3), (X4[:3], 0.7, 3)),
    (offset_past_the_end, (X4[:3], X4), (X4[:3], X4[:3])),
    (negative_offsets, (X4, 0.7, 4), (X4[:3], 0.7, 4)),
    (reversed_range, (X4, 0.7, 3), (X4[:3], 0.7, 3)),
    (strided_range, (X6, 0.7, 5), (X6[:5], 0.7, 5)),
    (mirrored, (X4, 0.7, 3), (X4[:3], 0.7, 3)),
    (after_a_break, (X4, 0.7, 3), (X4[:3], 0.7, 3)),
    (in_a_conditional_branch, (X6, 0.7, 4), (X6[:5], 0.7, 4)),
    (scaled_counter, (X6, 0.7, 3), (X6[:5], 0.7, 3)),
    (rectangular, (A34, 0.7, 3), (A34[:2], 0.7, 3)),
    (triangular, (X6, 0.7, 3), (X6[:4], 0.7, 3)),
    (triangular_negative, (X4, 0.7, 4), (X4[:2], 0.7, 4)),
    (while_in_for, (X4, 0.7, 3), (X4[:3], 0.7, 3)),
    (counter_of_runs, (X6, 0.7, 4), (X6[:5], 0.7, 4)),
    (helper_with_an_index, (X4, 0.7, 3), (X4[:3], 0.7, 3)),
    (strided_counter_of_runs, (X4[:2], X4, 4), (X4[:1], X4, 4)),
    (strided_down, (X4, 0.7, 5), (X4[:2], 0.7, 5)),
    (strided_nest, (X4, 0.7, 4), (X4[:2], 0.7, 4)),
    (strided_constant, (X6, 0.7), (X6[:5], 0.7)),
    (strided_constant_down, (X6, 0.7), (X6[:4], 0.7)),
]

# the primal runs with every index at an end of its array: so must the
# derivative (a loop with a step does not reach the end of its range)
AT_THE_ENDS = [
    (strided_range, (X4, 0.7, 4)),
    (strided_counter_of_runs, (X4[:2], X4, 4)),
    (strided_counter_of_runs, (X4[:3], X6[:5], 5)),
    (strided_down, (X4[:3], 0.7, 5)),
    (strided_nest, (X4, 0.7, 4)),
    (strided_constant, (X6, 0.7)),
    (strided_constant_down, (X6[:5], 0.7)),
    (negative_offsets, (X4, 0.7, 4)),
    (triangular_negative, (X4[:3], 0.7, 4)),
    (counter_of_runs, (X6, 0.7, 4)),
    (mirrored, (X4[:3], 0.7, 2)),
    (negative_in_a_matrix, (A34[1:], 0.7)),
]


def _wrt(args):
    return tuple(k for k, a in enumerate(args) if isinstance(a, (float, np.ndarray)))


@pytest.mark.parametrize("f,fits,short", CASES, ids=[c[0].__name__ for c in CASES])
def test_an_index_out_of_range_raises(f, fits, short, jit):
    df = check_grad(f, fits, wrt=_wrt(fits), jit=jit)
    with pytest.raises(IndexError):
        f(*[a.copy() if isinstance(a, np.ndarray) else a for a in short])
    with pytest.raises(IndexError):
        df(*short)


@pytest.mark.parametrize("f,fits,short", CASES[:14:3], ids=[c[0].__name__ for c in CASES[:14:3]])
def test_forward_mode_raises_too(f, fits, short):
    dj = s2sad.jvp(f, wrt=0, jit=False)
    dj(*fits, np.ones_like(fits[0]))
    with pytest.raises(IndexError):
        dj(*short, np.ones_like(short[0]))


@pytest.mark.parametrize("f,args", AT_THE_ENDS,
                         ids=[f"{c[0].__name__}-{k}" for k, c in enumerate(AT_THE_ENDS)])
def test_indices_at_the_ends_raise_nothing(f, args, jit):
    check_grad(f, args, wrt=_wrt(args), jit=jit)


# ---- indices out of range that the function never evaluates ------------------------

def not_taken(x, c):
    return x[-5] * c if c > 0.0 else c * x[0]


def short_circuit(x, c):
    s = c
    if c > 0.0 and x[-5] > -10.0:
        s = s * x[0]
    return s + x[0]


def returned_before(x, c):
    if c < 0.0:
        return c * x[0]
    return x[-5] * c


def broken_before(x, c):
    s = c
    for i in range(3):
        if c < 0.0:
            break
        s = s * x[i - 5]
    return s + x[0]


def continued_before(x, c):
    s = c
    for i in range(3):
        if c < 0.0:
            continue
        s = s * x[-5]
    return s + x[0]


def loop_that_does_not_run(x, c, n):
    s = c
    for i in range(n):
        s = s * x[-5] + x[i]
    return s


def while_that_does_not_run(x, c, n):
    s = c
    i = 0
    while i < n:
        s = s * x[i + 7]
        i += 1
    return s + x[0]


def added_to_on_one_path(x, y, n):
    """The reverse sweep adds into dx[-5] only where y[i] > 0: an
    accumulator for it loaded before the loop would read dx[-5] anyway."""
    s = 0.5
    for i in range(n):
        if y[i] > 0.0:
            s = s * x[-5] + y[i]
        else:
            s = s * 0.5
    return s + x[0]


NOT_REACHED = [
    (not_taken, (X4[:2], -0.5)),
    (short_circuit, (X4[:2], -0.5)),
    (returned_before, (X4[:2], -0.5)),
    (broken_before, (X4[:2], -0.5)),
    (continued_before, (X4[:2], -0.5)),
    (loop_that_does_not_run, (X4[:2], 0.5, 0)),
    (while_that_does_not_run, (X4[:2], 0.5, 0)),
    (added_to_on_one_path, (X4[:2], -X4[:3] ** 2, 3)),
]


@pytest.mark.parametrize("f,args", NOT_REACHED, ids=[c[0].__name__ for c in NOT_REACHED])
def test_an_index_the_function_does_not_reach_raises_nothing(f, args, jit):
    f(*args)
    check_grad(f, args, wrt=_wrt(args), jit=jit)


def allocated_with_a_shape(x, c):
    b = np.zeros_like(x, shape=2)
    for i in range(x.shape[0]):
        b[i] = c * x[i]
    return np.sum(b)


def test_a_like_allocation_with_its_own_shape():
    """`np.zeros_like(x, shape=2)` does not have x's shape: nothing is
    proven from it, and the write is tested (numba does not compile the
    keyword: this runs as Python)."""
    df = s2sad.grad(allocated_with_a_shape, wrt=(0, 1), jit=False)
    df(X4[:2], 0.7)
    with pytest.raises(IndexError, match=r"b\[i\]: index out of range"):
        df(X4[:3], 0.7)


def test_a_constant_number_of_steps_is_checked_before_the_loop():
    """`range(0, 6, 2)` ends at 4: x[i + 1] needs 6 elements, tested once
    before the loop (a step in general leaves the test in the loop)."""
    df = s2sad.grad(strided_constant, wrt=(0, 1), jit=False)
    src = df.source_for(X6, 0.7)
    loop = src.index("for i in range(0, 6, 2)")
    assert "raise IndexError" in src[:loop] and "raise IndexError" not in src[loop:], src
    assert "5 >= x.shape[0]" in src or "x.shape[0] <= 5" in src, src
