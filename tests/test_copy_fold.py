"""A buffer copied back every step: the copy's adjoint swaps the adjoint
buffers (transforms/optimise/copy_fold.py).

Gradients against finite differences, compiled and as Python, on sizes
from 1 up; the generated source for whether the swap fired, including the
cases where it must not (the buffer read after the loop, not overwritten
whole every step, written under a condition or with a stride, copied in
part); a second name of the buffer is that buffer."""
import numpy as np
import pytest

import s2sad
from gradcheck import check_grad

rng = np.random.default_rng(23)
SWAP = "dun, du = (du, dun)"  # the copy's adjoint
FORWARD_SWAP = "u, un = (un, u)"  # the copy itself


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


@pytest.mark.parametrize("n, nsteps", [(1, 3), (2, 3), (5, 0), (5, 1), (6, 4), (9, 5)])
def test_the_copy_back_swaps_the_adjoints(jit, n, nsteps):
    args = (rng.normal(size=n), 0.3, nsteps)
    check_grad(heat, args, wrt=(0, 1), jit=jit)
    value, _ = s2sad.value_and_grad(heat, wrt=(0, 1), jit=jit)(*args)
    assert value == heat(*args)
    src = s2sad.grad(heat, wrt=(0, 1), jit=False).source_for(*args)
    assert SWAP in src and FORWARD_SWAP in src, src


def heat2d(u0, kappa, nsteps):
    nx = u0.shape[0]
    ny = u0.shape[1]
    u = np.empty((nx, ny))
    un = np.empty((nx, ny))
    for i in range(nx):
        for j in range(ny):
            u[i, j] = u0[i, j]
    for t in range(nsteps):
        for j in range(ny):
            un[0, j] = u[0, j]
            un[nx - 1, j] = u[nx - 1, j]
        for i in range(1, nx - 1):
            un[i, 0] = u[i, 0]
            un[i, ny - 1] = u[i, ny - 1]
            for j in range(1, ny - 1):
                un[i, j] = u[i, j] + kappa * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1]
                                              + u[i, j + 1] - 4.0 * u[i, j])
        for i in range(nx):
            for j in range(ny):
                u[i, j] = un[i, j]
    loss = 0.0
    for i in range(nx):
        for j in range(ny):
            loss += u[i, j] * u[i, j] * (1.0 + 0.1 * i + 0.01 * j)
    return loss


@pytest.mark.parametrize("shape", [(1, 1), (2, 5), (4, 4), (5, 3)])
def test_2d_copy_back_swaps_the_adjoints(jit, shape):
    args = (rng.normal(size=shape), 0.2, 3)
    check_grad(heat2d, args, wrt=(0, 1), jit=jit)
    src = s2sad.grad(heat2d, wrt=(0, 1), jit=False).source_for(*args)
    assert SWAP in src and FORWARD_SWAP in src, src


# ---- where it must not fire ---------------------------------------------------
def read_after(u0, kappa, nsteps):
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
        loss += u[i] * un[i] * (1.0 + 0.1 * i)  # the buffer read after the copy
    return loss


def ends_kept(u0, kappa, nsteps):
    n = u0.shape[0]
    u = np.empty(n)
    un = np.zeros(n)
    for i in range(n):
        u[i] = u0[i]
        un[i] = 0.5 * u0[i]
    for t in range(nsteps):
        for i in range(1, n - 1):  # the ends of un are never written in the loop
            un[i] = u[i] + kappa * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        for i in range(n):
            u[i] = un[i]
    loss = 0.0
    for i in range(n):
        loss += u[i] * u[i] * (1.0 + 0.1 * i)
    return loss


def conditional(u0, kappa, nsteps):
    n = u0.shape[0]
    u = np.empty(n)
    un = np.zeros(n)
    for i in range(n):
        u[i] = u0[i]
    for t in range(nsteps):
        un[0] = u[0]
        un[n - 1] = u[n - 1]
        if t % 2 == 0:
            for i in range(1, n - 1):
                un[i] = u[i] + kappa * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        for i in range(n):
            u[i] = un[i]
    loss = 0.0
    for i in range(n):
        loss += u[i] * u[i] * (1.0 + 0.1 * i)
    return loss


def strided(u0, kappa, nsteps):
    n = u0.shape[0]
    u = np.empty(n)
    un = np.empty(n)
    for i in range(n):
        u[i] = u0[i]
    for t in range(nsteps):
        for i in range(0, n, 2):
            un[i] = u[i] * (1.0 - kappa)
        for i in range(1, n, 2):
            un[i] = u[i] + kappa * u[i - 1]
        for i in range(n):
            u[i] = un[i]
    loss = 0.0
    for i in range(n):
        loss += u[i] * u[i] * (1.0 + 0.1 * i)
    return loss


def partial_copy(u0, kappa, nsteps):
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
        for i in range(1, n):  # u[0] keeps its first value
            u[i] = un[i]
    loss = 0.0
    for i in range(n):
        loss += u[i] * u[i] * (1.0 + 0.1 * i)
    return loss


def carried(u0, kappa, nsteps):
    n = u0.shape[0]
    u = np.empty(n)
    un = np.empty(n)
    for i in range(n):
        u[i] = u0[i]
        un[i] = u0[i]
    for t in range(nsteps):
        un[0] = u[0]
        un[n - 1] = u[n - 1]
        for i in range(1, n - 1):  # reads the buffer's value from the copy before
            un[i] = u[i] + kappa * (u[i - 1] - 2.0 * u[i] + u[i + 1]) + 0.1 * un[i]
        for i in range(n):
            u[i] = un[i]
    loss = 0.0
    for i in range(n):
        loss += u[i] * u[i] * (1.0 + 0.1 * i)
    return loss


def shared(u0, kappa, nsteps):
    n = u0.shape[0]
    u = np.empty(n)
    un = np.empty(n)
    w = un  # a second name for the buffer
    for i in range(n):
        u[i] = u0[i]
    for t in range(nsteps):
        un[0] = u[0]
        un[n - 1] = u[n - 1]
        for i in range(1, n - 1):
            w[i] = u[i] + kappa * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        for i in range(n):
            u[i] = un[i]
    loss = 0.0
    for i in range(n):
        loss += u[i] * u[i] * (1.0 + 0.1 * i)
    return loss


def test_a_second_name_for_the_buffer_is_that_buffer(jit):
    # w = un: w is renamed un (frontend/effects/view_writes.py), and the
    # function is then `heat`, whose copy the swap may fold
    args = (rng.normal(size=4), 0.3, 3)
    check_grad(shared, args, wrt=(0, 1), jit=jit)
    value, _ = s2sad.value_and_grad(shared, wrt=(0, 1), jit=jit)(*args)
    assert value == shared(*args)


@pytest.mark.parametrize("f", [read_after, ends_kept, conditional, strided, partial_copy,
                               carried])
@pytest.mark.parametrize("n", [1, 4, 7])
def test_no_swap_where_the_buffer_is_not_all_zeros(jit, f, n):
    args = (rng.normal(size=n), 0.3, 3)
    check_grad(f, args, wrt=(0, 1), jit=jit)
    value, _ = s2sad.value_and_grad(f, wrt=(0, 1), jit=jit)(*args)
    assert value == f(*args)
    src = s2sad.grad(f, wrt=(0, 1), jit=False).source_for(*args)
    assert SWAP not in src and FORWARD_SWAP not in src, src


# ---- the coverage proof on its own -----------------------------------------------
@pytest.mark.parametrize("code, covers", [
    ("d[0] = 0.0\nd[n - 1] = 0.0\nfor i in range(1, n - 1):\n    d[i] = 0.0", True),
    ("d[0] = 0.0\nfor i in range(1, n - 1):\n    d[i] = 0.0", False),  # the last element
    ("d[0] = 0.0\nd[n - 1] = 0.0\nfor i in range(1, n - 2):\n    d[i] = 0.0", False),
    ("d[0] = 0.0\nd[1] = 0.0\nfor i in range(2, n):\n    d[i] = 0.0", True),
    ("d[0] = 0.0\nfor i in range(2, n):\n    d[i] = 0.0", False),  # d[1]
    ("for i in range(n - 1):\n    d[i + 1] = 0.0\nd[0] = 0.0", True),
    ("for i in range(0, n, 2):\n    d[i] = 0.0\nfor i in range(1, n, 2):\n    d[i] = 0.0", False),
    ("if n > 3:\n    for i in range(n):\n        d[i] = 0.0", False),  # not on every step
    ("for i in range(n):\n    d[i] = 0.0\nd[2] += 1.0", False),  # not zeros only
    ("for i in range(n):\n    d[i] = 0.0\n    i = 0", False),  # the counter rebound
])
def test_zeroing_covers_the_array_for_every_size(code, covers):
    import gast
    from s2sad.transforms.optimise.copy_fold import _stays_zero
    stmts = gast.parse(code).body
    assert _stays_zero(stmts, "d", [gast.parse("n").body[0].value]) is covers


def test_2d_zeroing_by_rows_and_edges():
    import gast
    from s2sad.transforms.optimise.copy_fold import _stays_zero
    bounds = [gast.parse(v).body[0].value for v in ("nx", "ny")]
    whole = ("for j in range(ny):\n    d[0, j] = 0.0\n    d[nx - 1, j] = 0.0\n"
             "for i in range(1, nx - 1):\n    d[i, 0] = 0.0\n    d[i, ny - 1] = 0.0\n"
             "    for j in range(1, ny - 1):\n        d[i, j] = 0.0")
    assert _stays_zero(gast.parse(whole).body, "d", bounds)
    corner = whole.replace("    d[nx - 1, j] = 0.0\n", "")
    assert not _stays_zero(gast.parse(corner).body, "d", bounds)
