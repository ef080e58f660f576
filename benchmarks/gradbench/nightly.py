"""Run the s2sad GradBench tool at the sizes of GradBench's nightly runs,
without GradBench: synthesise every eval's inputs at its default sizes
(GRADBENCH.md §6), drive `run.py` through the protocol exactly as the
intermediary would (one JSON line per message, min_runs = 1, min_seconds = 1),
and check every answer against an independent reference.

    python benchmarks/gradbench/nightly.py                      # everything, hours
    python benchmarks/gradbench/nightly.py --evals lse,llsq --min-seconds 0
    python benchmarks/gradbench/nightly.py --quick              # tiny sizes, seconds

For each response it records success, its wall time (message sent to
response read; `define` included; the nightly kills a response after 600 s),
the `evaluate` timings, and whether the output passes GradBench's rule
|a − b| / max(1, |a| + |b|) ≤ 1e-4 against:

* closed forms: lse (softmax), llsq (the formula, with numpy), kmeans (cost,
  and dir = C_j − the mean of the points nearest to C_j), det (numpy's det,
  and the cofactors det(A)·inv(A)ᵀ), ode (a vectorised RK4 for the primal;
  for the gradient GradBench's own quirk: the gradient of the exact solution
  2ⁿ/n!·Πx, which underflows to 0 at these sizes), particle and saddle (the
  eval's constants), ba (the CSR row/column structure, observation 0's values
  by finite differences of an independent projection, −2w);
* gmm, lstm, ht: independent numpy implementations written from
  GRADBENCH.md (the primal is compared whole) and central finite differences
  of them, in extended precision (np.longdouble), on a few random entries of
  the derivative (ht: a few whole columns).

Sizes are GradBench's defaults. ht uses a synthetic 22-bone "big" model
(V = 10000 vertices, T = 1084 triangles, complicated variant); ba uses the n,
m, p of ADBench's files ba1…ba14 (the stems below, e.g.
ba14_n356_m226730_p1255268) with the compressed input GradBench sends (one
camera, point, weight and feature, replicated), with made-up but plausible
values. lstm's text is the ASCII part of the repository's README, repeated. hello (not
scored) is left to tests/test_gradbench.py.

Prints one line per response and a table at the end; exits non-zero if any
response failed, was invalid or took longer than 600 s. --json FILE saves
the records; --summary FILE prints the per-eval table of a saved run.
"""
import argparse
import json
import math
import os
import queue
import resource
import subprocess
import sys
import threading
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
RUN = os.path.join(HERE, "run.py")
LIMIT = 600.0  # seconds per response, as in the nightly runs
TOL = 1e-4
ORDER = ("lse", "llsq", "ode", "det", "kmeans", "particle", "saddle", "lstm", "gmm", "ba", "ht")


# ------------------------------------------------------------ the inputs
# Each synthesiser yields (description, input without the runs fields,
# functions); `quick` gives tiny sizes.

def lse_workloads(quick, g):
    for e in range(3 if quick else 10):
        n = (4 if quick else 2500) * 2 ** e
        yield f"n={n}", {"x": g.random(n).tolist()}, ("primal", "gradient")


def llsq_workloads(quick, g):
    m = 8 if quick else 128
    ns = [16, 32] if quick else [16 * 2 ** e for e in range(9)] + [8196, 16392]
    for n in ns:
        yield f"n={n},m={m}", {"x": g.random(m).tolist(), "n": n}, ("primal", "gradient")


def ode_workloads(quick, g):
    sizes = [(3, 1), (4, 2)] if quick else [(n, s) for n in (1000, 10000, 100000)
                                             for s in (1, 10, 100)]
    for n, s in sorted(sizes, key=lambda ns: ns[0] * ns[1]):
        yield f"n={n},s={s}", {"x": g.random(n).tolist(), "s": s}, ("primal", "gradient")


def det_workloads(quick, g):
    for ell in ([2, 4] if quick else range(5, 12)):
        yield f"{ell}", {"A": g.random(ell * ell).tolist(), "ell": ell}, ("primal", "gradient")


def kmeans_workloads(quick, g):
    sizes = [(2, 10, 2), (3, 20, 3)] if quick else [(k, n, d) for k in (10, 100, 1000)
                                                     for n in (1000, 10000) for d in (8, 16)]
    for k, n, d in sorted(sizes, key=lambda s: s[0] * s[1] * s[2]):
        points = g.random((n, d))
        yield (f"k={k},n={n},d={d}", {"points": points.tolist(), "centroids": points[-k:].tolist()},
               ("cost", "dir"))


def particle_workloads(quick, g):
    yield "w=0", {"w": 0.0}, ("rr", "ff", "fr", "rf")


def saddle_workloads(quick, g):
    yield "w=0", {"start": [1.0, 1.0]}, ("rr", "ff", "fr", "rf")


def gmm_workloads(quick, g):
    sizes = [(2, 3, 5), (3, 2, 4)] if quick else [(d, k, 1000) for d in (2, 10, 20, 32, 64)
                                                   for k in (5, 10, 25, 50, 100)]
    for d, k, n in sorted(sizes, key=lambda s: s[0] * s[1]):
        inp = {"d": d, "k": k, "n": n, "m": 0, "gamma": 1.0,
               "x": g.standard_normal((n, d)).tolist(), "alpha": g.standard_normal(k).tolist(),
               "mu": g.random((k, d)).tolist(), "q": g.standard_normal((k, d)).tolist(),
               "l": g.standard_normal((k, d * (d - 1) // 2)).tolist()}
        yield f"{d}_{k}_{n}", inp, ("objective", "jacobian")


def text_bits(c):
    """The first c characters of an ASCII English text as bits, MSB first."""
    with open(os.path.join(os.path.dirname(os.path.dirname(HERE)), "README.md")) as f:
        text = "".join(ch for ch in f.read() if 32 <= ord(ch) < 127 or ch == "\n")
    text = (text * (c // len(text) + 1))[:c]
    b = math.ceil(math.log2(max(map(ord, text))))
    return [[float(ord(ch) >> (b - 1 - i) & 1) for i in range(b)] for ch in text], b


def lstm_workloads(quick, g):
    sizes = [(1, 5), (2, 9)] if quick else [(L, c) for L in (2, 4, 6) for c in (1024, 4096, 8192)]
    for L, c in sorted(sizes, key=lambda s: s[0] * s[1]):
        seq, b = text_bits(c)
        inp = {"main_params": g.random((2 * L, 4 * b)).tolist(),
               "extra_params": g.random((3, b)).tolist(), "state": g.random((2 * L, b)).tolist(),
               "sequence": seq}
        yield f"l={L},c={c}", inp, ("objective", "jacobian")


BA_FILES = ["ba1_n49_m7776_p31843", "ba2_n21_m11315_p36455", "ba3_n161_m48126_p182072",
            "ba4_n372_m47423_p204472", "ba5_n257_m65132_p225911", "ba6_n539_m65220_p277273",
            "ba7_n93_m61203_p287451", "ba8_n88_m64298_p383937", "ba9_n810_m88814_p393775",
            "ba10_n1197_m126327_p563734", "ba11_n1723_m156502_p678718",
            "ba12_n253_m163691_p899155", "ba13_n245_m198739_p1091386",
            "ba14_n356_m226730_p1255268"]


def ba_workloads(quick, g):
    files = ["ba0_n2_m3_p16", "ba0_n3_m5_p40"] if quick else BA_FILES
    for stem in files:
        n, m, p = (int(part[1:]) for part in stem.split("_")[1:])
        cam = np.concatenate([0.1 * g.standard_normal(3), g.standard_normal(3) + [0, 0, -5],
                              [400 + 200 * g.random()], g.standard_normal(2),
                              [1e-3 * g.standard_normal(), 1e-6 * g.standard_normal()]])
        inp = {"n": n, "m": m, "p": p, "cam": cam.tolist(), "x": g.standard_normal(3).tolist(),
               "w": 0.5 + g.random(), "feat": (50 * g.standard_normal(2)).tolist()}
        yield stem, inp, ("objective", "jacobian")


HT_PARENTS = [-1, 0, 1, 2, 3, 0, 5, 6, 7, 0, 9, 10, 11, 0, 13, 14, 15, 0, 17, 18, 19, 0]
HT_NPTS = [100, 192, 200, 400, 800, 1600, 3200, 6400, 12800, 25600, 51200, 100000]


def hand_model(g, nverts, ntris):
    """A random but well-formed 22-bone model: rigid base transforms,
    inverse_base_absolutes the inverses of their products along the tree,
    skinning weights rows summing to 1, homogeneous base positions."""
    relatives = np.zeros((22, 4, 4))
    for i in range(22):
        relatives[i, :3, :3] = np.linalg.qr(g.standard_normal((3, 3)))[0]
        relatives[i, :3, 3] = 0.3 * g.standard_normal(3)
        relatives[i, 3, 3] = 1.0
    absolutes = np.zeros_like(relatives)
    for i, parent in enumerate(HT_PARENTS):
        absolutes[i] = relatives[i] if parent < 0 else absolutes[parent] @ relatives[i]
    weights = g.random((nverts, 22)) ** 4  # a few bones dominate each vertex
    return {"bone_count": 22, "bone_names": [f"bone{i}" for i in range(22)],
            "parents": HT_PARENTS, "base_relatives": relatives.tolist(),
            "inverse_base_absolutes": np.linalg.inv(absolutes).tolist(),
            "base_positions": np.hstack([g.standard_normal((nverts, 3)),
                                         np.ones((nverts, 1))]).tolist(),
            "weights": (weights / weights.sum(1, keepdims=True)).tolist(),
            "triangles": g.integers(0, nverts, (ntris, 3)).tolist(), "is_mirrored": False}


def ht_workloads(quick, g):
    nverts, ntris = (30, 12) if quick else (10000, 1084)
    model = hand_model(g, nverts, ntris)
    for i, npts in enumerate([5, 9] if quick else HT_NPTS):
        data = {"model": model, "points": g.standard_normal((npts, 3)).tolist(),
                "correspondences": g.integers(0, ntris, npts).tolist()}
        inp = {"theta": (0.3 * g.standard_normal(26)).tolist(),
               "us": g.random((npts, 2)).tolist(), "data": data}
        yield f"hand{i + 1}_t26_c{npts}", inp, ("objective", "jacobian")


# -------------------------------------------------------------- the session

class Tool:
    """run.py in a subprocess; ask() sends one message and waits for its
    response (at most `limit` seconds; then the tool is killed)."""

    def __init__(self, argv, stderr):
        self.proc = subprocess.Popen([sys.executable, RUN] + argv, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=stderr, text=True,
                                     cwd="/")  # GradBench's cwd is not ours
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.next_id = 0

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def ask(self, kind, limit, **fields):
        msg = {"id": self.next_id, "kind": kind, **fields}
        self.next_id += 1
        text = json.dumps(msg)
        start = time.perf_counter()
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()
        try:
            line = self.lines.get(timeout=limit)
        except queue.Empty:
            self.close()
            return None, time.perf_counter() - start
        wall = time.perf_counter() - start
        if line is None:
            raise RuntimeError(f"the tool exited (code {self.proc.wait()}) on message {msg['id']}")
        response = json.loads(line)
        if response.get("id") != msg["id"]:
            raise RuntimeError(f"response id {response.get('id')} to message {msg['id']}")
        return response, wall

    def close(self):
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def run_eval(name, args, g, report):
    """One session: start, define, then every workload's functions, each
    followed by its analysis. report(record) gets one record per response."""
    import nightly_checks as checks  # the independent references, next to this file
    stderr = open(args.tool_log + f".{name}", "w") if args.tool_log else None
    tool = Tool(["--python"] if args.python else [], stderr)
    limit = args.kill_after
    try:
        response, _ = tool.ask("start", limit, eval=name)
        response, wall = tool.ask("define", limit, module=name)
        define_ns = next((t["nanoseconds"] for t in (response or {}).get("timings", [])), None)
        ok = bool(response and response.get("success"))
        report({"eval": name, "workload": "", "function": "define", "wall": wall,
                "status": "ok" if ok else ("timeout" if response is None else "failure"),
                "seconds": define_ns and define_ns / 1e9, "runs": 0,
                "error": (response or {}).get("error", "")})
        if not ok:
            return
        synthesise = globals()[f"{name}_workloads"]
        for i, (desc, inp, functions) in enumerate(synthesise(args.quick, g)):
            if args.limit is not None and i >= args.limit:
                break
            if args.workloads and desc not in args.workloads:
                continue
            runs = {"min_runs": 1, "min_seconds": args.min_seconds}
            for function in functions:
                response, wall = tool.ask("evaluate", limit, module=name, function=function,
                                          input={**inp, **runs}, description=desc)
                record = {"eval": name, "workload": desc, "function": function, "wall": wall}
                if response is None:
                    report({**record, "status": "timeout", "seconds": None, "runs": 0,
                            "error": f"no response in {limit} s"})
                    return
                timings = [t["nanoseconds"] / 1e9 for t in response.get("timings", [])
                           if t["name"] == "evaluate"]
                record.update(seconds=float(np.mean(timings)) if timings else None,
                              runs=len(timings))
                if not response.get("success"):
                    report({**record, "status": "failure", "error": response.get("error", "")})
                    continue
                check_start = time.perf_counter()
                try:
                    error = checks.check(name, function, inp, response["output"], g)
                except Exception as exc:  # a broken output (wrong shape, type...)
                    error = f"{type(exc).__name__}: {exc}"
                record["check"] = time.perf_counter() - check_start
                status = "ok" if error is None else "invalid"
                if wall > LIMIT:
                    status, error = "timeout", f"response took {wall:.0f} s > {LIMIT:.0f} s"
                report({**record, "status": status, "error": error or ""})
                analysis = {"of": tool.next_id - 1, "valid": error is None}
                if error is not None:
                    analysis["error"] = error
                tool.ask("analysis", limit, **analysis)
    finally:
        tool.close()
        if stderr:
            stderr.close()
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(f"{name}: the largest tool process so far peaked at {peak:.0f} MB", flush=True)


def fmt(x, width=9):
    return f"{x:{width}.3f}" if isinstance(x, (int, float)) else " " * (width - 1) + "-"


def line(r):
    return (f"{r['eval']:9} {r['workload'][:28]:28} {r['function']:9} {fmt(r['wall'])} "
            f"{fmt(r['seconds'])} {r['runs']:5} {r['status']}")


def summary(records):
    """Per eval: responses ok, define seconds, the largest (last) workload's
    mean seconds per function, the longest response."""
    rows = ["| eval | ok | define s | largest workload | mean s per function | longest response s |",
            "|---|---|---|---|---|---|"]
    for name in dict.fromkeys(r["eval"] for r in records):
        mine = [r for r in records if r["eval"] == name]
        define = next((r["seconds"] for r in mine if r["function"] == "define"), None)
        last = mine[-1]["workload"]
        means = ", ".join(f"{r['function']} {fmt(r['seconds'], 0).strip()}" for r in mine
                          if r["workload"] == last and r["function"] != "define")
        ok = sum(r["status"] == "ok" for r in mine)
        walls = [r["wall"] for r in mine if r["wall"] is not None]
        rows.append(f"| {name} | {ok}/{len(mine)} | {fmt(define, 0).strip()} | {last} | {means} "
                    f"| {fmt(max(walls, default=None), 0).strip()} |")
    return "\n".join(rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--evals", default=",".join(ORDER),
                        help="comma-separated evals (default: all, cheap ones first)")
    parser.add_argument("--quick", action="store_true", help="tiny sizes (a smoke test)")
    parser.add_argument("--limit", type=int, help="only the first (smallest) N workloads")
    parser.add_argument("--workload", action="append", dest="workloads",
                        help="only this description (e.g. n=1000,s=10); repeatable")
    parser.add_argument("--min-seconds", type=float, default=1.0,
                        help="min_seconds sent in each input (GradBench: 1)")
    parser.add_argument("--kill-after", type=float, default=2 * LIMIT,
                        help="kill the tool after this many seconds without a response")
    parser.add_argument("--python", action="store_true", help="run the tool with --python")
    parser.add_argument("--tool-log", help="write the tool's stderr to FILE.<eval>")
    parser.add_argument("--json", help="save the records to this file")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--summary", help="print the per-eval table of a --json file, and exit")
    args = parser.parse_args(argv)
    if args.summary:
        with open(args.summary) as f:
            print(summary(json.load(f)))
        return 0
    sys.path.insert(0, HERE)
    records = []

    def report(r):
        records.append(r)
        print(line(r) + (f"\n    {r['error'][-2000:]}" if r["error"] else ""), flush=True)

    header = (f"{'eval':9} {'workload':28} {'function':9} {'wall s':>9} {'mean s':>9} "
              f"{'runs':>5} status")
    print(header, flush=True)
    for name in args.evals.split(","):
        try:
            run_eval(name, args, np.random.default_rng(args.seed), report)
        except Exception as exc:
            report({"eval": name, "workload": "", "function": "session", "wall": None,
                    "seconds": None, "runs": 0, "status": "error", "error": repr(exc)})
    print("\n" + header)
    for r in records:
        print(line(r))
    bad = [r for r in records if r["status"] != "ok"]
    print("\n" + summary(records))
    print(f"\n{len(records) - len(bad)} ok, {len(bad)} not ok")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(records, f, indent=1)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
