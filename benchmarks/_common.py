"""Helpers shared by run.py and check_hand.py: gradient comparison and timing."""
import math
import time

import numpy as np


def as_tuple(g, nwrt):
    """Normalise a gradient result to a tuple of numpy values (one per wrt)."""
    if nwrt == 1 and not isinstance(g, (tuple, list)):
        g = (g,)
    return tuple(np.asarray(gi, dtype=np.float64) for gi in g)


def rel_err(got, ref):
    """max |got - ref| / max(1, max |ref|), worst over the wrt arguments."""
    worst = 0.0
    if len(got) != len(ref):
        return math.inf
    for a, b in zip(got, ref):
        a = np.asarray(a, dtype=np.float64)
        b = np.asarray(b, dtype=np.float64)
        if a.shape != b.shape:
            return math.inf
        scale = max(1.0, float(np.max(np.abs(b))) if b.size else 1.0)
        err = float(np.max(np.abs(a - b))) / scale if b.size else 0.0
        if not np.isfinite(err):
            return math.inf
        worst = max(worst, err)
    return worst


def finite_diff(f, args, wrt, max_coords=200, seed=0):
    """Central differences of scalar f at args, w.r.t. the args in wrt.

    Returns (fd, mask) tuples per wrt arg: fd holds the estimate where mask is
    True (a random subset of at most max_coords entries per argument).
    """
    rng = np.random.default_rng(seed)
    fds, masks = [], []
    for w in wrt:
        a = args[w]
        scalar = not isinstance(a, np.ndarray)
        base = np.atleast_1d(np.array(a, dtype=np.float64))
        flat = base.ravel()
        idx = np.arange(flat.size)
        if flat.size > max_coords:
            idx = rng.choice(flat.size, max_coords, replace=False)
        fd = np.zeros(flat.size)
        mask = np.zeros(flat.size, dtype=bool)
        for j in idx:
            h = 1e-6 * max(1.0, abs(flat[j]))
            vals = []
            for s in (1.0, -1.0):
                pert = flat.copy()
                pert[j] += s * h
                new = list(args)
                new[w] = float(pert[0]) if scalar else pert.reshape(base.shape)
                vals.append(f(*new))
            fd[j] = (vals[0] - vals[1]) / (2.0 * h)
            mask[j] = True
        shape = () if scalar else base.shape
        fds.append(fd.reshape(shape) if shape else fd[0])
        masks.append(mask.reshape(shape) if shape else mask[0])
    return tuple(fds), tuple(masks)


def fd_err(grad, fd, masks):
    """rel_err of grad against finite differences on the probed entries."""
    got, ref = [], []
    if len(grad) != len(fd):
        return math.inf
    for g, d, m in zip(grad, fd, masks):
        g = np.asarray(g, dtype=np.float64)
        if g.shape != np.shape(d):
            return math.inf
        got.append(np.where(m, g, 0.0))
        ref.append(np.where(m, d, 0.0))
    return rel_err(got, ref)


def block(out):
    """Wait for asynchronous results (JAX) before stopping the clock."""
    if isinstance(out, (tuple, list)):
        for o in out:
            block(o)
    elif hasattr(out, "block_until_ready"):
        out.block_until_ready()
    return out


def time_call(fn, args, budget=1.0, min_repeats=5, max_repeats=200, single_over=3.0):
    """Median wall time of fn(*args) after one warm-up call.

    Repeats until `budget` seconds are spent (at least min_repeats). When the
    warm-up call itself exceeds `single_over` seconds (eager tape tools on long
    loops), one more timed call is made and reported. Returns (median,
    samples, warm-up result, warm-up time).
    """
    t0 = time.perf_counter()
    res = block(fn(*args))
    t_warm = time.perf_counter() - t0
    samples = []
    if t_warm > single_over:
        reps = 1
    else:
        # the warm-up may include compilation: size the repeats on a second call
        t0 = time.perf_counter()
        block(fn(*args))
        samples.append(time.perf_counter() - t0)
        reps = max(min_repeats, min(max_repeats, int(budget / max(samples[0], 1e-7)))) - 1
    for _ in range(reps):
        t0 = time.perf_counter()
        block(fn(*args))
        samples.append(time.perf_counter() - t0)
    return float(np.median(samples)), samples, res, t_warm


def time_interleaved(calls, budget=1.0, rounds=10):
    """Wall times of several calls taken in turns: `calls` maps a key to
    (fn, args, estimated seconds per call); each round times every call
    about budget/rounds seconds' worth. A slow spell of this shared machine
    then falls on every call alike, and their ratios keep. Returns key ->
    samples."""
    per = {k: max(1, int(budget / rounds / max(est, 1e-7))) for k, (_, _, est) in calls.items()}
    samples = {k: [] for k in calls}
    for _ in range(rounds):
        for k, (fn, args, _) in calls.items():
            for _ in range(per[k]):
                t0 = time.perf_counter()
                block(fn(*args))
                samples[k].append(time.perf_counter() - t0)
    return samples


def fmt_time(t):
    if t is None or not np.isfinite(t):
        return "—"
    if t < 1e-3:
        return "%.0f µs" % (t * 1e6) if t >= 1e-5 else "%.1f µs" % (t * 1e6)
    if t < 1.0:
        return "%.1f ms" % (t * 1e3) if t < 0.1 else "%.0f ms" % (t * 1e3)
    return "%.2f s" % t
