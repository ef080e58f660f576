"""benchmarks/gradbench/compare.py, s2sad against GradBench's manual tool:
the ratios and the table on canned numbers, the skips, and the relay run
end to end against a stand-in GradBench checkout (an eval program, a
`manual` binary and the two gradbench modules the script uses, written
here), so no timing is checked and GradBench is not needed."""
import importlib.util
import json
import os
import stat
import sys
import textwrap

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load():
    spec = importlib.util.spec_from_file_location(
        "s2sad_gradbench_compare", os.path.join(REPO, "benchmarks", "gradbench", "compare.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


compare = load()


def record(eval_, function, manual, s2sad, valid=True, define_s=2.0):
    return {"eval": eval_, "function": function, "description": "", "manual_ns": manual,
            "s2sad_ns": s2sad, "valid": valid, "define_s": define_s, "error": None}


def test_per_call_is_the_median_of_the_evaluate_runs():
    timings = [{"name": "prepare", "nanoseconds": 10**9}] + [
        {"name": "evaluate", "nanoseconds": t} for t in (30, 10, 20, 1000)]
    runs = compare.runs_of(timings)
    assert runs == [30, 10, 20, 1000]
    assert compare.per_call(runs) == 25 and compare.per_call(runs, "min") == 10
    assert compare.per_call([]) is None


def test_with_statistic_takes_the_per_call_times_from_the_runs():
    saved = [{"eval": "lse", "function": "gradient", "manual_runs": [4, 2, 9],
              "s2sad_runs": [], "valid": None}]
    (median,) = compare.with_statistic(saved, "median")
    (fastest,) = compare.with_statistic(saved, "min")
    assert (median["manual_ns"], median["s2sad_ns"]) == (4, None)
    assert fastest["manual_ns"] == 2


def test_summary_ratio_is_the_median_over_derivative_messages():
    records = [
        record("gmm", "objective", 100, 300),
        record("gmm", "jacobian", 100, 200),   # 2x
        record("gmm", "jacobian", 1000, 5000),  # 5x
        record("gmm", "jacobian", 10, 10),     # 1x
        record("kmeans", "cost", 10, 5),
        record("kmeans", "dir", 10, None, valid=None),  # s2sad failed: no ratio
        record("kmeans", "dir", 10, 40),
    ]
    gmm, kmeans = compare.summarise(records)
    assert gmm["functions"] == ["jacobian"] and gmm["messages"] == 3 and gmm["answered"] == 3
    assert gmm["ratio"] == 2 and (gmm["low"], gmm["high"]) == (1, 5)
    assert (gmm["manual_ns"], gmm["s2sad_ns"]) == (100, 200)
    assert gmm["primal_ratio"] == 3
    assert kmeans["messages"] == 2 and kmeans["answered"] == 1
    assert kmeans["ratio"] == 4 and kmeans["primal_ratio"] == 0.5
    assert (kmeans["checked"], kmeans["mismatches"]) == (2, 0)


def test_markdown_table():
    records = [record("lse", "primal", 2000, 1000),
               record("lse", "gradient", 1500, 3000),
               record("lse", "gradient", 2_500_000, 2_000_000, valid=False)]
    table = compare.markdown(compare.summarise(records), [("lstm", "no data")])
    lines = table.splitlines()
    assert lines[0].startswith("| eval | derivative | messages | manual per call |")
    assert len(lines) == 4 and all(line.count("|") == 11 for line in lines)
    # ratios 2 and 0.8: median 1.4; times: medians of (1500, 2.5e6) and (3000, 2e6)
    assert lines[2] == ("| lse | gradient | 2 | 1.25 ms | 1 ms | 1.4x | 0.8–2 | 0.5x | "
                        "2.0 s | 2/3 |")
    assert lines[3].startswith("| lstm | skipped: no data |")


def test_no_checkout_is_a_clean_skip(tmp_path, capsys):
    assert compare.main(["--gradbench", str(tmp_path / "nowhere")]) == 0
    assert "skipped: no GradBench checkout" in capsys.readouterr().err


def test_unbuilt_manual_tool_is_a_clean_skip(tmp_path, capsys):
    os.makedirs(tmp_path / "python" / "gradbench" / "gradbench" / "evals")
    assert compare.main(["--gradbench", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert "the manual tool is not built" in err and "make -C tools/manual NATIVE=no" in err


def test_missing_eval_dependencies_are_a_clean_skip(tmp_path, capsys, monkeypatch):
    os.makedirs(tmp_path / "python" / "gradbench" / "gradbench" / "evals")
    os.makedirs(tmp_path / "tools" / "manual" / "bin")
    (tmp_path / "tools" / "manual" / "bin" / "lse").write_text("")
    monkeypatch.setattr(compare, "EVAL_DEPENDENCIES", ("numpy", "no_such_module"))
    assert compare.main(["--gradbench", str(tmp_path)]) == 0
    assert "pip install no-such-module" in capsys.readouterr().err


# A stand-in checkout: the parts of GradBench the script touches.
EVAL = """
import json, sys
def send(msg):
    print(json.dumps(msg), flush=True)
    return json.loads(sys.stdin.readline())
send({"id": 0, "kind": "start", "eval": "lse"})
if send({"id": 1, "kind": "define", "module": "lse"})["success"]:
    x = {"x": [0.5, -1.0, 2.0], "min_runs": 2, "min_seconds": 0}
    send({"id": 2, "kind": "evaluate", "module": "lse", "function": "primal", "input": x})
    send({"id": 3, "kind": "analysis", "of": 2, "valid": True})
    send({"id": 4, "kind": "evaluate", "module": "lse", "function": "gradient", "input": x,
          "description": "n=3"})
"""
MANUAL = """#!{python}
import json, math, sys
x = json.load(open(sys.argv[1]))["x"]
m = max(x); s = sum(math.exp(v - m) for v in x)
out = m + math.log(s) if sys.argv[2] == "primal" else [math.exp(v - m) / s for v in x]
print(json.dumps(out))
print(json.dumps({{"name": "prepare", "nanoseconds": 5}}))
for t in (1000, 3000):
    print(json.dumps({{"name": "evaluate", "nanoseconds": t}}))
"""
CPP = """
import json
def evaluate_completed_process(proc):
    lines = proc.stdout.splitlines()
    return {"success": proc.returncode == 0, "output": json.loads(lines[0]),
            "timings": [json.loads(line) for line in lines[1:]]}
"""
COMPARISON = """
def compare_json_objects(a, b):
    a, b = (a if isinstance(a, list) else [a]), (b if isinstance(b, list) else [b])
    return [i for i, (u, v) in enumerate(zip(a, b)) if abs(u - v) > 1e-4 * max(1, abs(u) + abs(v))]
"""


def test_relay_end_to_end(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(compare, "EVAL_DEPENDENCIES", ())  # the stand-in eval imports none
    package = tmp_path / "python" / "gradbench" / "gradbench"
    os.makedirs(package / "evals" / "lse")
    (package / "__init__.py").write_text("")
    (package / "cpp.py").write_text(CPP)
    (package / "comparison.py").write_text(COMPARISON)
    (package / "evals" / "lse" / "run.py").write_text(textwrap.dedent(EVAL))
    binary = tmp_path / "tools" / "manual" / "bin" / "lse"
    os.makedirs(binary.parent)
    binary.write_text(MANUAL.format(python=sys.executable))
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR)
    saved = tmp_path / "records.json"
    sys.modules.pop("gradbench", None)  # the stand-in's, not another one
    try:
        assert compare.main(["--gradbench", str(tmp_path), "--evals", "lse,ba",
                             "--json", str(saved)]) == 0
    finally:
        for name in [m for m in sys.modules if m == "gradbench" or m.startswith("gradbench.")]:
            del sys.modules[name]
        sys.path.remove(str(tmp_path / "python" / "gradbench"))
    out = capsys.readouterr().out
    records = json.loads(saved.read_text())["records"]
    assert [r["function"] for r in records] == ["primal", "gradient"]
    assert all(r["valid"] and len(r["s2sad_runs"]) >= 2 and r["manual_runs"] == [1000, 3000]
               for r in records)
    assert records[1]["description"] == "n=3" and records[1]["define_s"] > 0
    assert "| lse | gradient | 1 | 2 µs |" in out and "| 2/2 |" in out
    assert "| ba | skipped: tools/manual/bin/ba is not built |" in out
    # the saved run's tables again, with the fastest run of each message
    assert compare.main(["--summary", str(saved), "--statistic", "min"]) == 0
    assert "| lse | gradient | 1 | 1 µs |" in capsys.readouterr().out
