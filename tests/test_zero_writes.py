"""Additions into an array known to be all zeros become assignments
(transforms/optimise/zero_writes.py).

The pass on small hand-written functions: which `+=` it turns into `=`
and which it must leave (a second write to the same element, a read
before the write, a conditional write, overlapping earlier writes, a
negative index, a nest that repeats, the array used whole), each run
before and after on several sizes and compared (Python's semantics, not
ours); then whole derivatives (1-D and 2-D stencils with swapped
buffers) against finite differences, compiled and as Python, with the
form of their source."""
import inspect
import textwrap

import gast
import numpy as np
import pytest

import s2sad
from gradcheck import check_grad
from s2sad.transforms.emit.unparse import function_source
from s2sad.transforms.optimise.promote import owned_arrays
from s2sad.transforms.optimise.zero_writes import assign_into_zeros

rng = np.random.default_rng(41)


def transformed(fn):
    """(source, function) of `fn` after the pass."""
    tree = gast.parse(textwrap.dedent(inspect.getsource(fn)))
    fdef = tree.body[0]
    assign_into_zeros(fdef.body, owned_arrays(fdef.body))
    src = function_source(fdef)
    namespace = {"np": np}
    exec(src, namespace)
    return src, namespace[fdef.name]


def assigned(src):
    """The element writes of `src` that are assignments (not `+=`)."""
    lines = [line.strip() for line in src.splitlines()]
    return [line for line in lines if line.startswith("x[") and " = " in line]


def same_results(fn, new, sizes=(0, 1, 2, 3, 5, 8)):
    for n in sizes:
        a = rng.normal(size=(n + 3, n + 3)) if "2d" in fn.__name__ else rng.normal(size=n + 3)
        np.testing.assert_array_equal(new(a, n), fn(a, n), err_msg=f"n={n}")


# ---- where it applies ------------------------------------------------------
def one_write(a, n):
    x = np.zeros(n)
    for i in range(n):
        x[i] += a[i] * 2.0
    return x


def disjoint_head(a, n):
    x = np.zeros(n + 2)
    for i in range(0, 2):
        if i < n:
            x[i] += a[i]
    for k in range(n):
        x[k + 2] += a[k] + a[k + 1]
    return x


def first_of_two(a, n):
    x = np.zeros(n)
    for i in range(n):
        x[i] += a[i]
        x[i] += a[i + 1]  # (the second finds the first's value)
    return x


def nest_2d(a, n):
    x = np.zeros((n, n))
    for i in range(n):
        for j in range(0, 2):
            if j < n:
                x[i, j] += a[i, j]
        for k in range(n - 2):
            x[i, k + 2] += a[i, k] * a[i + 1, k]
    return x


@pytest.mark.parametrize("fn, expected", [
    (one_write, ["x[i] = a[i] * 2.0"]),
    (disjoint_head, ["x[k + 2] = a[k] + a[k + 1]"]),
    (first_of_two, ["x[i] = a[i]"]),
    (nest_2d, ["x[i, k + 2] = a[i, k] * a[i + 1, k]"]),
])
def test_additions_into_zeros_become_assignments(fn, expected):
    src, new = transformed(fn)
    assert assigned(src) == expected, src
    assert "is still zero here: assigned, not added to" in src
    same_results(fn, new)


# ---- where it must not -------------------------------------------------------
def overlapping_head(a, n):
    x = np.zeros(n + 3)
    for i in range(0, 3):  # element 2 is written here and below
        x[i] += a[i]
    for k in range(n):
        x[k + 2] += a[k]
    return x


def read_before(a, n):
    x = np.zeros(n + 1)
    y = np.zeros(n)
    for i in range(n):
        y[i] = x[i + 1]  # (reads the element the previous iteration wrote)
        x[i + 1] += a[i]
    return x + y[0] if n else x


def reads_itself(a, n):
    x = np.zeros(n + 1)
    for i in range(1, n + 1):
        x[i] += x[i - 1] + a[i]
    return x


def conditional(a, n):
    x = np.zeros(n)
    for i in range(n):
        if a[i] > 0:
            x[i] += a[i]
    return x


def two_offsets(a, n):
    x = np.zeros(n + 2)
    for i in range(1, n + 1):
        x[i - 1] += a[i]
        x[i + 1] += a[i]
    return x


def negative_index(a, n):
    x = np.zeros(n + 1)
    for i in range(0, n + 2):  # x[-1] is x[n], written again at i = n + 1
        x[i - 1] += a[i]
    x2 = np.zeros(n + 1)
    for i in range(0, 1):
        x2[i - 1] += a[i]  # (x2[n], which the loop below reaches too)
    for k in range(n + 1):
        x2[k] += a[k + 1]
    return x + x2


def repeated_nest(a, n):
    x = np.zeros(n)
    for t in range(3):
        for i in range(n):
            x[i] += a[i] * t
    return x


def rebound_counter(a, n):
    x = np.zeros(n + 1)
    for i in range(n):
        i = 0
        x[i] += a[i]
    return x


def used_whole(a, n):
    x = np.zeros(n)
    x += 1.0
    for i in range(n):
        x[i] += a[i]
    return x


def symbolic_head(a, n):
    x = np.zeros(n + 2)
    for i in range(0, n):  # (no constant bound: may reach the elements below)
        x[i] += a[i]
    for k in range(n):
        x[k + 2] += a[k]
    return x


def row_not_counted_2d(a, n):
    x = np.zeros((n + 1, n + 1))
    for j in range(n):
        x[1, j] += a[0, j]
        x[1, j] += a[1, j]
    for i in range(n):
        for j in range(n):
            x[i, j] += a[i, j]  # row 1 was written above
    return x


def overlapping_2d(a, n):
    x = np.zeros((n, n + 3))
    for i in range(n):
        for j in range(0, 3):
            x[i, j] += a[i, j]
        for k in range(n):
            x[i, k + 2] += a[i, k]
    return x


def diagonal_2d(a, n):
    x = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            x[i, i] += a[i, j]
    return x


@pytest.mark.parametrize("fn, expected", [
    (overlapping_head, ["x[i] = a[i]"]),
    (read_before, []),
    (reads_itself, []),
    (conditional, []),
    (two_offsets, []),
    (negative_index, []),
    (repeated_nest, []),
    (rebound_counter, []),
    (used_whole, []),
    (symbolic_head, ["x[i] = a[i]"]),
    (row_not_counted_2d, []),
    (overlapping_2d, ["x[i, j] = a[i, j]"]),
    (diagonal_2d, []),
])
def test_additions_it_cannot_prove_stay(fn, expected):
    src, new = transformed(fn)
    assert assigned(src) == expected, src
    same_results(fn, new)


# ---- whole derivatives ---------------------------------------------------------
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


@pytest.mark.parametrize("n, nsteps", [(1, 2), (3, 2), (4, 3), (7, 4)])
def test_heat_gradient_assigns_the_gathered_adjoint(jit, n, nsteps):
    args = (rng.normal(size=n), 0.3, nsteps)
    check_grad(heat, args, wrt=(0, 1), jit=jit)
    src = s2sad.grad(heat, wrt=(0, 1), jit=False).source_for(*args)
    assert "dun, du = (du, dun)" in src, src
    assert "        du[k + 2] = " in src, src  # (the gather's middle, after the swap)


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


@pytest.mark.parametrize("shape", [(2, 5), (5, 6)])
def test_heat2d_gradient_assigns_the_gathered_adjoint(jit, shape):
    args = (rng.normal(size=shape), 0.2, 3)
    check_grad(heat2d, args, wrt=(0, 1), jit=jit)
    src = s2sad.grad(heat2d, wrt=(0, 1), jit=False).source_for(*args)
    assert "du[i, k + 2] = " in src, src


def scatter_twice(x, w):
    # the adjoint adds into dx[i] and dx[i + 1]; gathered, each element once
    y = 0.0
    for i in range(x.shape[0] - 1):
        y += w[i] * x[i] * x[i + 1]
    return y


@pytest.mark.parametrize("n", [1, 2, 3, 6])
def test_gathered_scatter_assigns(jit, n):
    args = (rng.normal(size=n), rng.normal(size=max(n - 1, 0)))
    check_grad(scatter_twice, args, wrt=(0, 1), jit=jit)
    src = s2sad.grad(scatter_twice, wrt=(0, 1), jit=False).source_for(*args)
    assert "dx[k + 1] = dprod * w[k + 1] + dy * prod_prev" in src, src


def every_step(x, w, m):
    # every step adds into dx[i] again: a nest that repeats
    y = 0.0
    for t in range(m):
        for i in range(x.shape[0]):
            y += w[i] * np.sin(x[i] * (t + 1.0))
    return y


def test_additions_every_step_stay(jit):
    args = (rng.normal(size=5), rng.normal(size=5), 3)
    check_grad(every_step, args, wrt=(0, 1), jit=jit)
    src = s2sad.grad(every_step, wrt=(0, 1), jit=False).source_for(*args)
    lines = [line.strip() for line in src.splitlines()]
    assert any(line.startswith("dx[i] += ") for line in lines), src
    assert not any(line.startswith(("dx[", "dw[")) and " = " in line for line in lines), src
