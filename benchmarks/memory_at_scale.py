"""Memory at scale: gradients of long time loops under memory budgets
(binomial checkpointing, s2sad.checkpointing), each run in a fresh process.

    python benchmarks/memory_at_scale.py            # the table (minutes)
    python benchmarks/memory_at_scale.py --quick    # small sizes (seconds)
    python benchmarks/memory_at_scale.py run CASE BUDGET STEPS   # one probe

Peak memory is the peak resident set (VmHWM) of the probe process during
the gradient call, minus its resident set just before (after a warm-up call
at a small size that compiles and caches the derivative): numba's
allocations bypass tracemalloc. glibc is told to mmap big blocks
(MALLOC_MMAP_THRESHOLD_) so that freed tapes leave the resident set.
Times are one call (the sizes make each call seconds long).
"""
import json
import math
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))


def heat(u0, kappa, nsteps):
    """1-D heat equation, explicit 3-point stencil, fixed ends (the HEAT
    workload's loop); loss sum(u_T^2)."""
    n = u0.shape[0]
    r = kappa * 0.25
    u = u0.copy()
    un = np.empty(n)
    for t in range(nsteps):
        un[0] = u[0]
        un[n - 1] = u[n - 1]
        for i in range(1, n - 1):
            un[i] = u[i] + r * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        for i in range(n):
            u[i] = un[i]
    loss = 0.0
    for i in range(n):
        loss += u[i] * u[i]
    return loss


def euler(a, x0, nsteps):
    """W1's shape: a scalar recurrence."""
    x = x0
    for i in range(nsteps):
        x = x + 1e-4 * (a * math.sin(x) - 0.5 * x * x * x + 1.0)
    return x


import numpy as np  # noqa: E402  (after the functions: they read it as a global)

def _ode():
    from benchmarks.gradbench.ode import ode_last
    return ode_last


CASES = {
    "heat": (heat, lambda steps: (np.sin(np.linspace(0, 3, 4096)), 0.5, steps), (0, 1)),
    "euler": (euler, lambda steps: (1.1, 0.3, steps), (0,)),
    # GradBench ode at n = 10^5 (the time loop is in a helper), s steps
    "ode": (_ode, lambda steps: (np.random.default_rng(0).random(10**5 if steps > 3 else 4),
                                 steps), (0,)),
}


def _rss():
    with open("/proc/self/status") as f:
        fields = dict(line.split(":", 1) for line in f)
    return int(fields["VmRSS"].split()[0]) * 1024, int(fields["VmHWM"].split()[0]) * 1024


def probe(case, budget, steps):
    """One gradient call in this (fresh) process: peak memory above the
    baseline, time, and the schedule's predicted repetitions."""
    import s2sad
    from s2sad import checkpointing as C
    fn, make, wrt = CASES[case]
    fn = fn() if fn is _ode else fn
    memory = None if budget == "none" else budget
    g = s2sad.grad(fn, wrt, jit=True, memory=memory)
    g(*make(3))  # compile (cached) at a small size
    args = make(steps)
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # reset the peak resident set
    base, _ = _rss()
    start = time.perf_counter()
    g(*args)
    elapsed = time.perf_counter() - start
    _, peak = _rss()
    state = {"heat": 2 * 4096 * 8, "euler": 8, "ode": 5 * 10**5 * 8}[case]  # u, un; x; y, k1..k4
    largest = {"heat": 4096 * 8, "euler": 8, "ode": 10**5 * 8}[case]
    assignments = {"heat": 12, "euler": 10, "ode": 33}[case]  # checkpoint_loops._assignments
    reps = None
    if memory is not None:
        budget_bytes = C.memory_budget(memory)
        if steps * assignments * largest > budget_bytes:
            s = C.checkpoint_slots(0, budget_bytes, steps, state,
                                   assignments * largest + 2 * state)
            s = max(1, min(s, steps))
            reps = C.repetitions(steps, s)
    return {"case": case, "budget": budget, "steps": steps, "peak_bytes": peak - base,
            "seconds": elapsed, "repetitions": reps}


def _run(case, budget, steps):
    env = dict(os.environ, MALLOC_MMAP_THRESHOLD_="65536")
    out = subprocess.run([sys.executable, __file__, "run", case, str(budget), str(steps)],
                         capture_output=True, text=True, env=env, timeout=3600)
    if out.returncode:
        return {"case": case, "budget": budget, "steps": steps, "error": out.stderr[-400:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def table(quick=False):
    scale = 100 if quick else 1
    big, full = 200_000 // scale, 10_000 // scale
    rows = [_run("heat", "none", full)]
    for budget in ("1GB", "64MB", "1MB"):
        rows.append(_run("heat", budget, big))
    rows.append(_run("euler", "none", 10**7 // scale))
    rows.append(_run("euler", "1MB", 10**7 // scale))
    rows.append(_run("ode", "none", 100 // scale or 2))
    rows.append(_run("ode", "64MB", 100 // scale or 2))
    return rows, big


def markdown(rows, big):
    ref = next(r for r in rows if r["case"] == "heat" and r["budget"] == "none")
    per_step = ref["seconds"] / ref["steps"]
    lines = ["| loop | steps | budget | peak memory | time | vs full tape (scaled) | "
             "revolve repetitions |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['case']} | {r['steps']:,} | {r['budget']} | error | | | |")
            continue
        ratio = ""
        if r["case"] == "heat":
            ratio = f"{r['seconds'] / (per_step * r['steps']):.2f}x"
        budget = "none (full tape)" if r["budget"] == "none" else r["budget"]
        reps = "" if r["repetitions"] is None else str(r["repetitions"])
        lines.append(f"| {r['case']} | {r['steps']:,} | {budget} | "
                     f"{r['peak_bytes'] / 1e6:,.1f} MB | {r['seconds']:.2f} s | {ratio} | {reps} |")
    return "\n".join(lines)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "run":
        print(json.dumps(probe(sys.argv[2], sys.argv[3], int(sys.argv[4]))))
    else:
        rows, big = table("--quick" in sys.argv)
        print(markdown(rows, big))
        path = os.path.join(HERE, "results", "memory_at_scale.json")
        if "--quick" not in sys.argv:
            with open(path, "w") as f:
                json.dump(rows, f, indent=1)
