"""The GradBench tool (benchmarks/gradbench/run.py), driven through its
protocol in subprocesses: JSON lines in, JSON lines out. Outputs are checked
against GRADBENCH.md's worked examples, against independent references and
against central finite differences of the plain Python objectives, with the
eval's rule |a − b| / max(1, |a| + |b|) ≤ 1e-4.

Two sessions keep this fast: one compiles with numba (the evals whose
compile is cheap), one runs s2sad's derivatives as Python (--python).
S2SAD_GRADBENCH_JIT=1 (or S2SAD_FULL=1) compiles the second one too (a minute or two
more)."""
import importlib
import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from gradcheck import FULL

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUN = os.path.join(REPO, "benchmarks", "gradbench", "run.py")
RUNS = {"min_runs": 1, "min_seconds": 0}


def _package():
    spec = importlib.util.spec_from_file_location("s2sad_gradbench_run", RUN)
    run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run)
    run.load_package()
    return run


def evals(name):
    """An eval module of the tool, for its plain Python objectives."""
    _package()
    return importlib.import_module(f"s2sad_gradbench.{name}")


def close(actual, expected, tol=1e-4):
    """GradBench's check, elementwise, plus equal shapes."""
    a, b = np.asarray(actual, dtype=float), np.asarray(expected, dtype=float)
    assert a.shape == b.shape, (a.shape, b.shape)
    err = np.abs(a - b) / np.maximum(1.0, np.abs(a) + np.abs(b))
    assert np.all(err <= tol), f"max error {err.max():.3g}\nactual {a}\nexpected {b}"


def fd(f, x, h=1e-6):
    """Central differences of f at the array x: shape f's output + x's shape."""
    x = np.asarray(x, dtype=float)
    cols = []
    for k in range(x.size):
        e = np.zeros(x.size)
        e[k] = h
        e = e.reshape(x.shape)
        cols.append((np.asarray(f(x + e)) - np.asarray(f(x - e))) / (2 * h))
    out = np.array(cols)  # x.size + output shape
    return np.moveaxis(out, 0, -1).reshape(out.shape[1:] + x.shape)


def rng(seed):
    return np.random.default_rng(seed)


# ---------------------------------------------------------------- sessions

class Session:
    """Messages to send, each under a label: start() sends them all to a new
    tool process, wait() collects the answers, by label."""

    def __init__(self):
        self.messages, self.labels = [], []

    def add(self, label, kind, **fields):
        self.messages.append({"id": len(self.messages), "kind": kind, **fields})
        self.labels.append(label)

    def evaluate(self, label, module, function, inp):
        self.add(label, "evaluate", module=module, function=function, input=inp,
                 description="test")
        self.add(None, "analysis", of=len(self.messages) - 1, valid=True)

    def start(self, args, cwd, tmp):
        """Start the tool on all the messages at once; wait() collects its
        answers. Files, not pipes: two sessions run side by side."""
        tmp.joinpath("in").write_text("".join(json.dumps(m) + "\n" for m in self.messages))
        self.files = [open(tmp / name, mode) for name, mode in
                      (("in", "r"), ("out", "w+"), ("err", "w+"))]
        self.proc = subprocess.Popen([sys.executable, RUN, *args], stdin=self.files[0],
                                     stdout=self.files[1], stderr=self.files[2], cwd=cwd)
        return self

    def wait(self):
        self.returncode = self.proc.wait(timeout=300)
        for f in self.files:
            f.seek(0)
        out, self.stderr = self.files[1].read(), self.files[2].read()
        for f in self.files:
            f.close()
        lines = out.splitlines()
        assert len(lines) == len(self.messages), self.stderr[-3000:]
        responses = [json.loads(line) for line in lines]
        assert [r["id"] for r in responses] == [m["id"] for m in self.messages]
        self.responses = {lab: r for lab, r in zip(self.labels, responses) if lab}
        self.all = responses
        return self

    def __getitem__(self, label):
        return self.responses[label]

    def output(self, label):
        r = self.responses[label]
        assert r["success"] is True, r.get("error")
        assert "error" not in r
        return r["output"]


def add_evals(session, cases):
    for module in cases:
        session.add(f"start {module}", "start", eval=module)
        session.add(f"define {module}", "define", module=module)
        for label, function, inp in cases[module]():
            session.evaluate(label, module, function, inp)


# ------------------------------------------------------------- the inputs

def hello_cases():
    chain = [1.0, 1.0, 2.0, 4.0, 8.0, 64.0, 128.0, 16384.0]  # each output feeds the next
    return [(f"hello {i}", "square" if i % 2 == 0 else "double", x) for i, x in enumerate(chain)]


LSE_X = [0.5, -1.0, 2.0, 0.25]
LSE_RANDOM = rng(1).random(7).tolist()


def lse_cases():
    return [("lse primal", "primal", {"x": LSE_X, **RUNS}),
            ("lse gradient", "gradient", {"x": LSE_X, **RUNS}),
            ("lse random", "gradient", {"x": LSE_RANDOM, **RUNS})]


LLSQ_RANDOM = {"x": rng(2).random(4).tolist(), "n": 9}


def llsq_cases():
    example = {"x": [0.5, -0.25, 0.125], "n": 5, **RUNS}
    return [("llsq primal", "primal", example), ("llsq gradient", "gradient", example),
            ("llsq random", "gradient", {**LLSQ_RANDOM, **RUNS})]


KMEANS_EXAMPLE = {"points": [[0, 0], [1, 0], [0, 2], [5, 5], [6, 5]],
                  "centroids": [[0.5, 0.5], [5, 4]]}
KMEANS_RANDOM = {"points": rng(3).random((12, 3)).tolist()}
KMEANS_RANDOM["centroids"] = KMEANS_RANDOM["points"][-4:]


def kmeans_cases():
    # a centroid no point is nearest to has a zero Hessian: 0/0 is not JSON
    lonely = {"points": [[0.0, 0.0], [1.0, 0.0]], "centroids": [[0.5, 0.0], [9.0, 9.0]]}
    return [("kmeans cost", "cost", {**KMEANS_EXAMPLE, **RUNS}),
            ("kmeans dir", "dir", {**KMEANS_EXAMPLE, **RUNS}),
            ("kmeans random cost", "cost", {**KMEANS_RANDOM, **RUNS}),
            ("kmeans random dir", "dir", {**KMEANS_RANDOM, **RUNS}),
            ("kmeans nan", "dir", {**lonely, **RUNS})]


DET_A = [2, -1, 0.5, 1.5, 3, -2, 0.25, 4, 1]
DET_RANDOM = rng(4).random(16).tolist()


def det_cases():
    return [("det primal", "primal", {"A": DET_A, "ell": 3, **RUNS}),
            ("det gradient", "gradient", {"A": DET_A, "ell": 3, **RUNS}),
            ("det random primal", "primal", {"A": DET_RANDOM, "ell": 4, **RUNS}),
            ("det random", "gradient", {"A": DET_RANDOM, "ell": 4, **RUNS}),
            ("det 1x1", "gradient", {"A": [3.0], "ell": 1, **RUNS})]


BA_EXAMPLE = {"n": 2, "m": 3, "p": 16, "cam": [0.1, -0.2, 0.05, 0.5, -0.3, -4, 500, 10, -5,
                                               0.001, -0.00001],
              "x": [0.2, 0.1, 1], "w": 0.8, "feat": [40, -20]}
BA_ZERO_ROTATION = {**BA_EXAMPLE, "cam": [0.0, 0.0, 0.0] + BA_EXAMPLE["cam"][3:], "p": 5}


def ba_cases():
    return [("ba objective", "objective", {**BA_EXAMPLE, **RUNS}),
            ("ba jacobian", "jacobian", {**BA_EXAMPLE, **RUNS}),
            ("ba r=0", "jacobian", {**BA_ZERO_ROTATION, **RUNS})]


ODE_X = [0.3, 0.6, 0.9, 0.2]
ODE_RANDOM = {"x": rng(5).random(6).tolist(), "s": 3}


def ode_cases():
    return [("ode primal", "primal", {"x": ODE_X, "s": 2, **RUNS}),
            ("ode gradient", "gradient", {"x": ODE_X, "s": 2, **RUNS}),
            ("ode random", "gradient", {**ODE_RANDOM, **RUNS})]


GMM_EXAMPLE = {"d": 3, "k": 2, "n": 2, "m": 1, "gamma": 1.5,
               "x": [[0.1, -0.2, 0.3], [1, 0.5, -0.5]], "alpha": [0.2, -0.1],
               "mu": [[0, 0.1, 0.2], [0.5, 0.4, 0.3]], "q": [[0.1, -0.2, 0.05], [0, 0.3, -0.1]],
               "l": [[0.4, -0.3, 0.2], [0.1, 0, -0.5]]}
_g = rng(6)
GMM_RANDOM = {"d": 2, "k": 3, "n": 4, "m": 0, "gamma": 1.0,
              "x": _g.standard_normal((4, 2)).tolist(), "alpha": _g.standard_normal(3).tolist(),
              "mu": _g.random((3, 2)).tolist(), "q": _g.standard_normal((3, 2)).tolist(),
              "l": _g.standard_normal((3, 1)).tolist()}


def gmm_cases():
    return [("gmm objective", "objective", {**GMM_EXAMPLE, **RUNS}),
            ("gmm jacobian", "jacobian", {**GMM_EXAMPLE, **RUNS}),
            ("gmm random", "jacobian", {**GMM_RANDOM, **RUNS})]


LSTM_EXAMPLE = {"main_params": [[0.1 * (i + 1) for i in range(8)],
                                [0.05 + 0.1 * i for i in range(8)]],
                "extra_params": [[0.9, 0.8], [0.7, 0.6], [0.1, 0.2]],
                "state": [[0.3, 0.2], [0.1, 0.4]], "sequence": [[1, 0], [0, 1], [1, 1]]}
_l = rng(7)
LSTM_RANDOM = {"main_params": _l.random((4, 12)).tolist(), "extra_params": _l.random((3, 3)).tolist(),
               "state": _l.random((4, 3)).tolist(),
               "sequence": _l.integers(0, 2, (4, 3)).astype(float).tolist()}


def lstm_cases():
    return [("lstm objective", "objective", {**LSTM_EXAMPLE, **RUNS}),
            ("lstm jacobian", "jacobian", {**LSTM_EXAMPLE, **RUNS}),
            ("lstm random", "jacobian", {**LSTM_RANDOM, **RUNS})]


def nightly_module(name):
    """benchmarks/gradbench/nightly.py or nightly_checks.py: the full-size
    run's input synthesisers and independent references."""
    path = os.path.join(REPO, "benchmarks", "gradbench", name + ".py")
    spec = importlib.util.spec_from_file_location(f"s2sad_gradbench_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def hand_model(nverts, ntris, seed):
    """A random 22-bone hand model laid out as the ht eval sends it."""
    return nightly_module("nightly").hand_model(rng(seed), nverts, ntris)


def hand_input(complicated, seed, npts=4, nverts=6, ntris=5):
    g = rng(seed + 100)
    model = hand_model(nverts, ntris, seed)
    data = {"model": model, "points": g.standard_normal((npts, 3)).tolist(),
            "correspondences": g.integers(0, ntris if complicated else nverts, npts).tolist()}
    us = g.random((npts, 2)).tolist() if complicated else []
    return {"theta": (0.4 * g.standard_normal(26)).tolist(), "us": us, "data": data}


HT_SIMPLE = hand_input(False, 8)
HT_COMPLICATED = hand_input(True, 9)
HT_MIRRORED = hand_input(False, 10)
HT_MIRRORED["data"]["model"]["is_mirrored"] = True
HT_MIRRORED["theta"][0:3] = [0.0, 0.0, 0.0]  # the global rotation's θ < 1e-4 branch


def ht_cases():
    cases = []
    for name, inp in (("simple", HT_SIMPLE), ("complicated", HT_COMPLICATED),
                      ("mirrored", HT_MIRRORED)):
        cases += [(f"ht {name} objective", "objective", {**inp, **RUNS}),
                  (f"ht {name} jacobian", "jacobian", {**inp, **RUNS})]
    return cases


def particle_cases():
    return [(f"particle {v}", v, {"w": 0.0, **RUNS}) for v in ("rr", "ff", "fr", "rf")]


def saddle_cases():
    return [(f"saddle {v}", v, {"start": [1.0, 1.0], **RUNS}) for v in ("rr", "ff", "fr", "rf")]


ALL_JIT = FULL or os.environ.get("S2SAD_GRADBENCH_JIT", "") not in ("", "0")


@pytest.fixture(scope="module")
def sessions(tmp_path_factory):
    """Both sessions, started side by side. The first is numba-compiled and
    runs from the repository root (as GradBench's docs say); the second runs
    s2sad's derivatives as Python (--python), from another directory."""
    compiled = Session()
    add_evals(compiled, {"hello": hello_cases, "lse": lse_cases, "llsq": llsq_cases,
                         "kmeans": kmeans_cases, "det": det_cases})
    compiled.add("define nope", "define", module="nope")
    compiled.evaluate("undefined module", "ode", "primal", {"x": [1.0], "s": 1, **RUNS})
    compiled.evaluate("unknown function", "lse", "nope", {"x": [1.0], **RUNS})
    compiled.evaluate("three runs", "lse", "primal", {"x": LSE_X, "min_runs": 3,
                                                      "min_seconds": 0})
    compiled.evaluate("timed runs", "lse", "primal", {"x": LSE_X, "min_runs": 1,
                                                      "min_seconds": 0.02})
    python = Session()
    add_evals(python, {"ode": ode_cases, "gmm": gmm_cases, "lstm": lstm_cases, "ht": ht_cases,
                       "ba": ba_cases, "particle": particle_cases, "saddle": saddle_cases})
    compiled.start([], REPO, tmp_path_factory.mktemp("compiled"))
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    python.start([] if ALL_JIT else ["--python"], str(elsewhere), elsewhere)
    yield compiled, python
    for session in (compiled, python):
        if session.proc.poll() is None:  # a test failed before it was done
            session.proc.kill()
            session.proc.wait()


@pytest.fixture(scope="module")
def jit_session(sessions):
    s = sessions[0].wait()
    assert "NumbaFallbackWarning" not in s.stderr, s.stderr[-3000:]
    return s


@pytest.fixture(scope="module")
def python_session(sessions):
    s = sessions[1].wait()
    assert "NumbaFallbackWarning" not in s.stderr, s.stderr[-3000:]
    return s


# --------------------------------------------------------------- protocol

def test_protocol(jit_session):
    s = jit_session
    assert s.returncode == 0  # exits on EOF
    assert s["start hello"] == {"id": 0, "tool": "s2sad", "config": s["start hello"]["config"]}
    for r in s.all:
        if r["id"] > 0 and s.messages[r["id"]]["kind"] == "analysis":
            assert r == {"id": r["id"]}
        for t in r.get("timings", []):
            assert set(t) == {"name", "nanoseconds"} and isinstance(t["nanoseconds"], int)
    assert s["define hello"]["success"] is True and "error" not in s["define hello"]
    assert s["define nope"]["success"] is False and "nope" in s["define nope"]["error"]
    assert s["undefined module"]["success"] is False
    assert "was not defined" in s["undefined module"]["error"]
    assert s["unknown function"]["success"] is False
    assert "no function 'nope'" in s["unknown function"]["error"]
    assert len(s["three runs"]["timings"]) == 3
    assert sum(t["nanoseconds"] for t in s["timed runs"]["timings"]) >= 0.02e9


def test_non_finite_output_is_a_failed_evaluate(jit_session):
    r = jit_session["kmeans nan"]
    assert r["success"] is False and "error" in r and "output" not in r


# ------------------------------------------------------------------ evals

def test_hello(jit_session):
    outputs = [jit_session.output(f"hello {i}") for i in range(8)]
    assert outputs == [1.0, 2.0, 4.0, 8.0, 64.0, 128.0, 16384.0, 32768.0]


def test_lse(jit_session):
    close(jit_session.output("lse primal"), 2.3692789984482534)
    close(jit_session.output("lse gradient"), [0.1542348252841622, 0.03441444126612021,
                                              0.6912325307415308, 0.12011820270818685])
    close(jit_session.output("lse random"), fd(evals("lse").lse, LSE_RANDOM))


def test_llsq(jit_session):
    close(jit_session.output("llsq primal"), 3.6259765625)
    close(jit_session.output("llsq gradient"), [2.8125, -3.625, 1.515625])
    llsq = evals("llsq").llsq
    close(jit_session.output("llsq random"),
          fd(lambda x: llsq(x, LLSQ_RANDOM["n"]), LLSQ_RANDOM["x"]))


def test_kmeans(jit_session):
    close(jit_session.output("kmeans cost"), 6.5)
    close(jit_session.output("kmeans dir"), [[0.16666666666666669, -0.16666666666666663],
                                             [-0.5, -1.0]])
    P, C = np.array(KMEANS_RANDOM["points"]), np.array(KMEANS_RANDOM["centroids"])
    dist = ((P[:, None, :] - C[None, :, :]) ** 2).sum(2)
    close(jit_session.output("kmeans random cost"), dist.min(1).sum())
    nearest = dist.argmin(1)  # ties to the lowest index, as the eval
    expected = [C[j] - P[nearest == j].mean(0) for j in range(len(C))]
    close(jit_session.output("kmeans random dir"), expected)


def test_det(jit_session):
    close(jit_session.output("det primal"), 26.625)
    close(jit_session.output("det gradient"), [11, -2, 5.25, 3, 1.875, -8.25, 0.5, 4.75, 7.5])
    A = np.array(DET_RANDOM).reshape(4, 4)
    close(jit_session.output("det random primal"), np.linalg.det(A))
    cofactors = np.linalg.det(A) * np.linalg.inv(A).T
    close(jit_session.output("det random"), cofactors.ravel())
    close(jit_session.output("det 1x1"), [1.0])


def test_ba_example(python_session):
    assert python_session.output("ba objective") == {
        "reproj_error": {"elements": pytest.approx([-130.85237737929364, 0.8803813401857753]),
                         "repeated": 16},
        "w_err": {"element": pytest.approx(0.35999999999999993), "repeated": 16}}
    J = python_session.output("ba jacobian")
    assert J["rows"] == list(range(0, 436, 15)) + [496]
    cams = list(range(11)) + [22, 23, 24, 31]
    assert J["cols"] == cams + cams + [46]
    assert all(isinstance(v, int) for v in J["rows"] + J["cols"])
    close(J["vals"][:3], [7.404797917238199, 428.35986629229, -10.729408224306539])
    close(J["vals"][14], -163.56547172411706)
    close(J["vals"][-1], -1.6)


@pytest.mark.parametrize("label, inp", [("ba jacobian", BA_EXAMPLE),
                                        ("ba r=0", BA_ZERO_ROTATION)])
def test_ba_finite_differences(python_session, label, inp):
    ba = evals("ba")
    cams, points, w, feats, cam_of, point_of = ba.inputs(inp)
    params = ba.gather(cams, points, w, cam_of, point_of)

    def residuals0(row):  # observation 0's residuals as a function of its parameters
        p = params.copy()
        p[0] = row
        return ba.reprojection(p, feats)[0]

    J = fd(residuals0, params[0], h=1e-7)
    vals = python_session.output(label)["vals"]
    close(vals[:15], J[0])
    close(vals[15:30], J[1])
    close(vals[30], -2 * inp["w"])


def test_ode(python_session):
    close(python_session.output("ode primal"), [0.6, 0.36, 0.216, 0.0216])
    close(python_session.output("ode gradient"), [0.072, 0.036, 0.024, 0.108])
    ode = evals("ode").ode
    close(python_session.output("ode random"),
          fd(lambda x: ode(x, ODE_RANDOM["s"])[-1], ODE_RANDOM["x"]))


def test_gmm(python_session):
    close(python_session.output("gmm objective"), -16.34327201706706)
    J = python_session.output("gmm jacobian")
    assert sorted(J) == ["alpha", "l", "mu", "q"]
    close(J["alpha"], [-0.22295578154431572, 0.2229557815443156])
    close(J["mu"][0], [0.5643489823768688, 0.018650992110277875, -0.29294510721279504])
    close(J["q"][1], [-0.4106545576303249, -2.301599846828888, -0.15941593007669985])
    close(J["l"][0], [-1.1064247747816385, 0.9621605938302585, -0.3319236736354335])
    gmm = evals("gmm")
    args = list(gmm.inputs(GMM_RANDOM))
    J = python_session.output("gmm random")
    for i, name in enumerate(("alpha", "mu", "q", "l")):
        def f(v, i=i):
            return gmm.gmm(*args[:i], v, *args[i + 1:])
        close(J[name], fd(f, args[i]))


def test_lstm(python_session):
    close(python_session.output("lstm objective"), 0.8912865619844018)
    J = python_session.output("lstm jacobian")
    assert len(J) == 22
    close(J[:3], [0.00015782260808714033, -0.0024996239079863787, -0.0013117362893192471])
    close(J[-2:], [-0.04105881486993748, -0.2584613030445662])
    lstm = evals("lstm")
    main, extra, state, seq = lstm.inputs(LSTM_RANDOM)
    expected = np.concatenate([fd(lambda m: lstm.lstm(m, extra, state, seq), main).ravel(),
                               fd(lambda e: lstm.lstm(main, e, state, seq), extra).ravel()])
    close(python_session.output("lstm random"), expected)


def ht_reference(inp):
    """The ht residuals straight from GRADBENCH.md, vectorised with numpy."""
    data = inp["data"]
    model = {key: np.array(value) for key, value in data["model"].items()
             if key != "bone_names"}
    model["is_mirrored"] = bool(data["model"]["is_mirrored"])
    us = np.array(inp["us"]) if inp["us"] else None
    return nightly_module("nightly_checks").ht_residuals(
        np.array(inp["theta"]), us, model, np.array(data["correspondences"]),
        np.array(data["points"]))


@pytest.mark.parametrize("name, inp", [("simple", HT_SIMPLE), ("complicated", HT_COMPLICATED),
                                       ("mirrored", HT_MIRRORED)])
def test_ht(python_session, name, inp):
    close(python_session.output(f"ht {name} objective"), ht_reference(inp))
    J = np.array(python_session.output(f"ht {name} jacobian"))
    expected = fd(lambda t: ht_reference({**inp, "theta": t.tolist()}), inp["theta"])
    if inp["us"]:  # columns 0 and 1: d err[r] / d us[r // 3]
        us = np.array(inp["us"])
        d_us = fd(lambda u: ht_reference({**inp, "us": u.tolist()}), us)  # (3 npts, npts, 2)
        rows = np.arange(3 * len(us))
        expected = np.hstack([d_us[rows, rows // 3, :], expected])
    close(J, expected)


@pytest.mark.parametrize("module, expected", [("particle", 0.2071918746486116),
                                              ("saddle", [8.246324826140356e-06] * 4)])
def test_nested(python_session, module, expected):
    for variant in ("rr", "ff", "fr", "rf"):  # outer mode, inner mode
        close(python_session.output(f"{module} {variant}"), expected)
