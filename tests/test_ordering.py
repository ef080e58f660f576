"""Ascending reverse loops (transforms/optimise/ordering.py): a reversed loop whose
iterations are independent runs in the primal's order; one whose iterations
depend on each other keeps running backwards.

Each function is checked against finite differences, compiled and as
Python; the loop headers of the generated code are checked where finite
differences cannot see the order."""
import math

import numpy as np

import s2sad
from gradcheck import check_grad

rng = np.random.default_rng(11)


def reverse_sweep(f, *args, wrt=0):
    src = s2sad.grad(f, wrt=wrt, jit=False).source_for(*args)
    return src[src.index("dloss = 1.0") if "dloss = 1.0" in src else 0:]


def heat(u0, kappa, nsteps):
    n = u0.shape[0]
    u = np.empty(n)
    un = np.empty(n)
    for i in range(n):
        u[i] = u0[i]
    for t in range(nsteps):
        un[0] = u[0]
        un[n - 1] = u[n - 1]
        for i in range(1, n - 1):
            un[i] = u[i] + kappa * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        for i in range(n):
            u[i] = un[i]
    loss = 0.0
    for i in range(n):
        loss += u[i] * u[i] * (1.0 + 0.1 * i)
    return loss


def test_a_stencil_adjoint_runs_ascending(jit):
    args = (rng.normal(size=9), 0.3, 6)
    check_grad(heat, args, wrt=(0, 1), jit=jit)
    rev = reverse_sweep(heat, *args, wrt=(0, 1))
    # every iteration adds to du, dkappa and reads/zeroes its own dun[i]
    assert "for i in range(1, n - 1):" in rev, rev
    assert "range(n - 2, 0, -1)" not in rev, rev
    # the time loop carries du from step to step: it stays backwards
    assert "for t in range(nsteps - 1, -1, -1):" in rev, rev


def prefix_product(a):
    p = 1.0
    for i in range(a.shape[0]):
        p = p * a[i] + 0.5      # the adjoint of p is carried: dp = dp * a[i]
    loss = p * p
    return loss


def test_a_carried_adjoint_keeps_the_loop_backwards(jit):
    args = (rng.uniform(0.5, 1.5, size=6),)
    check_grad(prefix_product, args, jit=jit)
    rev = reverse_sweep(prefix_product, *args)
    assert "range(a.shape[0] - 1, -1, -1)" in rev, rev


def smooth_in_place(a, w):
    x = np.empty(a.shape[0])
    for i in range(a.shape[0]):
        x[i] = a[i]
    for i in range(1, a.shape[0]):
        x[i] = x[i] + w * x[i - 1]   # reads the element the last iteration wrote
    loss = 0.0
    for i in range(a.shape[0]):
        loss += math.sin(x[i])
    return loss


def test_a_recurrence_through_an_array_keeps_the_loop_backwards(jit):
    args = (rng.normal(size=7), 0.6)
    check_grad(smooth_in_place, args, wrt=(0, 1), jit=jit)
    rev = reverse_sweep(smooth_in_place, *args, wrt=(0, 1))
    assert "range(a.shape[0] - 1, 0, -1)" in rev, rev


def shared_scratch(a, b):
    n = a.shape[0]
    s = np.zeros(2)
    loss = 0.0
    for i in range(n):
        s[0] = a[i] * b          # every iteration writes the same element
        s[1] = s[0] * s[0]
        loss += s[1] * a[i]
    return loss + s[1]          # and the last one's value is read after


def test_an_element_every_iteration_writes_keeps_the_loop_backwards(jit):
    args = (rng.normal(size=5), 0.7)
    check_grad(shared_scratch, args, wrt=(0, 1), jit=jit)


def last_value_read_after(a):
    n = a.shape[0]
    y = 0.0
    loss = 0.0
    for i in range(n):
        y = math.exp(a[i])
        loss += y * a[i]
    return loss + 3.0 * y       # y of the last iteration


def test_a_value_read_after_the_loop(jit):
    args = (rng.normal(size=5),)
    check_grad(last_value_read_after, args, jit=jit)


def rows(A, v):
    m = A.shape[0]
    out = np.empty(m)
    for i in range(m):
        acc = 0.0
        for j in range(A.shape[1]):
            acc += A[i, j] * v[j]
        out[i] = math.tanh(acc)
    loss = 0.0
    for i in range(m):
        loss += out[i] * out[i]
    return loss


def test_nested_independent_loops(jit):
    args = (rng.normal(size=(4, 3)), rng.normal(size=3))
    check_grad(rows, args, wrt=(0, 1), jit=jit)


def counter_after_inner_loop(a, w):
    n = a.shape[0]
    out = np.zeros(n)
    j = 0
    for i in range(n):
        for j in range(i):          # no trips when i == 0
            out[i] += w * a[j]
        out[i] += a[i] * j          # j of this iteration's loop, or an earlier one
    return np.sum(out * out)


def test_a_counter_read_after_an_inner_loop(jit):
    args = (rng.normal(size=5), 0.8)
    check_grad(counter_after_inner_loop, args, wrt=(0, 1), jit=jit)


def scatter_and_gather(a, b):
    n = a.shape[0]
    acc = np.zeros(n + 2)
    for i in range(n):
        acc[i] += a[i] * b
        acc[i + 2] += math.sin(a[i])     # several iterations add to one element
    total = 0.0
    for i in range(n + 2):
        total += acc[i] * acc[i]
    return total


def test_additions_from_several_iterations_to_one_element(jit):
    args = (rng.normal(size=6), 1.3)
    check_grad(scatter_and_gather, args, wrt=(0, 1), jit=jit)


def index_set_later(a, w):
    n = a.shape[0]
    out = np.zeros(n)
    k = 0
    for i in range(n):
        out[k] = out[k] + w * a[i]   # k of the previous iteration
        k = i
    return np.sum(out * out)


def test_an_index_assigned_after_it_is_used(jit):
    args = (rng.normal(size=5), 0.9)
    check_grad(index_set_later, args, wrt=(0, 1), jit=jit)
