"""Writes numpy hides in calls (`u.fill(v)`, `np.copyto(u, v)`, `out=u`,
`u.sort()`, a helper's `p += e` on an array it is given) and `...` in an
index: each is followed (transforms/frontend/effects/hidden_writes.py, written_args.py) and checked
against finite differences, compiled and as Python; a call made for its
effect on an array that s2sad cannot follow is refused. Every function here
gave a wrong gradient with no error before."""
import numpy as np
import pytest

import s2sad
from gradcheck import check_grad, check_jvp

X = np.array([0.7, -1.3, 2.1, 0.4])  # unsorted: a sort moves entries
A = np.array([[0.3, -1.2, 0.8], [1.1, 0.5, -0.6]])


# ---- at the top level ---------------------------------------------------------
def fills(x):
    u = x * 2.0
    u.fill(1.5)
    return np.sum(u * x)


def fills_then_writes(x):
    u = np.empty_like(x)
    u.fill(0.0)
    u[1:] = x[:-1] ** 2
    return np.sum(u * x)


def copies_to(x):
    u = x * 2.0
    np.copyto(u, x * x)
    return np.sum(u * x)


def multiplies_out(x):
    u = np.zeros_like(x)
    np.multiply(x, x, out=u)
    return np.sum(np.sin(u))


def adds_out_and_binds(x):
    u = x * 1.0
    y = np.add(x, np.cos(x), out=u)
    return np.sum(y * u)


def exps_out(x):
    u = np.empty_like(x)
    np.exp(x, out=u)
    return np.sum(u * x)


def sorts(x):
    u = x * 1.0
    u.sort()
    return u[0] * 3.0 + u[2] - u[3] ** 2


def sorts_rows(a):
    b = a * 1.0
    b.sort(axis=1)
    return np.sum(b[:, 0] * 2.0 + b[:, 2] ** 2)


def sorts_columns(a):
    b = a * a
    b.sort(axis=0)
    return np.sum(b[0] * 3.0 - b[1])


def ellipsis_store(x):
    u = x * 2.0
    u[...] = x * x
    return np.sum(u)


def ellipsis_column(a):
    b = a * 1.0
    b[..., 0] = a[..., 1] ** 2
    return np.sum(b * a)


def ellipsis_row(a):
    b = a * 1.0
    b[0, ...] = 3.0
    return np.sum(b * b * a)


def ellipsis_reads(a):
    return np.sum(a[..., 1:] * a[0, ..., 1:])


def ellipsis_add(a):
    b = np.zeros_like(a)
    b[...] += a * a
    return np.sum(np.sin(b))


TOP = [(fills, X), (fills_then_writes, X), (copies_to, X), (multiplies_out, X),
       (adds_out_and_binds, X), (exps_out, X), (sorts, X), (sorts_rows, A),
       (sorts_columns, A), (ellipsis_store, X), (ellipsis_column, A), (ellipsis_row, A),
       (ellipsis_reads, A), (ellipsis_add, A)]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("f,arg", TOP, ids=[f.__name__ for f, _ in TOP])
def test_top_level_writes(f, arg, jit):
    check_grad(f, (arg.copy(),), jit=jit)


# ---- in a helper ----------------------------------------------------------------
def euler_step(u, du, dt):
    u += dt * du  # writes into the caller's array (in place, as numpy does)


def integrates(x):
    u = x * 1.0
    for _ in range(3):
        euler_step(u, np.sin(u), 0.1)
    return np.sum(u * u)


def scaled(u, s):
    u *= s
    return np.sum(u)


def scales_and_reads(x):
    u = np.cos(x)
    total = scaled(u, x[0])
    return total + np.sum(u * x)  # u was scaled in place


def add_to(a, b):
    a += b  # a number: rebinds a, the caller's value is unchanged
    return a


def scalar_update(x):
    return np.sum(add_to(x[0], x[1]) * x)


def updates_fresh_value(x):
    return scaled(x * 2.0, x[1]) + np.sum(x)  # a value made for the call: nobody sees it


def zero_fill(u):
    u.fill(0.0)


def fill_in_helper(x):
    u = x * 2.0
    zero_fill(u)
    return np.sum(u * x) + np.sum(x ** 2)


def copy_into(u, v):
    np.copyto(u, v)


def copyto_in_helper(x):
    u = x * 2.0
    copy_into(u, x * x)
    return np.sum(u * x)


def square_into(x, out):
    np.multiply(x, x, out=out)


def out_in_helper(x):
    u = np.zeros_like(x)
    square_into(x, u)
    return np.sum(np.sin(u))


def sort_in_place(u):
    u.sort()


def sort_in_helper(x):
    u = x * 1.0
    sort_in_place(u)
    return u[0] * 3.0 + u[3]


def steps_twice(u, du):
    euler_step(u, du, 0.5)  # through another helper
    euler_step(u, du, 0.5)


def nested_update(x):
    u = x * 1.0
    steps_twice(u, x * x)
    return np.sum(u ** 3)


HELPERS = [(integrates, X), (scales_and_reads, X), (scalar_update, X),
           (updates_fresh_value, X), (fill_in_helper, X), (copyto_in_helper, X),
           (out_in_helper, X), (sort_in_helper, X), (nested_update, X)]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("f,arg", HELPERS, ids=[f.__name__ for f, _ in HELPERS])
def test_helper_writes(f, arg, jit):
    check_grad(f, (arg.copy(),), jit=jit)


FORWARD = TOP + HELPERS


@pytest.mark.parametrize("f,arg", FORWARD, ids=[f.__name__ for f, _ in FORWARD])
def test_forward_mode(f, arg):
    check_jvp(f, (arg.copy(),), jit=False)


def test_helper_update_keeps_the_callers_array():
    """The caller's array is written (its identity kept), as in Python."""
    def f(x):
        u = x * 1.0
        v = u[1:]  # another name: refused, the write would be missed
        euler_step(u, x, 0.5)
        return np.sum(v)
    with pytest.raises(s2sad.UnsupportedSyntaxError):
        s2sad.grad(f, jit=False)(X.copy())


# ---- refused ------------------------------------------------------------------------
def multiply_at(x):
    u = np.ones(3)  # (np.add.at and np.subtract.at are differentiated: test_builtin_forms.py)
    np.multiply.at(u, np.array([0, 0, 2]), x[:3])
    return np.sum(u * u)


def resizes(x):
    u = x * 1.0
    u.resize(2)
    return np.sum(u)


def out_in_expression(x):
    u = np.zeros_like(x)
    return np.sum(np.multiply(x, x, out=u) * 2.0)


def out_into_view(x):
    u = np.zeros((2, 4))
    np.multiply(x, x, out=u[0])
    return np.sum(u)


def copyto_where(x):
    u = x * 1.0
    np.copyto(u, x * x, where=x > 0)
    return np.sum(u)


def update_in_expression(x):
    u = x * 1.0
    return scaled(u, 2.0) + np.sum(u)


def add_at_bound(x):
    u = x * 1.0
    r = np.add.at(u, [0, 0], 1.0)  # (its value, None, is used: still a write)
    return np.sum(u)


def fills_diagonal(x):
    a = np.outer(x, x)
    np.fill_diagonal(a, 0.0)
    return np.sum(a)


def shuffles(x):
    u = x * 1.0
    np.random.shuffle(u)
    return np.sum(u * x)


def puts(x):
    u = x * 1.0
    u.put([0], 2.0)
    return np.sum(u)


REFUSED = [multiply_at, resizes, out_in_expression, out_into_view, copyto_where,
           update_in_expression, add_at_bound, fills_diagonal, shuffles, puts]


@pytest.mark.parametrize("f", REFUSED, ids=[f.__name__ for f in REFUSED])
def test_refused(f):
    with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
        s2sad.grad(f, jit=False)(X.copy())
    assert "test_inplace_forms.py" in str(info.value)
