"""A writing method called on a view (`y[1:].fill(v)`, `B[0].sort()`,
`B[:, 0].sort()`) writes into the array viewed, and is differentiated as
the store it is; it used to run in the forward sweep only, a wrong
gradient with no error. Where the index may make a copy (a name, a mask,
an index array: numpy then writes into the copy) it is refused."""
import numpy as np
import pytest

import s2sad
from gradcheck import check_grad

X = np.array([0.5, -1.0, 2.0, 0.3])
B = np.array([[0.4, -0.2, 1.5], [2.0, 0.1, -0.7]])


def fill_a_slice(x):
    y = x.copy()
    y[1:].fill(x[0])
    return np.sum(y * np.arange(4.0))


def sort_a_slice(x):
    y = x * 1.0
    y[1:].sort()
    return np.sum(y * np.arange(4.0))


def sort_rows_and_a_column(A):
    C = A * 2.0
    C[0].sort()
    C[:, 1].sort()
    return np.sum(C * np.arange(6.0).reshape(2, 3))


def fill_a_row_with_a_bound(A, k):
    C = A.copy()
    C[1, k:].fill(A[0, 0] * 3.0)
    return np.sum(C * C)


@pytest.mark.parametrize("f, args", [(fill_a_slice, (X,)), (sort_a_slice, (X,)),
                                     (sort_rows_and_a_column, (B,)),
                                     (fill_a_row_with_a_bound, (B, 1))],
                         ids=["fill", "sort", "rows_and_column", "bound"])
def test_the_write_is_differentiated(f, args, jit):
    check_grad(f, args, jit=jit)


def sort_at_a_name(A, i):
    C = A * 1.0
    C[i].sort()
    return np.sum(C * np.arange(6.0).reshape(2, 3))


def sort_through_a_mask(x):
    y = x * 1.0
    y[y > 0].sort()  # numpy sorts a copy: y is unchanged
    return np.sum(y)


@pytest.mark.parametrize("f, args", [(sort_at_a_name, (B, 0)), (sort_through_a_mask, (X,))])
def test_an_index_that_may_copy_is_refused(f, args):
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="of an indexed array"):
        s2sad.grad(f, jit=False)(*args)
