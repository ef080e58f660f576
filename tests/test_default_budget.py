"""The default memory budget (no memory=, no S2SAD_MEMORY): derivatives are
generated as without a budget plus one check_memory line before each
top-level counted loop; a call whose loop would record more than the budget
switches its argument kinds to the checkpointing variant and runs again."""
import math
import os
import re
import warnings

import numpy as np
import pytest

import s2sad
from s2sad import api, checkpointing as C
from s2sad.generate import generate
from s2sad.transforms.analysis import kinds as K
from gradcheck import numerical_grad

# (the tests that switch on purpose; test_the_switch_warns_once_per_derivative
# looks at the warning)
pytestmark = pytest.mark.filterwarnings("ignore::s2sad.MemoryBudgetWarning")


@pytest.fixture
def tiny_default(monkeypatch):
    """A default budget of 2,000 bytes (instead of half the physical memory)."""
    monkeypatch.delenv("S2SAD_MEMORY", raising=False)
    monkeypatch.setattr(C, "DEFAULT_MEMORY", 2000)


@pytest.fixture
def generations():
    seen = []
    hook = lambda d, kinds: seen.append(kinds)  # noqa: E731
    api.GENERATE_HOOKS.append(hook)
    yield seen
    api.GENERATE_HOOKS.remove(hook)


def heat(u0, k, n):
    u = u0 * 1.0
    for t in range(n):
        u[1:-1] = u[1:-1] + k * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    return np.sum(u * u)


def heat_written(u0, k, n):
    u0[0] = 2.0 * u0[0]  # the argument itself, before the loop
    u = u0 * 1.0
    for t in range(n):
        u[1:-1] = u[1:-1] + k * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    return np.sum(u * u)


def test_the_default_is_half_the_physical_memory(monkeypatch):
    monkeypatch.delenv("S2SAD_MEMORY", raising=False)
    monkeypatch.setattr(C, "DEFAULT_MEMORY", None)
    assert C.default_budget() == os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2
    assert C.memory_budget(None) is None  # no explicit budget: the default is lazy


def pairs(x, d):
    """(as in test_fusion: the inner loops' recording is chosen by how Lx is
    read; a check line the analyses saw would change it)"""
    Lx = np.empty(d)
    total = 0.0
    for i in range(x.shape[0]):
        for j in range(d):
            Lx[j] = x[i, j] * x[i, j]
        for j in range(d):
            total += Lx[j] * Lx[j]
    return total


def _kinds_of(*args):
    return [K.of_value(a) for a in args]


@pytest.mark.parametrize("fn, args, checks", [
    # four arrays of u's shape appended per step (the old values of three
    # temporaries and of u[1:-1])
    ("heat", (np.ones(5), 0.1, 5), [r"n \* \(u0\.size \* 8 \+ 176( \+ \(u0\.size \* 8 \+ 176\)){3}\)"]),
    # one tape of d numbers, overwritten every step
    ("pairs", (np.ones((3, 4)), 4), [r"max\(d, 0\) \* 8"]),
    # s recorded per step of the first loop; the second records nothing
    ("strided", (0.3, 2, 8), [r"len\(range\(m, n, 3\)\) \* 8"]),
])
def test_the_default_adds_one_check_line_per_top_level_loop(fn, args, checks):
    fn = globals()[fn]
    kinds = _kinds_of(*args)
    today = generate(fn, kinds, (0,), "grad", True).source.splitlines()
    checked = generate(fn, kinds, (0,), "grad", True, memory_guard=2000).source
    added = [ln for ln in checked.splitlines() if ln not in today]
    removed = [ln for ln in today if ln not in checked.splitlines()]
    imports = "from s2sad.runtime import"
    # the derivative is today's: only the import and one line per loop differ
    assert all(ln.startswith(imports) for ln in removed)
    added = [ln.strip() for ln in added if not ln.startswith(imports)]
    assert len(added) == len(checks)
    for line, want in zip(added, checks):
        assert re.fullmatch(rf"check_memory\({want}, 2000, \d+\)", line), line
    body = checked[checked.index("def grad_"):]
    assert body.index("check_memory(") < body.index("for ")  # before the loop and its tape
    assert "revolve" not in checked and "_tape = " not in body[:body.index("check_memory(")]


@pytest.mark.parametrize("jit", [False, True])
def test_a_call_over_the_default_switches_to_checkpointing(tiny_default, generations, jit):
    u0 = np.linspace(0.0, 1.0, 6) ** 2
    ref = s2sad.grad(heat, (0, 1), jit=jit, memory="1GB")(u0, 0.2, 30)  # recorded
    g = s2sad.grad(heat, (0, 1), jit=jit)
    # one step records four arrays of 6 values (48 bytes and a 176-byte header
    # each): it fits in 2,000 bytes
    small = g(u0, 0.2, 1)
    assert "check_memory(" in g.source and "revolve" not in g.source
    assert len(generations) == 2  # (ref, then g)
    got = g(u0, 0.2, 30)  # 30 steps do not: checkpointed
    assert "revolve(schedule)" in g.source and "check_memory(" not in g.source
    assert len(generations) == 3
    np.testing.assert_allclose(got[0], ref[0], rtol=1e-12)
    assert got[1] == pytest.approx(ref[1], rel=1e-12)
    # against finite differences, and the caller's array unchanged
    assert u0[1] == pytest.approx(0.04)
    np.testing.assert_allclose(got[0], numerical_grad(heat, (u0, 0.2, 30), 0),
                               rtol=1e-6, atol=1e-8)
    # these kinds stay switched: a small call takes the recorded loop of the
    # checkpointing variant (its run-time choice), generating nothing
    again = g(u0, 0.2, 1)
    assert len(generations) == 3
    np.testing.assert_allclose(again[0], small[0], rtol=1e-13)
    assert again[1] == pytest.approx(small[1], rel=1e-13)


def test_the_call_is_repeated_from_the_callers_arguments(tiny_default):
    u0 = np.linspace(0.0, 1.0, 6) ** 2
    original = u0.copy()
    ref = s2sad.grad(heat_written, (0, 1), jit=False, memory="1GB")(u0.copy(), 0.2, 30)
    g = s2sad.grad(heat_written, (0, 1), jit=False)
    got = g(u0, 0.2, 30)
    assert "revolve(schedule)" in g.source
    np.testing.assert_array_equal(u0, original)  # the derivative copied it
    np.testing.assert_allclose(got[0], ref[0], rtol=1e-12)
    want = numerical_grad(lambda u, k, n: heat_written(u.copy(), k, n), (u0, 0.2, 30), 0)
    np.testing.assert_allclose(got[0], want, rtol=1e-6, atol=1e-8)


def ode(x, a, n):
    for t in range(n):
        x = x + 0.01 * (a * math.sin(x) - 0.5 * x * x * x + 1.0)
    return x


def _integrate(y0, a, n):
    y = y0 * 1.0
    for t in range(n):
        y = y + 0.05 * (a * np.sin(y) - y)
    return y


def through_helper(y0, a, n):
    y = _integrate(y0, a, n)
    return np.sum(y * y)


def strided(x, m, n):
    s = x * 1.0
    for t in range(m, n, 3):
        s = s + 0.01 * np.sin(s)
    for t in range(n, m, -2):
        s = s * 0.99
    return s


@pytest.mark.parametrize("args", [(0.3, 2, 800), (0.3, 2, 30), (0.3, 2, 3)])
def test_strided_trip_counts_agree_with_the_budget(tiny_default, args):
    source = s2sad.grad(strided, jit=False).source_for(*args)
    # the first loop records s per step; the second records nothing: no check
    assert source.count("check_memory(") == 1
    assert "check_memory(len(range(m, n, 3)) * 8, 2000, " in source
    g = s2sad.grad(strided, jit=False)
    got = g(*args)
    assert got == pytest.approx(s2sad.grad(strided, jit=False, memory="1GB")(*args), rel=1e-12)
    # switched exactly when a budget of 2,000 bytes checkpoints a loop
    assert ("revolve(schedule)" in g.source) == (args[2] == 800)


def test_vjp_and_a_helpers_loop_switch_too(tiny_default):
    want = s2sad.vjp(ode, (0, 1), jit=False, memory="1GB")(0.3, 0.8, 400, 2.0)
    v = s2sad.vjp(ode, (0, 1), jit=False)
    got = v(0.3, 0.8, 400, 2.0)  # 400 steps x 8 bytes x several values
    assert "revolve(schedule)" in v.source
    assert got[0] == want[0] and got[1] == pytest.approx(want[1], rel=1e-12)
    # the helper's check runs in the caller's reverse sweep (in vjp__integrate)
    y0 = np.linspace(0.0, 1.0, 4)
    ref = s2sad.grad(through_helper, (0, 1), jit=False, memory="1GB")(y0, 0.8, 40)
    g = s2sad.grad(through_helper, (0, 1), jit=False)
    got = g(y0, 0.8, 40)
    assert "def vjp__integrate" in g.source and "revolve(schedule)" in g.source
    np.testing.assert_allclose(got[0], ref[0], rtol=1e-12)
    assert got[1] == pytest.approx(ref[1], rel=1e-12)


def _scale_first(y):
    y[0] = 2.0 * y[0]
    return y[1]


def written_by_a_helper(x, n):
    c = _scale_first(x)
    u = x * c
    for t in range(n):
        u = u + 0.01 * np.sin(u)
    return np.sum(u)


def test_no_check_where_it_cannot_switch_safely_and_none_in_forward_mode(tiny_default):
    # a helper writing into its argument changes the caller's array before the
    # loop: a call could not be repeated, so there is no default budget
    g = s2sad.grad(written_by_a_helper, jit=False)
    assert "check_memory" not in g.source_for(np.ones(3), 50)
    # forward mode records nothing; an explicit budget decides at run time
    assert "check_memory" not in s2sad.jvp(ode, jit=False).source_for(0.3, 0.8, 400)
    # nor code that is differentiated again (grad of grad, hvp's gradient)
    assert "check_memory" not in s2sad.grad(s2sad.grad(ode), jit=False).source_for(0.3, 0.8, 400)
    h = s2sad.hvp(ode, jit=False)
    d = s2sad.grad(ode, jit=False, memory="1GB")
    eps = 1e-5
    want = (d(0.3 + eps, 0.8, 400) - d(0.3 - eps, 0.8, 400)) / (2 * eps)
    assert h(0.3, 0.8, 400, 1.0) == pytest.approx(want, rel=1e-6)  # over 2,000 bytes
    assert "check_memory" not in h._grad.source
    explicit = s2sad.grad(ode, jit=False, memory=2000).source_for(0.3, 0.8, 400)
    assert "check_memory" not in explicit and "revolve" in explicit
    # the exception, met outside a Derivative (an exported module), says what to do
    with pytest.raises(C.MemoryBudgetExceeded, match="line 12 would record about 4000 bytes"):
        C.check_memory(4000, 2000, 12)


def damped(x, n):
    y = x * 1.0
    for t in range(n):
        y = np.tanh(y) + 0.1 * y
    return np.sum(y)


def test_float32_arguments_switch_too(tiny_default):
    # (the checkpointed variant's slot count was a float32 in a float32 module)
    x = np.linspace(0.0, 1.0, 4)
    want = s2sad.grad(damped, jit=False, memory="1GB")(x, 90)
    g = s2sad.grad(damped, jit=False)
    got = g(x.astype(np.float32), 90)
    assert "revolve(schedule)" in g.source and got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-4)


@pytest.mark.parametrize("jit", [False, True])
def test_the_switch_warns_once_per_derivative(tiny_default, jit):
    u0 = np.linspace(0.0, 1.0, 6) ** 2
    g = s2sad.grad(heat, (0, 1), jit=jit)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g(u0, 0.2, 1)  # fits: no warning
    loop_line = heat.__code__.co_firstlineno + 2
    with pytest.warns(s2sad.MemoryBudgetWarning) as caught:
        got = g(u0, 0.2, 30)
    [w] = [w for w in caught if issubclass(w.category, s2sad.MemoryBudgetWarning)]
    message = str(w.message)
    assert w.filename == __file__  # (pointing at the call)
    # the function, the loop's line, the estimate (30 steps x 5 arrays of 6
    # values, 224 bytes with their headers), the budget and what to do
    assert message.startswith("grad of heat: the loop at ")
    assert f"{__file__}:{loop_line} would record about 33.6 kB (estimated)" in message
    assert "budget of 2.0 kB" in message
    assert "S2SAD_MEMORY=64GB" in message and 'memory="off"' in message
    np.testing.assert_allclose(got[0], numerical_grad(heat, (u0, 0.2, 30), 0),
                               rtol=1e-6, atol=1e-8)
    # a new switch (other argument kinds) of the same derivative: no new warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        g(np.ones((2, 6)) * u0, 0.2, 30)
        assert "revolve(schedule)" in g.source


@pytest.mark.parametrize("how", ["argument", "environment"])
def test_memory_off_records_every_loop(tiny_default, monkeypatch, how):
    u0 = np.linspace(0.0, 1.0, 6) ** 2
    if how == "environment":
        monkeypatch.setenv("S2SAD_MEMORY", "off")
        g = s2sad.grad(heat, (0, 1), jit=False)
    else:
        g = s2sad.grad(heat, (0, 1), jit=False, memory="off")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = g(u0, 0.2, 30)
    assert "check_memory(" not in g.source and "revolve" not in g.source
    np.testing.assert_allclose(got[0], numerical_grad(heat, (u0, 0.2, 30), 0),
                               rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("jit, memory", [(False, None), (True, None), (False, "100MB")])
def test_bundle_adjustment_keeps_its_full_tape(monkeypatch, jit, memory):
    """GradBench's ba: its loop over observations records 16 bytes per
    observation, so a 100 MB budget, the default one or memory=, holds 4,000
    of them (the estimate was once p * 8 * err.nbytes, 2 GB here:
    checkpointed, and 1000x slower at scale)."""
    import sys
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from benchmarks.gradbench import ba
    monkeypatch.delenv("S2SAD_MEMORY", raising=False)
    monkeypatch.setattr(C, "DEFAULT_MEMORY", 100_000_000)
    p = 4000
    rng = np.random.default_rng(1)
    cams, points, w, feats, cam_of, point_of = ba.inputs({
        "n": 20, "m": 300, "p": p, "cam": [0.1, -0.2, 0.05, 0.5, -0.3, -4, 500, 10, -5, 0.001,
                                            -1e-5], "x": [0.2, 0.1, 1.0], "w": 0.8,
        "feat": [40.0, -20.0]})
    params = ba.gather(cams, points, w, cam_of, point_of) * (1 + 0.01 * rng.standard_normal((p, 15)))
    seed = rng.standard_normal((p, 2))
    d = s2sad.vjp(ba.reprojection, jit=jit, memory=memory)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.MemoryBudgetWarning)
        dparams = d(params, feats, seed)
    if memory is None:
        assert "check_memory(" in d.source and "revolve" not in d.source
    else:  # both ways compiled, the choice made by the same estimate
        assert re.search(r"= params\.shape\[0\] \* 8 \+ params\.shape\[0\] \* 8 <= 100000000\n",
                         d.source)
    # against finite differences of sum(seed * err), at a few entries
    for o, c in [(0, 0), (17, 6), (1234, 9), (3999, 11), (2500, 14)]:
        h = 1e-6 * max(1.0, abs(params[o, c]))
        up, down = params.copy(), params.copy()
        up[o, c] += h
        down[o, c] -= h
        fd = (np.sum(seed * ba.reprojection(up, feats)) -
              np.sum(seed * ba.reprojection(down, feats))) / (2 * h)
        assert dparams[o, c] == pytest.approx(fd, rel=1e-5, abs=1e-6)


@pytest.mark.parametrize("jit", [False, True])
def test_a_budget_holds_for_a_helpers_loop_of_arrays(jit):
    """Under memory=, a loop in a helper whose state is an array rebound
    every step: its tape (four arrays of 1,000 values per step, 6.5 MB over
    200 steps) does not fit 300 kB, so it is checkpointed and the call's
    peak stays near the budget (the choice once counted one element per
    array: 150 kB, recorded)."""
    import tracemalloc
    y0 = np.linspace(0.0, 1.0, 1000)
    g = s2sad.grad(through_helper, (0, 1), jit=jit, memory="300kB")
    g(y0, 0.8, 3)  # (compiles)
    tracemalloc.start()
    try:
        start = tracemalloc.get_traced_memory()[0]
        got = g(y0, 0.8, 200)
        peak = tracemalloc.get_traced_memory()[1] - start
    finally:
        tracemalloc.stop()
    assert peak < 1_500_000, peak
    want = s2sad.grad(through_helper, (0, 1), jit=False, memory="off")(y0, 0.8, 200)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
    assert got[1] == pytest.approx(want[1], rel=1e-12)
    assert got[1] == pytest.approx(numerical_grad(through_helper, (y0, 0.8, 200), 1), rel=1e-6)
