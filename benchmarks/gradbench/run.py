"""GradBench tool for s2sad: speaks the GradBench protocol on stdin/stdout.

    gradbench run --eval "..." --tool "/path/venv/bin/python /path/s2sad/benchmarks/gradbench/run.py"
    python benchmarks/gradbench/run.py [--python] [--multithreaded]  < messages.jsonl

One JSON message per stdin line, one JSON response per stdout line (same
id, flushed). Each eval is a module of this directory (`lse.py`, ...) whose
`define(jit)` compiles and warms up its functions and returns them as
`Function`s (see `_common.py`). `--python` runs s2sad's derivatives and the
primals as plain Python (jit=False): the tests use it where numba's compile
time would dominate. `--multithreaded` is accepted and ignored (everything
runs on one thread).
"""
import importlib
import importlib.util
import json
import os
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = "s2sad_gradbench"  # a private name: the eval modules must not collide with anything
EVALS = ("hello", "lse", "llsq", "ode", "gmm", "lstm", "kmeans", "ht", "ba", "det",
         "particle", "saddle")


def load_package():
    """Import this directory as the package `s2sad_gradbench`, whatever the cwd."""
    if PACKAGE not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            PACKAGE, os.path.join(HERE, "__init__.py"), submodule_search_locations=[HERE])
        module = importlib.util.module_from_spec(spec)
        sys.modules[PACKAGE] = module
        spec.loader.exec_module(module)
    return sys.modules[PACKAGE]


class Tool:
    def __init__(self, jit=True):
        self.jit = jit
        self.functions = {}  # module name -> {function name: Function}

    def handle(self, msg):
        kind = msg.get("kind")
        if kind == "start":
            return {"tool": "s2sad", "config": self.config()}
        if kind == "define":
            return self.define(msg["module"])
        if kind == "evaluate":
            return self.evaluate(msg)
        if kind == "analysis" and not msg.get("valid", True):
            log(f"analysis of message {msg.get('of')}: invalid: {msg.get('error')}")
        return {}

    def config(self):
        import numba
        import numpy
        import s2sad
        return {"s2sad": s2sad.__version__, "numba": numba.__version__,
                "numpy": numpy.__version__, "jit": self.jit, "threads": 1}

    def define(self, name):
        if name not in EVALS:
            return {"success": False, "error": f"s2sad has no module {name!r} (it has "
                                               f"{', '.join(EVALS)})"}
        start = time.perf_counter_ns()
        try:
            module = importlib.import_module(f"{PACKAGE}.{name}")
            self.functions[name] = module.define(self.jit)
        except Exception:
            return {"success": False, "error": traceback.format_exc()}
        elapsed = time.perf_counter_ns() - start
        return {"success": True, "timings": [{"name": "define", "nanoseconds": elapsed}]}

    def evaluate(self, msg):
        try:
            functions = self.functions.get(msg["module"])
            if functions is None:
                raise ValueError(f"module {msg['module']!r} was not defined")
            fn = functions.get(msg["function"])
            if fn is None:
                raise ValueError(f"module {msg['module']!r} has no function "
                                 f"{msg['function']!r} (it has {', '.join(functions)})")
            inp = msg["input"]
            args = fn.inputs(inp)  # decoded once, outside the timed runs
            if isinstance(inp, dict) and "min_runs" in inp:
                min_runs, min_seconds = int(inp["min_runs"]), float(inp["min_seconds"])
            else:  # hello: run once
                min_runs, min_seconds = 1, 0.0
            result, timings = repeat(fn.compute, args, min_runs, min_seconds)
            output = fn.output(result)
        except Exception:
            return {"success": False, "error": traceback.format_exc()}
        return {"success": True, "output": output,
                "timings": [{"name": "evaluate", "nanoseconds": t} for t in timings]}


def repeat(compute, args, min_runs, min_seconds):
    """Run until both `min_runs` runs and `min_seconds` of summed run time."""
    timings, elapsed, budget = [], 0, min_seconds * 1e9
    while len(timings) < min_runs or elapsed < budget:
        start = time.perf_counter_ns()
        result = compute(*args)
        timings.append(time.perf_counter_ns() - start)
        elapsed += timings[-1]
    return result, timings


def log(text):
    print(text, file=sys.stderr, flush=True)


def main(argv):
    # stdout carries protocol lines only: anything else written to it, from
    # Python or from C (numba, LLVM), goes to stderr instead
    out = os.fdopen(os.dup(sys.stdout.fileno()), "w")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    if sys.path and os.path.abspath(sys.path[0] or ".") == HERE:
        del sys.path[0]  # the script's directory: its module names are not top-level modules
    load_package()
    tool = Tool(jit="--python" not in argv)
    for line in sys.stdin:
        if not line.strip():
            continue
        msg = json.loads(line)
        response = {"id": msg["id"], **tool.handle(msg)}
        try:
            text = json.dumps(response, allow_nan=False)
        except (TypeError, ValueError):  # NaN or inf: a failed evaluate, not a broken session
            text = json.dumps({"id": msg["id"], "success": False,
                               "error": "the output is not valid JSON (NaN or infinity?):\n"
                                        + traceback.format_exc()})
        out.write(text + "\n")
        out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
