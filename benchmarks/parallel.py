"""Threads 1 vs 2: s2sad gradients of prange loops (workloads/parallel.py).

    python benchmarks/parallel.py             # W3 (10^5 points), W5, pairwise energy
    python benchmarks/parallel.py --quick     # small sizes, a smoke test

numba reads NUMBA_NUM_THREADS when it is imported, so each thread count runs
in a fresh process (the thread counts alternate over `--rounds` rounds; each
figure is the lowest of its per-round medians, against a shared machine's
slow spells). The threading layer is numba's workqueue unless `--layer`
says otherwise: on a shared machine numba's default OpenMP layer took
16 ms to start each parallel loop (the workqueue 0.1 ms). Each process
also times the gradient of the same function
written with range (the serial derivative) and, on small inputs, what
`parallel=True` costs where there is too little work to share. The
2-thread gradients are checked against the 1-thread ones and the serial
derivative's: equal to summation-order rounding.

Results: results/parallel.json and results/parallel.md.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

# timed as compiled code: compile at the first call, not in the background
os.environ.setdefault("S2SAD_BACKGROUND_COMPILE", "0")

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def _median_time(f, args, budget):
    f(*args)  # compile / warm up
    times, spent = [], 0.0
    while len(times) < 5 or spent < budget:
        t = time.perf_counter()
        f(*args)
        times.append(time.perf_counter() - t)
        spent += times[-1]
        if len(times) >= 50:
            break
    return float(np.median(times))


def worker(quick, out):
    """One process, one thread count (set in the environment)."""
    import numba

    import s2sad
    sys.path.insert(0, HERE)
    from workloads.parallel import WORKLOADS

    results = {"threads": numba.get_num_threads(), "workloads": {}}
    results["layer"] = os.environ.get("NUMBA_THREADING_LAYER", "default")
    grads = {}
    for name, (par, ser, wrt, inputs, full, small) in WORKLOADS.items():
        size = small * 10 if quick else full
        args = inputs(size)
        # W3's adjoint has index checks on a counter it computes (t), which
        # keep a loop serial: measured without them, as a user who wants the
        # cores would run it
        options = dict(boundscheck=False) if name == "W3" else {}
        g_par = s2sad.grad(par(), wrt=wrt, **options)
        g_ser = s2sad.grad(ser(), wrt=wrt, **options)
        budget = 0.3 if quick else 2.0
        row = {"size": size,
               "prange_s": _median_time(g_par, args, budget),
               "range_s": _median_time(g_ser, args, budget)}
        got = g_par(*args)
        got = got if isinstance(got, tuple) else (got,)
        ref = g_ser(*args)
        ref = ref if isinstance(ref, tuple) else (ref,)
        row["vs_serial_rel_err"] = max(float(np.max(np.abs(a - b)) / max(1.0, np.max(np.abs(b))))
                                       for a, b in zip(got, ref))
        for k, a in enumerate(got):
            grads[f"{name}_{k}"] = a
        # the cost of parallel=True where there is little work
        small_args = inputs(small)
        g_small = s2sad.grad(ser(), wrt=wrt, parallel=True, **options)
        row["small_size"] = small
        row["small_parallel_s"] = _median_time(g_small, small_args, 0.2)
        row["small_serial_s"] = _median_time(g_ser, small_args, 0.2)
        results["workloads"][name] = row
    np.savez(out + ".npz", **grads)
    with open(out + ".json", "w") as f:
        json.dump(results, f)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--layer", default="workqueue",
                        help="numba threading layer (NUMBA_THREADING_LAYER); 'default' for "
                             "numba's choice")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args.quick, args.worker)

    tmp = tempfile.mkdtemp(prefix="s2sad-parallel-")
    runs = {1: [], 2: []}
    for r in range(args.rounds):
        for threads in (1, 2):
            out = os.path.join(tmp, f"t{threads}_r{r}")
            env = dict(os.environ, NUMBA_NUM_THREADS=str(threads))
            if args.layer != "default":
                env["NUMBA_THREADING_LAYER"] = args.layer
            cmd = [sys.executable, __file__, "--worker", out] + (["--quick"] if args.quick else [])
            subprocess.run(cmd, env=env, check=True)
            with open(out + ".json") as f:
                runs[threads].append(json.load(f))
    best = {t: {name: {key: min(run["workloads"][name][key] for run in runs[t])
                       for key in ("prange_s", "range_s", "small_parallel_s", "small_serial_s",
                                   "vs_serial_rel_err")}
                for name in runs[t][0]["workloads"]} for t in runs}
    one = np.load(os.path.join(tmp, "t1_r0.npz"))
    two = np.load(os.path.join(tmp, "t2_r0.npz"))
    lines = ["| workload | size | range, 1 thread | prange, 1 thread | prange, 2 threads | "
             "speedup 2 vs 1 | 2 threads vs 1: rel. diff. | vs range: rel. diff. |",
             "|---|---|---|---|---|---|---|---|"]
    for name, row in best[1].items():
        keys = [k for k in one.files if k.startswith(name + "_")]
        diff = max(float(np.max(np.abs(one[k] - two[k])) / max(1.0, np.max(np.abs(one[k]))))
                   for k in keys)
        size = runs[1][0]["workloads"][name]["size"]
        lines.append(f"| {name} | {size:,} | {_ms(row['range_s'])} | {_ms(row['prange_s'])} | "
                     f"{_ms(best[2][name]['prange_s'])} | "
                     f"{row['prange_s'] / best[2][name]['prange_s']:.2f}x | {diff:.1e} | "
                     f"{max(row['vs_serial_rel_err'], best[2][name]['vs_serial_rel_err']):.1e} |")
    lines += ["", "`parallel=True` on small inputs (2 threads): the derivative of the range "
              "version with and without it", "",
              "| workload | size | parallel=False | parallel=True | ratio |", "|---|---|---|---|---|"]
    for name, row in best[2].items():
        size = runs[2][0]["workloads"][name]["small_size"]
        lines.append(f"| {name} | {size} | {_ms(row['small_serial_s'])} | "
                     f"{_ms(row['small_parallel_s'])} | "
                     f"{row['small_parallel_s'] / row['small_serial_s']:.2f}x |")
    lines += ["", f"numba threading layer: {args.layer}; {os.cpu_count()} CPUs; "
              f"load average at the end: {os.getloadavg()[0]:.1f}"]
    table = "\n".join(lines)
    print(table)
    results = os.path.join(HERE, "results")
    with open(os.path.join(results, "parallel.json"), "w") as f:
        json.dump({"runs": {str(t): v for t, v in runs.items()}, "quick": args.quick,
                   "cpus": os.cpu_count(), "date": time.strftime("%Y-%m-%d %H:%M UTC",
                                                                time.gmtime())}, f, indent=1)
    with open(os.path.join(results, "parallel.md"), "w") as f:
        f.write(table + "\n")


def _ms(seconds):
    return f"{seconds * 1e3:.2f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:.1f} µs"


if __name__ == "__main__":
    main()
