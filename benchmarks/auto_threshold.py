"""Where numpy overtakes numba on whole-array derivatives: the measurement
behind `jit="auto"`'s size threshold (s2sad/backend.py, AUTO_NUMPY_FROM).

    python benchmarks/auto_threshold.py [--sizes 1000,10000,100000] [--rounds 7]

For two loop-free functions (logsumexp, the W2 workload; a softplus loss of
two arrays), times s2sad's gradient with jit=True (numba) and jit=False
(numpy) at growing sizes, in one process pinned to one core, interleaving
the two (median over rounds of each round's median), and prints the ratio
numpy / numba: below 1, numpy is faster.
"""
import argparse
import os
import sys
import time

# timed as compiled code: compile at the first call, not in the background
os.environ.setdefault("S2SAD_BACKGROUND_COMPILE", "0")

import numpy as np


def softplus_loss(x, w):
    z = x * w
    return np.sum(np.log1p(np.exp(-np.abs(z))) + np.maximum(z, 0.0) - 0.5 * z)


def logsumexp(x):
    m = np.max(x)
    return np.log(np.sum(np.exp(x - m))) + m


def interleaved(fns, args, rounds, per):
    """name -> median over rounds of the round's median time of fns[name](*args)."""
    samples = {k: [] for k in fns}
    for f in fns.values():
        f(*args)
    for _ in range(rounds):
        for k, f in fns.items():
            ts = []
            for _ in range(per):
                t0 = time.perf_counter()
                f(*args)
                ts.append(time.perf_counter() - t0)
            samples[k].append(np.median(ts))
    return {k: float(np.median(v)) for k, v in samples.items()}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="100,1000,10000,32768,100000,1000000")
    ap.add_argument("--rounds", type=int, default=7)
    opts = ap.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})
    import s2sad
    rng = np.random.default_rng(0)
    cases = (("logsumexp", logsumexp, lambda n: (rng.standard_normal(n),)),
             ("softplus_loss", softplus_loss,
              lambda n: (rng.standard_normal(n), rng.standard_normal(n))))
    print(f"{'function':14s} {'elements':>9s} {'numba':>11s} {'numpy':>11s}  numpy/numba")
    for label, f, make in cases:
        fns = {"numba": s2sad.grad(f, jit=True), "numpy": s2sad.grad(f, jit=False)}
        for n in (int(s) for s in opts.sizes.split(",")):
            args = make(n)
            elements = sum(a.size for a in args)
            t = interleaved(fns, args, opts.rounds, per=max(3, min(200, 2_000_000 // n)))
            print(f"{label:14s} {elements:9d} {t['numba'] * 1e6:9.1f}us {t['numpy'] * 1e6:9.1f}us"
                  f"  {t['numpy'] / t['numba']:.2f}")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
