"""s2sad benchmark harness: check gradients, then time them against peers.

    python benchmarks/run.py [--quick] [--only W1,W3] [--out results.json]

Per workload: (1) gradient checks on small inputs: hand_grad vs central
finite differences, and s2sad (jit=True and jit=False) and every peer vs
hand_grad; (2) median times on the full inputs (repeats after a warm-up
call; each result is checked against hand_grad again) of the numba primal,
s2sad as a user gets it (jit="auto"; for whole-array code also jit=True) and
with jit=False, the hand numba gradient and the installed peers
(JAX, PyTorch, HIPS autograd, tangent-ad); (3) first-call latency in fresh
subprocesses: numba compile of primal + hand_grad, s2sad cold (empty
S2SAD_CACHE_DIR) and warm (same cache dir, new process); (4) memory: peak
bytes and NRT allocations of one call of s2sad jit, hand and primal
(_memory.py). Errors from s2sad or a peer are recorded per workload, never
fatal. Writes JSON (default benchmarks/results/latest.json) plus a markdown
copy of the printed tables. --quick times the small inputs with tiny
budgets: a smoke test, not data. --memory-only runs just (4) and merges it
into an existing --out file, leaving the timing results as they were.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
AD_TOL = 1e-6  # gradient vs hand_grad (roundoff, summation order)
FD_TOL = 1e-5  # hand_grad vs central differences
ALL_PEERS = ("jax", "jax_loop", "torch", "autograd", "tangent")
PEER_ATTR = {"jax": "jax_grad_fn", "jax_loop": "jax_loop_grad_fn", "torch": "torch_grad",
             "autograd": "autograd_grad_fn"}


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small inputs, tiny budgets (smoke test)")
    ap.add_argument("--only", default="", help="comma-separated workloads, e.g. W1,W3,HEAT")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "latest.json"))
    ap.add_argument("--peers", default=",".join(ALL_PEERS),
                    help="peers to run (default all: %s); '' for none" % ",".join(ALL_PEERS))
    ap.add_argument("--skip", default="", help="methods to skip, e.g. s2sad_py,autograd")
    ap.add_argument("--budget", type=float, default=None,
                    help="seconds of timed repeats per method (default 1.0, quick 0.05)")
    ap.add_argument("--no-compile", action="store_true", help="skip the compile-latency probes")
    ap.add_argument("--no-memory", action="store_true", help="skip the memory measurement")
    ap.add_argument("--memory-only", action="store_true",
                    help="only measure memory; merge into --out without touching its timings")
    ap.add_argument("--memory-rss", action="store_true",
                    help="also cross-check peak memory as peak RSS in fresh subprocesses")
    ap.add_argument("--no-pin", action="store_true", help="do not pin to one core")
    ap.add_argument("--cpu", type=int, default=None, help="core to pin to (default: last allowed)")
    return ap.parse_args(argv)


def pin(opts):
    """Pin this process (and its children) to one core, single-threaded libraries.

    Must run before numpy/BLAS are imported: they read the thread variables at
    load. The numba primal and hand gradient are single-threaded, so peers get
    one core too.
    """
    os.environ.setdefault("TANGENT_DISK_CACHE", "0")  # time tangent's transform honestly
    if opts.no_pin or not hasattr(os, "sched_setaffinity"):
        return None
    cpu = opts.cpu if opts.cpu is not None else max(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {cpu})
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
        os.environ[var] = "1"
    return cpu


def short_tb(limit=3000):
    return traceback.format_exc()[-limit:]


def make_tangent(mod, tmp):
    """tangent-ad on the literal primal. It has no rules for math.*, so the
    source is copied with math.f -> np.f (same values on scalars)."""
    import importlib.util
    import inspect
    import tangent
    src = "import math\nimport numpy as np\n\n\n" + inspect.getsource(mod.primal).replace("math.", "np.")
    path = os.path.join(tmp, "tangent_%s.py" % mod.__name__.rsplit(".", 1)[-1])
    with open(path, "w") as f:
        f.write(src)
    spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return tangent.grad(m.primal, wrt=mod.WRT)


def _has_loops(source):
    return bool(re.search(r"^\s*(for|while)\b", source, re.M))


def _tiny(x):
    return x * x


def warm_s2sad(s2sad):
    """Generate one trivial gradient so that s2sad's own lazy imports are not
    charged to the first workload's source-generation time."""
    try:
        s2sad.grad(_tiny, wrt=0, jit=False).source
    except Exception:
        pass


def build_candidates(mod, opts, tmp, res):
    """key -> (gradient callable, argument preparation). Failures go to res."""
    import numba
    import numpy as np
    from benchmarks import import_s2sad
    cands = {"hand": (numba.njit(mod.hand_grad), None)}
    fail = res["times"]
    try:
        s2sad = import_s2sad()
        warm_s2sad(s2sad)
    except Exception as exc:
        for key in ("s2sad_py", "s2sad_jit"):
            fail[key] = {"status": "error", "error": "import s2sad: %s: %s" % (type(exc).__name__, exc)}
        s2sad = None
    # s2sad_jit is s2sad as a user gets it (jit="auto": numba, or numpy for
    # whole-array code on big arrays); s2sad_numba, numba always, is added
    # below for whole-array code
    for key, jit in (("s2sad_py", False), ("s2sad_jit", "auto")):
        if s2sad is None or key in opts.skip:
            continue
        try:
            t0 = time.perf_counter()
            df = s2sad.grad(mod.primal, wrt=mod.WRT, jit=jit)
            dt = time.perf_counter() - t0
            cands[key] = (df, None)
            if not jit:
                # source generation: first grad() of this function in a fresh
                # cache dir, plus reading .source (which forces it if lazy)
                try:
                    src = df.source
                    res["codegen"] = {"grad_s": time.perf_counter() - t0, "grad_only_s": dt,
                                      "source_lines": len(src.splitlines()),
                                      "loops": _has_loops(src)}
                    # the first is one sample on a noisy machine: also the
                    # median of generating it again (nothing of it is kept
                    # between generations but the parsed source)
                    again = []
                    for _ in range(5):
                        t1 = time.perf_counter()
                        s2sad.grad(mod.primal, wrt=mod.WRT, jit=False).source
                        again.append(time.perf_counter() - t1)
                    res["codegen"]["again_median_s"] = sorted(again)[len(again) // 2]
                except Exception as exc:
                    res["codegen"] = {"error": "df.source: %s: %s" % (type(exc).__name__, exc)}
                    if hasattr(df, "source_for"):  # source for the real argument types
                        try:
                            t1 = time.perf_counter()
                            src = df.source_for(*mod.make_inputs("small"))
                            res["codegen"].update(grad_s=dt + time.perf_counter() - t1,
                                                  via="source_for", loops=_has_loops(src),
                                                  source_lines=len(src.splitlines()))
                        except Exception:
                            pass
        except Exception as exc:
            fail[key] = {"status": "error", "error": "%s: %s" % (type(exc).__name__, exc),
                         "traceback": short_tb()}
            if not jit:
                res["codegen"] = {"error": fail[key]["error"]}
    if s2sad is not None and res.get("codegen", {}).get("loops") is False:
        res["engine"] = "numpy" if sum(np.size(a) for a in mod.make_inputs(
            "small" if opts.quick else "full") if isinstance(a, np.ndarray)) \
            >= s2sad.backend.AUTO_NUMPY_FROM else "numba"
        if "s2sad_numba" not in opts.skip:
            cands["s2sad_numba"] = (s2sad.grad(mod.primal, wrt=mod.WRT, jit=True), None)
    for key in opts.peers:
        if key in opts.skip or (key != "tangent" and not hasattr(mod, PEER_ATTR[key])):
            continue
        try:
            prep = None
            if key == "tangent":
                t0 = time.perf_counter()
                fn = make_tangent(mod, tmp)
                res.setdefault("setup_s", {})["tangent"] = time.perf_counter() - t0
            elif key == "torch":
                __import__("torch")
                fn = (lambda f: (lambda *a: f(a)))(mod.torch_grad)
            else:
                fn = getattr(mod, PEER_ATTR[key])()
            if key.startswith("jax"):
                import jax.numpy as jnp
                prep = lambda args: tuple(jnp.asarray(a) if isinstance(a, np.ndarray) else a
                                          for a in args)
            cands[key] = (fn, prep)
        except ImportError as exc:
            fail[key] = {"status": "not installed", "error": str(exc)}
        except Exception as exc:
            fail[key] = {"status": "error", "error": "%s: %s" % (type(exc).__name__, exc),
                         "traceback": short_tb()}
    return cands


def run_workload(name, opts, tmp):
    import numba
    from benchmarks._common import as_tuple, fd_err, finite_diff, rel_err, time_call
    from benchmarks.workloads import load
    mod = load(name)
    nw = len(mod.WRT)
    size = "small" if opts.quick else "full"
    res = {"description": mod.DESCRIPTION, "wrt": list(mod.WRT), "size": size,
           "checks": {}, "times": {}, "ratios": {}}
    small, big = mod.make_inputs("small"), mod.make_inputs(size)
    jp = numba.njit(mod.primal)
    cands = build_candidates(mod, opts, tmp, res)
    checks, times = res["checks"], res["times"]

    # 1. Checks on small inputs, before any timing.
    g_ref = as_tuple(cands["hand"][0](*small), nw)
    fd, masks = finite_diff(jp, small, mod.WRT)
    checks["hand_vs_fd"] = fd_err(g_ref, fd, masks)
    if checks["hand_vs_fd"] > FD_TOL:
        print("  WARNING: hand_grad disagrees with finite differences: %.1e" % checks["hand_vs_fd"])
    for key in [k for k in cands if k != "hand"]:
        fn, prep = cands[key]
        try:
            g = as_tuple(fn(*(prep(small) if prep else small)), nw)
            checks[key] = {"small": rel_err(g, g_ref), "small_vs_fd": fd_err(g, fd, masks)}
        except Exception as exc:
            err = "%s: %s" % (type(exc).__name__, exc)
            checks[key] = {"status": "error", "error": err}
            times[key] = {"status": "error", "error": err, "traceback": short_tb()}
            del cands[key]

    # 2. Timing on the full inputs; each warm-up result is checked again.
    kw = {"budget": opts.budget}
    if opts.quick:
        kw.update(min_repeats=2, single_over=0.5)
    med, samples, _, first = time_call(jp, big, **kw)
    times["primal"] = {"median_s": med, "repeats": len(samples), "first_call_s": first}
    print("  %-10s %10.3g s  (%d repeats)" % ("primal", med, len(samples)))
    for key in cands:
        fn, prep = cands[key]
        args = prep(big) if prep else big
        try:
            med, samples, out, first = time_call(fn, args, **kw)
        except Exception as exc:
            times[key] = {"status": "error", "error": "%s: %s" % (type(exc).__name__, exc),
                          "traceback": short_tb()}
            continue
        times[key] = {"median_s": med, "repeats": len(samples), "first_call_s": first}
        if key == "hand":
            g_big = as_tuple(out, nw)
        else:
            checks[key]["full"] = rel_err(as_tuple(out, nw), g_big)
            bad = max(checks[key]["small"], checks[key]["full"]) > AD_TOL
            checks[key]["status"] = times[key]["check"] = "MISMATCH" if bad else "ok"
        print("  %-10s %10.3g s  (%d repeats)%s" % (key, med, len(samples),
              "  GRADIENT MISMATCH" if times[key].get("check") == "MISMATCH" else ""))
        sys.stdout.flush()
    for key, e in times.items():
        if "median_s" not in e:
            print("  %-10s %s: %s" % (key, e["status"], e.get("error", "")[:200]))
    interleave(times, {"primal": (jp, big), **{k: (fn, prep(big) if prep else big)
                                               for k, (fn, prep) in cands.items()}}, opts)
    p = times["primal"]["median_s"]
    for key, e in times.items():
        if key != "primal" and "median_s" in e:
            res["ratios"][key + "/primal"] = e["median_s"] / p
    for a, b in (("s2sad_jit", "hand"), ("s2sad_jit", "jax"), ("s2sad_py", "hand")):
        if "median_s" in times.get(a, {}) and "median_s" in times.get(b, {}):
            res["ratios"]["%s/%s" % (a, b)] = times[a]["median_s"] / times[b]["median_s"]
    if not opts.no_compile:
        res["compile"] = compile_latency(name, size, tmp)
    if not opts.no_memory:
        fns = {"primal": jp, "hand": cands["hand"][0]}
        if "s2sad_jit" in cands:
            fns["s2sad_jit"] = cands["s2sad_jit"][0]
        res["memory"] = memory(mod, size, opts, fns)
    return res


# the calls the targets compare: timed again in turns (see time_interleaved)
_COMPARED = ("primal", "hand", "s2sad_jit", "s2sad_numba", "jax")


def interleave(times, calls, opts):
    import numpy as np
    from benchmarks._common import time_interleaved
    compared = {k: (fn, args, times[k]["median_s"]) for k, (fn, args) in calls.items()
                if k in _COMPARED and "median_s" in times.get(k, {})
                and times[k]["median_s"] < opts.budget / 2}
    if len(compared) < 2 or opts.quick:
        return
    for key, samples in time_interleaved(compared, budget=opts.budget).items():
        times[key].update(alone_median_s=times[key]["median_s"], median_s=float(np.median(samples)),
                          repeats=len(samples), interleaved=True)
        print("  %-10s %10.3g s  (in turns, %d repeats)" % (
            key, times[key]["median_s"], len(samples)))


def memory(mod, size, opts, fns=None):
    from benchmarks._memory import fmt_bytes, measure_workload
    m = measure_workload(mod, size, fns, rss=opts.memory_rss)
    for v in ("s2sad_jit", "hand", "primal"):
        e = m[v]
        if "peak_bytes" in e:
            print("  memory %-9s peak %9s  %d NRT allocations" % (
                v, fmt_bytes(e["peak_bytes"]), e["nrt_allocs"]))
        else:
            print("  memory %-9s %s" % (v, e.get("error", "")[:200]))
    sys.stdout.flush()
    return m


def memory_meta(opts):
    from benchmarks._memory import calibrate
    from benchmarks import _report
    cal = calibrate()
    print("memory calibration: 100 MB array measured as %d bytes, %d NRT allocation(s): %s"
          % (cal["peak_bytes"], cal["nrt_allocs"], "ok" if cal["ok"] else "FAILED"))
    return {"method": "tracemalloc peak (NRT uses the CPython allocator) + NRT allocation "
                      "stats, one call after warm-up", "rss_cross_check": opts.memory_rss,
            "calibration": cal, "date": _report.now(), "git": _report.git_commit(REPO),
            "quick": opts.quick}


def memory_only(names, opts, cpu):
    """Measure memory only and merge it into opts.out (timings untouched)."""
    from benchmarks import _report
    from benchmarks.workloads import load
    try:
        with open(opts.out) as f:
            data = json.load(f)
    except FileNotFoundError:
        data = {"meta": {"date": _report.now(), "machine": _report.machine_info(cpu),
                         "git": _report.git_commit(REPO), "argv": sys.argv[1:]},
                "workloads": {}}
    t0 = time.perf_counter()
    data["meta"]["memory"] = memory_meta(opts)
    data["meta"]["memory"]["pinned_cpu"] = cpu
    size = "small" if opts.quick else "full"
    for name in names:
        mod = load(name)
        print("== %s: %s" % (name, mod.DESCRIPTION))
        sys.stdout.flush()
        try:
            m = memory(mod, size, opts)
        except Exception as exc:
            print(short_tb())
            m = {"error": "%s: %s" % (type(exc).__name__, exc), "traceback": short_tb()}
        data["workloads"].setdefault(name, {"description": mod.DESCRIPTION})["memory"] = m
    data["meta"]["memory"]["wall_s"] = time.perf_counter() - t0
    s2sad = sys.modules.get("s2sad")
    data["meta"]["memory"]["versions"] = _report.versions(s2sad)
    write_results(data, opts.out, show=False)
    print("\n" + _report.markdown({n: {"memory": data["workloads"][n]["memory"]} for n in names},
                                  data["meta"]))
    print("\nmerged memory results into %s (%.0f s)" % (opts.out, data["meta"]["memory"]["wall_s"]))
    return 0


def write_results(data, out, show=True):
    from benchmarks import _report
    md = _report.markdown(data["workloads"], data["meta"])
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        json.dump(data, f, indent=1, default=str)
    with open(os.path.splitext(out)[0] + ".md", "w") as f:
        f.write(md + "\n")
    if show:
        print("\n" + md)


def probe(mode, name, size, env):
    cmd = [sys.executable, os.path.join(HERE, "_probe.py"), mode, name, size]
    try:
        r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1200)
        last = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
        return json.loads(last) if last.startswith("{") else {
            "error": "probe exited %d" % r.returncode, "stderr": r.stderr[-3000:]}
    except Exception as exc:
        return {"error": "%s: %s" % (type(exc).__name__, exc)}


def compile_latency(name, size, tmp):
    """Fresh subprocesses: numba's compile, then s2sad cold and warm cache."""
    env = dict(os.environ)
    out = {"numba": probe("numba", name, size, env)}
    env["S2SAD_CACHE_DIR"] = os.path.join(tmp, "s2sad-cache-" + name)
    os.makedirs(env["S2SAD_CACHE_DIR"], exist_ok=True)
    out["s2sad_cold"] = probe("s2sad", name, size, env)
    # a warm start is short and this machine noisy: the median of three
    runs = [probe("s2sad", name, size, env) for _ in range(3)]
    timed = sorted((r for r in runs if "total_s" in r), key=lambda r: r["total_s"])
    out["s2sad_warm"] = timed[len(timed) // 2] if timed else runs[0]
    out["s2sad_warm"]["runs_total_s"] = [r.get("total_s") for r in runs]
    return out


def main(argv=None):
    opts = parse_args(argv)
    cpu = pin(opts)
    if "benchmarks" not in sys.modules:  # run as a script: import it as a package
        sys.path.insert(0, HERE)
        __import__("__init__").bootstrap()
        sys.path.pop(0)
    from benchmarks import _report
    from benchmarks.workloads import WORKLOADS, load
    if opts.budget is None:
        opts.budget = 0.05 if opts.quick else 1.0
    opts.peers = [p.strip() for p in opts.peers.split(",") if p.strip()]
    opts.skip = [s.strip() for s in opts.skip.split(",") if s.strip()]
    names = [n.strip() for n in opts.only.split(",") if n.strip()] or list(WORKLOADS)
    unknown = [n for n in names if n not in WORKLOADS] + [p for p in opts.peers if p not in ALL_PEERS]
    if unknown:
        sys.exit("unknown workload or peer: %s (workloads: %s)" % (unknown, ", ".join(WORKLOADS)))
    tmp = tempfile.mkdtemp(prefix="s2sad-bench-")
    # the in-process s2sad gets its own empty cache: its grad() is cold too
    os.environ["S2SAD_CACHE_DIR"] = os.path.join(tmp, "s2sad-cache-main")
    if opts.memory_only:
        try:
            return memory_only(names, opts, cpu)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    meta = {"date": _report.now(), "machine": _report.machine_info(cpu),
            "git": _report.git_commit(REPO),
            "quick": opts.quick, "budget_s": opts.budget, "argv": sys.argv[1:]}
    results = {}
    t_start = time.perf_counter()
    if not opts.no_memory:
        meta["memory"] = memory_meta(opts)
    try:
        for name in names:
            print("== %s: %s" % (name, load(name).DESCRIPTION))
            sys.stdout.flush()
            try:
                results[name] = run_workload(name, opts, tmp)
            except Exception as exc:  # a broken workload must not stop the others
                print(short_tb())
                results[name] = {"error": "%s: %s" % (type(exc).__name__, exc),
                                 "traceback": short_tb(), "checks": {}, "times": {}}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    meta["wall_s"] = time.perf_counter() - t_start
    s2sad = sys.modules.get("s2sad")
    meta["s2sad_file"] = getattr(s2sad, "__file__", None)
    meta["versions"] = _report.versions(s2sad)
    write_results({"meta": meta, "workloads": results}, opts.out)
    print("\nwrote %s (%.0f s)" % (opts.out, meta["wall_s"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
