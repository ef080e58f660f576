"""The default budget's estimate of a loop's tape (the check_memory line
before it) against the bytes the compiled loop really holds when it ends
(tests/tape_measure.py): within a factor of two either way, up to a few
kilobytes of what any call allocates."""
import math
import os
import sys

import numpy as np
import pytest

from tape_measure import measure, seeded

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from benchmarks.gradbench import ba  # noqa: E402
from benchmarks.workloads import WORKLOADS, load  # noqa: E402
from benchmarks.lean_tapes import rk4_array  # noqa: E402
from benchmarks.memory_at_scale import euler, heat as heat_buffer  # noqa: E402

SLACK = 8192  # bytes: what a call allocates besides the tape (small arrays, headers)


def close(estimated, measured):
    return measured / 2 - SLACK <= estimated <= 2 * measured + SLACK


# ---- loops of the tests and benchmarks ---------------------------------------

def heat(u0, k, n):
    u = u0 * 1.0
    for t in range(n):
        u[1:-1] = u[1:-1] + k * (u[2:] - 2.0 * u[1:-1] + u[:-2])
    return np.sum(u * u)


def triangular(x):
    n = x.shape[0]
    s = 0.0
    for i in range(n):
        acc = 0.0
        for j in range(i):
            t = x[j] * x[i]
            acc = acc + math.sin(t)
        s = math.sin(s) + acc
    return s


def rows(x, n):
    """Each step overwrites every row of a matrix with a function of itself."""
    a = x.copy()
    for t in range(n):
        for r in range(a.shape[0]):
            a[r] = np.sin(a[r]) * 1.5
    return np.sum(a)


def halving(x, n):
    """A while loop inside the counted one: its trip count is not known
    before the loop."""
    s = 0.0
    for t in range(n):
        v = x[t]
        while v > 1e-3:
            s = math.sin(s) + v
            v = v * 0.5
    return s


LOOPS = {
    "heat": (heat, lambda: (np.linspace(0.0, 1.0, 1000), 0.1, 300), 0),
    "heat_buffer": (heat_buffer, lambda: (np.linspace(0.0, 1.0, 512), 0.4, 400), (0, 1)),
    "euler": (euler, lambda: (1.3, 0.5, 100_000), 0),
    "rk4_array": (rk4_array, lambda: (np.linspace(0.5, 1.5, 2000), 0.7, 0.01, 100), (0, 1)),
    "triangular": (triangular, lambda: (np.linspace(0.0, 1.0, 600),), 0),
    "rows": (rows, lambda: (np.linspace(0.0, 1.0, 4000).reshape(200, 20), 50), 0),
    "halving": (halving, lambda: (np.linspace(0.5, 2.0, 20_000), 20_000), 0),
}


@pytest.fixture(autouse=True)
def no_budget(monkeypatch):
    monkeypatch.delenv("S2SAD_MEMORY", raising=False)


@pytest.mark.parametrize("case", sorted(LOOPS))
def test_the_estimate_of_a_loop_is_its_tape(case):
    fn, args, wrt = LOOPS[case]
    found = measure(fn, args(), wrt)
    assert found
    for line, estimated, measured in found:
        assert measured > SLACK  # (sizes where the tape shows)
        if case == "halving":  # a guess, on the safe side
            assert estimated >= measured / 2, (line, estimated, measured)
        else:
            assert close(estimated, measured), (line, estimated, measured)


@pytest.mark.parametrize("short", list(WORKLOADS))
def test_the_estimate_of_a_workload_is_its_tape(short):
    w = load(short)
    for line, estimated, measured in measure(w.primal, w.make_inputs(), w.WRT):
        assert close(estimated, measured), (short, line, estimated, measured)


def test_bundle_adjustment_records_two_numbers_per_observation():
    """GradBench's ba: a loop over observations writing row o of err records
    the two residuals' differences, 16 bytes per observation (the estimate
    was once p * 8 * err.nbytes, quadratic in p)."""
    p = 20_000
    rng = np.random.default_rng(0)
    args = seeded(ba.reprojection, rng.random((p, 15)) + 0.5, rng.random((p, 2)))
    [(line, estimated, measured)] = measure(ba.reprojection, args, mode="vjp")
    assert estimated == 16 * p
    assert close(estimated, measured)
