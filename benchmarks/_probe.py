"""Compile-latency probe, run by run.py in a fresh subprocess per measurement.

    python benchmarks/_probe.py numba|s2sad NAME SIZE

numba: first call (compile + one run) of njit(primal) and njit(hand_grad),
then a steady call of each, so compile ~= first - steady.
s2sad: import time, s2sad.grad(...) construction time and first
call, with whatever S2SAD_CACHE_DIR the parent set (empty = cold, reused =
warm). Prints one JSON object on the last line of stdout.
"""
import json
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
__import__("__init__").bootstrap()  # import benchmarks as a package
sys.path.pop(0)


def probe_numba(mod, args):
    t0 = time.perf_counter()
    import numba
    out = {"import_numba_s": time.perf_counter() - t0}
    for key, fn in (("primal", mod.primal), ("hand", mod.hand_grad)):
        d = numba.njit(fn)
        t0 = time.perf_counter()
        d(*args)
        first = time.perf_counter() - t0
        t0 = time.perf_counter()
        d(*args)
        steady = time.perf_counter() - t0
        out[key + "_first_call_s"] = first
        out[key + "_compile_s"] = max(0.0, first - steady)
    out["total_compile_s"] = out["primal_compile_s"] + out["hand_compile_s"]
    return out


def probe_s2sad(mod, args):
    from benchmarks import import_s2sad
    out = {"cache_dir": os.environ.get("S2SAD_CACHE_DIR")}
    t0 = time.perf_counter()
    import numba  # noqa: F401  (imported by s2sad anyway; keep it out of the s2sad figure)
    out["import_numba_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    s2sad = import_s2sad()
    out["import_s2sad_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    df = s2sad.grad(mod.primal, wrt=mod.WRT)  # as a user gets it: jit="auto"
    out["grad_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    df(*args)
    out["first_call_s"] = time.perf_counter() - t0
    out["total_s"] = out["grad_s"] + out["first_call_s"]
    t0 = time.perf_counter()
    df(*args)
    out["steady_call_s"] = time.perf_counter() - t0
    return out


def main():
    mode, name, size = sys.argv[1:4]
    from benchmarks.workloads import load
    mod = load(name)
    args = mod.make_inputs(size)
    try:
        res = probe_numba(mod, args) if mode == "numba" else probe_s2sad(mod, args)
    except Exception as exc:
        res = {"error": "%s: %s" % (type(exc).__name__, exc),
               "traceback": traceback.format_exc()[-3000:]}
    print(json.dumps(res))


if __name__ == "__main__":
    main()
