"""An index whose values are not proved unique adds with repeats (np.add.at
semantics): the cotangent of `x[i]` adds g at every entry of i, twice where
i names a position twice, and a write `y[i] = v` keeps numpy's last writer.
Index arrays computed in the function (astype, floor, arithmetic,
searchsorted, digitize, np.where), of several axes, written through, and
given as arguments; against finite differences, as Python and compiled.
The indices proved to name each position once (np.arange, argsort, nonzero,
their shifts) keep numpy's plain `dx[i] += g`."""
import numpy as np
import pytest

import s2sad
from gradcheck import check_grad

X = np.array([1.0, 2.0, 3.0, 4.0])
V = np.array([0.2, 0.7, 1.5, 0.4])  # as ints: 0, 0, 1, 0
A = np.arange(1.0, 10.0).reshape(3, 3)
REPEATED = np.array([0, 0, 2, 0])


def cast(x, v):
    i = v.astype(int)  # the reproducer: [0, 0, 1]
    return np.sum(x[i])


def floored(x, v):
    i = np.floor(v).astype(np.int64)
    return np.sum(x[i] ** 2)


def rounded(x, v):
    i = np.round(v).astype(np.int64)
    return np.sum(np.sin(x[i]))


def by_arithmetic(x, v):
    i = (v * 2).astype(int) // 2 + 1
    return np.sum(x[i] ** 2)


def searched(x, v):
    i = np.searchsorted(np.array([0.5, 1.0, 2.0]), v)
    return np.sum(x[i] * x[i])


def digitized(x, v):
    i = np.digitize(v, np.array([0.5, 1.0, 2.0]))
    return np.sum(x[i] * x[i])


def chosen(x, v):
    i = np.where(v > 0.5, 1, 0)
    return np.sum(x[i] ** 2)


def two_axes(x, v):
    i = v.astype(int).reshape(2, 2)
    return np.sum(x[i] ** 2)


def taken(x, v):
    i = v.astype(int)
    return np.sum(np.take(x, i) ** 2)


def shared_read(x, v):
    i = v.astype(int)
    y = x[i] * 2.0
    return np.sum(y * x[i])


def added_into(x, v):
    i = v.astype(int)
    y = np.zeros(3)
    y[i] += x ** 2  # numpy keeps the last of repeated entries
    return np.sum(y * np.arange(1.0, 4.0))


def written(x, v):
    i = v.astype(int)
    y = np.zeros(3)
    y[i] = x ** 2
    return np.sum(y * np.arange(1.0, 4.0))


def added_at(x, v):
    i = v.astype(int)
    y = np.zeros(3)
    np.add.at(y, i, x)
    return np.sum(y ** 2)


def argument_index(x, idx):
    return np.sum(x[idx] ** 2)


def argument_index_write(x, idx):
    y = np.zeros(3)
    y[idx] = x ** 2
    return np.sum(y * np.arange(1.0, 4.0))


def argument_index_of_a_rewritten_array(x, idx):
    # y is written more often than read: its reads are kept as values
    # (transforms/reverse/reads.py), y[idx] an array of them
    y = np.zeros(3)
    for k in range(3):
        for j in range(3):
            y[j] += x[k] * j + x[j]
    return np.sum(y[idx] * y[idx])


def rows(a, v):
    i = v.astype(int)
    return np.sum(a[i, :] ** 2)


def columns(a, v):
    i = v.astype(int)
    return np.sum(a[:, i] ** 2)


def points(a, v):
    r = v.astype(int)
    c = (v * 0).astype(int)
    return np.sum(a[r, c] ** 2)


CASES = [
    (cast, (X[:3], V[:3])), (floored, (X, V)), (rounded, (X, V)), (by_arithmetic, (X, V)),
    (searched, (X, V)), (digitized, (X, V)), (chosen, (X, V)), (two_axes, (X, V)),
    (taken, (X, V)), (shared_read, (X, V)), (added_into, (X, V)), (written, (X, V)),
    (added_at, (X, V)), (argument_index, (X, REPEATED)),
    (argument_index_write, (X, REPEATED[:4])),
    (argument_index_of_a_rewritten_array, (X[:3], REPEATED)),
    (rows, (A, V)), (columns, (A, V)), (points, (A, V)),
]


@pytest.mark.parametrize("f, args", CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_repeated_entries_add_up(f, args, jit):
    check_grad(f, args, jit=jit)


def test_the_reported_cast_python_and_compiled():
    for jit in (False, True):
        g = s2sad.grad(cast, jit=jit)(np.array([1.0, 2.0, 3.0]), np.array([0.2, 0.7, 1.5]))
        np.testing.assert_array_equal(g, [2.0, 1.0, 0.0])


# ---- proved distinct: numpy's plain `dx[i] += g` -------------------------------------

def ranged(x):
    i = np.arange(x.shape[0])
    return np.sum(x[i] ** 2)


def neighbours(x):
    i = np.arange(x.shape[0] - 1)
    return np.sum(x[i + 1] * x[i])


def from_one(x):
    i = np.arange(1, x.shape[0])
    return np.sum(x[i - 1] * x[i])


def strided(x):
    i = 2 * np.arange(2)
    return np.sum(x[i] ** 2)


def sorted_order(x):
    i = np.argsort(x)
    return np.sum(x[i] * np.arange(4.0))


def reversed_order(x):
    i = np.argsort(x)[::-1]
    return np.sum(x[i] * np.arange(4.0))


def selected(x):
    i = np.flatnonzero(x > 1.5)
    return np.sum(x[i] ** 2)


def nonzero_positions(x):
    i = np.nonzero(x > 1.5)[0]
    return np.sum(x[i] ** 2)


def where_positions(x):
    i = np.where(x > 1.5)[0]
    return np.sum(x[i] ** 2)


def counted(x):
    s = 0.0
    for k in range(2):
        i = np.arange(2) + k
        s += np.sum(x[i] ** 2)
    return s


def written_once_each(x):
    y = np.zeros(4)
    y[np.arange(4)] = x ** 2
    return np.sum(y * np.arange(1.0, 5.0))


DISTINCT = [ranged, neighbours, from_one, strided, sorted_order, reversed_order, selected,
            nonzero_positions, where_positions, counted]


@pytest.mark.parametrize("f", DISTINCT, ids=lambda f: f.__name__)
def test_distinct_indices_keep_the_plain_add(f, jit):
    df = check_grad(f, (np.array([3.0, 1.0, 4.0, 2.0]),), jit=jit)
    assert "scatter_sum" not in df.source
    assert "dx[i" in df.source  # dx[i] += ..., dx[i + 1] += ...


def test_distinct_write_needs_no_last_writer_mask(jit):
    df = check_grad(written_once_each, (np.array([3.0, 1.0, 4.0, 2.0]),), jit=jit)
    assert "last_writes" not in df.source


# ---- look alike, not proved: they add with repeats --------------------------------------

def negative_start(x):
    i = np.arange(-2, 2)  # -2 and 2 name the same position of 4
    return np.sum(x[i] ** 2)


def written_into(x):
    i = np.arange(4)
    i[0] = 1
    return np.sum(x[i] ** 2)


def filled(x):
    i = np.arange(4)
    i.fill(1)
    return np.sum(x[i] ** 2)


def reflected(x):
    i = 2 - np.arange(3)
    return np.sum(x[i] ** 2 * np.arange(1.0, 4.0))


def halved(x):
    i = np.arange(4) // 2
    return np.sum(x[i] ** 2)


def shifted_by_an_argument(x, k):
    i = np.arange(3) + k
    return np.sum(x[i] ** 2)


def rows_of_a_matrix_mask(x):
    i = np.nonzero(np.outer(x, x) > 5.0)[0]  # a row index per nonzero: repeats
    return np.sum(x[i] ** 2)


def doubled(x):
    i = np.concatenate((np.arange(2), np.arange(2)))
    return np.sum(x[i] ** 2)


def rebound_in_a_loop(x):
    i = np.arange(2)
    s = 0.0
    for k in range(3):
        s += np.sum(x[i] ** 2)
        i = i * 0 + 1
    return s


LOOKALIKES = [(negative_start, ()), (written_into, ()), (filled, ()), (reflected, ()), (halved, ()),
              (shifted_by_an_argument, (1,)), (rows_of_a_matrix_mask, ()), (doubled, ()),
              (rebound_in_a_loop, ())]


@pytest.mark.parametrize("f, more", LOOKALIKES, ids=lambda v: getattr(v, "__name__", ""))
def test_indices_not_proved_distinct_add_with_repeats(f, more, jit):
    df = check_grad(f, (np.array([3.0, 1.0, 4.0, 2.0]),) + more, jit=jit)
    assert "scatter_sum" in df.source


# ---- one index array per axis, as a tuple (np.triu_indices(n), np.nonzero(A)) -----------

def upper_triangle_read(x):
    A = np.outer(x, np.cos(x))
    return np.sum(A[np.triu_indices(4)] ** 2)


def upper_triangle_written(x):
    A = np.outer(x, x)
    A[np.triu_indices(4, 1)] = np.sin(x[:2]).sum() * np.arange(1.0, 7.0)
    return np.sum(A @ A)


def triangle_named(x):
    A = np.outer(x, np.sin(x))
    il = np.tril_indices(4, -1)
    A[il] = np.concatenate((x[:3] * x[1:], x[:3] ** 2))
    return np.sum(A @ A) + np.sum(np.exp(A[il]))


def triangle_unpacked(x):
    A = np.outer(x, np.cos(x))
    i, j = np.triu_indices_from(A)
    A[i, j] = x.sum() * np.arange(1.0, 11.0)
    return np.sum(A @ A) + np.sum(A[j, i] * A[i, j])


def diagonal_written(x):
    A = np.outer(x, x)
    A[np.diag_indices(4)] = np.exp(x)
    return np.sum(A @ A) + np.sum(A[np.diag_indices_from(A)] ** 3)


def diagonal_by_ranges(x):
    n = x.shape[0]
    A = np.outer(x, np.sin(x))
    A[np.arange(n), np.arange(n)] = x ** 3
    return np.sum(A @ A)


def positions_of_a_mask(x):
    A = np.outer(x, x)
    m = np.nonzero(A > 2.5)  # (no entry at the threshold: 2.0 is one)
    A[m] = np.sqrt(A[m])
    return np.sum(A @ A)


TRIANGLES = [upper_triangle_read, upper_triangle_written, triangle_named, triangle_unpacked,
             diagonal_written, diagonal_by_ranges, positions_of_a_mask]


@pytest.mark.parametrize("f", TRIANGLES, ids=lambda f: f.__name__)
def test_positions_of_triangles_and_diagonals(f, jit):
    # (each position once: read with numpy's plain add, written without a mask)
    df = check_grad(f, (np.array([3.0, 1.0, 4.0, 2.0]),), jit=jit)
    assert "scatter_sum" not in df.source and "last_writes" not in df.source


def tuple_with_repeats(x):
    A = np.outer(x, np.cos(x))
    t = (np.array([0, 0, 1]), np.array([1, 1, 2]))  # (0, 1) twice
    return np.sum(A[t] * np.array([1.0, 2.0, 3.0]))


def positions_halved(x):
    A = np.outer(x, x)
    r = np.nonzero(A > 0.0)
    t = (r[0] // 2, r[1] // 2)  # points named up to four times each
    return np.sum(A[t] ** 2)


@pytest.mark.parametrize("f", [tuple_with_repeats, positions_halved], ids=lambda f: f.__name__)
def test_a_tuple_of_index_arrays_adds_with_repeats(f, jit):
    # (dA[t] += g kept one of each repeated point: a wrong gradient with no error)
    df = check_grad(f, (np.array([3.0, 1.0, 4.0, 2.0]),), jit=jit)
    assert "scatter_sum" in df.source


def tuple_written_with_repeats(x):
    A = np.outer(x, x)
    t = (np.array([0, 0, 1]), np.array([1, 1, 2]))
    A[t] = x[:3]
    return np.sum(A ** 2)


def test_a_write_through_a_tuple_with_repeats_is_refused(jit):
    # (numpy keeps the last write of (0, 1): the gradient dropped the first one's loss)
    with pytest.raises(s2sad.UnsupportedSyntaxError,
                       match=r"test_repeated_indices\.py:\d+, in tuple_written_with_repeats: an "
                             r"assignment through several index arrays"):
        s2sad.grad(tuple_written_with_repeats, jit=jit)(np.array([3.0, 1.0, 4.0, 2.0]))
