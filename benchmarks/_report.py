"""Machine/version metadata and the markdown tables printed by run.py."""
import datetime
import importlib.metadata
import os
import platform
import subprocess

from ._common import fmt_time
from ._memory import fmt_bytes

PEER_COLUMNS = [("jax", "JAX jit"), ("jax_loop", "JAX fori_loop"), ("torch", "PyTorch"),
                ("autograd", "autograd"), ("tangent", "tangent-ad")]
PACKAGES = ["numpy", "numba", "llvmlite", "scipy", "gast", "s2sad", "jax", "jaxlib",
            "torch", "autograd", "tangent-ad"]


def machine_info(pinned_cpu):
    model = platform.processor() or "unknown"
    cpuinfo = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if not line.strip():
                    break  # first processor only
                k, _, v = line.partition(":")
                cpuinfo[k.strip()] = v.strip()
        model = cpuinfo.get("model name", model)
    except OSError:
        pass
    aff = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    return {"cpu_model": model, "cpu_family": cpuinfo.get("cpu family"),
            "cpu_model_number": cpuinfo.get("model"), "logical_cores": os.cpu_count(),
            "avx512": "avx512f" in cpuinfo.get("flags", "").split(), "affinity": aff,
            "pinned_cpu": pinned_cpu, "platform": platform.platform(),
            "python": platform.python_version()}


def versions(s2sad=None):
    out = {}
    for p in PACKAGES:
        try:
            out[p] = importlib.metadata.version(p)
        except importlib.metadata.PackageNotFoundError:
            out[p] = None
    if out["s2sad"] is None and s2sad is not None:  # used from the source tree
        out["s2sad"] = getattr(s2sad, "__version__", None)
    return out


def git_commit(repo):
    try:
        r = subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"], capture_output=True,
                           text=True, timeout=10)
        head = r.stdout.strip() or None
        r = subprocess.run(["git", "-C", repo, "status", "--porcelain"], capture_output=True,
                           text=True, timeout=10)
        return {"commit": head, "dirty": bool(r.stdout.strip())}
    except Exception:
        return {"commit": None, "dirty": None}


def now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def _cell(res, key, primal):
    """'time (ratio to primal)', or why there is no time."""
    e = res["times"].get(key)
    if e is None:
        return "—"
    if "median_s" not in e:
        return e.get("status", "error")
    s = fmt_time(e["median_s"])
    if primal:
        s += " (%.3g)" % (e["median_s"] / primal)
    if e.get("check") == "MISMATCH":
        s += " ✗"
    return s


def _codegen_cell(codegen):
    gen, again = codegen.get("grad_s"), codegen.get("again_median_s")
    if gen is None:  # (grad_s may come via source_for: see the JSON)
        return "error" if codegen.get("error") else "—"
    return fmt_time(gen) + (" (%s)" % fmt_time(again) if again is not None else "")


def _ratio(res, key):
    r = res.get("ratios", {}).get(key)
    return "%.2f" % r if r is not None else "—"


def markdown(results, meta):
    """All tables: timings, compile latency and checks (if timed), then memory."""
    timed = {n: r for n, r in results.items() if "times" in r}
    lines = _timing_tables(timed, meta) if timed else []
    if any("memory" in r for r in results.values()):
        lines += ([""] if lines else []) + _memory_table(results, meta.get("memory", {}))
    return "\n".join(lines)


def _mem_cell(e, key="peak_bytes"):
    if e is None:
        return "—"
    if key not in e:
        return e.get("status", "error")
    return fmt_bytes(e[key]) if key == "peak_bytes" else "%d" % e[key]


def _memory_table(results, mmeta):
    cal = mmeta.get("calibration", {})
    sizes = {r["memory"]["size"] for r in results.values() if "size" in r.get("memory", {})}
    lines = ["Memory: peak bytes allocated during one call after warm-up (tracemalloc; numba's "
             "NRT allocates through the Python allocator; includes the returned arrays), and "
             "NRT allocations per call. Calibration: a 100 MB array read as %s bytes (%s); "
             "%s, %s inputs." % (format(cal.get("peak_bytes", 0), ","),
                                 "ok" if cal.get("ok") else "FAILED", mmeta.get("date", "?")[:10],
                                 "/".join(sorted(sizes)) or "?"), ""]
    head = ["", "s2sad jit peak", "hand peak", "s2sad / hand", "numba primal peak",
            "s2sad allocs / call", "hand allocs / call"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "---|" * len(head))
    for name, r in results.items():
        m = r.get("memory")
        if m is None:
            continue
        if "error" in m:
            lines.append("| %s | error |%s" % (name, " |" * (len(head) - 2)))
            continue
        ratio = m.get("ratio_s2sad_hand")
        row = [name, _mem_cell(m.get("s2sad_jit")), _mem_cell(m.get("hand")),
               ("%.2f" if ratio < 100 else "%.0f") % ratio if ratio is not None else "—",
               _mem_cell(m.get("primal")),
               _mem_cell(m.get("s2sad_jit"), "nrt_allocs"), _mem_cell(m.get("hand"), "nrt_allocs")]
        lines.append("| " + " | ".join(row) + " |")
    return lines


def _timing_tables(results, meta):
    lines = ["Gradient times: median of repeats after warm-up (numba primal, hand, s2sad and "
             "JAX jit timed in turns); (ratio to the numba primal); "
             "✗ = gradient check failed; s2sad as a user gets it (jit=\"auto\": numba, or "
             "numpy where marked); %s, %s; %s." % (
                 meta["machine"]["cpu_model"],
                 "pinned to 1 core" if meta["machine"]["pinned_cpu"] is not None else "unpinned",
                 meta["date"][:10]), ""]
    peers = [(k, t) for k, t in PEER_COLUMNS
             if any(k in r["times"] for r in results.values())]
    head = ["", "numba primal", "s2sad", "s2sad / hand", "s2sad / primal",
            "s2sad jit=False", "hand numba"] + [t for _, t in peers]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "---|" * len(head))
    for name, r in results.items():
        p = r["times"].get("primal", {}).get("median_s")
        s2sad = _cell(r, "s2sad_jit", p) + (" numpy" if r.get("engine") == "numpy" else "")
        row = [name, fmt_time(p) if p else r["times"].get("primal", {}).get("status", "error"),
               s2sad, _ratio(r, "s2sad_jit/hand"),
               _ratio(r, "s2sad_jit/primal"), _cell(r, "s2sad_py", p), _cell(r, "hand", p)]
        row += [_cell(r, k, p) for k, _ in peers]
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", "First-call latency (compile): numba = first calls of njit(primal) + "
              "njit(hand_grad) minus a steady call, fresh process; s2sad = grad() + first "
              "call, fresh process, empty vs warm S2SAD_CACHE_DIR (imports excluded; warm: "
              "median of 3 processes); codegen = grad(f, jit=False).source, the first in the "
              "process (median of generating it 5 more times).", ""]
    head = ["", "numba primal + hand", "s2sad cold", "cold / numba", "s2sad warm cache",
            "s2sad codegen (jit=False)"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "---|" * len(head))
    for name, r in results.items():
        c = r.get("compile", {})
        nb = c.get("numba", {}).get("total_compile_s")
        cold = c.get("s2sad_cold", {}).get("total_s")
        warm = c.get("s2sad_warm", {}).get("total_s")
        gen = r.get("codegen", {}).get("grad_s")  # may come via source_for (see JSON)

        def show(v, entry):
            if v is not None:
                return fmt_time(v)
            return "error" if c.get(entry, {}).get("error") else "—"
        row = [name, show(nb, "numba"), show(cold, "s2sad_cold"),
               "%.2f" % (cold / nb) if cold and nb else "—", show(warm, "s2sad_warm"),
               _codegen_cell(r.get("codegen", {}))]
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", "Gradient checks (max abs error / max(1, max |reference|)); hand vs central "
              "finite differences on small inputs, others vs hand on small / timed inputs.", ""]
    keys = ["s2sad_jit", "s2sad_py"] + (["s2sad_numba"] if any(
        "s2sad_numba" in r["times"] for r in results.values()) else []) + [k for k, _ in peers]
    head = ["", "hand vs FD"] + keys
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "---|" * len(head))
    for name, r in results.items():
        ck = r.get("checks", {})
        row = [name, "%.1e" % ck["hand_vs_fd"] if ck.get("hand_vs_fd") is not None else "error"]
        for k in keys:
            e = ck.get(k)
            if e is None:
                row.append(r["times"].get(k, {}).get("status", "—"))
            elif "error" in e:
                row.append(e.get("status", "error"))
            else:
                row.append(" / ".join("%.0e" % e[s] if e.get(s) is not None else "—"
                                      for s in ("small", "full")))
        lines.append("| " + " | ".join(row) + " |")
    return lines
