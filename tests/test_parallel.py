"""numba.prange in differentiated functions and grad(..., parallel=True):
gradients against the serial ones and finite differences, repeated (a race
between threads would show as a mismatch in some of the runs)."""
import math

import numba
import numpy as np
import pytest
from numba import prange

import s2sad
from gradcheck import numerical_grad

REPEATS = 20


def energy(pos, eps):
    """Pairwise energy: the adjoint scatters into dpos[j] from every i."""
    n = pos.shape[0]
    e = 0.0
    for i in prange(n):
        for j in range(n):
            if j != i:
                dx = pos[i, 0] - pos[j, 0]
                dy = pos[i, 1] - pos[j, 1]
                dz = pos[i, 2] - pos[j, 2]
                e += 0.5 / math.sqrt(dx * dx + dy * dy + dz * dz + eps)
    return e


def energy_serial(pos, eps):
    n = pos.shape[0]
    e = 0.0
    for i in range(n):
        for j in range(n):
            if j != i:
                dx = pos[i, 0] - pos[j, 0]
                dy = pos[i, 1] - pos[j, 1]
                dz = pos[i, 2] - pos[j, 2]
                e += 0.5 / math.sqrt(dx * dx + dy * dy + dz * dz + eps)
    return e


def mixture(x, mu, s):
    """A total over points; the adjoint of mu is shared by all of them."""
    tot = 0.0
    for i in numba.prange(x.shape[0]):
        buf = np.empty(mu.shape[0])  # private to the iteration
        for c in range(mu.shape[0]):
            buf[c] = x[i] - mu[c]
        m = 0.0
        for c in range(mu.shape[0]):
            m += math.exp(-s * buf[c] * buf[c])
        tot += math.log(m)
    return tot


def mixture_serial(x, mu, s):
    tot = 0.0
    for i in range(x.shape[0]):
        buf = np.empty(mu.shape[0])
        for c in range(mu.shape[0]):
            buf[c] = x[i] - mu[c]
        m = 0.0
        for c in range(mu.shape[0]):
            m += math.exp(-s * buf[c] * buf[c])
        tot += math.log(m)
    return tot


def rows(x, w):
    """Each iteration writes its own row of the output."""
    out = np.empty_like(x)
    for i in prange(x.shape[0]):
        for j in range(x.shape[1]):
            out[i, j] = math.tanh(x[i, j] * w[j])
    return out


def rows_serial(x, w):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            out[i, j] = math.tanh(x[i, j] * w[j])
    return out


def overwritten(x):
    """Not a total (its adjoint is not fused): a private value overwritten
    in each iteration, which the separate reverse loop restores from one
    iteration to the next: both loops of the derivative stay serial."""
    out = np.empty(x.shape[0])
    for i in prange(x.shape[0]):
        t = x[i]
        t = t * t + 1.0
        out[i] = math.sin(t) * t
    return out


def overwritten_serial(x):
    out = np.empty(x.shape[0])
    for i in range(x.shape[0]):
        t = x[i]
        t = t * t + 1.0
        out[i] = math.sin(t) * t
    return out


def gathered(x, idx):
    """x[idx[i]]: an index check that depends on i keeps the adjoint serial."""
    s = 0.0
    for i in prange(idx.shape[0]):
        s += x[idx[i]] ** 2
    return s


def elementwise(w, x):
    y = 0.0
    for i in range(x.shape[0]):
        y += w[i] * math.tanh(x[i])
    return y


CASES = [
    ("energy", energy, energy_serial, lambda r: (r.normal(size=(40, 3)), 0.1), (0,)),
    ("mixture", mixture, mixture_serial,
     lambda r: (r.normal(size=300), r.normal(size=4), 0.7), (1, 2)),
    ("rows", rows, rows_serial, lambda r: (r.normal(size=(50, 3)), r.normal(size=3)), (0, 1)),
    ("overwritten", overwritten, overwritten_serial, lambda r: (r.normal(size=30),), (0,)),
]


def _same(a, b, rtol=1e-12):
    for p, q in zip(a if isinstance(a, tuple) else (a,), b if isinstance(b, tuple) else (b,)):
        np.testing.assert_allclose(p, q, rtol=rtol, atol=1e-12)


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_prange_gradient_equals_serial_and_finite_differences(case, jit):
    _, fn, serial, make, wrt = case
    args = make(np.random.default_rng(1))
    parallel = s2sad.grad(fn, wrt=wrt, jit=jit)
    expected = s2sad.grad(serial, wrt=wrt, jit=False)(*args)  # (numba compiles slowly)
    for _ in range(REPEATS if jit else 1):
        _same(parallel(*args), expected)
    for k, w in enumerate(wrt):
        np.testing.assert_allclose(parallel(*args)[k], numerical_grad(serial, args, w),
                                   rtol=1e-5, atol=1e-6)
    if fn is overwritten:
        assert "runs serially: 't' carries a value" in parallel.source
    else:
        assert "prange(" in parallel.source and "serially" not in parallel.source


def test_shared_adjoints_are_privatised_per_chunk():
    args = (np.ones((4, 3)), 0.1)
    source = s2sad.grad(energy).source_for(*args)
    assert "dpos_chunk[j, 0] += " in source  # never dpos[j, 0] from two threads
    assert "dpos[j" not in source
    assert "for chunk in prange(n_chunks):" in source


def test_adjoint_that_may_raise_inside_runs_serially_and_says_why(jit):
    x, idx = np.arange(5.0), np.array([4, 0, 4, 2])
    g = s2sad.grad(gathered, jit=jit)
    np.testing.assert_allclose(g(x, idx), [0, 0, 4, 0, 16])
    assert "runs serially: it may raise" in g.source
    with pytest.raises(IndexError):
        g(x, np.array([5]))


def test_parallel_option_parallelises_proven_loops(jit):
    rng = np.random.default_rng(2)
    w, x = rng.normal(size=1000), rng.normal(size=1000)
    g = s2sad.grad(elementwise, wrt=(0, 1), jit=jit, parallel=True)
    expected = s2sad.grad(elementwise, wrt=(0, 1), jit=False)(w, x)
    for _ in range(REPEATS if jit else 1):
        _same(g(w, x), expected)
    assert "for i in prange(x.shape[0]):" in g.source
    assert "prange" not in s2sad.grad(elementwise, wrt=(0, 1)).source_for(w, x)
    # pairwise: the serial function's derivative is parallel too
    pos = rng.normal(size=(30, 3))
    gp = s2sad.grad(energy_serial, jit=jit, parallel=True)
    _same(gp(pos, 0.1), s2sad.grad(energy_serial, jit=False)(pos, 0.1))
    assert "dpos_chunk" in gp.source


def carried(x):
    a = 1.0
    for i in prange(x.shape[0]):
        a = a * x[i]
    return a


def neighbours(x):
    y = np.zeros_like(x)
    for i in prange(1, x.shape[0]):
        y[i] = y[i - 1] + x[i]
    return np.sum(y)


def histogram(x, idx):
    h = np.zeros(3)
    for i in prange(x.shape[0]):
        h[idx[i]] += x[i]
    return np.sum(h * h)


def last_value(x):
    t = 0.0
    for i in prange(x.shape[0]):
        t = x[i] * 2.0
    return t


def shared_buffer(x):
    buf = np.empty(2)
    s = 0.0
    for i in prange(x.shape[0]):
        buf[0] = x[i]
        s += buf[0] * buf[0]
    return s


def early_exit(x):
    s = 0.0
    for i in prange(x.shape[0]):
        if x[i] > 1.0:
            break
        s += x[i]
    return s


@pytest.mark.parametrize("fn, what", [
    (carried, "'a' carries a value"),
    (neighbours, "iterations write 'y'"),
    (histogram, "iterations write 'h'"),
    (last_value, "'t', assigned in each iteration, is read after the loop"),
    (shared_buffer, "iterations write 'buf'"),
    (early_exit, "break or return in a prange loop"),
])
def test_dependent_prange_iterations_are_refused(fn, what):
    x = np.linspace(0.1, 0.9, 6)
    args = (x, np.array([0, 1, 2, 0, 1, 2])) if fn is histogram else (x,)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="prange") as info:
        s2sad.grad(fn)(*args)
    assert what in str(info.value)
    assert "test_parallel.py" in str(info.value)


def test_parallel_derivatives_pickle():
    import pickle
    g = pickle.loads(pickle.dumps(s2sad.grad(elementwise, wrt=(0, 1), parallel=True)))
    assert g.parallel


def packed(x, l):
    """W3's pattern: a counter private to the iteration (t), recorded and
    restored by the adjoint, and a packed-triangle index that depends on it."""
    s = 0.0
    for i in prange(x.shape[0]):
        t = 0
        for col in range(x.shape[1] - 1):
            for row in range(col + 1, x.shape[1]):
                s += l[t] * x[i, col] * x[i, row]
                t += 1
    return s


def test_private_counter_recorded_by_the_adjoint(jit):
    rng = np.random.default_rng(3)
    x, l = rng.normal(size=(40, 4)), rng.normal(size=6)
    g = s2sad.grad(packed, wrt=(0, 1), jit=jit, boundscheck=False)
    expected = s2sad.grad(packed, wrt=(0, 1), jit=False)(x, l)  # serial: t's index checks
    for _ in range(REPEATS if jit else 1):
        _same(g(x, l), expected)
    np.testing.assert_allclose(g(x, l)[1], numerical_grad(packed, (x, l), 1), rtol=1e-6)
    assert "for chunk in prange(n_chunks):" in g.source


def test_forward_mode_of_a_prange_loop_runs_serially(jit):
    rng = np.random.default_rng(4)
    pos, v = rng.normal(size=(12, 3)), rng.normal(size=(12, 3))
    value, tangent = s2sad.jvp(energy, jit=jit)(pos, 0.1, v)
    assert np.isclose(value, energy_serial(pos, 0.1))
    g = s2sad.grad(energy_serial, jit=False)(pos, 0.1)
    np.testing.assert_allclose(tangent, np.sum(g * v), rtol=1e-10)


def test_exported_derivative_runs_its_prange_in_parallel(tmp_path):
    import importlib.util
    args = (np.random.default_rng(5).normal(size=(20, 3)), 0.1)
    g = s2sad.grad(energy)
    expected = g(*args)
    path = tmp_path / "denergy.py"
    fname = s2sad.export(g, str(path))
    text = path.read_text()
    assert "parallel=_name in ('grad_energy',)" in text
    spec = importlib.util.spec_from_file_location("denergy_exported", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    _, got = getattr(module, fname)(*args)
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    assert getattr(module, fname).targetoptions.get("parallel")


def scatter_from_a_start_expression(x, m):
    g = np.zeros(x.shape[0])
    for i in range(m - 3, x.shape[0] - 1):
        g[i] = x[i] * x[i + 1]
    return np.sum(g * g)


def test_chunks_of_a_loop_whose_start_is_a_difference(jit):
    """The chunks of `range(m - 3, n)` span `n - (m - 3)` iterations (the
    parentheses were lost: a wrong gradient with no error, parallel=True)."""
    x = np.linspace(0.1, 1.3, 14)
    df = s2sad.grad(scatter_from_a_start_expression, parallel=True, jit=jit)
    assert "(x.shape[0] - 1 - (m - 3))" in df.source_for(x, 5)
    np.testing.assert_allclose(df(x, 5), numerical_grad(scatter_from_a_start_expression, [x, 5], 0),
                               rtol=1e-6, atol=1e-8)


def strided_from_a_start_expression(x, m):
    s = 0.0
    for i in range(m - 3, 12, 2):
        s = np.sin(s) + x[i] ** 2  # (records s each step: the loop has a memory check)
    return s


def test_memory_check_counts_the_steps_of_a_start_expression():
    x = np.linspace(0.1, 1.3, 14)
    source = s2sad.grad(strided_from_a_start_expression, jit=False).source_for(x, 5)
    assert "check_memory(len(range(m - 3, 12, 2)) * 8," in source  # (5 steps of 8 bytes at m=5)


def bounded(x, k):
    e = 0.0
    for i in range(x.shape[0] - 1):
        if i > 0:
            e += k * (x[i + 1] - x[i]) ** 2
    return e


def two_stops(x, k):
    e = 0.0
    for i in range(x.shape[0] - 2):
        e += k * (x[i + 2] - x[i]) ** 2 + x[i + 1] * x[i]
    return e


def bounded_prange(x, k):
    e = 0.0
    for i in prange(x.shape[0] - 1):
        if i > 0:
            e += k * (x[i + 1] - x[i]) ** 2
    return e


@pytest.mark.parametrize("fn", [bounded, two_stops, bounded_prange], ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", [2, 3, 7, 12])
def test_chunks_of_a_loop_from_zero_to_a_difference(jit, fn, n):
    """The chunks of `range(n - 1)` run to `(chunk + 1) * (n - 1) // n_chunks`
    (the parentheses were lost: chunk 1 ran past the array, an IndexError
    as Python and reads and writes out of bounds when compiled). And the
    values bound in one `if` of an iteration and read in another are bound
    first (numba's prange gave dk, summed in the same loop, the value 0)."""
    x = np.linspace(0.1, 1.3, n) ** 2
    df = s2sad.grad(fn, wrt=(0, 1), parallel=fn is not bounded_prange, jit=jit)
    for _ in range(3):
        got = df(x, 0.7)
        for p, g in enumerate(got):
            np.testing.assert_allclose(g, numerical_grad(fn, [x, 0.7], p), rtol=1e-6, atol=1e-8)
