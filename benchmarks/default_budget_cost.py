"""What the default memory budget costs a derivative that never exceeds it:
generation time and cold first call (generation + numba compile + one run)
with the default budget's check_memory lines, against the same derivative
generated without them (as before the default budget existed).

    python benchmarks/default_budget_cost.py [--only W1,W3] [--repeats 3]

Each measurement runs in a fresh process with an empty S2SAD_CACHE_DIR; the
two variants alternate so a slow spell of the shared machine falls on both.
Prints medians and the ratio (default / without)."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOADS = {"W1": "w1_euler", "W3": "w3_gmm"}


def probe(module, variant):
    """In this (fresh) process: seconds to generate the source, and of the
    first call of grad (generation + compile + run), cold cache."""
    sys.path.insert(0, HERE)
    __import__("__init__").bootstrap()
    sys.path.pop(0)
    import importlib
    from benchmarks import import_s2sad
    s2sad = import_s2sad()
    from s2sad import api
    if variant == "without":
        api.default_budget = lambda: None  # no check_memory lines: the derivative as before
    mod = importlib.import_module(f"benchmarks.workloads.{module}")
    args = mod.make_inputs("full")
    t0 = time.perf_counter()
    source = s2sad.grad(mod.primal, wrt=mod.WRT, jit=True).source_for(*args)
    generate_s = time.perf_counter() - t0
    g = s2sad.grad(mod.primal, wrt=mod.WRT, jit=True)
    t0 = time.perf_counter()
    g(*args)
    first_s = time.perf_counter() - t0
    print(json.dumps({"generate_s": generate_s, "first_call_s": first_s,
                      "check_lines": source.count("check_memory(")}))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--only", default="W1,W3")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--probe", nargs=2, help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.probe:
        return probe(*a.probe)
    for w in a.only.split(","):
        runs = {"default": [], "without": []}
        for _ in range(a.repeats):
            for variant in runs:
                with tempfile.TemporaryDirectory() as cache:
                    env = dict(os.environ, S2SAD_CACHE_DIR=cache)
                    env.pop("S2SAD_MEMORY", None)
                    out = subprocess.run([sys.executable, __file__, "--probe", WORKLOADS[w],
                                          variant], env=env, capture_output=True, text=True,
                                         check=True).stdout
                    runs[variant].append(json.loads(out.strip().splitlines()[-1]))
        for what in ("generate_s", "first_call_s"):
            d = statistics.median(r[what] for r in runs["default"])
            o = statistics.median(r[what] for r in runs["without"])
            print(f"{w} {what}: default {d:.3f} s, without {o:.3f} s, ratio {d / o:.3f} "
                  f"(check lines: {runs['default'][0]['check_lines']})")


if __name__ == "__main__":
    main()
