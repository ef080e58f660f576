"""An integer index array keeps the axis it indexes: `y[np.array([0, 2])]` of a 2-d y is
2-d (its kind, transforms/analysis/kinds.py), never read as if the index were an int.
Reductions, broadcasting and writes through such indices, against finite differences of
numpy's own semantics, as Python and compiled (a sample: compiling takes seconds)."""
import gast
import numpy as np
import pytest

from gradcheck import check_grad
from s2sad.transforms.analysis import kinds as K

C = np.array([1.0, -2.0])


def reduce_rows(y):
    return np.sum(np.sum(y[np.array([0, 2])], axis=0) * np.arange(3.0))


def broadcast_rows(y):
    return np.sum(y[np.array([0, 2])] * C[:, None])


def add_rows(y):
    z = y.copy()
    z[np.array([0, 2])] += y[np.array([1, 3])] * 2.0
    return np.sum(z * z)


def write_rows(y):
    z = np.zeros((4, 3))
    z[np.array([0, 2])] = y[np.array([1, 3])] * C[:, None]
    return np.sum(z * y)


def max_of_rows(y):
    return np.sum(np.max(y[np.array([0, 2]), 1:], axis=1) * C)


def columns_in_a_loop(y):
    s = 0.0
    for i in range(3):
        s += np.sum(y[np.array([0, 2]), i] * C) * i
    return s


def chained(y):
    return np.sum(y[np.array([0, 2])][:, 0] * C)


def mean_of_columns(y):
    return np.mean(y[:, np.array([0, 2])] ** 2, axis=0) @ C


def write_a_number_column(y):
    z = y * 1.0
    z[np.array([0, 2]), 1] = C
    return np.sum(z ** 2)


def subtract_broadcast_column(y):
    # the written region is (4, 2), the value (4, 1): its cotangent is summed back
    z = y * 1.0
    z[:, np.array([0, 2])] -= y[:, 1][:, None]
    return np.sum(z ** 3)


def two_axis_index_with_repeats(y):
    # a (2, 2) index array with row 1 twice: both reads add to its gradient
    return np.sum(y[np.array([[0, 2], [1, 1]])] ** 2 * np.arange(3.0))


def methods(y):
    return y[np.array([0, 2])].sum() + y[np.array([0, 2])].max()


FUNCTIONS = [reduce_rows, broadcast_rows, add_rows, write_rows, max_of_rows, columns_in_a_loop,
             chained, mean_of_columns, write_a_number_column, subtract_broadcast_column,
             two_axis_index_with_repeats, methods]
COMPILED = [subtract_broadcast_column, two_axis_index_with_repeats]
Y = np.random.default_rng(56).normal(size=(4, 3))


@pytest.mark.parametrize("f", FUNCTIONS, ids=[f.__name__ for f in FUNCTIONS])
def test_python(f):
    check_grad(f, (Y,), jit=False)


@pytest.mark.parametrize("f", COMPILED, ids=[f.__name__ for f in COMPILED])
def test_compiled(f):
    check_grad(f, (Y,), jit=True)


def _kind(expr, call_kind=None):
    atom = gast.parse(expr).body[0].value
    return K.of_atom(atom, {"y": K.array(2)}, call_kind)


def test_the_kind_keeps_the_indexed_axis():
    def np_array_kind(node, args, kws):  # np.array of a list of ints
        return K.array(1, "i")
    assert _kind("y[np.array([0, 2])]", np_array_kind) == K.array(2)
    assert _kind("y[np.array([0, 2]), 1]", np_array_kind) == K.array(1)
    assert _kind("y[[0, 2]]") == K.array(2)
    # an index whose kind is not known is not guessed to be an int
    assert _kind("y[np.array([0, 2])]") == K.UNKNOWN
