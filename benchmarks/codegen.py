"""Source generation time of every workload (BENCHMARKS.md: "source
generation for a 50-line function <= 50 ms"): the time from the function to
its derivative's Python source, `grad(f, jit=False).source`, with no numba
compile and an empty cache directory (nothing is read from disk).

For each workload, in one process (after s2sad's imports and one trivial
gradient, as run.py does): the first generation, then the median and the
least of `--repeats` more, in wall time and in the process's CPU time (which
a busy machine inflates less). The load average is printed with the table:
the machine is shared, so compare figures from one run.

    python benchmarks/codegen.py [--repeats 15] [--only W3,HEAT] [--out FILE.md]
"""
import argparse
import inspect
import os
import statistics
import sys
import tempfile
import time

os.environ["S2SAD_CACHE_DIR"] = tempfile.mkdtemp(prefix="s2sad-codegen-")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import s2sad  # noqa: E402
from benchmarks.run import warm_s2sad  # noqa: E402
from benchmarks.workloads import WORKLOADS, load  # noqa: E402


def source_of(mod):
    df = s2sad.grad(mod.primal, wrt=mod.WRT, jit=False)
    try:
        return df.source  # for the argument kinds guessed from the source
    except Exception:  # (W4's `@` needs the real ones)
        return df.source_for(*mod.make_inputs("small"))


def measure(mod, repeats):
    t0 = time.perf_counter()
    source = source_of(mod)
    first = time.perf_counter() - t0
    wall, cpu = [], []
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        source_of(mod)
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return {"lines": len(source.splitlines()), "first": first,
            "median": statistics.median(wall), "least": min(wall),
            "cpu_median": statistics.median(cpu)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=15)
    ap.add_argument("--only", default="", help="comma-separated workload names (W1,W3,...)")
    ap.add_argument("--out", default="", help="also write the table to this markdown file")
    opts = ap.parse_args(argv)
    only = {n.strip() for n in opts.only.split(",") if n.strip()}
    warm_s2sad(s2sad)
    load_before = os.getloadavg()
    rows = ["| workload | primal lines | derivative lines | first | median | least | CPU median |",
            "|---|---|---|---|---|---|---|"]
    for key in WORKLOADS:
        if only and key not in only:
            continue
        mod = load(key)
        primal_lines = len(inspect.getsource(mod.primal).splitlines())
        r = measure(mod, opts.repeats)
        rows.append(f"| {key} | {primal_lines} | {r['lines']} | {r['first'] * 1e3:.1f} ms | "
                    f"{r['median'] * 1e3:.1f} ms | {r['least'] * 1e3:.1f} ms | "
                    f"{r['cpu_median'] * 1e3:.1f} ms |")
        print(rows[-1], flush=True)
    text = "\n".join(rows) + "\n\nload average %.2f %.2f %.2f (before) / %.2f %.2f %.2f (after), " \
        "%d repeats, Python %s\n" % (load_before + os.getloadavg() + (
            opts.repeats, sys.version.split()[0]))
    print(text)
    if opts.out:
        with open(opts.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
