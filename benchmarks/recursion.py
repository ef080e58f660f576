"""Recursion: gradient time over primal time as the recursion deepens, with
recursive helpers reversed in split mode (transforms/reverse/split_recursion.py)
and, measured in the same process, in joint mode (each vjp re-running its
callee's forward sweep, as before split mode).

    python benchmarks/recursion.py            # n = 100 ... 1600
    python benchmarks/recursion.py --quick    # n = 50, 100

The workload is the determinant of a tridiagonal matrix by Gaussian
elimination written recursively (one activation per row, recursion depth
n, O(n) primal). Joint mode costs O(n^2): the activation at depth d runs
its forward sweep d + 1 times, and each returns zeroed adjoints of the
three whole arrays. Split mode should keep the ratio roughly constant.
For reference, det by Laplace expansion (GradBench's det: a recursive call
per column, left in joint mode by design) at a few sizes.

Each figure is the median of repeated calls (at least 5, for at least
0.2 s); the table also gives the load average (the machine is shared).
Results: results/recursion.md."""
import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def eliminate(a, b, c, i, pivot):
    """The product of the pivots from row i on, by Gaussian elimination of a
    tridiagonal matrix (diagonal a, super-diagonal b, sub-diagonal c)."""
    if i == a.shape[0]:
        return 1.0
    p = a[i] - b[i - 1] * c[i - 1] / pivot
    return p * eliminate(a, b, c, i + 1, p)


def det_tridiagonal(a, b, c):
    return a[0] * eliminate(a, b, c, 1, a[0])


def _median_time(f, args, budget=0.2):
    f(*args)  # compile / warm up
    times, spent = [], 0.0
    while len(times) < 5 or spent < budget:
        t = time.perf_counter()
        f(*args)
        times.append(time.perf_counter() - t)
        spent += times[-1]
        if len(times) >= 200:
            break
    return float(np.median(times))


def _ms(s):
    return f"{s * 1e3:.3f}" if s < 0.01 else f"{s * 1e3:.1f}"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    a = p.parse_args()
    sys.path.insert(0, HERE)
    __import__("__init__").bootstrap()
    sys.path.pop(0)
    from benchmarks import import_s2sad
    from benchmarks.gradbench._common import primal as compiled_primal
    from benchmarks.gradbench.det import det as det_by_minors
    s2sad = import_s2sad()
    sys.setrecursionlimit(5000)  # (the compiled derivative's depth limit follows it)

    sizes = [50, 100] if a.quick else [100, 200, 400, 800, 1600]
    primal = compiled_primal(det_tridiagonal, True)
    split = s2sad.grad(det_tridiagonal, wrt=(0, 1, 2), boundscheck=False)
    joint = s2sad.grad(det_tridiagonal, wrt=(0, 1, 2), boundscheck=False)
    joint.split_recursion = False  # (what hvp asks for: the joint mode of before)
    rng = np.random.default_rng(0)
    rows = []
    for n in sizes:
        x = (rng.uniform(1.0, 2.0, n), rng.uniform(-0.3, 0.3, n), rng.uniform(-0.3, 0.3, n))
        gs, gj = split(*x), joint(*x)
        for u, v in zip(gs, gj):
            np.testing.assert_allclose(u, v, rtol=1e-10, atol=1e-300)
        tp, ts, tj = (_median_time(f, x) for f in (primal, split, joint))
        rows.append((n, tp, ts, tj))
        print(f"n={n}: primal {_ms(tp)} ms, split {_ms(ts)} ms ({ts / tp:.1f}x), "
              f"joint {_ms(tj)} ms ({tj / tp:.1f}x)", flush=True)
    assert "def fwd_eliminate(" in split.source and "def fwd_eliminate(" not in joint.source

    minors = []
    detp = compiled_primal(det_by_minors, True)
    detg = s2sad.grad(det_by_minors, boundscheck=False)
    for ell in ([4, 5] if a.quick else [6, 7, 8]):
        M = rng.uniform(-1.0, 1.0, (ell, ell))
        tp, tg = _median_time(detp, (M,)), _median_time(detg, (M,))
        minors.append((ell, tp, tg))
        print(f"det by minors {ell}x{ell}: primal {_ms(tp)} ms, gradient {_ms(tg)} ms "
              f"({tg / tp:.1f}x)", flush=True)

    load = os.getloadavg()[0]
    lines = ["| n (depth) | primal ms | split-mode gradient ms (ratio) | "
             "joint-mode gradient ms (ratio) |", "|---|---|---|---|"]
    lines += [f"| {n} | {_ms(tp)} | {_ms(ts)} ({ts / tp:.1f}x) | {_ms(tj)} ({tj / tp:.0f}x) |"
              for n, tp, ts, tj in rows]
    lines += ["", "| det by minors | primal ms | gradient ms (ratio) |", "|---|---|---|"]
    lines += [f"| {ell} x {ell} | {_ms(tp)} | {_ms(tg)} ({tg / tp:.1f}x) |"
              for ell, tp, tg in minors]
    lines += ["", f"load average at the end: {load:.1f}"]
    text = "\n".join(lines) + "\n"
    print(text)
    if not a.quick:
        with open(os.path.join(HERE, "results", "recursion.md"), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
