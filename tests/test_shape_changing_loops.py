"""Arrays whose shape changes from one iteration of a loop to the next
(slices growing, shrinking or alternating, concatenation, a reshape per
iteration), loop-local or loop-carried, in counted, nested, `while` and
checkpointed loops: gradients against finite differences, jit on and off.

The reverse sweep zeroes an adjoint with the shape of the value it
belongs to; for an array whose one shape s2sad cannot prove
(shape_classes.fixed_shapes), that value is the one the reverse sweep has
restored, never a later iteration's."""
import math

import numpy as np
import pytest

import s2sad
from tests.gradcheck import check_grad, check_jvp


def alternating_sum(x):
    # the reproducer: a product of one or two elements added into acc,
    # which grows from (1,) to (2,) by broadcasting
    acc = np.zeros(1)
    for i in range(len(x)):
        acc = acc + x[: (i % 2) + 1] * x[i]
    return np.sum(acc * acc)


def read_before_definition(x):
    # w is read before its definition in the next iteration
    w = x[:1]
    s = 0.0
    for i in range(len(x)):
        v = w * x[i]
        s = s + np.sum(v * v)
        w = x[:i + 1]
    return s


def carried_from_before(x):
    # w holds the previous iteration's slice when it is read
    s = 0.0
    w = np.zeros(1)
    for i in range(len(x)):
        s = s + np.sum(w * w) * x[i]
        w = x[:i + 1] * 2.0
    return s


def growing_local(x):
    s = 0.0
    for i in range(len(x)):
        t = x[:i + 1] * x[i]
        s = s * 0.5 + np.sum(t * t)
    return s


def shrinking_local(x):
    s = 0.0
    for i in range(len(x)):
        t = np.sin(x[i:]) * x[i]
        u = t * t + 1.0
        s = s * 0.9 + np.sum(np.log(u))
    return s


def alternating_local_product(x):
    # a product: not a pure sum over iterations, so the sweeps are not fused
    p = 1.0
    for i in range(len(x)):
        t = x[: (i % 3) + 1] + x[i]
        p = p * np.sum(t * t) * 0.1
    return p


def concatenate_growing(x):
    acc = x[:1] * 1.0
    for i in range(1, len(x)):
        nxt = acc[-1:] * x[i] + np.sin(x[i - 1:i])
        acc = np.concatenate((acc, nxt))
    return np.sum(acc * acc)


def reshape_per_iteration(x):
    s = 0.0
    for i in range(3):
        m = x[:6].reshape(i + 1, 6 // (i + 1))
        r = np.sum(m * m, axis=0)
        s = s * 0.8 + np.sum(np.tanh(r) * r)
    return s


def nested_triangle(x):
    s = 0.0
    for i in range(len(x)):
        for j in range(i + 1):
            t = x[j:i + 1] * x[j]
            s = s * 0.9 + np.sum(t * t)
    return s


def nested_carried(x):
    # acc grows inside the inner loop and is reset by the outer one
    s = 0.0
    for i in range(3):
        acc = x[:1] * x[i]
        for j in range(1, i + 2):
            acc = np.concatenate((acc * 0.5, x[j:j + 1] * acc[:1]))
        s = s + np.sum(acc * acc) * s + np.sum(acc)
    return s


def while_growing(x):
    s = 0.0
    k = 0
    while k < len(x):
        t = x[:k + 1] * x[k]
        s = s * 0.5 + np.sum(t * t)
        k = k + 1
    return s


def while_break(x):
    s = 0.0
    acc = np.zeros(1)
    k = 0
    while True:
        acc = acc * 0.5 + x[:(k % 2) + 1] * x[k]
        s = s + np.sum(acc * acc) * s
        k += 1
        if k >= len(x):
            break
    return s + np.sum(acc)


def read_after_loop(x):
    # the last iteration's value is read after the loop
    s = 0.0
    for i in range(len(x)):
        t = x[:(i % 2) + 1] * x[i]
        s = s * 0.5 + np.sum(t * t)
    return s + np.sum(t * x[0])


def two_d_rows(A):
    s = 0.0
    for i in range(A.shape[0]):
        m = A[:i + 1, :] * A[i, 0]
        s = s * 0.5 + np.sum(np.tanh(m) * m)
    return s


def shape_by_branch(x):
    s = 0.0
    for i in range(len(x)):
        if i % 2 == 0:
            t = x[:2] * x[i]
        else:
            t = x[:3] * x[i]
        s = s * 0.5 + np.sum(t * t)
    return s


def buf_written(x):
    # a new buffer per iteration, written into
    s = 0.0
    for i in range(len(x)):
        buf = np.zeros(i + 1)
        buf[:] = x[:i + 1] * x[i]
        buf[0] = buf[0] * 2.0
        s = s * 0.5 + np.sum(buf * buf)
    return s
def vstack_growing(x):
    M = x[:2].reshape(1, 2) * 1.0
    for i in range(3):
        M = np.vstack((M, M[-1:] * x[i + 2]))
    return np.sum(M * M)
def append_growing(x):
    a = x[:1] * 1.0
    for i in range(1, len(x)):
        a = np.append(a, a[-1] * x[i])
    return np.sum(np.sin(a))
def shrinking_carried(x):
    # a while loop on the shape itself
    a = x * 1.0
    s = 0.0
    while a.shape[0] > 1:
        a = a[1:] * a[:-1]
        s = s + np.sum(a)
    return s
def element_loop_inner(x):
    # elements of a growing array rewritten by an inner loop
    s = 0.0
    for i in range(1, len(x)):
        t = x[:i] * 2.0
        for j in range(i):
            t[j] = t[j] * x[i]
        s = s * 0.7 + np.sum(t * t)
    return s


def masked(x):
    # a boolean array of the changing shape
    s = 0.0
    for i in range(len(x)):
        t = x[:i + 1] * x[i]
        m = t > 0.3
        s = s * 0.5 + np.sum(np.where(m, t * t, t))
    return s
def indexed(x):
    # an index array of the changing shape
    s = 0.0
    for i in range(len(x)):
        idx = np.arange(i + 1)
        t = x[idx] * x[i]
        s = s * 0.5 + np.sum(t * t)
    return s


def _helper_slice(x, i):
    return x[:i + 1] * x[i]


def helper_result(x):
    s = 0.0
    for i in range(len(x)):
        t = _helper_slice(x, i)
        s = s * 0.5 + np.sum(t * t)
    return s


def fused_alternating(x):
    # the iterations only add to s: each one's adjoint runs right after it
    s = 0.0
    for i in range(len(x)):
        v = x[:(i % 2) + 1] * 2.0
        if i > 1:
            s = s + np.sum(v * v)
        s = s + np.sum(v) * x[i]
    return s


def fused_nested(x):
    s = 0.0
    for i in range(len(x)):
        for j in range(i):
            v = x[j:i + 1] * x[j]
            s = s + np.sum(np.sin(v)) + np.sum(v * x[i])
    return s


def checkpointed_local(x):
    # the state keeps its shape; a value inside the step changes shape
    s = 0.0
    acc = np.zeros(2)
    for i in s2sad.checkpointed(range(len(x)), snapshots=2):
        t = x[:(i % 3) + 1] * x[i]
        acc = acc * 0.5 + np.sum(t * t) * x[:2]
        s = s + np.sum(acc * acc) * math.cos(s)
    return s


def checkpointed_growing(x):
    s = 0.0
    acc = np.zeros(1)
    for i in s2sad.checkpointed(range(len(x)), snapshots=2):
        acc = acc * 0.5 + x[:(i % 2) + 1] * x[i]
        s = s + np.sum(acc * acc) * math.cos(s)
    return s


PROGRAMS = [alternating_sum, read_before_definition, carried_from_before, growing_local,
            shrinking_local, alternating_local_product, concatenate_growing,
            reshape_per_iteration, nested_triangle, nested_carried, while_growing, while_break,
            read_after_loop, shape_by_branch, helper_result, fused_alternating, fused_nested,
            checkpointed_local, buf_written, vstack_growing, append_growing, shrinking_carried,
            element_loop_inner, masked, indexed]


# compiled: a sample of the kinds (numba's compile time is most of the cost)
COMPILED = {alternating_sum, read_before_definition, concatenate_growing, reshape_per_iteration,
            nested_triangle, while_break, read_after_loop, fused_nested, checkpointed_local,
            buf_written}
CASES = [(f, False) for f in PROGRAMS] + [(f, True) for f in PROGRAMS if f in COMPILED]


@pytest.mark.parametrize("f, jit", CASES, ids=lambda v: getattr(v, "__name__", str(v)))
def test_shape_changing_loop(f, jit):
    x = np.random.default_rng(3).uniform(0.2, 1.0, 6)
    assert np.isfinite(f(x))  # numpy computes it (no broadcast error)
    check_grad(f, (x,), jit=jit)


@pytest.mark.parametrize("f", PROGRAMS, ids=lambda f: f.__name__)
def test_shape_changing_loop_forward(f):
    x = np.random.default_rng(6).uniform(0.2, 1.0, 6)
    check_jvp(f, (x,), jit=False)


@pytest.mark.parametrize("jit", [False, True])
def test_rows_of_a_matrix(jit):
    A = np.random.default_rng(4).uniform(0.2, 1.0, (4, 3))
    check_grad(two_d_rows, (A,), jit=jit)


@pytest.mark.parametrize("jit", [False, True])
def test_checkpointed_state_that_changes_shape_is_refused(jit):
    # a snapshot slot keeps the shape the state had when the loop started
    x = np.random.default_rng(5).uniform(0.2, 1.0, 6)
    with pytest.raises(ValueError, match="'acc' changes shape between iterations of the "
                                         "checkpointed loop at .*test_shape_changing_loops"):
        s2sad.grad(checkpointed_growing, jit=jit)(x)
