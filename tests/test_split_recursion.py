"""Recursive helpers reversed in split mode (transforms/reverse/split_recursion.py):
gradients against finite differences and closed forms, jit on and off, for
the shapes of recursion that are split and for those left in joint mode."""
import numpy as np
import pytest

import s2sad
from gradcheck import check_grad

rng = np.random.default_rng(20)


def split(df, name):
    """Whether the derivative reverses `name` in split mode."""
    return f"def fwd_{name}(" in df.source and f"def bwd_{name}(" in df.source


# ---- split: one recursive call, not in a loop ------------------------------------

def eliminate(a, b, c, i, pivot):
    """The product of the pivots from row i on, by Gaussian elimination of a
    tridiagonal matrix (diagonal a, super-diagonal b, sub-diagonal c)."""
    if i == a.shape[0]:
        return 1.0
    p = a[i] - b[i - 1] * c[i - 1] / pivot
    return p * eliminate(a, b, c, i + 1, p)


def det_tridiagonal(a, b, c):
    return a[0] * eliminate(a, b, c, 1, a[0])


def tridiagonal(a, b, c):
    return np.diag(a) + np.diag(b[:-1], 1) + np.diag(c[:-1], -1)


def test_linear_recursion_with_shared_arrays(jit):
    n = 6
    a, b, c = rng.uniform(1.0, 2.0, n), rng.uniform(-0.5, 0.5, n), rng.uniform(-0.5, 0.5, n)
    df = check_grad(det_tridiagonal, (a, b, c), wrt=(0, 1, 2), jit=jit)
    assert split(df, "eliminate")
    # the arrays passed down unchanged share one adjoint (no copy per activation)
    assert "def bwd_eliminate(a, b, c, i, pivot, dresult, eliminate_records, da, db, dc)" \
        in df.source


def test_deep_recursion_against_the_adjugate(jit):
    n = 300  # (Python's recursion limit is 1000)
    a, b, c = rng.uniform(1.0, 2.0, n), rng.uniform(-0.3, 0.3, n), rng.uniform(-0.3, 0.3, n)
    da, db, dc = s2sad.grad(det_tridiagonal, wrt=(0, 1, 2), jit=jit)(a, b, c)
    T = tridiagonal(a, b, c)
    G = np.linalg.det(T) * np.linalg.inv(T).T  # d det / dT
    np.testing.assert_allclose(da, np.diag(G), rtol=1e-9)
    np.testing.assert_allclose(db[:-1], np.diag(G, 1), rtol=1e-9)
    np.testing.assert_allclose(dc[:-1], np.diag(G, -1), rtol=1e-9)
    assert db[-1] == 0.0 and dc[-1] == 0.0


def power(x, n):
    if n == 0:
        return 1.0
    return x * power(x, n - 1)


def test_scalar_recursion_differentiated_itself(jit):
    df = check_grad(power, (1.3, 7), jit=jit)
    assert split(df, "power")
    assert df(1.3, 7)[0] == pytest.approx(7 * 1.3 ** 6)


def layers(x, w, depth):
    """A loop in every activation: tapes per activation."""
    if depth == 0:
        return np.sum(x * x)
    y = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        s = 0.0
        for j in range(x.shape[0]):
            s += w[i, j] * x[j]
        y[i] = np.tanh(s)
    return layers(y, w, depth - 1)


def test_recursion_with_loops_inside(jit):
    x, w = rng.normal(size=4), rng.normal(size=(4, 4)) * 0.6
    df = check_grad(layers, (x, w, 3), wrt=(0, 1), jit=jit)
    assert split(df, "layers")


def damped(x, i):
    """Early returns before and after the recursive call, on a branch of
    its value."""
    if i == 0:
        return x[0]
    v = damped(x, i - 1)
    if v > 1.0:
        return 0.5 * v + x[i]
    return v * x[i]


def test_early_returns(jit):
    x = np.array([1.5, 1.2, 0.9, 2.0, 1.1, 0.7])
    df = check_grad(damped, (x, 5), jit=jit)
    assert split(df, "damped")


def tree_product(x, lo, hi):
    """Two recursive calls (divide and conquer), neither in a loop."""
    if hi - lo == 1:
        return np.sin(x[lo]) + 1.5
    mid = (lo + hi) // 2
    return tree_product(x, lo, mid) * tree_product(x, mid, hi)


def test_two_recursive_calls(jit):
    x = rng.normal(size=7)
    df = check_grad(lambda x: tree_product(x, 0, 7), (x,), jit=jit)
    assert split(df, "tree_product")
    assert "bwd_tree_product(x, mid, hi, dtree_product3, tree_product_records, dx)" in df.source


def fibonacci_like(x, n):
    """Two recursive calls whose results are combined unlike each other, the
    first not read until after the second: found wrong (no error, with the
    self-check off) from n = 4, as clean-up re-fused the first call's
    temporary into the last statement, after the second call, so the
    forward sweep pushed the two calls' records in the other order than the
    reverse sweep popped them."""
    if n <= 1:
        return x[0] * x[1]
    return fibonacci_like(x, n - 1) * 0.5 + np.sin(fibonacci_like(x, n - 2))


@pytest.mark.parametrize("n", [4, 6])
def test_two_recursive_calls_keep_their_order(n, jit):
    x = np.random.default_rng(3).normal(size=2)
    df = check_grad(lambda x: fibonacci_like(x, n), (x,), jit=jit)
    assert split(df, "fibonacci_like")
    g = s2sad.grad(fibonacci_like, wrt=0, jit=jit, check=False)(x, n)  # (the derivative itself)
    np.testing.assert_allclose(g, df(x)[0], rtol=1e-12)


def signs(x, i):
    """A recursive call in each branch: one of them runs per activation."""
    if i == x.shape[0]:
        return 1.0
    if x[i] > 0.0:
        v = signs(x, i + 1) * x[i]
    else:
        v = np.cos(x[i]) - signs(x, i + 1)
    return v + 0.1 * x[i]


def test_recursive_calls_in_branches(jit):
    df = check_grad(lambda x: signs(x, 0), (np.array([0.3, -0.7, 1.1, -0.4, 0.9]),), jit=jit)
    assert split(df, "signs")


def chain(x, n):
    """An array that changes at every level: the adjoints stay per activation."""
    if n == 0:
        return np.sum(np.sin(x))
    return chain(x[1:] * x[:-1], n - 1)


def test_recursion_on_new_arrays(jit):
    df = check_grad(chain, (rng.uniform(0.5, 1.5, 6), 4), jit=jit)
    assert split(df, "chain")


def pairwise(x, depth):
    """A counter stepped in a loop (the reverse sweep steps it back) and an
    array of half the size per level."""
    if depth == 0 or x.shape[0] == 1:
        return np.sum(x)
    m = x.shape[0] // 2
    y = np.empty(m)
    k = 0
    for i in range(m):
        y[k] = x[2 * i] * x[2 * i + 1] + 0.5
        k += 1
    return pairwise(y, depth - 1)


def test_counter_stepped_back(jit):
    df = check_grad(pairwise, (rng.uniform(0.5, 1.5, 16), 3), jit=jit)
    assert split(df, "pairwise")


# ---- left in joint mode: correct, O(depth x primal) ---------------------------------

def det_by_minors(A):
    n = A.shape[0]
    if n == 1:
        return A[0, 0]
    total = 0.0
    sign = 1.0
    for j in range(n):
        minor = np.empty((n - 1, n - 1))
        for r in range(1, n):
            k = 0
            for c in range(n):
                if c != j:
                    minor[r - 1, k] = A[r, c]
                    k += 1
        total += sign * A[0, j] * det_by_minors(minor)
        sign = -sign
    return total


def test_recursive_call_in_a_loop_stays_joint():
    # a wide, shallow tree: split records would hold every activation's tape
    # (compiled: test_language.py's test_recursive_helper)
    A = rng.normal(size=(4, 4))
    df = check_grad(det_by_minors, (A,), jit=False)
    assert not split(df, "det_by_minors")
    np.testing.assert_allclose(df(A)[0], np.linalg.det(A) * np.linalg.inv(A).T, rtol=1e-10)


def ping(x, n):
    if n == 0:
        return x
    return np.sin(pong(x, n - 1))


def pong(x, n):
    if n == 0:
        return x
    return ping(x, n - 1) * x


def through(x, n):
    if n == 0:
        return np.sin(x)
    return helper(x, n) * x


def helper(x, n):
    return through(x * 0.9, n - 1) + 1.0


def test_mutual_recursion_stays_joint(jit):
    df = check_grad(ping, (0.7, 5), jit=jit)
    assert "def fwd_" not in df.source


def test_recursion_through_a_helper_stays_joint():
    df = check_grad(through, (0.7, 4), jit=False)  # (compiled: as ping's, the same shape)
    assert "def fwd_" not in df.source


def scaled(x, n):
    """A recursive call on constants has no reverse: joint mode."""
    if n == 0:
        return x
    c = scaled(1.5, n - 1)
    return x * c + scaled(x, n - 1)


def test_recursive_call_with_constant_arguments(jit):
    df = check_grad(scaled, (0.8, 4), jit=jit)
    assert "def fwd_" not in df.source


# ---- second order: the gradient differentiated again is in joint mode ---------------

def cube(x):
    return power(x, 3) + np.sin(x)


def test_second_order_through_recursion(jit):
    assert s2sad.hessian(cube, jit=jit)(0.7) == pytest.approx(6 * 0.7 - np.sin(0.7))
    assert s2sad.grad(s2sad.grad(cube), jit=jit)(0.7) == pytest.approx(6 * 0.7 - np.sin(0.7))
    x = rng.normal(size=3)  # (compiled: as cube's; a slow compile)
    H = s2sad.hessian(lambda x: tree_product(x, 0, 3), jit=False)(x)
    eps = 1e-5
    g = s2sad.grad(lambda x: tree_product(x, 0, 3), jit=False)
    numeric = np.array([(g(x + eps * e) - g(x - eps * e)) / (2 * eps) for e in np.eye(3)])
    np.testing.assert_allclose(H, numeric, rtol=1e-5, atol=1e-7)


@s2sad.checkpoint
def power_checkpointed(x, n):
    if n == 0:
        return 1.0
    return x * power_checkpointed(x, n - 1)


def test_checkpoint_keeps_joint_mode(jit):
    # memory in proportion to the depth only, each activation's forward rerun
    df = check_grad(power_checkpointed, (1.3, 7), jit=jit)
    assert "def fwd_" not in df.source and "def vjp_power_checkpointed(" in df.source
