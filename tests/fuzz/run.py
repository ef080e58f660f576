"""The long fuzzing run.

    python -m tests.fuzz.run --programs 10000 [--seed N] [--jit-fraction 0.1]
        [--workers 2] [--out fuzz-failures.txt] [--shrink 3] [--all-features]
        [--family loops [--parallel-fraction 0.1]]
    python -m tests.fuzz.run --recheck fuzz-failures.txt.jsonl [--shrink 1]

--family loops runs the family of the loops scientists write (loops.py)
instead of the general generator; --parallel-fraction of its programs are
also checked with parallel=True (compiled too where they are compiled).

Generates the programs (reproducibly from the seed), checks them in worker
processes, and writes every failure (program, arguments, error) to --out,
grouped by kind, with a summary on stdout. --shrink N reduces the first N
programs of each kind of failure and writes the reduced ones too. Known bugs
(generator.KNOWN_BUGS) are avoided unless --all-features is given. The
failures are also written as JSON lines (<out>.jsonl); --recheck checks those
programs again (after a compiler fix) and, with --shrink, reduces them.
"""
import argparse
import collections
import os
import sys
import tempfile
import time


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--programs", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jit-fraction", type=float, default=0.1)
    ap.add_argument("--workers", type=int, default=max(1, min(2, os.cpu_count() or 1)))
    ap.add_argument("--batch", type=int, default=25)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per program")
    ap.add_argument("--out", default="fuzz-failures.txt")
    ap.add_argument("--shrink", type=int, default=0, metavar="N",
                    help="reduce the first N failing programs of each kind")
    ap.add_argument("--all-features", action="store_true",
                    help="also generate the features of known bugs (generator.KNOWN_BUGS)")
    ap.add_argument("--max-statements", type=int, default=8)
    ap.add_argument("--recheck", metavar="JSONL", help="check the programs of an earlier run again")
    ap.add_argument("--family", choices=("general", "loops"), default="general",
                    help="the general generator, or the loops scientists write (loops.py)")
    ap.add_argument("--parallel-fraction", type=float, default=0.1,
                    help="(--family loops) programs also checked with parallel=True")
    args = ap.parse_args(argv)

    os.environ.setdefault("S2SAD_CACHE_DIR", tempfile.mkdtemp(prefix="s2sad-fuzz-cache-"))
    if args.recheck:
        return recheck(args.recheck, args.shrink)
    from .check import run_programs
    from .generator import KNOWN_BUGS, collect
    from .shrink import shrink, signature

    avoid = frozenset() if args.all_features else frozenset(KNOWN_BUGS)
    t0 = time.time()
    if args.family == "loops":
        from . import loops
        progs = loops.collect(args.programs, seed=args.seed, avoid=avoid,
                              jit_fraction=args.jit_fraction,
                              parallel_fraction=args.parallel_fraction)
    else:
        progs = collect(args.programs, seed=args.seed, avoid=avoid,
                        jit_fraction=args.jit_fraction, max_statements=args.max_statements)
    print(f"generated {len(progs)} {args.family} programs in {time.time() - t0:.1f} s "
          f"(seed {args.seed}, {sum(p.jit for p in progs)} also with jit, "
          f"{sum(p.parallel for p in progs)} with parallel=True"
          f"{', avoiding ' + ', '.join(sorted(avoid)) if avoid else ''})", flush=True)

    t1 = time.time()
    counts = collections.Counter()
    last = [t1]

    import dataclasses
    import json
    partial = args.out + ".partial.jsonl"  # failures as they come: a killed run keeps them
    open(partial, "w").close()

    def progress(i, r):
        if r["status"] in ("fail", "invalid"):
            with open(partial, "a") as fh:
                fh.write(json.dumps(dict(program=dataclasses.asdict(progs[i]), result=r),
                                   default=sorted) + "\n")  # features: a frozenset
        counts[r["status"]] += 1
        done = sum(counts.values())
        if time.time() - last[0] > 30 or done == len(progs):
            last[0] = time.time()
            print(f"  {done}/{len(progs)} checked in {time.time() - t1:.0f} s: "
                  + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())), flush=True)

    results = run_programs(progs, workers=args.workers, batch_size=args.batch,
                           timeout=args.timeout, progress=progress)
    elapsed = time.time() - t1

    groups = collections.defaultdict(list)
    for p, r in zip(progs, results):
        if r["status"] in ("fail", "invalid"):
            groups[(r["status"],) + signature(r) + ((r["culprit"],) if r.get("culprit") else ())
                   ].append((p, r))
    with open(args.out + ".jsonl", "w") as fh:
        for p, r in zip(progs, results):
            if r["status"] in ("fail", "invalid"):
                d = dataclasses.asdict(p)
                d["features"] = sorted(d["features"])
                fh.write(json.dumps(dict(program=d, result=r)) + "\n")
    with open(args.out, "w") as fh:
        fh.write(f"# s2sad fuzz run: {len(progs)} programs, seed {args.seed}, "
                 f"jit fraction {args.jit_fraction}\n")
        for key, items in sorted(groups.items(), key=lambda kv: -len(kv[1])):
            fh.write("\n" + "#" * 78 + f"\n# {len(items)} x {' | '.join(key)}\n" + "#" * 78 + "\n")
            for n, (p, r) in enumerate(items):
                fh.write(_entry(p, r))
                # (not a timeout: with the shrinker's shorter limit any slow
                # compilation would count as the same failure)
                if n < args.shrink and key[0] == "fail" and key[1] not in ("timeout", "crash"):
                    small = shrink(p, r)
                    fh.write("# --- reduced to:\n" + _entry(small, r, header=False))
                    fh.flush()
    stats = collections.Counter(r["status"] for r in results)
    fd = collections.Counter(r.get("fd") for r in results if r["status"] == "ok")
    jit_ok = sum(1 for p, r in zip(progs, results) if p.jit and r["status"] == "ok")
    fell_back = sum(1 for r in results if r.get("fallback"))  # ran as Python, values checked
    print(f"\nchecked {len(progs)} programs in {elapsed:.0f} s: "
          + ", ".join(f"{k} {v}" for k, v in sorted(stats.items())))
    print(f"  passing programs: {fd.get('ok', 0)} compared with finite differences, "
          f"{sum(fd.values()) - fd.get('ok', 0)} only jit/value checks (a kink within h); "
          f"{jit_ok} passed with jit as well ({fell_back} of all ran as Python after "
          f"NumbaFallbackWarning: numba lacks a numpy form they use)")
    for key, items in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        print(f"  {len(items):5d} x {' | '.join(key)}")
    skips = collections.Counter(r["category"] for r in results if r["status"] == "skip")
    if skips:
        print("  skipped: " + ", ".join(f"{v} {k}" for k, v in skips.most_common()))
    plain = collections.Counter(r.get("plain", "not reached") for r in results)
    print("  optimised against plain: " + ", ".join(f"{v} {k}" for k, v in plain.most_common()))
    par = [r for p, r in zip(progs, results) if p.parallel]
    if par:
        print(f"  parallel=True: {sum(r['status'] == 'ok' for r in par)} of {len(par)} programs "
              f"passed ({sum(p.parallel and p.jit for p in progs)} of them compiled)")
    for r in results:  # clear refusals of valid programs: allowed, but worth a look
        if r["status"] == "refused":
            print(f"  refused: {r['message'][:300]}")
    print(f"failures written to {args.out} (and as JSON lines to {args.out}.jsonl)")
    return 1 if any(k[0] == "fail" for k in groups) else 0


def recheck(path, shrink_each):
    """Check the programs of a .jsonl failure file again, in this process."""
    import json
    import warnings

    from .check import check_all, load
    from .generator import from_dict
    from .shrink import shrink

    failed = 0
    with open(path) as fh:
        entries = [json.loads(line) for line in fh if line.strip()]
    for i, e in enumerate(entries):
        prog = from_dict(e["program"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = check_all(load([prog]))[0]
        failed += r["status"] == "fail"
        print(f"[{i}] {r['status']} {r['category']} (was: {e['result']['category']}) "
              f"{r.get('message', '')[:300]}", flush=True)
        if r["status"] == "fail" and shrink_each:
            print("# --- reduced to:\n" + _entry(shrink(prog, r), r, header=False), flush=True)
    return 1 if failed else 0


def _entry(p, r, header=True):
    lines = []
    if header:
        lines.append(f"\n# {r['category']}: {r.get('message', '')[:2000]}")
    lines.append(f"# args {p.arg_names} = {p.call_text()}, wrt {p.wrt}, jit {p.jit}, "
                 f"features {sorted(p.features)}")
    lines.append(p.source)
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
