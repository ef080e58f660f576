"""s2sad against GradBench's hand-written C++ (its `manual` tool), eval by
eval, on the same inputs.

    python -m benchmarks.gradbench.compare --gradbench /path/to/gradbench
    python -m benchmarks.gradbench.compare --gradbench /path/to/gradbench \
        --evals lse,gmm --size default

For each eval, GradBench's own eval program (python/gradbench/gradbench/
evals/EVAL/run.py in the checkout) generates the inputs and talks to the
`manual` tool through GradBench's protocol, with this script as the
intermediary: every evaluate runs the tool's prebuilt binary
(tools/manual/bin/EVAL), as GradBench's cpp.py does. Each message the eval
sends is then sent, unchanged, to s2sad's tool (benchmarks/gradbench/run.py,
one fresh process per eval), right after manual answered it, and each s2sad
output is compared with manual's by GradBench's own rule
(gradbench.comparison).

Both tools time each run of a message (the `evaluate` timings); a message's
per-call time is the median of its runs (--statistic min: the fastest). Per eval the table gives the
median over the eval's derivative messages (every function but the primal:
gradient, jacobian, dir, ...) of the ratio s2sad/manual, its range, and the
two per-call times (medians over the same messages); the primal's ratio and
s2sad's define time (generating and compiling) beside.

Setup, once, in the checkout (no docker):

    make -C cpp json.hpp   # or copy nlohmann/json's single_include/nlohmann/json.hpp
                           # (v3.11.3) to cpp/json.hpp
    make -C tools/manual NATIVE=no
    pip install pydantic dataclasses-json scipy   # what GradBench's evals import

lstm's eval reads evals/lstm/data/lstm_full.txt, a large text file that a
partial copy of the repository may lack: without it, lstm is skipped. An eval whose binary
or input data is missing is skipped with the reason; without a checkout or
without a single manual binary the whole run is skipped (exit status 0).
"""
import argparse
import datetime
import json
import os
import platform
import select
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RUN = os.path.join(HERE, "run.py")
EVALS = ("ba", "det", "gmm", "ht", "kmeans", "llsq", "lse", "lstm", "ode", "particle", "saddle")
PRIMALS = ("primal", "objective", "cost")  # every other function is a derivative
EVAL_DEPENDENCIES = ("numpy", "scipy", "pydantic", "dataclasses_json")

# The eval programs' size arguments. "small": the smallest of GradBench's
# default sizes (a few minutes for all evals); "default": GradBench's own.
SMALL = {
    "ba": ["--min", "1", "--max", "3"],
    "det": ["-l", "5", "6", "7", "8"],
    "gmm": ["-d", "2", "10", "-k", "5", "10"],
    "ht": ["--min", "1", "--max", "3"],
    "kmeans": ["-k", "10", "100", "-n", "1000", "-d", "8"],
    "llsq": ["-n", "16", "64", "256", "1024"],
    "lse": ["-n", "2500", "10000", "40000"],
    "lstm": ["-l", "2", "4", "-c", "1024"],
    "ode": ["-n", "1000", "-s", "1", "10"],
    "particle": [],
    "saddle": [],
}
# What a reader of the table must know about manual's side of an eval.
NOTES = {
    "ode": "manual's gradient is the closed form of the ODE's exact solution "
           "(no differentiation of the Runge-Kutta loop, constant in s): its ratio is not "
           "an autodiff comparison",
}
NEEDS = {"lstm": "evals/lstm/data/lstm_full.txt", "ba": "evals/ba/data", "ht": "evals/ht/data"}


class Skip(Exception):
    """A reason to skip an eval (or the whole run), for the reader."""


# ------------------------------------------------------------ the numbers

def runs_of(timings):
    """A response's `evaluate` timings, in ns."""
    return [t["nanoseconds"] for t in timings or () if t.get("name") == "evaluate"]


def per_call(runs, statistic="median"):
    """A message's per-call time from its runs' times: their median, or
    their minimum (what the call costs when nothing else runs: on a busy
    machine the median of a long call drifts up with the load); None if
    none."""
    if not runs:
        return None
    return min(runs) if statistic == "min" else statistics.median(runs)


def with_statistic(records, statistic):
    """The records with their per-call times (manual_ns, s2sad_ns) taken
    from their runs by `statistic`."""
    return [r | {"manual_ns": per_call(r["manual_runs"], statistic),
                 "s2sad_ns": per_call(r["s2sad_runs"], statistic)} for r in records]


def summarise(records):
    """Per eval, from records {eval, function, manual_ns, s2sad_ns, ...}
    (one per evaluate message; *_ns None when that tool failed): the
    derivative ratio (median over messages, and its range), the per-call
    times, the primal ratio. Ratios come from messages both tools answered."""
    rows = []
    for name in dict.fromkeys(r["eval"] for r in records):
        mine = [r for r in records if r["eval"] == name]
        derivs = [r for r in mine if r["function"] not in PRIMALS]
        primals = [r for r in mine if r["function"] in PRIMALS]
        both = [r for r in derivs if r["manual_ns"] and r["s2sad_ns"]]
        ratios = [r["s2sad_ns"] / r["manual_ns"] for r in both]
        primal_ratios = [r["s2sad_ns"] / r["manual_ns"] for r in primals
                         if r["manual_ns"] and r["s2sad_ns"]]
        rows.append({
            "eval": name,
            "functions": list(dict.fromkeys(r["function"] for r in derivs)),
            "messages": len(derivs),
            "answered": len(both),
            "ratio": statistics.median(ratios) if ratios else None,
            "low": min(ratios) if ratios else None,
            "high": max(ratios) if ratios else None,
            "manual_ns": statistics.median(r["manual_ns"] for r in both) if both else None,
            "s2sad_ns": statistics.median(r["s2sad_ns"] for r in both) if both else None,
            "primal_ratio": statistics.median(primal_ratios) if primal_ratios else None,
            "define_s": next((r["define_s"] for r in mine if r.get("define_s") is not None), None),
            "mismatches": sum(1 for r in mine if r.get("valid") is False),
            "checked": sum(1 for r in mine if r.get("valid") is not None),
        })
    return rows


def seconds(ns):
    """A duration in ns as a short human string."""
    if ns is None:
        return "–"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def times(ratio):
    return "–" if ratio is None else f"{ratio:.3g}x"


def markdown(rows, skipped=()):
    """The summary table (and a line per skipped eval)."""
    lines = ["| eval | derivative | messages | manual per call | s2sad per call | "
             "s2sad/manual | range | primal s2sad/manual | s2sad define | outputs match |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        answered = (f"{r['answered']}/{r['messages']}" if r["answered"] != r["messages"]
                    else str(r["messages"]))
        span = "–" if r["low"] is None else f"{r['low']:.3g}–{r['high']:.3g}"
        define = "–" if r["define_s"] is None else f"{r['define_s']:.1f} s"
        match = f"{r['checked'] - r['mismatches']}/{r['checked']}"
        lines.append(f"| {r['eval']} | {', '.join(r['functions'])} | {answered} | "
                     f"{seconds(r['manual_ns'])} | {seconds(r['s2sad_ns'])} | "
                     f"{times(r['ratio'])} | {span} | {times(r['primal_ratio'])} | "
                     f"{define} | {match} |")
    for name, reason in skipped:
        lines.append(f"| {name} | skipped: {reason} | | | | | | | | |")
    notes = [f"{r['eval']}: {NOTES[r['eval']]}." for r in rows if r["eval"] in NOTES]
    return "\n".join(lines + ([""] + notes if notes else []))


def message_table(records):
    """One row per evaluate message."""
    lines = ["| eval | function | input | manual per call | s2sad per call | s2sad/manual "
             "| match |",
             "|---|---|---|---|---|---|---|"]
    for r in records:
        ratio = r["s2sad_ns"] / r["manual_ns"] if r["manual_ns"] and r["s2sad_ns"] else None
        match = {True: "yes", False: "NO", None: "–"}[r.get("valid")]
        lines.append(f"| {r['eval']} | {r['function']} | {r.get('description') or ''} | "
                     f"{seconds(r['manual_ns'])} | {seconds(r['s2sad_ns'])} | {times(ratio)} | "
                     f"{match} |")
    return "\n".join(lines)


# ------------------------------------------------------------ the two tools

class Manual:
    """GradBench's `manual` tool, answering as GradBench's cpp.py does but
    with the binaries already built (cpp.py rebuilds them at every define)."""

    def __init__(self, gradbench, cpp):
        self.bin = os.path.join(gradbench, "tools", "manual", "bin")
        self.cpp = cpp  # gradbench.cpp, for its parsing of a binary's output

    def handle(self, msg):
        kind = msg["kind"]
        if kind == "start":
            return {"tool": "manual"}
        if kind == "define":
            exists = os.path.exists(os.path.join(self.bin, msg["module"]))
            return {"success": exists} | ({} if exists else {"error": "not built"})
        if kind == "evaluate":
            with tempfile.NamedTemporaryFile("w", suffix=".json") as tmp:
                json.dump(msg["input"], tmp)
                tmp.flush()
                return self.cpp.evaluate_completed_process(subprocess.run(
                    [os.path.join(self.bin, msg["module"]), tmp.name, msg["function"]],
                    text=True, capture_output=True))
        return {}


class Lines:
    """A subprocess spoken to in JSON lines, with a time limit per answer."""

    def __init__(self, argv, limit, **kwargs):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     **kwargs)
        self.limit = limit

    def send(self, msg):
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()

    def receive(self):
        """The next line as JSON; None at the end of output. One line at a
        time is pending (request, response), so select on the pipe is safe."""
        ready, _, _ = select.select([self.proc.stdout], [], [], self.limit)
        if not ready:
            raise TimeoutError(f"no answer in {self.limit:g} s")
        line = self.proc.stdout.readline()
        return json.loads(line) if line.strip() else None

    def close(self):
        if self.proc.poll() is None:
            try:
                self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()


def relay(gradbench, name, size_args, runs, manual, limit, log):
    """GradBench's eval program `name` driving the manual tool, each message
    (but the analyses of manual's answers) also sent, right after, to a
    fresh s2sad tool: the two run one after the other on every input, so a
    change in the machine's load hits both. Returns the messages with
    manual's responses, s2sad's responses by message id, and the wall time
    of s2sad's define in s."""
    env = dict(os.environ, PYTHONPATH=os.path.join(gradbench, "python", "gradbench"))
    program = os.path.join(gradbench, "python", "gradbench", "gradbench", "evals", name, "run.py")
    evaluator = Lines([sys.executable, program, *size_args, *runs], limit, cwd=gradbench, env=env)
    tool = Lines([sys.executable, RUN], limit, stderr=log)
    exchanged, responses, define_s, broken = [], {}, None, None
    try:
        while True:
            msg = evaluator.receive()
            if msg is None or msg["kind"] == "end":
                break
            response = {"id": msg["id"]} | manual.handle(msg)
            exchanged.append((msg, response))
            evaluator.send(response)
            if msg["kind"] == "analysis":
                continue
            if broken:  # s2sad timed out or exited: it answers nothing more
                responses[msg["id"]] = {"success": False, "error": broken}
                continue
            start = time.perf_counter()
            try:
                tool.send(msg)
                responses[msg["id"]] = tool.receive() or {"success": False, "error": "no answer"}
            except (TimeoutError, OSError) as e:
                broken = f"s2sad's tool stopped answering: {e}"
                responses[msg["id"]] = {"success": False, "error": broken}
                tool.proc.kill()
            if msg["kind"] == "define":
                define_s = time.perf_counter() - start
    finally:
        evaluator.close()
        tool.close()
    if evaluator.proc.returncode:
        raise Skip(f"GradBench's {name} eval exited with status {evaluator.proc.returncode}")
    return exchanged, responses, define_s


def compare_eval(gradbench, name, size_args, runs, manual, compare_json, limit, log):
    exchanged, responses, define_s = relay(gradbench, name, size_args, runs, manual, limit, log)
    defined = [r for m, r in exchanged if m["kind"] == "define"]
    if not defined or not defined[0].get("success"):
        raise Skip("the manual tool could not define it")
    records = []
    for msg, theirs in exchanged:
        if msg["kind"] != "evaluate":
            continue
        mine = responses.get(msg["id"], {})
        valid = None
        if theirs.get("success") and mine.get("success"):
            valid = not compare_json(theirs["output"], mine["output"])
        records.append({
            "eval": name, "function": msg["function"], "description": msg.get("description"),
            "manual_runs": runs_of(theirs.get("timings")) if theirs.get("success") else [],
            "s2sad_runs": runs_of(mine.get("timings")) if mine.get("success") else [],
            "valid": valid, "define_s": define_s,
            "error": None if mine.get("success") else (mine.get("error") or "")[-2000:],
        })
    return records


# ------------------------------------------------------------ the command

def check_setup(gradbench):
    """gradbench's modules (cpp, comparison), or Skip with what to do."""
    package = os.path.join(gradbench or "", "python", "gradbench")
    if not gradbench or not os.path.isdir(os.path.join(package, "gradbench", "evals")):
        raise Skip(f"no GradBench checkout at {gradbench!r} (give --gradbench, the root of a "
                   "clone of https://github.com/gradbench/gradbench)")
    bins = os.path.join(gradbench, "tools", "manual", "bin")
    if not os.path.isdir(bins) or not os.listdir(bins):
        raise Skip(f"the manual tool is not built ({bins} is empty): in the checkout run "
                   "`make -C cpp json.hpp` and `make -C tools/manual NATIVE=no`")
    missing = []
    for module in EVAL_DEPENDENCIES:
        try:
            __import__(module)
        except ImportError:
            missing.append(module.replace("_", "-"))
    if missing:
        raise Skip(f"GradBench's evals need {', '.join(missing)}: pip install {' '.join(missing)}")
    sys.path.insert(0, package)
    from gradbench import comparison, cpp
    return cpp, comparison


def eval_skip(gradbench, name):
    """Why `name` cannot run in this checkout, or None."""
    if not os.path.exists(os.path.join(gradbench, "tools", "manual", "bin", name)):
        return f"tools/manual/bin/{name} is not built"
    need = NEEDS.get(name)
    if need and not os.path.exists(os.path.join(gradbench, need)):
        return f"{need} is missing from the checkout"
    return None


def machine_note():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, {cpu}, "
            f"{os.cpu_count()} cores, load average {load:.1f}, Python {platform.python_version()}")


def measure(args, parser):
    """Run the evals: {"machine", "size", "records", "skipped"}, or None
    (skipped, said on stderr)."""
    try:
        cpp, comparison = check_setup(args.gradbench)
    except Skip as reason:
        print(f"skipped: {reason}", file=sys.stderr)
        return None
    gradbench = os.path.abspath(args.gradbench)
    manual = Manual(gradbench, cpp)
    runs = ["--min-runs", str(args.min_runs), "--min-seconds", str(args.min_seconds)]
    records, skipped = [], []
    log = tempfile.NamedTemporaryFile("w", prefix="s2sad-gradbench-", suffix=".log", delete=False)
    for name in [e.strip() for e in args.evals.split(",") if e.strip()]:
        if name not in EVALS:
            parser.error(f"unknown eval {name!r} (known: {', '.join(EVALS)})")
        reason = eval_skip(gradbench, name)
        size = SMALL[name] if args.size == "small" else []
        start = time.perf_counter()
        if reason is None:
            try:
                records += compare_eval(gradbench, name, size, runs, manual,
                                        comparison.compare_json_objects, args.limit, log)
            except (Skip, TimeoutError) as e:
                reason = str(e)
        if reason:
            skipped.append((name, reason))
            print(f"{name}: skipped: {reason}", file=sys.stderr, flush=True)
        else:
            print(f"{name}: done in {time.perf_counter() - start:.0f} s", file=sys.stderr,
                  flush=True)
    log.close()
    for r in records:
        if r["error"]:
            print(f"{r['eval']} {r['function']} {r['description']}: s2sad failed:\n{r['error']}",
                  file=sys.stderr)
    print(f"(s2sad's stderr: {log.name})", file=sys.stderr)
    return {"machine": machine_note(), "size": args.size, "records": records,
            "skipped": skipped}


def report(saved, statistic, per_message):
    """The tables of a run, per-call times by `statistic`."""
    records = with_statistic(saved["records"], statistic)
    print(f"s2sad/manual per-call time ({statistic} of a message's runs), {saved['size']} sizes; "
          f"{saved['machine']}\n")
    print(markdown(summarise(records), saved["skipped"]))
    if per_message:
        print()
        print(message_table(records))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gradbench", default=os.environ.get("GRADBENCH"),
                        help="root of a GradBench checkout (default: $GRADBENCH)")
    parser.add_argument("--evals", default=",".join(EVALS), help="comma-separated")
    parser.add_argument("--size", choices=("small", "default"), default="small",
                        help="small: a few of GradBench's smallest inputs; default: GradBench's")
    parser.add_argument("--min-runs", type=int, default=3)
    parser.add_argument("--min-seconds", type=float, default=0.3,
                        help="per message, each tool runs until both minimums are met")
    parser.add_argument("--limit", type=float, default=600.0, help="seconds per response")
    parser.add_argument("--statistic", choices=("median", "min"), default="median",
                        help="a message's per-call time: the median of its runs (default) or "
                             "the fastest (steadier on a busy machine)")
    parser.add_argument("--per-message", action="store_true", help="also a row per message")
    parser.add_argument("--json", help="save the per-message records (with every run's time) here")
    parser.add_argument("--summary", metavar="FILE",
                        help="print the tables of a run saved with --json; run nothing")
    args = parser.parse_args(argv)

    if args.summary:
        with open(args.summary) as f:
            saved = json.load(f)
    else:
        saved = measure(args, parser)
        if saved is None:
            return 0
        if args.json:
            with open(args.json, "w") as f:
                json.dump(saved, f)
    report(saved, args.statistic, args.per_message)
    return 0


if __name__ == "__main__":
    sys.exit(main())
