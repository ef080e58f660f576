"""How generated code accumulates adjoints (transforms/optimise/accumulate.py): the
cotangent of a whole-array reduction is not materialised as an array when
it only meets that array elementwise.

Checked against finite differences, compiled and as Python; the generated
source is checked where finite differences cannot see the difference."""
import math

import numpy as np

import s2sad
from gradcheck import check_grad

rng = np.random.default_rng(5)


def logsumexp(x):
    m = np.max(x)
    return np.log(np.sum(np.exp(x - m))) + m


def test_a_sum_cotangent_meets_its_array_as_a_scalar(jit):
    x = rng.normal(size=7)
    check_grad(logsumexp, (x,), jit=jit)
    src = s2sad.grad(logsumexp, jit=False).source_for(x)
    assert "unreduce" not in src and "dsum2 * exp" in src, src


def sum_read_twice(x, y):
    s = np.sum(x * x)
    return s * np.sum(y) + np.sum(np.sin(y))


def test_a_cotangent_read_otherwise_stays_an_array(jit):
    args = (rng.normal(size=(3, 4)), rng.normal(size=(3, 4)))
    check_grad(sum_read_twice, args, wrt=(0, 1), jit=jit)


def mean_of_broadcast(x, b):
    return np.mean(x * b)   # b (4,) broadcasts against x (3, 4)


def test_a_reduction_over_a_broadcast_product(jit):
    args = (rng.normal(size=(3, 4)), rng.normal(size=4))
    check_grad(mean_of_broadcast, args, wrt=(0, 1), jit=jit)
    src = s2sad.grad(mean_of_broadcast, wrt=(0, 1), jit=False).source_for(*args)
    assert "dprod = np.full(prod.shape" in src, src  # met x and b, not the product itself


def triangular(x, l):
    """x ↦ sum((L x)²) with L unit lower-triangular, filled from l by columns
    (GMM's pattern)."""
    d = x.shape[0]
    y = np.empty(d)
    for j in range(d):
        y[j] = x[j]
    t = 0
    for col in range(d - 1):
        for row in range(col + 1, d):
            y[row] += l[t] * x[col]
            t += 1
    s = 0.0
    for j in range(d):
        s += y[j] * y[j]
    return s


def test_an_element_added_to_across_a_loop_is_kept_in_a_scalar(jit):
    args = (rng.normal(size=5), rng.normal(size=10))
    check_grad(triangular, args, wrt=(0, 1), jit=jit)
    src = s2sad.grad(triangular, wrt=(0, 1), jit=False).source_for(*args)
    assert "dx_col = dx[col]" in src and "dx[col] = dx_col" in src, src
    assert "dx_col += " in src, src


def read_while_added(a, w):
    n = a.shape[0]
    out = np.zeros(n)
    for i in range(n):
        for j in range(n):
            out[i] += w[j] * a[i] * out[i] * 0.1 + w[j]   # reads what it adds to
    return np.sum(out * out)


def test_an_element_read_in_the_loop_stays_in_the_array(jit):
    args = (rng.normal(size=4), rng.normal(size=4) * 0.5)
    check_grad(read_while_added, args, wrt=(0, 1), jit=jit)
    src = s2sad.grad(read_while_added, wrt=(0, 1), jit=False).source_for(*args)
    assert "dout_i" not in src and "dout[i] += " in src, src  # read in the loop: stays
    assert "da_i = da[i]" in src and "da_i += " in src, src   # only added to: a scalar


def made_anew_each_iteration(x, k):
    if x[0] > -10.0:
        for i in range(3):
            b = np.zeros(3)             # a new array every iteration
            b[k] += math.tanh(x[i])     # only added to, at an index the loop keeps
    return x[1] * x[2]


def test_an_array_made_anew_in_the_loop_is_not_kept_in_a_scalar(jit):
    check_grad(made_anew_each_iteration, (rng.normal(size=3), 1), wrt=0, jit=jit)


def squares(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        s += w * x[i] * x[i]
    return s * s


def test_the_two_contributions_of_x_times_x_are_one(jit):
    args = (rng.normal(size=4), 0.7)
    check_grad(squares, args, wrt=(0, 1), jit=jit)
    src = s2sad.grad(squares, wrt=(0, 1), jit=False).source_for(*args)
    assert "2.0 * (" in src, src


# ---- adding into an adjoint's own memory (aliases.Ownership) ---------------

def shared_sum(x, y):
    z = x + y                  # the adjoints of x and y both start as dz
    return np.sum(z * z) + np.sum(x * 3.0)


def test_an_adjoint_that_owns_its_memory_is_added_into_in_place(jit):
    args = (rng.normal(size=5), rng.normal(size=5))
    check_grad(shared_sum, args, wrt=(0, 1), jit=jit)
    src = s2sad.grad(shared_sum, wrt=(0, 1), jit=False).source_for(*args)
    assert "dx += unbroadcast(dz, x)" in src, src   # dx = dprod2 * 3.0 is its own


def shared_after(x, y):
    z = x + y
    w = z * x
    return np.sum(w + z)       # dw and dz are the same array: dtotal


def test_an_adjoint_sharing_memory_with_one_read_later_is_not_added_into(jit):
    args = (rng.normal(size=5), rng.normal(size=5))
    check_grad(shared_after, args, wrt=(0, 1), jit=jit)
    src = s2sad.grad(shared_after, wrt=(0, 1), jit=False).source_for(*args)
    assert "dz = dz + " in src, src   # dw (the same memory) is read after


def doubled_sine(x):
    y = np.sin(x)
    return y * 2.0 + y


def test_a_vjp_never_adds_into_the_callers_seed(jit):
    x = rng.normal(size=4)
    seed = rng.normal(size=4)
    kept = seed.copy()
    dx = s2sad.vjp(doubled_sine, jit=jit)(x, seed)
    np.testing.assert_array_equal(seed, kept)
    np.testing.assert_allclose(dx, 3.0 * np.cos(x) * kept, rtol=1e-12)


def repeated_tanh(x):
    s = x
    for i in range(3):
        s = s + np.tanh(s)     # each s is recorded (a list of arrays)
    return np.sum(s * s)


def test_in_place_additions_leave_recorded_arrays_alone(jit):
    check_grad(repeated_tanh, (rng.normal(size=4),), jit=jit)
