"""Scatter to gather along the outer loop of a nest (transforms/optimise/gather_nests.py).

Whole functions (2-D and 3-D stencils: 5-point, 9-point with the diagonal
neighbours, one-sided offsets, periodic indices, in-place recurrences) are
checked against finite differences, compiled and as Python, and their
generated source for whether the gather along the rows fired. The
transformation is also run on its own on hand-written adjoint nests, and the
result executed against the original on ranges that are empty, of length
one, shorter than the offsets and long: the same values (up to the order of
the sums), or the nest left as it was where it must not fire."""
import gast
import numpy as np
import pytest

import s2sad
from gradcheck import check_grad
from s2sad.transforms.emit.unparse import function_source
from s2sad.transforms.optimise.gather import gather_scatters
from s2sad.transforms.names import Namer

rng = np.random.default_rng(34)


def _source(f, args, wrt=(0, 1)):
    return s2sad.grad(f, wrt=wrt, jit=False).source_for(*args)


# ---- whole functions ---------------------------------------------------------
def nine_point(u0, w, nsteps):
    """9-point stencil (diagonal neighbours), edges fixed."""
    nx = u0.shape[0]
    ny = u0.shape[1]
    u = np.empty((nx, ny))
    un = np.empty((nx, ny))
    for i in range(nx):
        for j in range(ny):
            u[i, j] = u0[i, j]
            un[i, j] = u0[i, j]
    for t in range(nsteps):
        for i in range(1, nx - 1):
            for j in range(1, ny - 1):
                un[i, j] = u[i, j] + w * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1]) \
                    + 0.5 * w * (u[i - 1, j - 1] + u[i + 1, j + 1] - u[i - 1, j + 1]
                                 - u[i + 1, j - 1]) * u[i, j]
        for i in range(nx):
            for j in range(ny):
                u[i, j] = un[i, j]
    loss = 0.0
    for i in range(nx):
        for j in range(ny):
            loss += u[i, j] * u[i, j] * (1.0 + 0.1 * i - 0.07 * j)
    return loss


@pytest.mark.parametrize("shape", [(6, 7), (3, 3), (4, 2), (2, 5), (1, 4)])
def test_nine_point_stencil(jit, shape):
    args = (rng.normal(size=shape), 0.15, 3)
    check_grad(nine_point, args, wrt=(0, 1), jit=jit)
    if shape == (6, 7):
        src = _source(nine_point, args)
        assert "gathered along i" in src, src
        assert "du[i - 1, " not in src.split("gathered along i")[1].split("for i in range(max(")[0]


def one_sided(u0, w, nsteps):
    """Offsets -2 and +1 along the rows, +1 along the columns; the loop
    bounds leave room for them."""
    nx = u0.shape[0]
    ny = u0.shape[1]
    u = np.empty((nx, ny))
    un = np.empty((nx, ny))
    for i in range(nx):
        for j in range(ny):
            u[i, j] = u0[i, j]
            un[i, j] = u0[i, j]
    for t in range(nsteps):
        for i in range(2, nx - 1):
            for j in range(ny - 1):
                un[i, j] = w * u[i - 2, j] + u[i + 1, j] * u[i, j + 1] - 0.3 * u[i, j]
        for i in range(nx):
            for j in range(ny):
                u[i, j] = un[i, j]
    loss = 0.0
    for i in range(nx):
        for j in range(ny):
            loss += u[i, j] * u[i, j]
    return loss


@pytest.mark.parametrize("shape", [(8, 5), (4, 3), (3, 3), (2, 2)])
def test_one_sided_offsets_on_short_and_long_ranges(jit, shape):
    args = (rng.normal(size=shape), 0.4, 3)
    check_grad(one_sided, args, wrt=(0, 1), jit=jit)
    if shape == (8, 5):
        assert "gathered along i" in _source(one_sided, args)


def heat3d(u0, w, nsteps):
    """7-point stencil in 3-D: gathered along i, then j, then k."""
    nx = u0.shape[0]
    ny = u0.shape[1]
    nz = u0.shape[2]
    u = np.empty((nx, ny, nz))
    un = np.empty((nx, ny, nz))
    for i in range(nx):
        for j in range(ny):
            for k in range(nz):
                u[i, j, k] = u0[i, j, k]
                un[i, j, k] = u0[i, j, k]
    for t in range(nsteps):
        for i in range(1, nx - 1):
            for j in range(1, ny - 1):
                for k in range(1, nz - 1):
                    un[i, j, k] = u[i, j, k] + w * (u[i - 1, j, k] + u[i + 1, j, k]
                                                    + u[i, j - 1, k] + u[i, j + 1, k]
                                                    + u[i, j, k - 1] + u[i, j, k + 1]
                                                    - 6.0 * u[i, j, k])
        for i in range(nx):
            for j in range(ny):
                for k in range(nz):
                    u[i, j, k] = un[i, j, k]
    loss = 0.0
    for i in range(nx):
        for j in range(ny):
            for k in range(nz):
                loss += u[i, j, k] * u[i, j, k] * (1.0 + 0.1 * i + 0.03 * k)
    return loss


@pytest.mark.parametrize("shape", [(5, 6, 7), (3, 3, 3), (2, 4, 3)])
def test_3d_stencil_gathers_along_every_axis(jit, shape):
    args = (rng.normal(size=shape), 0.1, 2)
    check_grad(heat3d, args, wrt=(0, 1), jit=jit)
    if shape == (5, 6, 7):
        src = _source(heat3d, args)
        assert "gathered along i" in src and "gathered along j" in src, src


def periodic(u0, w, nsteps):
    """Periodic rows: `(i + 1) % nx` is no constant offset."""
    nx = u0.shape[0]
    ny = u0.shape[1]
    u = np.empty((nx, ny))
    un = np.empty((nx, ny))
    for i in range(nx):
        for j in range(ny):
            u[i, j] = u0[i, j]
    for t in range(nsteps):
        for i in range(nx):
            for j in range(1, ny - 1):
                un[i, j] = u[i, j] + w * (u[(i + 1) % nx, j] + u[(i - 1) % nx, j]
                                          + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j])
            un[i, 0] = u[i, 0]
            un[i, ny - 1] = u[i, ny - 1]
        for i in range(nx):
            for j in range(ny):
                u[i, j] = un[i, j]
    loss = 0.0
    for i in range(nx):
        for j in range(ny):
            loss += u[i, j] * u[i, j] * (1.0 + 0.2 * i)
    return loss


@pytest.mark.parametrize("shape", [(5, 4), (1, 3), (2, 2)])
def test_periodic_rows_are_not_gathered(jit, shape):
    args = (rng.normal(size=shape), 0.2, 3)
    check_grad(periodic, args, wrt=(0, 1), jit=jit)
    assert "gathered along i" not in _source(periodic, args)


def shifted(u0, w, s):
    """An offset read from an argument: not a constant."""
    nx = u0.shape[0]
    ny = u0.shape[1]
    u = np.zeros((nx, ny))
    for i in range(2, nx - 2):
        for j in range(ny):
            u[i, j] = w * u0[i - s, j] * u0[i + 1, j]
    loss = 0.0
    for i in range(nx):
        for j in range(ny):
            loss += u[i, j] * u[i, j]
    return loss


def test_an_offset_that_is_not_a_constant_is_not_gathered(jit):
    args = (rng.normal(size=(7, 3)), 0.6, 2)
    check_grad(shifted, args, wrt=(0, 1), jit=jit)
    assert "gathered along i" not in _source(shifted, args)


def in_place(a, w):
    """Each row reads the row before, updated in place: the adjoint reads
    what it adds into (a read-modify-write recurrence), nothing to gather."""
    n = a.shape[0]
    m = a.shape[1]
    x = a.copy()
    for i in range(1, n):
        for j in range(1, m):
            x[i, j] = x[i, j] + w * x[i - 1, j] * x[i, j - 1]
    loss = 0.0
    for i in range(n):
        for j in range(m):
            loss += x[i, j] * x[i, j]
    return loss


@pytest.mark.parametrize("shape", [(4, 3), (1, 1)])
def test_a_recurrence_in_place_is_not_gathered(jit, shape):
    args = (rng.normal(size=shape), 0.3)
    check_grad(in_place, args, wrt=(0, 1), jit=jit)
    assert "gathered" not in _source(in_place, args)


# ---- the transformation on its own ---------------------------------------------
def _transformed(src):
    tree = gast.parse(src)
    fdef = tree.body[0]
    gather_scatters(fdef.body, Namer.for_function(fdef))
    new = function_source(fdef)
    env0, env1 = {"np": np}, {"np": np}
    exec(src, env0)
    exec(new, env1)
    return env0[fdef.name], env1[fdef.name], new


NEST = '''
def adjoint(x, r, b, m):
    nx = x.shape[0]
    ny = x.shape[1]
    dun = np.zeros((nx, ny))
    for i in range(nx):
        for j in range(ny):
            dun[i, j] = x[i, j]
    du = np.zeros((nx + 6, ny + 2))
    dr = 0.0
    for i in range(2, b):
        for j in range(1, m):
            dun2 = dun[i, j]
            dun[i, j] = 0.0
            d = dun2 * r
            du[i + 1, j] += d
            du[i, j] += dun2
            du[i - 2, j + 1] += d * dun2
            dr += dun2
        du[i, m] += dun[i, m]
        dun[i, m] = 0.0
        du[i + 3, 0] += dun[i, 0]
        dun[i, 0] = 0.0
    return du, dr, dun
'''


@pytest.mark.parametrize("b, m", [(-1, 4), (2, 4), (3, 4), (4, 1), (5, 2), (9, 6), (9, 0),
                                  (9, 1)])
def test_the_nest_gather_adds_the_same_terms(b, m):
    """With m = 1 and m = 0, the edges' reads (dun[i, m], dun[i, 0]) meet
    the inner loop's writes or each other: those additions stay in place."""
    f0, f1, new = _transformed(NEST)
    assert "gathered along i" in new, new
    assert "d_prev_i" in new and "d_next2_i" in new, new
    x = rng.normal(size=(12, 8))
    for e, g in zip(f0(x, 0.3, b, m), f1(x, 0.3, b, m)):
        np.testing.assert_allclose(g, e, rtol=1e-13, atol=1e-14)


def _nest(body, inner="range(1, m)", before=None):
    first = f"\n        {before}" if before else ""
    return f'''
def adjoint(x, r, m, s):
    nx = x.shape[0]
    dun = np.zeros((nx, x.shape[1]))
    for i in range(nx):
        for j in range(x.shape[1]):
            dun[i, j] = x[i, j]
    du = np.zeros((nx + 4, m + 4))
    v = {"du" if "v[" in body else "np.zeros((3, 3))"}
    for i in range(2, nx):{first}
        for j in {inner}:
            {body}
    return du, dun
'''


@pytest.mark.parametrize("body, why", [
    ("du[i + 1, j] += dun[i, j]\n            du[i, j] += du[i - 1, j]", "the array read too"),
    ("du[i + 1, j] += dun[i - 1, j]\n            dun[i, j] = 0.0",
     "an element written before another iteration reads it"),
    ("du[i + 1, j] += dun[i, j] * np.sum(dun)\n            dun[i, j] = 0.0",
     "a written array read whole"),
    ("du[i + s, j] += dun[i, j]\n            du[i, j] += dun[i, j]", "an offset not a constant"),
    ("du[2 * i, j] += dun[i, j]\n            du[i, j] += dun[i, j]", "a stride"),
    ("du[i + 1, i] += dun[i, j]\n            du[i, j] += dun[i, j]", "the counter in two axes"),
    ("du[i + 1, j] += dun[i, j]\n            du[s, j] += dun[i, j]",
     "an addition along no counter"),
    ("du[i + 1, j] += r\n            r += dun[i, j]", "an accumulator read"),
    ("v[i + 1, j] += dun[i, j]\n            v[i, j] += dun[i, j]", "memory another name shares"),
    ("du[i + 1, j] += dun[i, j]\n            du[i, j] += dun[i, j]  # inner",
     "an inner range the nest changes"),
    ("du[i + 1, j] += q\n            q = dun[i, j]", "a value from the iteration before"),
])
def test_the_nest_gather_leaves_other_nests_as_they_are(body, why):
    inner = "range(1, i)" if "# inner" in body else "range(1, m)"
    _, _, new = _transformed(_nest(body, inner, "q = 0.0" if "q = " in body else None))
    assert "gathered along i" not in new, (why, new)


@pytest.mark.parametrize("m", [0, 1, 3, 6])
def test_a_dependent_read_stays_in_place(m):
    """dun[i - 1, j] is zeroed by the iteration before: its addition stays
    in the rest of the nest; the other one is gathered; same values."""
    src = _nest("d = dun[i, j]\n            du[i + 1, j] += d\n            "
                "du[i, j] += dun[i - 1, j]\n            dun[i, j] = 0.0")
    f0, f1, new = _transformed(src)
    assert "gathered along i" in new, new
    x = rng.normal(size=(7, 8))
    for e, g in zip(f0(x, 0.3, m, 1), f1(x, 0.3, m, 1)):
        np.testing.assert_allclose(g, e, rtol=1e-13, atol=1e-14)


TWO_LOOPS = '''
def adjoint(x, r, b, m):
    nx = x.shape[0]
    ny = x.shape[1]
    dun = np.zeros((nx, ny))
    for i in range(nx):
        for j in range(ny):
            dun[i, j] = x[i, j]
    du = np.zeros((nx + 2, ny + 2))
    dv = np.zeros((nx + 2, ny + 2))
    for i in range(1, b):
        w = dun[i, 0] * r
        for j in range(1, m):
            d = dun[i, j] * w
            du[i - 1, j] += d
            dv[i + 1, j - 1] += w * x[i, j]
        for j in range(2, m):
            du[i + 1, j] += dun[i, j] - w
            dun[i, j] = 0.0
        dun[i, 0] = 0.0
    return du, dv, dun
'''


@pytest.mark.parametrize("b, m", [(0, 3), (1, 3), (2, 3), (4, 1), (4, 2), (6, 5), (8, 7)])
def test_two_inner_loops_and_a_row_value_gather_exactly(b, m):
    """A value computed per row (`w`) used in the inner loops, two inner
    loops, a second array gathered after the first (the rest of the nest is
    looked at again); `du[i - 1, j] += d` reads dun[i, j] in the loop before
    the one that zeroes it: it stays in place (not proven, so not moved)."""
    f0, f1, new = _transformed(TWO_LOOPS)
    assert new.count("gathered along i") == 2, new
    x = rng.normal(size=(9, 8))
    for e, g in zip(f0(x, 0.3, b, m), f1(x, 0.3, b, m)):
        np.testing.assert_allclose(g, e, rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("shape", [(6, 7), (4, 1), (1, 4), (2, 2), (3, 3)])
def test_the_2d_heat_workload_with_copied_edges(jit, shape):
    """HEAT2D (benchmarks/workloads): the edges copied every step, whose
    adjoints read `dun[i, 0]` and `dun[i, ny - 1]` (one element when
    ny == 1) and stay in place, the rows gathered."""
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
    from benchmarks.workloads import heat2d_stencil as mod
    x = np.linspace(0.0, 1.0, shape[0])[:, None] + np.linspace(0.0, 0.5, shape[1])[None, :]
    args = (np.sin(3.0 * x) + 0.1 * rng.normal(size=shape), 0.9, 0.5, 0.05, 3,
            0.2 * np.cos(x))
    check_grad(mod.primal, args, wrt=(0, 1), jit=jit)
    if shape == (6, 7):
        src = _source(mod.primal, args)
        assert "gathered along i" in src and "du[i, ny - 1] += dun[i, ny - 1]" in src, src
