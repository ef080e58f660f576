"""float32 next to float64 for W1, W3 and W5 (BENCHMARKS.md, "Targets added
later"): s2sad's gradient of the same function called with float32 and with
float64 arguments, and the numba primal in float64 as the reference, timed
in turns in one run (medians; ratios within the run). Before timing, every
float32 gradient is checked: float32 dtype, close to the float64 gradient,
and no float64 value in its compiled code (numba's type map).

    python benchmarks/float32.py [--quick] [--out benchmarks/results/float32]
"""
import argparse
import json
import os
import sys

import tempfile
import time

import numba
import numpy as np

# a fresh cache: numba's type map (the float64 check) exists only for code it
# compiles in this process, not for code it loads from its cache
os.environ["S2SAD_CACHE_DIR"] = tempfile.mkdtemp(prefix="s2sad-float32-")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import s2sad  # noqa: E402
from benchmarks._common import block, fmt_time, time_interleaved  # noqa: E402
from benchmarks.workloads import w1_euler, w3_gmm, w5_elementwise  # noqa: E402

WORKLOADS = {"W1": w1_euler, "W3": w3_gmm, "W5": w5_elementwise}


def as_float32(args):
    return tuple(a.astype(np.float32) if isinstance(a, np.ndarray) and a.dtype.kind == "f"
                 else np.float32(a) if isinstance(a, float) else a for a in args)


def float64_values(df):
    entry = df.specialisation()
    dispatcher = getattr(entry.module.jitted(), entry.fname, None)
    if dispatcher is None or not hasattr(dispatcher, "overloads"):
        return None
    if any(isinstance(c.type_annotation, str) for c in dispatcher.overloads.values()):
        return None  # loaded from numba's cache: no type map
    return sorted({var for cres in dispatcher.overloads.values()
                   for var, typ in cres.type_annotation.typemap.items()
                   if "float64" in str(typ) and not var.startswith("$const")
                   and "load_attr" not in var})  # constants read to be converted


def run(size, budget):
    results = {}
    for key, w in WORKLOADS.items():
        args64 = w.make_inputs(size)
        args32 = as_float32(args64)
        primal = numba.njit(w.primal)
        d64, d32 = s2sad.grad(w.primal, wrt=w.WRT), s2sad.grad(w.primal, wrt=w.WRT)
        g64, g32 = d64(*args64), d32(*args32)
        dtypes = sorted({str(np.asarray(g).dtype) for g in g32})
        err = max(float(np.max(np.abs(np.asarray(a, float) - b)) / max(np.max(np.abs(b)), 1e-30))
                  for a, b in zip(g32, g64))
        leaks = float64_values(d32)
        estimates = {}
        for name, fn, args in (("primal64", primal, args64), ("s2sad64", d64, args64),
                               ("s2sad32", d32, args32)):
            block(fn(*args))
            t0 = time.perf_counter()
            block(fn(*args))
            estimates[name] = (fn, args, time.perf_counter() - t0)
        samples = time_interleaved(estimates, budget=budget)
        med = {k: float(np.median(v)) for k, v in samples.items()}
        results[key] = dict(median_s=med, dtypes=dtypes, rel_err=err, float64_values=leaks,
                            ratio_32_64=med["s2sad32"] / med["s2sad64"],
                            s2sad64_over_primal=med["s2sad64"] / med["primal64"],
                            s2sad32_over_primal=med["s2sad32"] / med["primal64"])
        print(key, {k: fmt_time(v) for k, v in med.items()}, dtypes, f"rel err {err:.1e}",
              "float64 values:", leaks, flush=True)
    return results


def table(results):
    lines = ["| | numba primal (float64) | s2sad float64 | s2sad float32 | float32 / float64 "
             "| float32 gradient vs float64 (max rel. error) | float64 values in the compiled "
             "float32 gradient |", "|---|---|---|---|---|---|---|"]
    for key, r in results.items():
        m = r["median_s"]
        leaks = {None: "not known"}.get(r["float64_values"]) if r["float64_values"] is None \
            else "none" if not r["float64_values"] else ", ".join(r["float64_values"])
        lines.append(f"| {key} | {fmt_time(m['primal64'])} | {fmt_time(m['s2sad64'])} "
                     f"({r['s2sad64_over_primal']:.2f}) | {fmt_time(m['s2sad32'])} "
                     f"({r['s2sad32_over_primal']:.2f}) | {r['ratio_32_64']:.2f} | "
                     f"{r['rel_err']:.1e} ({', '.join(r['dtypes'])}) | {leaks} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small inputs, short budget")
    parser.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results",
                                                      "float32"))
    opts = parser.parse_args()
    results = run("small" if opts.quick else "full", 0.3 if opts.quick else 3.0)
    md = table(results)
    print(md)
    with open(opts.out + ".json", "w") as f:
        json.dump(dict(results=results, numpy=np.__version__, numba=numba.__version__), f,
                  indent=1)
    with open(opts.out + ".md", "w") as f:
        f.write(md + "\n")


if __name__ == "__main__":
    main()
