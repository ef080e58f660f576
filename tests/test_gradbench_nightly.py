"""benchmarks/gradbench/nightly.py at tiny sizes (--quick): its input
synthesisers, its protocol driver and its independent checks, against the
tool run as Python (--python, no numba compile). The full-size run takes
hours and is not part of the test suite. particle and saddle are left to
tests/test_gradbench.py (their --python solves take a while)."""
import importlib.util
import os
import sys

import numpy as np

GRADBENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                         "benchmarks", "gradbench")


def load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(GRADBENCH, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_quick_run_passes(capsys):
    nightly = load("nightly")
    code = nightly.main(["--quick", "--python", "--min-seconds", "0",
                         "--evals", "lse,llsq,ode,det,kmeans,lstm,gmm,ba,ht"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "0 not ok" in out


def test_checks_reject_wrong_answers():
    sys.path.insert(0, GRADBENCH)
    try:
        nightly, checks = load("nightly"), load("nightly_checks")
    finally:
        sys.path.remove(GRADBENCH)
    g = np.random.default_rng(0)
    x = [0.5, -1.0, 2.0, 0.25]
    assert checks.check("lse", "primal", {"x": x}, 2.3692789984482534, g) is None
    assert checks.check("lse", "primal", {"x": x}, 2.37, g) is not None
    assert checks.check("lse", "gradient", {"x": x}, [0.25] * 4, g) is not None
    assert checks.check("det", "gradient", {"A": [2, -1, 0.5, 1.5, 3, -2, 0.25, 4, 1], "ell": 3},
                        [11, -2, 5.25, 3, 1.875, -8.25, 0.5, 4.75, 7.5], g) is None
    assert checks.check("particle", "rr", {"w": 0.0}, 0.2, g) is not None
    _, inp, _ = next(nightly.gmm_workloads(True, g))
    zeros = {name: np.zeros_like(np.array(inp[name])).tolist() for name in ("alpha", "mu", "q")}
    zeros["l"] = np.zeros((inp["k"], 1)).tolist()
    assert checks.check("gmm", "jacobian", inp, zeros, g) is not None
    _, inp, _ = next(nightly.ht_workloads(True, g))
    assert checks.check("ht", "jacobian", inp, np.zeros((15, 28)).tolist(), g) is not None
    _, inp, _ = next(nightly.ba_workloads(True, g))
    assert checks.check("ba", "objective", inp, {"reproj_error": {"elements": [0.0, 0.0],
                                                                  "repeated": 16},
                                                 "w_err": {"element": 0.0, "repeated": 16}},
                        g) is not None
