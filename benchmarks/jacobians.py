"""Jacobians in one call, and sparse Jacobians by colouring.

    python benchmarks/jacobians.py                 # ~2-4 minutes, table on stdout
    python benchmarks/jacobians.py --repeats 5 --only chain,laplacian
    python benchmarks/jacobians.py --out benchmarks/results/jacobians.md

Workloads (loops, compiled with numba, self-checks off):

- chain: a 50x50 Jacobian of a loop with a dense-ish pattern; per column:
  one s2sad.jvp / vjp call per column from Python (what s2sad.jacobian did
  before it ran its passes in one batch), against s2sad.jacobian (one call
  of a generated driver looping over the seeds in compiled code);
- laplacian: the residual of a 2-D Laplacian (5-point stencil, a cubic
  term) on a 64x64 grid, 4096x4096: the dense s2sad.jacobian against
  sparse=True (the pattern probed once, then a few compressed passes) and
  sparse=True with sparsity= given;
- ht: hand tracking (benchmarks/gradbench/ht.py, a synthetic 22-bone model):
  the dense Jacobian w.r.t. theta in one batch (as ht.py takes it) against
  a loop of one jvp per column, and the block-diagonal one w.r.t. us, sparse, against
  ht.py's two jvps seeded by hand;
- ba: bundle adjustment's reprojection residuals (benchmarks/gradbench/ba.py,
  p observations of 15 parameters, (2p, 15p) block-sparse): dense against
  sparse=True with the block pattern given, and against ba.py's own two
  hand-seeded vjps (the structure exploited by hand).

Times are medians of `--repeats` calls after a warm-up (compiling and the
pattern's probe excluded; the probe's time is reported on its own: the
first call of a new sparse jacobian whose code is compiled already).
Ratios > 1: the second is faster."""
import argparse
import os
import statistics
import sys
import time

import numpy as np
import scipy.sparse as sp

os.environ.setdefault("S2SAD_CHECK", "0")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import s2sad  # noqa: E402
from benchmarks.gradbench import ba, ht  # noqa: E402


def chain(x, a):
    """y[i] = sum over a window of 8 of sin(x[k]) x[i] + a x[i]^2."""
    n = x.shape[0]
    y = np.empty(n)
    for i in range(n):
        s = a * x[i] * x[i]
        for k in range(max(0, i - 4), min(n, i + 4)):
            s += np.sin(x[k]) * x[i]
        y[i] = s
    return y


def laplacian_residual(u):
    n, m = u.shape
    r = np.empty((n, m))
    for i in range(n):
        for j in range(m):
            s = 4.0 * u[i, j] + u[i, j] ** 3
            if i > 0:
                s -= u[i - 1, j]
            if i < n - 1:
                s -= u[i + 1, j]
            if j > 0:
                s -= u[i, j - 1]
            if j < m - 1:
                s -= u[i, j + 1]
            r[i, j] = s
    return r


def median_time(fn, repeats):
    fn()  # warm-up: compiling, the pattern's probe
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def per_column(derivative, args, x, out_shape, mode):
    """The Jacobian by one jvp (vjp) call per column (row) from Python."""
    n, m = x.size, int(np.prod(out_shape))
    if mode == "fwd":
        jac = np.empty((m, n))
        for k in range(n):
            t = np.zeros(n)
            t[k] = 1.0
            jac[:, k] = np.ravel(derivative(*args, t.reshape(x.shape))[1])
        return jac
    jac = np.empty((m, n))
    for k in range(m):
        s = np.zeros(m)
        s[k] = 1.0
        jac[k] = np.ravel(derivative(*args, s.reshape(out_shape)))
    return jac


def bench_chain(repeats):
    x = np.random.default_rng(0).uniform(0.5, 1.5, 50)
    rows = []
    for mode, make in (("fwd", s2sad.jvp), ("rev", s2sad.vjp)):
        derivative = make(chain, jit=True)
        jac = s2sad.jacobian(chain, mode=mode, jit=True)
        reference = per_column(derivative, (x, 0.5), x, (50,), mode)
        assert np.allclose(jac(x, 0.5), reference, rtol=1e-12, atol=1e-12)
        t_old = median_time(lambda: per_column(derivative, (x, 0.5), x, (50,), mode), repeats)
        t_new = median_time(lambda: jac(x, 0.5), repeats)
        rows.append((f"chain 50x50 {mode}", "per column", t_old, "one batch", t_new))
    return rows


def bench_laplacian(repeats, size=64):
    u = np.random.default_rng(1).uniform(-1.0, 1.0, (size, size))
    n = size * size
    dense = s2sad.jacobian(laplacian_residual, jit=True)
    sparse = s2sad.jacobian(laplacian_residual, sparse=True, jit=True)
    result = sparse(u)  # (compiling)
    fresh = s2sad.jacobian(laplacian_residual, sparse=True, jit=True)
    start = time.perf_counter()
    fresh(u)  # a new jacobian's first call, compiled code reused: the probe (two dense Jacobians)
    probe = time.perf_counter() - start
    expected = dense(u).reshape(n, n)
    assert np.array_equal(result.toarray(), expected)
    given = s2sad.jacobian(laplacian_residual, sparsity=result != 0, jit=True)
    colours = sparse._patterns.get([u], 0, (n, n), None).passes("fwd")
    t_dense = median_time(lambda: dense(u), max(1, repeats // 2))
    t_sparse = median_time(lambda: sparse(u), repeats)
    t_given = median_time(lambda: given(u), repeats)
    label = f"laplacian {size}x{size} ({n}x{n}, {colours} colours)"
    return [(label, "dense", t_dense, "sparse", t_sparse),
            (label, "dense", t_dense, "sparsity= given", t_given),
            (label + ", the probe", "dense", t_dense, "sparse, first call", probe)]


def bench_ba(repeats, p=2000):
    cams, points, w, feats, cam_of, point_of = ba.inputs(
        {"n": 20, "m": 300, "p": p, "cam": [0.1, -0.2, 0.05, 0.5, -0.3, -4, 500, 10, -5,
                                           0.001, -1e-5],
         "x": [0.2, 0.1, 1.0], "w": 0.8, "feat": [40.0, -20.0]})
    rng = np.random.default_rng(2)
    params = ba.gather(cams, points, w, cam_of, point_of) * rng.uniform(0.9, 1.1, (p, 15))
    pattern = sp.kron(sp.eye(p), np.ones((2, 15)), format="csr")
    sparse = s2sad.jacobian(ba.reprojection, sparsity=pattern, jit=True)
    d_reproj = s2sad.vjp(ba.reprojection, jit=True)

    def by_hand():  # ba.py's two seeded vjps, laid out in CSR (its layout, simplified)
        seed = np.zeros((p, 2))
        seed[:, 0] = 1.0
        d_x = d_reproj(params, feats, seed)
        seed[:, 0], seed[:, 1] = 0.0, 1.0
        d_y = d_reproj(params, feats, seed)
        data = np.stack([d_x, d_y], axis=1).reshape(-1)
        return sp.csr_array((data, pattern.indices, pattern.indptr), shape=pattern.shape)

    result = sparse(params, feats)
    assert np.allclose(result.toarray(), by_hand().toarray(), rtol=1e-12, atol=1e-12)
    t_sparse = median_time(lambda: sparse(params, feats), repeats)
    t_hand = median_time(by_hand, repeats)
    small = 200  # the dense Jacobian is (2p, 15p): at p=200, 400x3000
    dense = s2sad.jacobian(ba.reprojection, jit=True)
    sparse_small = s2sad.jacobian(ba.reprojection, sparse=True, jit=True)
    args = (params[:small], feats[:small])
    assert np.allclose(sparse_small(*args).toarray(), dense(*args).reshape(2 * small, -1),
                       rtol=1e-12, atol=1e-12)
    t_dense = median_time(lambda: dense(*args), max(1, repeats // 2))
    t_small = median_time(lambda: sparse_small(*args), repeats)
    return [(f"ba p={small} ({2 * small}x{15 * small})", "dense", t_dense, "sparse", t_small),
            (f"ba p={p} ({2 * p}x{15 * p})", "two vjps by hand", t_hand, "sparse (given)",
             t_sparse)]


def ht_model(vertices, points, seed=3):
    """A synthetic 22-bone hand (benchmarks/gradbench/ht.py's argument
    layout): a chain of bones, random vertices, weights and triangles."""
    rng = np.random.default_rng(seed)
    bones = 22
    parents = np.arange(-1, bones - 1, dtype=np.int64)
    relatives = np.tile(np.eye(4), (bones, 1, 1))
    relatives[:, 0:3, 3] = rng.uniform(-0.1, 0.1, (bones, 3))
    inverse_absolutes = np.tile(np.eye(4), (bones, 1, 1))
    positions = np.hstack([rng.uniform(-1, 1, (vertices, 3)), np.ones((vertices, 1))])
    weights = rng.uniform(0, 1, (vertices, bones))
    weights /= weights.sum(axis=1, keepdims=True)
    triangles = rng.integers(0, vertices, (vertices, 3))
    correspondences = rng.integers(0, vertices, points)
    theta = rng.uniform(-0.3, 0.3, 26)
    us = rng.uniform(0.1, 0.4, (points, 2))
    target = rng.uniform(-1, 1, (points, 3))
    model = (parents, relatives, inverse_absolutes, positions, weights, False, correspondences)
    return theta, us, model, triangles, target


def bench_ht(repeats, vertices=200, points=200):
    """ht's Jacobians: w.r.t. theta (26 dense columns) in one batch
    against a loop of one jvp per column; w.r.t. us (block-diagonal,
    (3 points, 2 points)) sparse against ht.py's two jvps seeded by hand."""
    theta, us, model, triangles, target = ht_model(vertices, points)
    args = (theta,) + model + (target,)
    d_theta = s2sad.jvp(ht.simple, wrt=0, jit=True)
    by_theta = s2sad.jacobian(ht.simple, wrt=0, mode="fwd", jit=True)

    def theta_columns():  # one jvp per column
        cols = []
        for t in range(26):
            tangent = np.zeros(26)
            tangent[t] = 1.0
            cols.append(d_theta(*args, tangent)[1].ravel())
        return np.array(cols).T

    assert np.allclose(by_theta(*args).reshape(3 * points, 26), theta_columns(),
                       rtol=1e-12, atol=1e-12)
    rows = [(f"ht simple d/dtheta ({3 * points}x26)", "per column", median_time(
        theta_columns, repeats), "one batch", median_time(lambda: by_theta(*args), repeats))]
    full = (theta, us) + model + (triangles, target)
    d_us = s2sad.jvp(ht.complicated, wrt=1, jit=True)
    sparse_us = s2sad.jacobian(ht.complicated, wrt=1, sparse=True, jit=True)

    def us_by_hand():  # ht.py's two jvps: err[i] depends on us[i] alone
        cols = []
        for c in range(2):
            tangent = np.zeros_like(us)
            tangent[:, c] = 1.0
            cols.append(d_us(*full, tangent)[1])
        return cols

    result = sparse_us(*full)
    cols = us_by_hand()
    for c in range(2):
        assert np.allclose(result.toarray()[:, c::2].reshape(points, 3, points).sum(axis=2),
                           cols[c], rtol=1e-12, atol=1e-12)
    rows.append((f"ht complicated d/dus ({3 * points}x{2 * points})", "two jvps by hand",
                 median_time(us_by_hand, repeats), "sparse",
                 median_time(lambda: sparse_us(*full), repeats)))
    return rows


BENCHES = {"chain": bench_chain, "laplacian": bench_laplacian, "ba": bench_ba, "ht": bench_ht}


def table(rows):
    lines = ["| workload | A | A time | B | B time | A / B |", "|---|---|---|---|---|---|"]
    for label, a, ta, b, tb in rows:
        lines.append(f"| {label} | {a} | {ta * 1e3:.3f} ms | {b} | {tb * 1e3:.3f} ms | "
                     f"{ta / tb:.2f} |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=11)
    parser.add_argument("--only", default=",".join(BENCHES))
    parser.add_argument("--out")
    options = parser.parse_args()
    rows = []
    for name in options.only.split(","):
        rows += BENCHES[name](options.repeats)
    text = table(rows)
    print(text)
    if options.out:
        with open(options.out, "w") as f:
            f.write(f"# Jacobians (benchmarks/jacobians.py, medians of {options.repeats})\n\n"
                    + text + "\n")


if __name__ == "__main__":
    main()
