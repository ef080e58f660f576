"""The full systematic grid.

    python -m tests.systematic.run [--jit] [--limit N] [--modes grad,jvp,hvp,hessian]
        [--filter TEXT] [--sample N] [--workers 2] [--timeout 120] [--budget SECONDS]
        [--out results.jsonl]

Checks every case (or the first N, or those whose id contains TEXT) and
prints a summary table of failures: case id, mode, kind of failure (wrong
value / crash / refused / should-have-refused), and the numba fallbacks
(with --jit), grouped by rule. Exit status 1 if anything failed."""
import argparse
import collections
import json
import os
import signal
import sys
import tempfile
import time
from dataclasses import asdict

KINDS = {"wrong": "wrong value", "crash": "crash", "refused": "refused (rule declares it)",
         "should-refuse": "should have refused"}


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout("timed out")


def run_chunk(job):
    """In a worker: check the cases at `indices` (of grid.build_cases())."""
    indices, jit, modes, timeout, directory = job
    from .check import Result, run_case, write_module
    from .grid import build_cases
    cases = build_cases()
    chosen = [cases[i] for i in indices]
    fns = write_module(chosen, directory, f"systematic_cases_{indices[0]}")
    out = []
    signal.signal(signal.SIGALRM, _alarm)
    for case in chosen:
        start = time.time()
        signal.alarm(timeout)
        try:
            results = run_case(case, fns[case.id], jit=jit, modes=modes)
        except _Timeout:
            results = [Result(case.id, case.rule, "all", jit, "crash", f"timeout ({timeout} s)")]
        finally:
            signal.alarm(0)
        took = time.time() - start
        out += [dict(asdict(r), seconds=took) for r in results]
    return out


def summarize(results, cases_by_id, stream=sys.stdout):
    w = stream.write
    counts = collections.Counter(r["status"] for r in results)
    w(f"\n{len(results)} checks of {len({r['case'] for r in results})} cases: "
      + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) + "\n")
    failed = [r for r in results if r["status"] in KINDS]
    if failed:
        w(f"\nFAILURES ({len(failed)})\n")
        w(f"{'case':60} {'mode':8} {'failure':26} detail\n")
        for r in sorted(failed, key=lambda r: (r["rule"], r["case"], r["mode"])):
            w(f"{r['case'][:60]:60} {r['mode']:8} {KINDS[r['status']]:26} {r['detail'][:160]}\n")
        w("\nfailures by rule and kind:\n")
        by = collections.Counter((r["rule"], r["mode"], r["status"]) for r in failed)
        for (rule, mode, status), n in sorted(by.items()):
            w(f"  {rule:24} {mode:8} {KINDS[status]:26} {n}\n")
        w("\nreproducers (first failing mode of each case):\n")
        seen = set()
        for r in sorted(failed, key=lambda r: r["case"]):
            if r["case"] not in seen:
                seen.add(r["case"])
                w(f"  [{r['mode']}] {r['case']}: {cases_by_id[r['case']].reproducer()[:200]}\n")
    fallbacks = [r for r in results if r["fallback"]]
    if fallbacks:
        w(f"\nNUMBA FALLBACKS ({len(fallbacks)} checks, "
          f"{len({r['case'] for r in fallbacks})} cases)\n")
        by = collections.Counter((r["rule"], r["fallback"][:160]) for r in fallbacks)
        for (rule, reason), n in sorted(by.items()):
            w(f"  {rule:24} {n:4}  {reason}\n")
    other = [r for r in results if r["status"] in ("kink", "skip")]
    if other:
        w(f"\nnot compared ({len(other)}):\n")
        by = collections.Counter((r["status"], r["detail"][:80]) for r in other)
        for (status, detail), n in sorted(by.items()):
            w(f"  {status:6} {n:4}  {detail}\n")
        for r in other:
            if not r["detail"].startswith("gradient "):
                w(f"    {r['case'][:60]:60} {r['mode']:8} {r['detail'][:80]}\n")
    return len(failed)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jit", action="store_true", help="compile with numba (jit=True)")
    ap.add_argument("--limit", type=int, default=None, help="the first N cases only")
    ap.add_argument("--filter", default="", help="cases whose id contains this text")
    ap.add_argument("--family", default="",
                    help="cases of one families_*.py module only (e.g. shapes)")
    ap.add_argument("--per-rule", type=int, default=None,
                    help="at most N cases of each rule (the first ones of the grid)")
    ap.add_argument("--sample", type=int, default=None,
                    help="N cases taken round-robin over the rules (as the CI sample)")
    ap.add_argument("--modes", default=None,
                    help="comma-separated; default grad,jvp,hvp,hessian (--jit: grad,jvp)")
    ap.add_argument("--workers", type=int, default=max(1, min(2, os.cpu_count() or 1)))
    ap.add_argument("--chunk", type=int, default=20)
    ap.add_argument("--budget", type=float, default=None,
                    help="seconds: start no new chunk after this (the summary covers the rest)")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per case")
    ap.add_argument("--out", default=None, help="write every result as JSON lines")
    ap.add_argument("--no-check", action="store_true",
                    help="derivatives do not check themselves (S2SAD_CHECK is 1 otherwise)")
    args = ap.parse_args(argv)
    from .grid import build_cases, ci_sample, coverage
    modes = tuple((args.modes or ("grad,jvp" if args.jit else "grad,jvp,hvp,hessian")).split(","))
    cases = build_cases()
    indices = [i for i, c in enumerate(cases) if args.filter in c.id]
    if args.family:
        import importlib
        family = importlib.import_module(f"{__package__}.families_{args.family}")
        own = {c.id for c in family.cases()}
        indices = [i for i in indices if cases[i].id in own]
    if args.sample is not None:
        position = {c.id: i for i, c in enumerate(cases)}
        chosen = ci_sample(args.sample, kinds=("value", "tie", "either", "refuse"),
                           salt="run", jit=False)
        indices = [position[c.id] for c in chosen if args.filter in c.id]
    if args.per_rule is not None:
        seen = {}
        kept = []
        for i in indices:
            seen[cases[i].rule] = seen.get(cases[i].rule, 0) + 1
            if seen[cases[i].rule] <= args.per_rule:
                kept.append(i)
        indices = kept
    if args.limit is not None:
        indices = indices[:args.limit]
    missing, unknown = coverage(cases)
    print(f"{len(indices)} of {len(cases)} cases, jit={args.jit}, modes={','.join(modes)}; "
          f"rules without a case: {missing or 'none'}")
    # every derivative also checks itself (plain twin, Taylor, forward vs reverse)
    os.environ["S2SAD_CHECK"] = "0" if args.no_check else os.environ.get("S2SAD_CHECK", "1")
    directory = tempfile.mkdtemp(prefix="s2sad-systematic-")
    os.environ.setdefault("S2SAD_CACHE_DIR", os.path.join(directory, "cache"))
    jobs = [(indices[k:k + args.chunk], args.jit, modes, args.timeout, directory)
            for k in range(0, len(indices), args.chunk)]
    start = time.time()
    results = []
    out = open(args.out, "w") if args.out else None

    def collect(chunk, done):
        results.extend(chunk)
        if out:
            out.writelines(json.dumps(r) + "\n" for r in chunk)
            out.flush()
        print(f"  {done}/{len(jobs)} chunks, {time.time() - start:.0f} s", flush=True)

    def in_budget():
        return args.budget is None or time.time() - start < args.budget

    if args.workers > 1:
        import concurrent.futures as cf
        import multiprocessing
        with cf.ProcessPoolExecutor(args.workers, mp_context=multiprocessing.get_context(
                "spawn")) as pool:
            pending = list(jobs)
            running = {pool.submit(run_chunk, pending.pop(0)) for _ in range(
                min(args.workers, len(pending)))}
            done = 0
            while running:
                finished, running = cf.wait(running, return_when=cf.FIRST_COMPLETED)
                for f in finished:
                    done += 1
                    collect(f.result(), done)
                    if pending and in_budget():
                        running.add(pool.submit(run_chunk, pending.pop(0)))
    else:
        for k, job in enumerate(jobs):
            if not in_budget():
                break
            collect(run_chunk(job), k + 1)
    if out:
        out.close()
    checked = len({r["case"] for r in results})
    print(f"{time.time() - start:.0f} s; {checked} of {len(indices)} cases checked"
          + (" (time budget reached)" if checked < len(indices) else ""))
    slow = sorted({(r["seconds"], r["case"]) for r in results}, reverse=True)[:5]
    print("slowest cases: " + ", ".join(f"{c} {s:.1f} s" for s, c in slow))
    failed = summarize(results, {c.id: c for c in cases})
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
