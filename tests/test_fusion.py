"""Fused sweeps (transforms/reverse/fusion.py): a loop whose iterations only add to
totals gets each iteration's adjoint right after it, recording nothing
across iterations; and array elements recorded where the reverse sweep reads
them when that is cheaper than restoring the array (transforms/reverse/reads.py).

Each function is checked against finite differences, compiled and as
Python; the structure of the generated code is checked where finite
differences cannot see it (what is recorded, and where)."""
import math
import warnings

import numpy as np
import pytest

import s2sad
from gradcheck import check_grad

rng = np.random.default_rng(7)
FUSED = "its adjoint runs right after it"


def laplace_det(M):
    """The determinant by minors, after two guard clauses (a new minor per
    column and level: the recursive call's argument is made in the loop)."""
    n = M.shape[0]
    if n == 1:
        return M[0, 0]
    if n == 2:
        return M[0, 0] * M[1, 1] - M[0, 1] * M[1, 0]
    total = 0.0
    sign = 1.0
    for j in range(n):
        minor = np.empty((n - 1, n - 1))
        for r in range(1, n):
            k = 0
            for c in range(n):
                if c != j:
                    minor[r - 1, k] = M[r, c]
                    k += 1
        total += sign * M[0, j] * laplace_det(minor)
        sign = -sign
    return total


def source(f, *args, wrt=0):
    return s2sad.grad(f, wrt=wrt, jit=False).source_for(*args)


def loss_over_points(w, X, y):
    n = X.shape[0]
    d = X.shape[1]
    total = 0.0
    for i in range(n):
        z = 0.0
        for j in range(d):
            z += w[j] * X[i, j]
        r = math.tanh(z) - y[i]
        total += r * r
    return 0.5 * total / n + 0.01 * w[0] * w[0]


def test_a_sum_over_points_runs_each_adjoint_after_its_point(jit):
    args = (rng.normal(size=3), rng.normal(size=(6, 3)), rng.normal(size=6))
    check_grad(loss_over_points, args, wrt=0, jit=jit)
    src = source(loss_over_points, *args)
    assert FUSED in src, src
    # no tape indexed by the point: one iteration's worth of memory
    assert "np.empty(max(n" not in src and "np.empty((max(n" not in src, src
    assert "_stack" not in src, src
    fused = src[src.index(FUSED):]
    assert "for i in range(n):" in fused and "range(n - 1, -1, -1)" not in fused, src


def gmm_like(mu, x):
    """Scratch buffers overwritten for every (point, component), as in GMM."""
    n = x.shape[0]
    k = mu.shape[0]
    d = x.shape[1]
    xc = np.empty(d)
    beta = np.empty(k)
    total = 0.0
    for i in range(n):
        for c in range(k):
            for j in range(d):
                xc[j] = x[i, j] - mu[c, j]
            sq = 0.0
            for j in range(d):
                sq += xc[j] * xc[j]
            beta[c] = -0.5 * sq
        mx = beta[0]
        for c in range(1, k):
            if beta[c] > mx:
                mx = beta[c]
        se = 0.0
        for c in range(k):
            se += math.exp(beta[c] - mx)
        total += mx + math.log(se)
    return 2.0 * total - 1.5


def test_scratch_buffers_overwritten_whole_each_iteration(jit):
    args = (rng.normal(size=(3, 2)), rng.normal(size=(5, 2)))
    check_grad(gmm_like, args, wrt=0, jit=jit)
    src = source(gmm_like, *args)
    assert FUSED in src and "_tape = np.empty((max(n" not in src, src


def carried_state(a, x0):
    x = x0
    total = 0.0
    for i in range(5):
        x = x * a + 0.1          # the next iteration reads it: not fusable
        total += x * x
    return total


def total_read_in_the_loop(a):
    total = 0.0
    for i in range(4):
        total += a * total + 1.0  # reads the total: not a pure sum
    return total


def nonlinear_after(a, x):
    total = 0.0
    for i in range(x.shape[0]):
        total += a * x[i]
    return total * total          # the total's adjoint needs its value


def scratch_read_after(a, x):
    total = 0.0
    for i in range(x.shape[0]):
        v = a * x[i]
        total += v
    return total + v              # the last iteration's scratch value


def buffer_partly_written(a, x):
    buf = np.zeros(3)
    total = 0.0
    for i in range(x.shape[0]):
        buf[i % 3] = a * x[i]     # earlier iterations' elements are read
        total += buf[0] * buf[1] + buf[2]
    return total


@pytest.mark.parametrize("f, args", [
    (carried_state, (0.9, 0.3)),
    (total_read_in_the_loop, (0.7,)),
    (nonlinear_after, (0.8, np.array([0.3, -0.2, 0.5]))),
    (scratch_read_after, (0.8, np.array([0.3, -0.2, 0.5]))),
    (buffer_partly_written, (0.8, np.array([0.3, -0.2, 0.5, 0.9, -1.1]))),
])
def test_loops_whose_iterations_depend_on_each_other_are_not_fused(f, args, jit):
    check_grad(f, args, wrt=0, jit=jit)
    assert FUSED not in source(f, *args), source(f, *args)


def independent_after(a, x, c):
    total = 0.0
    for i in range(x.shape[0]):
        total += math.sin(a * x[i])
    m = c[0]                      # does not read the loop's values: runs before it
    for i in range(1, c.shape[0]):
        if c[i] > m:
            m = c[i]
    scale = 0.5 * m               # not differentiated: total * scale is linear
    return scale * total - total / 3.0 + m * a


def differentiated_factor_after(a, x):
    total = 0.0
    for i in range(x.shape[0]):
        total += math.sin(a * x[i])
    return a * total              # a's adjoint reads the total's value


def test_statements_after_the_loop_linear_or_independent(jit):
    args = (0.7, np.array([0.3, -0.2, 0.5, 1.2]), np.array([0.1, 0.9, -0.4]))
    check_grad(independent_after, args, wrt=(0, 1), jit=jit)
    src = source(independent_after, *args, wrt=(0, 1))
    assert FUSED in src, src
    # the value is computed after the fused loop, from the total
    assert src.index(FUSED) < src.rindex("total / 3.0"), src
    args = (0.7, np.array([0.3, -0.2, 0.5, 1.2]))
    check_grad(differentiated_factor_after, args, wrt=(0, 1), jit=jit)
    assert FUSED not in source(differentiated_factor_after, *args, wrt=(0, 1))


def helper_with_a_sum(w, X):
    total = 0.0
    for i in range(X.shape[0]):
        total += math.exp(w * X[i])
    return total


def calls_the_helper(w, X):
    return 3.0 * helper_with_a_sum(w, X) + w


def test_helpers_are_fused_too(jit):
    check_grad(calls_the_helper, (0.4, rng.normal(size=5)), wrt=(0, 1), jit=jit)
    src = source(calls_the_helper, 0.4, rng.normal(size=5), wrt=(0, 1))
    assert FUSED in src, src


def triangular(L, x):
    """Lx is written d + d(d-1)/2 times per point and read d times: its reads
    are recorded, not its writes."""
    d = x.shape[1]
    Lx = np.empty(d)
    total = 0.0
    for i in range(x.shape[0]):
        for j in range(d):
            Lx[j] = L[j, j] * x[i, j]
        for col in range(d - 1):
            for row in range(col + 1, d):
                Lx[row] += L[row, col] * x[i, col]
        s = 0.0
        for j in range(d):
            s += Lx[j] * Lx[j]
        total += s
    return total


def test_values_read_are_recorded_instead_of_many_writes(jit):
    args = (rng.normal(size=(4, 4)), rng.normal(size=(3, 4)))
    check_grad(triangular, args, wrt=0, jit=jit)
    src = source(triangular, *args)
    assert "Lx_j = Lx[j]" in src and "Lx_j_tape" in src, src
    assert "_stack" not in src and "Lx_tape" not in src, src


def read_more_than_written(a, x):
    """xc is written once per point and read by two products: it is
    restored through its writes, not recorded at each read."""
    d = x.shape[1]
    xc = np.empty(d)
    y = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        for j in range(d):
            xc[j] = x[i, j] - a[j]
        for j in range(d):
            y[i] += a[j] * xc[j] * xc[j]
    return np.sum(y * y)


def test_arrays_read_more_than_written_are_restored(jit):
    args = (rng.normal(size=3), rng.normal(size=(4, 3)))
    check_grad(read_more_than_written, args, wrt=0, jit=jit)
    src = source(read_more_than_written, *args)
    assert "xc_j =" not in src and "xc_tape" in src, src


def test_fusion_gives_the_unfused_gradient(monkeypatch):
    """The same numbers as the reverse sweep without fusion, to rounding."""
    from s2sad.transforms.reverse.reverse_mode import ReverseMode
    args = (rng.normal(size=(3, 2)), rng.normal(size=(6, 2)))
    fused = s2sad.grad(gmm_like, jit=False)(*args)
    monkeypatch.setattr(ReverseMode, "fuse_loops", False)
    plain = s2sad.grad(gmm_like, jit=False)
    assert FUSED not in plain.source_for(*args)
    np.testing.assert_allclose(fused, plain(*args), rtol=1e-12, atol=1e-14)


def counter_read_before(a, x):
    i = 2
    y = a * x[i]                  # its adjoint reads i, which the loop rebinds
    total = 0.0
    for i in range(x.shape[0]):
        total += y * x[i] * x[i]
    return total


def test_the_fused_loop_keeps_a_counter_read_before_it(jit):
    check_grad(counter_read_before, (0.6, rng.normal(size=4)), wrt=(0, 1), jit=jit)
    assert FUSED in source(counter_read_before, 0.6, rng.normal(size=4), wrt=(0, 1))


def restored_after_the_loop(a, x):
    total = 0.0
    for i in range(x.shape[0]):
        total += math.sin(a * x[i])
    c = a
    w = c * c                     # its adjoint reads c ...
    c = c + 1.0                   # ... so the reverse sweep restores the old c
    return total + c + w          # the value reads the new c


def test_the_value_after_the_loop_reads_values_before_their_restore(jit):
    args = (0.6, rng.normal(size=4))
    check_grad(restored_after_the_loop, args, wrt=(0, 1), jit=jit)
    value, _ = s2sad.value_and_grad(restored_after_the_loop, wrt=(0, 1), jit=jit)(*args)
    assert value == pytest.approx(restored_after_the_loop(*args))
    assert FUSED in source(restored_after_the_loop, *args, wrt=(0, 1))


# ---- nested: an inner loop that only adds to the same totals ----------------

def pair_energy(x, y, eps):
    n = x.shape[0]
    e = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            dx = x[i] - x[j]
            dy = y[i] - y[j]
            e += 1.0 / math.sqrt(dx * dx + dy * dy + eps)
    return e


def test_a_pairwise_sum_runs_each_pair_adjoint_after_the_pair(jit):
    args = (rng.normal(size=5), rng.normal(size=5), 0.1)
    check_grad(pair_energy, args, wrt=(0, 1), jit=jit)
    src = source(pair_energy, *args, wrt=(0, 1))
    assert src.count(FUSED) == 2, src  # both loops
    # nothing recorded and nothing recomputed: one square root per pair
    assert "_tape" not in src and "_stack" not in src, src
    assert src.count("= math.sqrt(") == 1, src
    inner = src[src.rindex(FUSED):]
    assert "for j in range(i + 1, n):" in inner and "range(n - 1, i, -1)" not in inner, src


def pair_kernel(x, w):
    """Scratch of the outer iteration read by the inner one (xi), and an
    array bound in the inner loop."""
    n = x.shape[0]
    e = 0.0
    for i in range(n):
        xi = x[i] * w[0]
        for j in range(i):
            d = w * x[j]
            e += math.exp(-(xi - d[0]) ** 2) * d[1]
    return e


def pair_kernel_and_self(x, w):
    """The total is also added to outside the inner loop: only the outer
    loop is fused."""
    n = x.shape[0]
    e = 0.0
    for i in range(n):
        xi = x[i] * w[0]
        e += xi * xi
        for j in range(i):
            e += math.exp(-(xi - x[j]) ** 2) * w[1]
    return e


@pytest.mark.parametrize("f,fused", [(pair_kernel, 2), (pair_kernel_and_self, 1)])
def test_nested_fusion_with_scratch_and_arrays(f, fused, jit):
    args = (rng.normal(size=4), np.array([0.7, -1.3]))
    check_grad(f, args, wrt=(0, 1), jit=jit)
    assert source(f, *args, wrt=(0, 1)).count(FUSED) == fused


def test_nested_fusion_gives_the_unfused_gradient(monkeypatch):
    from s2sad.transforms.reverse.reverse_mode import ReverseMode
    args = (rng.normal(size=6), rng.normal(size=6), 0.1)
    fused = s2sad.grad(pair_energy, wrt=(0, 1), jit=False)(*args)
    monkeypatch.setattr(ReverseMode, "fuse_loops", False)
    plain = s2sad.grad(pair_energy, wrt=(0, 1), jit=False)
    assert FUSED not in plain.source_for(*args)
    for a, b in zip(fused, plain(*args)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14)


# ---- a loop in the branch guard clauses leave, and scalars carried over ----
def guarded_sum(x, w):
    n = x.shape[0]
    if n == 0:
        return 0.0
    if n == 1:
        return w[0] * x[0]
    total = 0.0
    for i in range(n):
        total += w[i] * math.sin(x[i])
    return 2.0 * total


def alternating_sum(x):
    sign = 1.0                    # an inactive scalar each iteration leaves the next
    step = 0.5
    total = 0.0
    for i in range(x.shape[0]):
        total += sign * x[i] * x[(i + 1) % x.shape[0]] * step
        sign = -sign
        step += 2.0
    return total


def branch_sums(x, flag):
    total = 0.0
    if flag > 0:
        for i in range(x.shape[0]):
            total += x[i] * x[i]
    else:
        for i in range(x.shape[0]):
            total += math.exp(x[i])
    return total


def carried_and_read_after(x):
    sign = 1.0
    total = 0.0
    for i in range(x.shape[0]):
        total += sign * x[i] * x[i]
        sign = -sign
    return total * sign           # the carried scalar after the loop: not fused


def carried_active(x):
    scale = 1.0                   # the next iteration reads it, and it is differentiated
    total = 0.0
    for i in range(x.shape[0]):
        total += scale * x[i]
        scale = scale * x[i]
    return total


def pair_counter(x, c):
    """A float carried over the pairs of two fused loops: the inner loop,
    whose forward computation runs in the outer iteration's adjoint part,
    advances it."""
    n = 4
    s = c
    t = 0.5
    for i in range(n):
        for j in range(i + 1, n):
            s = s + x[j] * c * x[i] * t
            t = t * 0.5 + 1.0
    return s


def int_counter(x, c):
    """An integer counter indexing a packed array keeps its loops unfused
    (its index check is proved once before the nest)."""
    n = 4
    s = c
    t = 0
    for i in range(n):
        for j in range(i + 1, n):
            s = s + x[t] * c * x[i]
            t += 1
    return s


def rebound_result(x):
    result = x[0] * x[0]
    y = result * x[1]             # the reverse sweep reads this value of result
    if x.shape[0] > 2:
        total = y
        for i in range(x.shape[0]):
            total += math.sin(x[i])
        result = total            # linear in the total, but it rebinds a value read:
    return result                 # fused, the gradient and the value were wrong


@pytest.mark.parametrize("f, args, fused", [
    (rebound_result, (rng.normal(size=4),), False),
    (pair_counter, (rng.normal(size=6), 0.7), True),
    (int_counter, (rng.normal(size=6), 0.7), False),
    (guarded_sum, (rng.normal(size=5), rng.normal(size=5)), True),
    (guarded_sum, (rng.normal(size=1), rng.normal(size=1)), True),
    (alternating_sum, (rng.normal(size=5),), True),
    (laplace_det, (rng.normal(size=(4, 4)),), True),
    (branch_sums, (rng.normal(size=4), 1), True),
    (branch_sums, (rng.normal(size=4), -1), True),
    (carried_and_read_after, (rng.normal(size=5),), False),
    (carried_active, (rng.normal(size=5),), False),
])
def test_guarded_loops_and_carried_scalars(f, args, fused, jit):
    check_grad(f, args, wrt=0, jit=jit)
    assert (FUSED in source(f, *args)) == fused, source(f, *args)


def test_the_determinant_by_expansion_is_the_cofactor_matrix(jit):
    M = rng.normal(size=(5, 5))
    got = s2sad.grad(laplace_det, jit=jit)(M)
    np.testing.assert_allclose(got, np.linalg.det(M) * np.linalg.inv(M).T, rtol=1e-9)


def test_guarded_fusion_gives_the_unfused_gradient(monkeypatch):
    from s2sad.transforms.reverse.reverse_mode import ReverseMode
    cases = [(guarded_sum, (rng.normal(size=5), rng.normal(size=5))),
             (alternating_sum, (rng.normal(size=6),)), (laplace_det, (rng.normal(size=(4, 4)),))]
    fused = [s2sad.grad(f, jit=False)(*a) for f, a in cases]
    monkeypatch.setattr(ReverseMode, "fuse_loops", False)
    for (f, a), got in zip(cases, fused):
        plain = s2sad.grad(f, jit=False)
        assert FUSED not in plain.source_for(*a)
        np.testing.assert_allclose(got, plain(*a), rtol=1e-12, atol=1e-14)


def test_a_fused_loop_carrying_a_float_records_nothing_across_iterations(jit):
    """Its records are names holding one iteration's values: the memory
    estimate does not grow with the trip count (it was the size of x per
    iteration, and a large x was reversed by checkpointing)."""
    x = rng.normal(size=2000)
    assert "check_memory" not in source(alternating_sum, x)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.MemoryBudgetWarning)
        got = s2sad.grad(alternating_sum, jit=jit, memory="1MB")(x)
    np.testing.assert_allclose(got, s2sad.grad(alternating_sum, jit=False, memory="off")(x),
                               rtol=1e-12)
