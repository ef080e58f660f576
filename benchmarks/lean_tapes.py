"""Lean tapes: peak memory and time of gradients whose tapes depend on
what the reverse sweep reads, each in a fresh process.

    python benchmarks/lean_tapes.py            # the table
    python benchmarks/lean_tapes.py run CASE   # one probe (JSON line)

Peak memory is the rise of the resident set (VmHWM after resetting it,
minus VmRSS before) during one gradient call after a warm-up call at the
same size (numba's allocations bypass tracemalloc); glibc is told to mmap
big blocks (MALLOC_MMAP_THRESHOLD_) so that freed tapes leave the resident
set. Time: the median of three calls.
"""
import json
import math
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import numpy as np  # noqa: E402


def rk4_array(y0, k, dt, nsteps):
    """RK4 on an array state, y' = -k y^2 elementwise; loss sum(y_T^2)."""
    y = y0.copy()
    for step in range(nsteps):
        k1 = -k * y * y
        k2 = -k * (y + 0.5 * dt * k1) * (y + 0.5 * dt * k1)
        k3 = -k * (y + 0.5 * dt * k2) * (y + 0.5 * dt * k2)
        k4 = -k * (y + dt * k3) * (y + dt * k3)
        y = y + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return np.sum(y * y)


def triangular(x):
    """A triangular nest (the inner trip count is the outer counter) whose
    outer loop carries a value nonlinearly, so it is not a sum of
    independent iterations."""
    n = x.shape[0]
    s = 0.0
    for i in range(n):
        acc = 0.0
        for j in range(i):
            t = x[j] * x[i]
            acc = acc + math.sin(t)
        s = math.sin(s) + acc
    return s


def _kmeans():
    from benchmarks.gradbench import kmeans as K
    return K.define(True)["dir"].compute


def _ode():
    import s2sad
    from benchmarks.gradbench.ode import ode_last
    return s2sad.grad(ode_last, jit=True, boundscheck=False)


def _grad(fn, wrt):
    import s2sad
    return lambda: s2sad.grad(fn, wrt, jit=True)


def _kmeans_args():
    rng = np.random.default_rng(0)
    points = rng.random((10_000, 16))
    return points[-1000:].copy(), points


CASES = {
    # GradBench kmeans dir (gradient / Hessian diagonal), k = 1000, n = 10^4, d = 16
    "kmeans": (_kmeans, _kmeans_args),
    # GradBench ode gradient, n = 10^5, s = 100
    "ode": (_ode, lambda: (np.random.default_rng(0).random(10**5), 100)),
    # RK4 on 10^4 elements, 200 steps
    "rk4_array": (_grad(rk4_array, (0, 1)),
                  lambda: (np.linspace(0.5, 1.5, 10**4), 0.7, 0.01, 200)),
    # triangular nest, n = 3000 (4.5 million inner iterations)
    "triangular": (_grad(triangular, 0), lambda: (np.linspace(0.0, 1.0, 3000),)),
}


def _rss():
    with open("/proc/self/status") as f:
        fields = dict(line.split(":", 1) for line in f)
    return int(fields["VmRSS"].split()[0]) * 1024, int(fields["VmHWM"].split()[0]) * 1024


def probe(case):
    make_fn, make_args = CASES[case]
    fn, args = make_fn(), make_args()
    fn(*args)  # compile and warm up
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # reset the peak resident set
    base, _ = _rss()
    fn(*args)
    _, peak = _rss()
    times = []
    for _ in range(3):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return {"case": case, "peak_bytes": peak - base, "seconds": sorted(times)[1]}


def run(case):
    env = dict(os.environ, MALLOC_MMAP_THRESHOLD_="65536")
    out = subprocess.run([sys.executable, __file__, "run", case], capture_output=True,
                         text=True, env=env, timeout=3600)
    if out.returncode:
        return {"case": case, "error": out.stderr[-600:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "run":
        print(json.dumps(probe(sys.argv[2])))
    else:
        for case in sys.argv[1:] or CASES:
            print(json.dumps(dict(run(case), load=os.getloadavg()[0])), flush=True)
