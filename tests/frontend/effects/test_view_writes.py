"""A write through a view of an array's row (column, element block) is
written into the array by its own name (transforms/frontend/effects/view_writes.py):
`for row in X: row /= s` is differentiated instead of refused."""
import numpy as np
import pytest

import s2sad
from frontend.passes import lowered
from gradcheck import check_grad, check_jvp, numerical_grad
from s2sad.transforms.frontend.effects import view_writes

X = np.array([[0.3, -0.7, 1.1, 0.45], [0.5, 0.2, -0.9, 1.3], [-0.4, 0.8, 0.6, -1.2]])


def rows_rewritten(A):
    b = A.copy()
    for row in b:
        row[:] = np.sin(row) * row
    return np.sum(b * b)


def rows_normalised(A):
    Y = A.copy()
    for row in Y:
        row /= np.sum(row * row)
    return np.sum(Y * A)


def row_by_index(A):
    Y = A.copy()
    for i in range(Y.shape[0]):
        row = Y[i]
        row *= 2.0 + np.tanh(row[0])
    return np.sum(Y ** 3)


def column_written(A):
    Y = A.copy()
    col = Y[:, 1]
    col *= 2.0
    col[0] = np.sin(col[1])
    return np.sum(Y * Y)


def element_loop_in_a_row(A):
    Y = A.copy()
    for i in range(Y.shape[0]):
        row = Y[i]
        for j in range(1, row.shape[0]):
            row[j] = row[j] + np.sin(row[j - 1])
    return np.sum(Y ** 3)


def written_in_a_branch(A):
    Y = A.copy()
    for i in range(Y.shape[0]):
        row = Y[i]
        if row[0] > 0.0:
            row[1:] = row[1:] * row[0]
        else:
            row[0] = np.cos(row[0])
    return np.sum(Y * Y)


def row_of_the_caller(A):
    for row in A:  # the caller's array: the derivative writes into a copy
        row -= np.mean(row)
    return np.sum(A * A * A)


# ---- slices with bounds: b = a[1:4], inner = a[1:n + 1], a[::2], a[-3:] ----------


def partial_row(A):
    Y = A.copy()
    row = Y[0, 1:]
    row *= 2.0
    return np.sum(Y * Y)


def slice_assigned(A):
    a = np.zeros(6)
    b = a[1:4]
    b[:] = A[0, :3] * 2.0
    return np.sum(a * a) + a[2]


def inner_cells(A):
    x = A[1]
    n = x.shape[0]
    a = np.zeros(n + 2)
    inner = a[1:n + 1]
    for i in range(n):
        inner[i] = x[i] ** 2 + x[i - 1]
    return np.sum(a * np.arange(n + 2.0)) + a[0]


def strided_views(A):
    a = np.ones(6)
    even = a[::2]
    even *= A[0, :3]
    odd = a[1::2]
    odd += np.sin(A[2, 1:])
    return np.sum(a ** 2 * np.arange(6.0))


def block_of_a_matrix(A):
    m = np.zeros((4, 4))
    block = m[1:3, 1:3]
    block[:] = np.outer(A[0, :2], A[1, 2:])
    block[0, 1] += A[2, 0]
    return np.sum(m * np.arange(16.0).reshape(4, 4))


def negative_bounds(A):
    a = A[0] * 1.0
    tail = a[-3:]
    tail -= a[0] * 0.5
    middle = a[1:-1]
    middle[-1] = np.tanh(middle[0])  # (a negative index: the whole view goes back)
    return np.sum(a ** 3)


def view_read_between_writes(A):
    a = np.zeros(5)
    b = a[1:]
    b[0] = A[0, 0]
    c = b * 2.0
    b[1] = c[0] * A[0, 1]
    return np.sum(a) + np.sum(c * A[1])


SLICES = [partial_row, slice_assigned, inner_cells, strided_views, block_of_a_matrix,
          negative_bounds, view_read_between_writes]
FUNCTIONS = [rows_rewritten, rows_normalised, row_by_index, column_written,
             element_loop_in_a_row, written_in_a_branch, row_of_the_caller] + SLICES


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_gradient(f, jit):
    check_grad(f, [X.copy()], jit=jit)


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_plain_derivative(f):
    g = s2sad.grad(f, jit=False, optimise=False, check=False)(X.copy())
    np.testing.assert_allclose(g, numerical_grad(f, [X.copy()], 0), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_forward_mode(f, jit):
    check_jvp(f, [X.copy()], jit=jit)


def test_the_value_is_the_primal():
    for f in FUNCTIONS:
        value, _ = s2sad.value_and_grad(f, jit=False)(X.copy())
        np.testing.assert_allclose(value, f(X.copy()), rtol=1e-12)


def test_the_write_goes_back_into_the_array():
    _, after = lowered(view_writes, row_by_index, X.copy())
    lines = [line.strip() for line in after.splitlines()]
    assert "row_view = Y[i]" in lines and "row = np.copy(row_view)" in lines
    assert lines.index("Y[i] = row") > lines.index("row = np.copy(row_view)")


def array_written_while_the_view_is_used(A):
    Y = A.copy()
    row = Y[0]
    Y[0, 0] = 5.0
    row *= 2.0
    return np.sum(Y * Y)


def index_rebound(A):
    Y = A.copy()
    i = 0
    row = Y[i]
    i = 1
    row *= 2.0
    return np.sum(Y * Y) + i


@pytest.mark.parametrize("f", [array_written_while_the_view_is_used, index_rebound],
                         ids=lambda f: f.__name__)
def test_what_the_copy_would_change_is_still_refused(f):
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="view of 'Y'"):
        s2sad.grad(f, jit=False)(X.copy())


# ---- another name of the whole array: renamed -----------------------------------

def dict_entry_updated(A):
    p = {"w": A.copy(), "b": A[0].copy()}
    for k in range(3):
        p["w"] -= 0.1 * np.tanh(p["w"]) * p["b"]
    return np.sum(p["w"] ** 2)


def another_name_written(A):
    b = A.copy()
    c = b
    for i in range(3):
        c[i] = np.sin(c[i]) * b[i]
    return np.sum(b * c)


def unpacked_from_a_tuple(A):
    b = A.copy()
    t = (b, 1.0)
    x, _ = t
    x[0] = np.sin(x[1]) * x[0]
    return np.sum(b * b)


def listed_then_written(A):
    b = A.copy()
    lst = [b, b * 2]
    lst[0][0, 0] = np.sin(b[1, 1])
    return np.sum(b * b)


def each_of_a_list_updated(A):
    ps = [A[0].copy(), A[1].copy()]
    for p in ps:  # (unrolled: p = ps_0, ..., p = ps_1, ...: one region each)
        p *= 2.0 + np.tanh(p)
    return np.sum(ps[0] * ps[1])


def each_value_of_a_dict_updated(A):
    d = {"a": A[0].copy(), "b": A[1].copy()}
    for v in d.values():
        v *= 2.0 + np.tanh(v)
    return np.sum(d["a"] * d["b"])


NAMES = [dict_entry_updated, another_name_written, unpacked_from_a_tuple, listed_then_written,
         each_of_a_list_updated, each_value_of_a_dict_updated]


@pytest.mark.parametrize("f", NAMES, ids=lambda f: f.__name__)
def test_another_name_is_the_array(f, jit):
    check_grad(f, [X.copy()], jit=jit)
    g = s2sad.grad(f, jit=False, optimise=False, check=False)(X.copy())
    np.testing.assert_allclose(g, numerical_grad(f, [X.copy()], 0), rtol=1e-6, atol=1e-7)
    value, _ = s2sad.value_and_grad(f, jit=False)(X.copy())
    np.testing.assert_allclose(value, f(X.copy()), rtol=1e-12)


def test_the_other_name_is_renamed():
    _, after = lowered(view_writes, another_name_written, X.copy())
    assert "c[i] =" not in after and "b[i] = " in after


def rebound_array(A):
    b = A.copy()
    c = b
    b = b * 2.0
    c[0] = 1.0
    return np.sum(b * c)


def test_a_name_whose_array_is_rebound_is_not_renamed(jit):
    # after b = b * 2.0, c is the first array and b another: c keeps its name
    before, after = lowered(view_writes, rebound_array, X.copy())
    assert before == after
    check_grad(rebound_array, [X.copy()], jit=jit)


# ---- in a checkpointed loop: the array written through the view is carried ----

def checkpointed_rows(A):
    Y = A.copy()
    s = 0.0
    for t in s2sad.checkpointed(range(4)):
        for row in Y:
            row *= 0.9 + 0.1 * np.tanh(row)
        s = s + np.sum(Y[0] ** 2)
    return s + np.sum(Y * Y)


def checkpointed_another_name(A):
    Y = A.copy()
    s = 0.0
    for t in s2sad.checkpointed(range(4)):
        Z = Y
        Z *= 0.9 + 0.1 * np.tanh(Z)
        s = s + np.sum(Y[0] ** 2)
    return s + np.sum(Y * Y)


def checkpointed_rows_only(A):
    Y = A.copy()
    for t in s2sad.checkpointed(range(3)):
        for row in Y:
            row -= 0.2 * np.sin(row)
    return np.sum(Y ** 3)


@pytest.mark.parametrize("f", [checkpointed_rows, checkpointed_another_name,
                               checkpointed_rows_only], ids=lambda f: f.__name__)
def test_a_checkpointed_loop_carries_what_it_writes_through_a_view(f, jit):
    # (the step function's state missed Y: a wrong gradient, or "a
    # checkpointed loop that changes nothing")
    check_grad(f, [X.copy()], jit=jit)


def test_an_element_written_goes_back_alone():
    # (not the whole row after each element: a loop over a row's elements
    # would copy and record the row once per element)
    _, after = lowered(view_writes, element_loop_in_a_row, X.copy())
    lines = [line.strip() for line in after.splitlines()]
    assert "Y[i, j] = row[j]" in lines and "Y[i] = row" not in lines
    _, after = lowered(view_writes, column_written, X.copy())
    lines = [line.strip() for line in after.splitlines()]
    assert "Y[0, 1] = col[0]" in lines and "Y[:, 1] = col" in lines  # (col *= 2.0: all of it)


def test_an_element_of_a_slice_goes_back_to_its_place():
    """inner = a[1:n + 1]; inner[i] = e with i counting up from 0: a[1 + i]
    (not the whole slice after each element); a negative index, which
    counts from the slice's end, sends the whole slice back."""
    _, after = lowered(view_writes, inner_cells, X.copy())
    lines = [line.strip() for line in after.splitlines()]
    assert "a[1 + i] = inner[i]" in lines and "a[1:n + 1] = inner" not in lines
    _, after = lowered(view_writes, negative_bounds, X.copy())
    lines = [line.strip() for line in after.splitlines()]
    assert "a[1:-1] = middle" in lines and "a[-3:] = tail" in lines
