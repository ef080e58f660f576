"""The performance page's tables and plot, from the newest benchmark results
in benchmarks/results/ (timings_*.json and the .md written beside it by
`python benchmarks/run.py`)."""
import io
import json
import pathlib

RESULTS = pathlib.Path(__file__).resolve().parent.parent / "benchmarks" / "results"
NAMES = {"W1": "W1 Euler loop", "W2": "W2 logsumexp (vectorised)", "W3": "W3 GMM, loops",
         "W4": "W4 MLP", "W5": "W5 elementwise loop", "RK4": "RK4 oscillator",
         "BUILD": "building heating", "HEAT": "heat stencil", "HEAT2D": "2-D heat stencil"}


def newest():
    """(path of the newest timings_*.json, its contents)."""
    runs = []
    for path in RESULTS.glob("timings_*.json"):
        data = json.loads(path.read_text())
        runs.append((data["meta"]["date"], path.name, path, data))
    if not runs:
        raise FileNotFoundError(f"no timings_*.json in {RESULTS}")
    _, _, path, data = max(runs)
    return path, data


def tables_markdown():
    path, data = newest()
    text = path.with_suffix(".md").read_text()
    meta = data["meta"]
    versions = ", ".join(f"{k} {v}" for k, v in meta["versions"].items() if v)
    head = (f"From `benchmarks/results/{path.with_suffix('.md').name}` (run of "
            f"{meta['date'][:10]}: {meta['machine']['cpu_model']}, "
            f"{meta['machine']['logical_cores']} cores, pinned to one; {versions}).\n\n")
    return head + text


def plot_png():
    """A bar chart of s2sad's gradient time over the hand-written numba
    gradient's and over the numba primal's, per workload (PNG bytes)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    _, data = newest()
    names, over_hand, over_primal = [], [], []
    for key, workload in data["workloads"].items():
        ratios = workload.get("ratios", {})
        if "s2sad_jit/hand" not in ratios:
            continue
        names.append(NAMES.get(key, key))
        over_hand.append(ratios["s2sad_jit/hand"])
        over_primal.append(ratios["s2sad_jit/primal"])
    fig, ax = plt.subplots(figsize=(8, 3.8))
    at = range(len(names))
    ax.bar([k - 0.2 for k in at], over_hand, 0.4, label="s2sad / hand-written numba gradient")
    ax.bar([k + 0.2 for k in at], over_primal, 0.4, label="s2sad / numba primal")
    ax.axhline(1.0, color="k", lw=0.8)
    ax.axhline(1.2, color="tab:blue", lw=0.8, ls="--", label="target: 1.2 x hand")
    ax.set_xticks(list(at))
    ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("time ratio")
    ax.set_title(f"gradient time (run of {data['meta']['date'][:10]}; lower is faster)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    out = io.BytesIO()
    fig.savefig(out, format="png", dpi=96)
    plt.close(fig)
    return out.getvalue()
