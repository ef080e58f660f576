"""An array in a list is the array itself, in numpy as in Python: a list
element taken by a run-time index (`dst = bufs[k]`), an array appended in
a loop, a comprehension of column views. s2sad keeps such lists as
arrays of copies, so a write that Python makes visible through the other
name (the list, or the element's own name) is refused, naming the two
names and the write: it used to give a wrong value and gradient silently."""
import numpy as np
import pytest

import s2sad
from gradcheck import check_grad

X = np.array([0.5, -1.0, 2.0])
B = np.array([[1.0, 2.0], [3.0, 4.0]])


def element_written_through_its_name(x):
    bufs = [np.zeros_like(x)]
    k = 0
    dst = bufs[k]
    dst[:] = x ** 2
    return np.sum(bufs[0])


def ping_pong(x):
    bufs = [x.copy(), np.zeros_like(x)]
    for t in range(3):
        src = bufs[t % 2]
        dst = bufs[(t + 1) % 2]
        dst[:] = 0.5 * src + x
    return np.sum(bufs[1])


def appended_then_updated(x):
    y = x.copy()
    hist = []
    for i in range(2):
        hist.append(y)
        y += x ** 2
    return np.sum(np.array(hist))


def views_then_the_matrix_written(X):
    B = X.copy()
    cols = [B[:, j] for j in range(B.shape[1])]
    B[0, :] = 0.0
    return sum(np.sum(c * c) for c in cols)


@pytest.mark.parametrize("f, arg", [(element_written_through_its_name, X), (ping_pong, X),
                                    (appended_then_updated, X),
                                    (views_then_the_matrix_written, B)])
def test_a_write_another_name_of_the_memory_sees_is_refused(f, arg):
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="two names of its memory"):
        s2sad.grad(f, jit=False)(arg)


def element_read(x):
    bufs = [x * 2.0, x * 3.0]
    k = 1
    v = bufs[k]
    return np.sum(v * v)


def element_rebound(x):
    bufs = [x * 2.0, x * 3.0]
    k = 0
    v = bufs[k]
    v = v + 1.0
    return np.sum(v * bufs[1])


def appended_then_rebound(x):
    y = x.copy()
    hist = []
    for i in range(3):
        hist.append(y)
        y = y + x ** 2  # a new array: the list keeps the old one
    return np.sum(np.array(hist))


def numbers_appended(x):
    t = 0.0
    ts = []
    for i in range(3):
        ts.append(t)
        t += 0.5  # a number: += rebinds
    return np.sum(np.array(ts)) * np.sum(x)


def column_views_read(X):
    B = X * 2.0
    cols = [B[:, j] for j in range(B.shape[1])]
    return sum(np.sum(c * c) for c in cols) + np.sum(B)


@pytest.mark.parametrize("f, arg", [(element_read, X), (element_rebound, X),
                                    (appended_then_rebound, X), (numbers_appended, X),
                                    (column_views_read, B)])
def test_without_such_a_write_the_gradient_is_right(f, arg, jit):
    check_grad(f, (arg,), jit=jit)
