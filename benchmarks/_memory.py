"""Peak memory and NRT allocation count of one gradient call (run.py's memory part).

Method: numba's runtime (NRT) allocates array memory through CPython's raw
allocator (numba.core.runtime.nrt calls ``memsys_use_cpython_allocator`` at
import), and numpy registers its array buffers with tracemalloc, so
``tracemalloc`` sees every array a jitted function (or a Python wrapper around
it) allocates. After warm-up calls (compilation excluded), one call runs with
tracemalloc on; peak = highest traced total during the call minus the total
at its start, in bytes (includes the returned gradient arrays and NRT's
~100-byte header per array). ``calibrate()`` checks this on a known 100 MB
allocation and is recorded with the results: if a future numba stopped
routing NRT through the Python allocator, the calibration would fail rather
than the memory figures silently reading zero.

NRT allocation counts come from ``rtsys.get_allocation_stats()`` deltas
around the same call; the counters are switched on here with
``memsys_enable_stats()`` (equivalent to NUMBA_NRT_STATS=1, no env var or
NUMBA_DEBUG_NRT needed).

Cross-check (``--memory-rss``): a fresh subprocess per (workload, variant)
resets the peak RSS (``echo 5 > /proc/self/clear_refs``) after warm-up and
reads VmHWM - VmRSS around one call, with MALLOC_MMAP_THRESHOLD_=65536 so
that large blocks are mmapped and returned on free (otherwise glibc keeps
the warm-up's freed memory resident and the delta reads low). Page-granular
(4 KiB) and only counts touched pages; it would also see memory that bypasses
the Python allocator (e.g. BLAS workspaces).

    python benchmarks/_memory.py rss NAME VARIANT SIZE   # the subprocess probe
"""
import json
import os
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
VARIANTS = ("s2sad_jit", "hand", "primal")
CALIB_BYTES = 100_000_000


def enable_stats():
    from numba.core.runtime import _nrt_python
    _nrt_python.memsys_enable_stats()


def measure(fn, args, warmup=2):
    """Peak traced bytes and NRT allocations of one fn(*args) after warm-up."""
    import tracemalloc
    from numba.core.runtime import rtsys
    enable_stats()
    for _ in range(warmup):
        fn(*args)
    was_tracing = tracemalloc.is_tracing()
    if not was_tracing:
        tracemalloc.start()
    try:
        s0 = rtsys.get_allocation_stats()
        tracemalloc.reset_peak()
        c0, _ = tracemalloc.get_traced_memory()
        t0 = time.perf_counter()
        out = fn(*args)
        dt = time.perf_counter() - t0
        c1, peak = tracemalloc.get_traced_memory()
        s1 = rtsys.get_allocation_stats()
    finally:
        if not was_tracing:
            tracemalloc.stop()
    del out
    return {"peak_bytes": peak - c0, "retained_bytes": c1 - c0,
            "nrt_allocs": s1.alloc - s0.alloc, "nrt_frees": s1.free - s0.free,
            "traced_call_s": dt}


def _calib_fn():
    import numba
    import numpy as np

    @numba.njit
    def alloc_sum(n):
        a = np.ones(n)  # n * 8 bytes, freed before return
        return a.sum()
    return alloc_sum


def calibrate():
    """measure() on a jitted function that allocates and frees 100 MB."""
    r = measure(_calib_fn(), (CALIB_BYTES // 8,))
    r["expected_bytes"] = CALIB_BYTES
    r["ok"] = CALIB_BYTES <= r["peak_bytes"] <= CALIB_BYTES + 4096 and r["nrt_allocs"] == 1
    return r


def build(mod, variant):
    """The callable of one variant (compiled lazily on its first call)."""
    import numba
    if variant == "primal":
        return numba.njit(mod.primal)
    if variant == "hand":
        return numba.njit(mod.hand_grad)
    from benchmarks import import_s2sad
    return import_s2sad().grad(mod.primal, wrt=mod.WRT, jit=True)


def measure_workload(mod, size, fns=None, rss=False):
    """Memory entry of one workload. fns: already-built variant -> callable."""
    fns = dict(fns or {})
    args = mod.make_inputs(size)
    out = {"size": size, "method": "tracemalloc"}
    for v in VARIANTS:
        try:
            fn = fns.get(v) or build(mod, v)
            out[v] = measure(fn, args)
        except Exception as exc:
            out[v] = {"status": "error", "error": "%s: %s" % (type(exc).__name__, exc),
                      "traceback": traceback.format_exc()[-3000:]}
    s, h = out["s2sad_jit"].get("peak_bytes"), out["hand"].get("peak_bytes")
    if s is not None and h:
        out["ratio_s2sad_hand"] = s / h
    if rss:
        for v in VARIANTS:
            if "peak_bytes" in out[v]:
                out[v]["rss"] = rss_probe(mod.__name__.rsplit(".", 1)[-1], v, size)
    return out


def rss_probe(module, variant, size):
    env = dict(os.environ, MALLOC_MMAP_THRESHOLD_="65536")
    cmd = [sys.executable, os.path.abspath(__file__), "rss", module, variant, size]
    try:
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1200)
        last = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
        return json.loads(last) if last.startswith("{") else {
            "error": "probe exited %d" % r.returncode, "stderr": r.stderr[-2000:]}
    except Exception as exc:
        return {"error": "%s: %s" % (type(exc).__name__, exc)}


def _status(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    raise OSError("no %s in /proc/self/status" % key)


def rss_main(module, variant, size):
    """Subprocess side of the RSS cross-check: prints one JSON line."""
    sys.path.insert(0, HERE)
    __import__("__init__").bootstrap()
    sys.path.pop(0)
    import importlib
    mod = importlib.import_module("benchmarks.workloads." + module)
    args = mod.make_inputs(size)
    fn = build(mod, variant)
    fn(*args)
    fn(*args)
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # reset VmHWM to the current RSS
    r0 = _status("VmRSS")
    res = fn(*args)
    out = {"hwm_delta_bytes": _status("VmHWM") - r0, "rss_before_bytes": r0}
    del res
    return out


def fmt_bytes(n):
    if n is None:
        return "—"
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if abs(n) >= scale:
            v = n / scale
            return ("%.1f %s" if v < 100 else "%.0f %s") % (v, unit)
    return "%d B" % n


if __name__ == "__main__":
    if len(sys.argv) != 5 or sys.argv[1] != "rss":
        sys.exit(__doc__)
    try:
        result = rss_main(*sys.argv[2:5])
    except Exception as exc:
        result = {"error": "%s: %s" % (type(exc).__name__, exc),
                  "traceback": traceback.format_exc()[-2000:]}
    print(json.dumps(result))
