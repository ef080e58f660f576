"""Stencil adjoints: scatter to gather (transforms/optimise/gather.py), per-point
partial sums (transforms/optimise/partial_sums.py), tapes stored in reverse time
order (transforms/optimise/tape_order.py), unless read back within the
iteration that wrote them.

Whole functions are checked against finite differences, compiled and as
Python, and their generated source for whether each transformation fired.
The transformations themselves are also run on small hand-written loops
(the shapes the reverse sweep produces) and the result executed against the
original on ranges that are empty, of length one, shorter than the offsets
and long: the same values, or the loop left as it was where it must not
fire."""
import os
import sys

import gast
import numpy as np
import pytest

import s2sad
from gradcheck import check_grad, numerical_grad
from s2sad.transforms.emit.unparse import function_source
from s2sad.transforms.optimise.gather import gather_scatters
from s2sad.transforms.names import Namer
from s2sad.transforms.optimise.partial_sums import sum_per_point
from s2sad.transforms.optimise.tape_order import reverse_tapes

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

rng = np.random.default_rng(22)


# ---- whole functions ---------------------------------------------------------
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


@pytest.mark.parametrize("n", [1, 2, 3, 4, 9])
def test_heat_gathers_sums_per_point_and_reverses_its_tape(jit, n):
    args = (rng.normal(size=n), 0.3, 5)
    check_grad(heat, args, wrt=(0, 1), jit=jit)
    src = s2sad.grad(heat, wrt=(0, 1), jit=False).source_for(*args)
    assert "gathered" in src and "du[i] += dun2 + " in src, src
    assert "dkappa_per_i[i - 1] += " in src and "dkappa += np.sum(dkappa_per_i)" in src, src
    assert "_tape[nsteps - 1 - t, i - 1]" in src, src


def test_heat_with_no_steps(jit):
    check_grad(heat, (rng.normal(size=5), 0.3, 0), wrt=(0, 1), jit=jit)


def wide(u0, w, nsteps):
    """Offsets -2 .. 3: more than the loop's range when n is small."""
    n = u0.shape[0]
    u = np.empty(n)
    un = np.empty(n)
    for i in range(n):
        u[i] = u0[i]
        un[i] = u0[i]
    for t in range(nsteps):
        for i in range(2, n - 3):
            un[i] = w * u[i - 2] + u[i] * u[i + 3] - 0.5 * u[i + 1]
        for i in range(2, n - 3):
            u[i] = un[i]
    loss = 0.0
    for i in range(n):
        loss += u[i] * (1.0 + 0.1 * i)
    return loss


@pytest.mark.parametrize("n", [0, 5, 6, 7, 8, 12])
def test_wide_offsets_on_short_and_long_ranges(jit, n):
    args = (rng.normal(size=n), 0.7, 3)
    check_grad(wide, args, wrt=(0, 1), jit=jit)
    assert "gathered" in s2sad.grad(wide, wrt=(0, 1), jit=False).source_for(*args)


def heat2d(u0, kappa, nsteps):
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
                un[i, j] = u[i, j] + kappa * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1]
                                              + u[i, j + 1] - 4.0 * u[i, j])
        for i in range(nx):
            for j in range(ny):
                u[i, j] = un[i, j]
    loss = 0.0
    for i in range(nx):
        for j in range(ny):
            loss += u[i, j] * u[i, j] * (1.0 + 0.1 * i - 0.05 * j)
    return loss


@pytest.mark.parametrize("shape", [(4, 5), (3, 3), (5, 2)])
def test_2d_heat_gathers_along_rows(jit, shape):
    args = (rng.normal(size=shape), 0.2, 4)
    check_grad(heat2d, args, wrt=(0, 1), jit=jit)
    src = s2sad.grad(heat2d, wrt=(0, 1), jit=False).source_for(*args)
    # gathered along i (rows), then along j in the rows inside
    assert "gathered along i" in src and "dun2_prev_i = dun[i - 1, k + 2]" in src, src
    assert "du[i, k + 2] += " in src and "du[i - 1, k + 2]" not in src, src
    assert "dkappa_per_j" in src, src
    # the reverse sweep runs its rows ascending, and reads its tapes so
    assert "for i in range(1, nx - 1):" in src[src.index("dloss = 1.0"):], src
    assert "_tape[nsteps - 1 - t, i - 1, j - 1]" in src, src
    # the Laplacian is recorded, not the two parts it is computed from
    # (recompute.py: a value is recomputed from at most one recorded value)
    assert src.count("_tape = np.empty(") == 1, src


def indexed(u0, idx, w, nsteps):
    """An index read from an array: no constant offset, nothing to gather."""
    n = u0.shape[0]
    u = np.empty(n)
    un = np.empty(n)
    for i in range(n):
        u[i] = u0[i]
    for t in range(nsteps):
        for i in range(n):
            un[i] = u[i] + w * u[idx[i]]
        for i in range(n):
            u[i] = un[i]
    loss = 0.0
    for i in range(n):
        loss += u[i] * u[i]
    return loss


def test_an_index_array_is_not_gathered(jit):
    args = (rng.normal(size=6), np.array([1, 0, 3, 5, 5, 2]), 0.3, 3)
    check_grad(indexed, args, wrt=(0, 2), jit=jit)
    assert "gathered" not in s2sad.grad(indexed, wrt=(0, 2), jit=False).source_for(*args)


def strided(u0, w):
    n = u0.shape[0]
    u = np.zeros(n)
    for i in range(1, n - 1, 2):
        u[i] = u0[i - 1] * w + u0[i + 1]
    loss = 0.0
    for i in range(n):
        loss += u[i] * u[i]
    return loss


def test_a_strided_loop_is_not_gathered(jit):
    args = (rng.normal(size=8), 0.6)
    check_grad(strided, args, wrt=(0, 1), jit=jit)
    assert "gathered" not in s2sad.grad(strided, wrt=(0, 1), jit=False).source_for(*args)


def columns(u0, w):
    """The counter in the first axis: the additions go to other rows."""
    nx = u0.shape[0]
    ny = u0.shape[1]
    u = np.zeros((nx, ny))
    for j in range(ny):
        for i in range(1, nx - 1):
            u[i, j] = w * u0[i - 1, j] + u0[i + 1, j] * u0[i, j]
    loss = 0.0
    for i in range(nx):
        for j in range(ny):
            loss += u[i, j] * u[i, j]
    return loss


def test_offsets_in_a_column_are_not_gathered(jit):
    args = (rng.normal(size=(5, 3)), 0.6)
    check_grad(columns, args, wrt=(0, 1), jit=jit)
    assert "gathered" not in s2sad.grad(columns, wrt=(0, 1), jit=False).source_for(*args)


# ---- the transformations on their own ------------------------------------------
def _transformed(src, transform):
    """(original, transformed) functions from the source of one function."""
    tree = gast.parse(src)
    fdef = tree.body[0]
    namer = Namer.for_function(fdef)
    transform(fdef.body, namer)
    new = function_source(fdef)
    env0, env1 = {"np": np}, {"np": np}
    exec(src, env0)
    exec(new, env1)
    return env0[fdef.name], env1[fdef.name], new


SCATTER = '''
def adjoint(x, r, b):
    dun = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        dun[i] = x[i]
    du = np.zeros(x.shape[0] + 8)
    dr = 0.0
    for i in range(2, b):
        dun2 = dun[i]
        dun[i] = 0.0
        dtotal = dun2 * r
        du[i + 3] += dtotal
        du[i] += dun2
        du[i - 2] += dtotal * dun2
        dr += dun2
    return du, dr, dun
'''


@pytest.mark.parametrize("b", [-1, 2, 3, 4, 6, 12])
def test_the_gather_adds_the_same_terms(b):
    f0, f1, new = _transformed(SCATTER, gather_scatters)
    assert "gathered" in new, new
    dun = rng.normal(size=12)
    expected = f0(dun.copy(), 0.3, b)
    got = f1(dun.copy(), 0.3, b)
    for e, g in zip(expected, got):
        np.testing.assert_allclose(g, e, rtol=1e-14, atol=1e-15)


def _scatter_loop(body, alias=False):
    return f'''
def adjoint(x, k, dr, s):
    dun = np.zeros(x.shape[0])
    du = np.zeros((x.shape[0] + 8, x.shape[0] + 8))
    {"v = du" if alias else "v = np.zeros(3)"}
    for i in range({"k" if "start" in body else 1}, x.shape[0] - 1):
        {body}
    return du
'''


def test_the_gather_fires_on_a_row():
    _, _, new = _transformed(_scatter_loop(
        "du[k, i + 1] += dun[i]\n        du[k, i] += dun[i] * s"), gather_scatters)
    assert "gathered" in new, new


@pytest.mark.parametrize("body, why", [
    ("du[k, i + k] += dun[i]\n        du[k, i] += dun[i]", "an offset that is not a constant"),
    ("du[k, 2 * i] += dun[i]\n        du[k, i] += dun[i]", "a stride"),
    ("du[k, i + 1] += dun[i]\n        du[k, i] += du[k, i - 1]", "the array read too"),
    ("du[k, i + 1] += dun[i + 1]\n        dun[i] = 0.0", "an element written before another "
                                                        "iteration reads it"),
    ("du[k, i + 1] += s\n        s = dun[i]", "a value from the iteration before"),
    ("du[k, i + 1] += dr\n        dr += dun[i]", "an accumulator read"),
    ("du[k, i] += dun[i]\n        du[k, i] += 2.0 * dun[i]", "no neighbour"),
    ("v[k, i + 1] += dun[i]\n        v[k, i] += dun[i]", "memory another name shares"),
    ("du[i + 1, i] += dun[i]\n        du[i, i] += dun[i]", "the counter in two axes"),
    ("du[i + 1, k] += dun[i]\n        du[i, k] += dun[i]", "offsets in the first axis"),
    ("du[k, i + 1] += dun[i]\n        k = i\n        du[k, i] += dun[i]",
     "a row the loop changes"),
    ("du[k, i - 1] += dun[i]\n        du[k, i] += dun[i]  # start", "a start not a constant"),
    ("du[k, i - 2] += dun[i]\n        du[k, i] += dun[i]", "an index that may count from the end"),
])
def test_the_gather_leaves_other_loops_as_they_are(body, why):
    _, _, new = _transformed(_scatter_loop(body, alias=body.startswith("v")), gather_scatters)
    assert "gathered" not in new, (why, new)


NEST = '''
def adjoint(x, n, m, a):
    dr = 0.0
    dq = 0.0
    for t in range(m):
        for i in range(a, n):
            dr += x[t, i] * 2.0
            dq += x[t, i]
        dq = dq * 0.5
    return dr, dq
'''


@pytest.mark.parametrize("n, m, a", [(0, 3, 0), (1, 3, 0), (5, 4, 1), (5, 4, 7), (6, 0, 2)])
def test_per_point_sums_add_up_to_the_same(n, m, a):
    f0, f1, new = _transformed(NEST, lambda body, namer: sum_per_point(body, {"dr", "dq"},
                                                                       namer))
    assert "dr_per_i[i - a] += x[t, i] * 2.0" in new and "dr += np.sum(dr_per_i)" in new, new
    assert "dq_per_i" not in new, new  # dq is read in the nest (dq * 0.5)
    x = rng.normal(size=(max(m, 1), max(n, 1)))
    np.testing.assert_allclose(f1(x, n, m, a), f0(x, n, m, a), rtol=1e-13)


@pytest.mark.parametrize("inner", ["range(t, n)", "range(n)"])
def test_no_per_point_sums_without_a_fixed_range_or_a_nest(inner):
    src = f'''
def adjoint(x, n, m):
    dr = 0.0
    for t in range(m):
        for i in {inner}:
            dr += x[t, i]
        n = n - 1
    for i in range(n):
        dr += x[0, i]
    return dr
'''
    _, _, new = _transformed(src, lambda body, namer: sum_per_point(body, {"dr"}, namer))
    assert "_per_" not in new, new  # the range changes in the nest; the last loop is alone


TAPES = '''
def sweeps(x, n, m):
    v_tape = np.empty((max(m, 0), max(n - 1, 0)))
    w_tape = np.empty((max(m, 0), n))
    for t in range(m):
        for i in range(1, n):
            v_tape[t, i - 1] = x[t, i] * 2.0
            w_tape[t, i] = x[t, i] + 1.0
    out = np.zeros((max(m, 0), max(n, 0)))
    for t in range(m - 1, -1, -1):
        for i in range(1, n):
            out[t, i] = v_tape[t, i - 1]
    for t in range(m):
        for i in range(1, n):
            out[t, i] += w_tape[t, i]
    return out
'''


@pytest.mark.parametrize("n, m", [(0, 0), (1, 3), (4, 1), (5, 6)])
def test_tapes_read_backwards_are_stored_backwards(n, m):
    def transform(body, namer):
        for s in body:
            if isinstance(s, gast.Assign) and s.targets[0].id.endswith("_tape"):
                s.s2sad_allocation = True
        reverse_tapes(body)
    f0, f1, new = _transformed(TAPES, transform)
    assert "v_tape[m - 1 - t, i - 1]" in new, new
    assert "w_tape[t, i]" in new, new  # read ascending: left as it is
    x = rng.normal(size=(max(m, 1), max(n, 1)))
    np.testing.assert_array_equal(f1(x, n, m), f0(x, n, m))


FUSED_TAPES = '''
def fused(x, n, m):
    out = np.zeros(max(n, 0))
    v_tape = np.empty((max(m, 0), max(n, 0)))
    for p in range(n):
        for t in range(m):
            for i in range(n):
                v_tape[t, i] = x[t, i] * (p + 1.0)
        for t in range(m - 1, -1, -1):
            for i in range(n - 1, -1, -1):
                out[p] += v_tape[t, i] * (t + 2.0 * i)
    return out
'''


@pytest.mark.parametrize("n, m", [(0, 0), (1, 3), (4, 1), (5, 6)])
def test_a_tape_read_back_within_one_iteration_keeps_its_order(n, m):
    """Written and read back within each iteration of the loop over p (a
    fused loop's forward sweep and adjoint): in cache, left in time order."""
    def transform(body, namer):
        body[1].s2sad_allocation = True
        reverse_tapes(body)
    f0, f1, new = _transformed(FUSED_TAPES, transform)
    assert "v_tape[t, i]" in new and "- 1 -" not in new, new
    x = rng.normal(size=(max(m, 1), max(n, 1)))
    np.testing.assert_array_equal(f1(x, n, m), f0(x, n, m))


def per_point(x, mu, w):
    """GMM's shape: per point, a buffer overwritten per component; the
    point's adjoint runs in its own iteration (it only adds to total)."""
    n = x.shape[0]
    d = x.shape[1]
    k = mu.shape[0]
    xc = np.empty(d)
    total = 0.0
    for i in range(n):
        se = 0.0
        for c in range(k):
            for j in range(d):
                xc[j] = x[i, j] - mu[c, j]
            sq = 0.0
            for j in range(d):
                sq += w[j] * xc[j] * xc[j]
            se += np.exp(-sq)
        total += np.log(se)
    return total


@pytest.mark.parametrize("n, k, d", [(4, 2, 3), (1, 1, 1), (2, 3, 1)])
def test_per_iteration_tapes_stay_in_time_order(jit, n, k, d):
    args = (rng.normal(size=(n, d)), rng.normal(size=(k, d)), rng.uniform(0.5, 1.0, d))
    src = check_grad(per_point, args, wrt=(1, 2), jit=jit).source_for(*args)
    assert "xc_tape[c, j] = xc[j]" in src and "xc[j] = xc_tape[c, j]" in src, src
    assert "back to front" not in src, src


# ---- the benchmark workloads' hand-written gradients -----------------------------
@pytest.mark.parametrize("module", ["heat_stencil", "heat2d_stencil"])
def test_hand_gradients_of_the_stencil_workloads(module):
    """benchmarks/workloads: the hand gradient (as Python) and s2sad's
    against finite differences on the small inputs."""
    import importlib
    mod = importlib.import_module("benchmarks.workloads." + module)
    args = mod.make_inputs("small")
    hand = mod.hand_grad(*args)
    ours = s2sad.grad(mod.primal, wrt=mod.WRT, jit=False)(*args)
    for k, p in enumerate(mod.WRT):
        expected = numerical_grad(mod.primal, args, p)
        np.testing.assert_allclose(hand[k], expected, rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(ours[k], expected, rtol=1e-6, atol=1e-7)


# ---- reverse loops that ascend (transforms/optimise/ordering.py) for row-wise stencils ----
def row_recurrence(a, w):
    n = a.shape[0]
    m = a.shape[1]
    x = np.empty((n, m))
    for i in range(n):
        for j in range(m):
            x[i, j] = a[i, j]
    for i in range(1, n):
        x[i, 0] = x[i, 0] * w
        for j in range(m):
            x[i, j] = x[i, j] + w * x[i - 1, j]
    loss = 0.0
    for i in range(n):
        for j in range(m):
            loss += np.sin(x[i, j])
    return loss


def test_rows_that_read_the_row_before_keep_their_loop_backwards(jit):
    args = (rng.normal(size=(4, 3)), 0.7)
    check_grad(row_recurrence, args, wrt=(0, 1), jit=jit)
    src = s2sad.grad(row_recurrence, wrt=(0, 1), jit=False).source_for(*args)
    assert "for i in range(n - 1, 0, -1):" in src, src


def inner_value_read_after(a, w):
    n = a.shape[0]
    m = a.shape[1]
    y = np.zeros(n)
    s = 1.0
    for i in range(n):
        for j in range(m):
            s = a[i, j] * w
            y[i] += s * s
        y[i] += s   # the last j's value, or an earlier row's when m == 0
    loss = 0.0
    for i in range(n):
        loss += y[i] * y[i]
    return loss


@pytest.mark.parametrize("shape", [(3, 2), (3, 0)])
def test_an_inner_loop_value_read_after_it(jit, shape):
    args = (rng.normal(size=shape), 0.7)
    check_grad(inner_value_read_after, args, wrt=(0, 1), jit=jit)
