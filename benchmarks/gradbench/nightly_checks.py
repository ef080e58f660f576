"""Independent checks of the tool's answers for nightly.py, written from
GRADBENCH.md (no code shared with the eval modules): closed forms where the
spec gives them, otherwise a numpy implementation and central finite
differences of it. check() returns None if the output passes GradBench's rule
|a − b| / max(1, |a| + |b|) ≤ 1e-4 everywhere, else a description of (at most
10) mismatches."""
import math

import numpy as np

TOL = 1e-4


def compare(actual, expected, path="", out=None):
    """GradBench's comparison of JSON values: same types, keys and lengths,
    numbers within TOL (integers exactly)."""
    out = [] if out is None else out
    if isinstance(expected, dict):
        if not isinstance(actual, dict) or set(actual) != set(expected):
            out.append(f"{path}: keys {sorted(expected)} != {type(actual).__name__} "
                       f"{sorted(actual) if isinstance(actual, dict) else ''}")
        else:
            for key in expected:
                compare(actual[key], expected[key], f"{path}.{key}", out)
    elif isinstance(expected, (list, np.ndarray)):
        if not isinstance(actual, list) or len(actual) != len(expected):
            out.append(f"{path}: a list of {len(expected)} != "
                       f"{len(actual) if isinstance(actual, list) else type(actual).__name__}")
        else:
            for i, (a, e) in enumerate(zip(actual, expected)):
                compare(a, e, f"{path}[{i}]", out)
                if len(out) > 10:
                    break
    else:
        both_int = isinstance(expected, (int, np.integer)) and isinstance(actual, int)
        if isinstance(actual, bool) or not isinstance(actual, (int, float)):
            out.append(f"{path}: expected a number, got {type(actual).__name__}")
        elif both_int and actual != expected:
            out.append(f"{path}: {expected} != {actual}")
        elif abs(actual - expected) / max(1.0, abs(actual) + abs(expected)) > TOL:
            out.append(f"{path}: {float(expected)} != {actual}")
    return out


def verdict(actual, expected):
    mismatches = compare(actual, to_list(expected))
    return "; ".join(mismatches[:10]) if mismatches else None


def to_list(x):
    if isinstance(x, np.ndarray):
        return x.astype(np.float64).tolist() if x.dtype.kind == "f" else x.tolist()
    if isinstance(x, np.floating):
        return float(x)
    if isinstance(x, dict):
        return {k: to_list(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [to_list(v) for v in x]
    return x


def check(name, function, inp, output, g):
    return globals()[f"check_{name}"](function, inp, output, g)


# ------------------------------------------------------------ closed forms

def check_lse(function, inp, output, g):
    x = np.array(inp["x"])
    a = x.max()
    lse = a + math.log(np.exp(x - a).sum())
    return verdict(output, lse if function == "primal" else np.exp(x - lse))


def check_llsq(function, inp, output, g):
    x, n = np.array(inp["x"]), inp["n"]
    t = -1 + np.arange(n) * 2 / (n - 1)
    T = t[:, None] ** np.arange(len(x))
    r = np.sign(t) - T @ x
    return verdict(output, 0.5 * r @ r if function == "primal" else -T.T @ r)


def check_ode(function, inp, output, g):
    x, s = np.array(inp["x"]), inp["s"]
    n = len(x)
    if function == "gradient":  # GradBench's quirk: the exact solution's gradient
        with np.errstate(divide="ignore", under="ignore"):
            y = math.exp(n * math.log(2) - math.lgamma(n + 1) + np.log(x).sum())
        return verdict(output, y / x)

    def F(y):
        return x * np.concatenate([[1.0], y[:-1]])
    h, y = 2.0 / s, np.zeros(n)
    for _ in range(s):
        k1 = F(y)
        k2 = F(y + h / 2 * k1)
        k3 = F(y + h / 2 * k2)
        k4 = F(y + h * k3)
        y = y + h * (k1 + 2 * k2 + 2 * k3 + k4) / 6
    return verdict(output, y)


def check_det(function, inp, output, g):
    ell = inp["ell"]
    A = np.array(inp["A"]).reshape(ell, ell)
    d = np.linalg.det(A)
    return verdict(output, d if function == "primal" else (d * np.linalg.inv(A).T).ravel())


def check_kmeans(function, inp, output, g):
    P, C = np.array(inp["points"]), np.array(inp["centroids"])
    nearest = np.empty(len(P), dtype=np.int64)
    for s in range(0, len(P), 256):  # argmin: ties to the lowest index
        nearest[s:s + 256] = (((P[s:s + 256, None, :] - C[None]) ** 2).sum(-1)).argmin(1)
    if function == "cost":
        return verdict(output, ((P - C[nearest]) ** 2).sum())
    counts = np.bincount(nearest, minlength=len(C))
    sums = np.zeros_like(C)
    np.add.at(sums, nearest, P)
    return verdict(output, C - sums / counts[:, None])


def check_particle(function, inp, output, g):
    return verdict(output, 0.2071918746486116)


def check_saddle(function, inp, output, g):
    return verdict(output, [8.246324826140356e-06] * 4)


# ------------------------------------------------------------------- ba

def project(cam, X):
    """GRADBENCH.md §6.9's projection (numbers in, numbers out)."""
    r, C, f, u, k = cam[0:3], cam[3:6], cam[6], cam[7:9], cam[9:11]
    Y = X - C
    t2 = r @ r
    if t2 != 0:
        t = np.sqrt(t2)
        w = r / t
        Z = Y * np.cos(t) + np.cross(w, Y) * np.sin(t) + w * (w @ Y) * (1 - np.cos(t))
    else:
        Z = Y + np.cross(r, Y)
    p = Z[:2] / Z[2]
    rho = p @ p
    return f * p * (1 + k[0] * rho + k[1] * rho * rho) + u


def check_ba(function, inp, output, g):
    n, m, p, w = inp["n"], inp["m"], inp["p"], inp["w"]
    cam, X, feat = np.array(inp["cam"]), np.array(inp["x"]), np.array(inp["feat"])
    if function == "objective":
        return verdict(output, {"reproj_error": {"elements": w * (project(cam, X) - feat),
                                                 "repeated": p},
                                "w_err": {"element": 1 - w * w, "repeated": p}})
    obs = np.concatenate([cam, X, [w]]).astype(np.longdouble)

    def residual(v):
        return v[14] * (project(v[:11], v[11:14]) - feat)
    J = np.empty((2, 15))
    for c in range(15):
        h = 1e-6 * max(1.0, abs(float(obs[c])))
        e = np.zeros(15, dtype=np.longdouble)
        e[c] = h
        J[:, c] = (residual(obs + e) - residual(obs - e)) / (2 * h)
    block = list(range(11)) + [11 * n, 11 * n + 1, 11 * n + 2, 11 * n + 3 * m]
    expected = {"rows": list(range(0, 436, 15)) + [31 * p],
                "cols": block + block + [11 * n + 3 * m + p - 1],
                "vals": J[0].tolist() + J[1].tolist() + [-2 * w]}
    return verdict(output, expected)


# ------------------------------------------------------------------- gmm

def gmm_betas(alpha_k, mu_k, q_k, l_k, x):
    """β_ik for one component k, (n,)."""
    d = x.shape[1]
    Q = np.diag(np.exp(q_k))
    rows, cols = zip(*[(r, c) for c in range(d - 1) for r in range(c + 1, d)]) if d > 1 \
        else ((), ())
    Q[list(rows), list(cols)] = l_k
    Lx = (x - mu_k) @ Q.T
    return alpha_k + q_k.sum() - 0.5 * (Lx * Lx).sum(1)


def logsumexp(v, axis=None):
    mx = v.max(axis=axis, keepdims=True)
    return (mx + np.log(np.exp(v - mx).sum(axis=axis, keepdims=True))).squeeze(axis)


def gmm_total(B, alpha, q, l, n, d, m, gamma):
    k = len(alpha)
    nu = d + m + 1
    log_gamma_d = d * (d - 1) / 4 * math.log(math.pi) + sum(
        math.lgamma(nu / 2 + (1 - j) / 2) for j in range(1, d + 1))
    C = nu * d * (math.log(gamma) - 0.5 * math.log(2)) - log_gamma_d
    prior = (k * C - gamma ** 2 / 2 * ((np.exp(q) ** 2).sum() + (l ** 2).sum())
             + m * q.sum())
    return -n * d / 2 * math.log(2 * math.pi) + logsumexp(B, 1).sum() - n * logsumexp(alpha) \
        + prior


def check_gmm(function, inp, output, g, samples=2):
    ld = np.longdouble
    d, k, n, m, gamma = inp["d"], inp["k"], inp["n"], inp["m"], inp["gamma"]
    x = np.array(inp["x"], dtype=ld).reshape(n, d)
    params = {"alpha": np.array(inp["alpha"], dtype=ld),
              "mu": np.array(inp["mu"], dtype=ld).reshape(k, d),
              "q": np.array(inp["q"], dtype=ld).reshape(k, d),
              "l": np.array(inp["l"], dtype=ld).reshape(k, d * (d - 1) // 2)}

    def column(P, c):
        return gmm_betas(P["alpha"][c], P["mu"][c], P["q"][c], P["l"][c], x)

    B = np.stack([column(params, c) for c in range(k)], 1)

    def total(P, B):
        return gmm_total(B, P["alpha"], P["q"], P["l"], n, d, m, gamma)
    if function == "objective":
        return verdict(output, float(total(params, B)))
    if not isinstance(output, dict) or set(output) != set(params):
        return f"keys {sorted(output) if isinstance(output, dict) else output!r}"
    errors = []
    for name, value in params.items():
        got = np.array(output[name], dtype=float)
        if got.shape != value.shape:
            return f"{name}: shape {got.shape} != {value.shape}"
        for flat in g.choice(value.size, min(samples, value.size), replace=False):
            idx = np.unravel_index(flat, value.shape)
            c = idx[0] if name != "alpha" else flat
            h = 1e-6 * max(1.0, abs(float(value[idx])))
            fd = []
            for sign in (1, -1):
                P = {**params, name: value.copy()}
                P[name][idx] += sign * h
                Bc = B.copy()
                Bc[:, c] = column(P, c)
                fd.append(total(P, Bc))
            e = verdict(float(got[idx]), float((fd[0] - fd[1]) / (2 * h)))
            if e:
                errors.append(f"{name}{list(idx)}{e}")
    return "; ".join(errors) or None


# ------------------------------------------------------------------ lstm

def lstm_batch(main, extra, state, seq):
    """The lstm objective for a batch of parameter sets: main (B, 2L, 4b),
    extra (B, 3, b); state (2L, b) and seq (c, b) shared. Returns (B,)."""
    L, b, c = main.shape[1] // 2, seq.shape[1], seq.shape[0]
    h = [np.broadcast_to(state[2 * j], (len(main), b)) for j in range(L)]
    cell = [np.broadcast_to(state[2 * j + 1], (len(main), b)) for j in range(L)]

    def sig(z):
        return 1 / (1 + np.exp(-z))
    W = [[main[:, 2 * j, i * b:(i + 1) * b] for i in range(4)] for j in range(L)]
    Bs = [[main[:, 2 * j + 1, i * b:(i + 1) * b] for i in range(4)] for j in range(L)]
    total = 0.0
    for t in range(c - 1):
        v = seq[t] * extra[:, 0]
        for j in range(L):
            f = sig(v * W[j][0] + Bs[j][0])
            i = sig(h[j] * W[j][1] + Bs[j][1])
            o = sig(v * W[j][2] + Bs[j][2])
            gg = np.tanh(h[j] * W[j][3] + Bs[j][3])
            cell[j] = cell[j] * f + i * gg
            h[j] = o * np.tanh(cell[j])
            v = h[j]
        y = v * extra[:, 1] + extra[:, 2]
        yn = y - np.log(np.exp(y).sum(1, keepdims=True) + 2)
        total = total + (seq[t + 1] * yn).sum(1)
    return -total / ((c - 1) * b)


def check_lstm(function, inp, output, g, samples=6):
    main, extra = np.array(inp["main_params"]), np.array(inp["extra_params"])
    state, seq = np.array(inp["state"]), np.array(inp["sequence"])
    if function == "objective":
        return verdict(output, float(lstm_batch(main[None], extra[None], state, seq)[0]))
    flat = np.concatenate([main.ravel(), extra.ravel()])
    if not isinstance(output, list) or len(output) != flat.size:
        return f"a list of {flat.size} expected"
    picks = g.choice(flat.size, min(samples, flat.size), replace=False)
    h = 1e-6
    batch = np.repeat(flat[None], 2 * len(picks), 0)
    for s, i in enumerate(picks):
        batch[2 * s, i] += h
        batch[2 * s + 1, i] -= h
    main_b = batch[:, :main.size].reshape(-1, *main.shape)
    extra_b = batch[:, main.size:].reshape(-1, *extra.shape)
    f = lstm_batch(main_b, extra_b, state, seq)
    fd = (f[0::2] - f[1::2]) / (2 * h)
    errors = [f"[{i}]: {e}" for i, a in zip(picks, fd) if (e := verdict(output[i], float(a)))]
    return "; ".join(errors) or None


# -------------------------------------------------------------------- ht

def rot(axis, a):
    c, s = math.cos(a), math.sin(a)
    R = np.eye(3)
    i, j = [(1, 2), (0, 2), (0, 1)][axis]
    R[i, i] = R[j, j] = c
    R[i, j], R[j, i] = (-s, s) if axis != 1 else (s, -s)
    return R


def ht_residuals(theta, us, model, corr, points):
    """GRADBENCH.md §6.8, vectorised over the vertices; (3 npts,)."""
    P = np.zeros((3, 25))
    P[:, 0], P[:, 1], P[:, 2] = theta[0:3], 1.0, theta[3:6]
    for f in range(5):
        b = 2 + 4 * f
        P[0, b + 3], P[1, b + 3] = theta[6 + 4 * f], theta[7 + 4 * f]
        P[0, b + 4], P[0, b + 5] = theta[8 + 4 * f], theta[9 + 4 * f]
    absolutes, pos = [], 0.0
    base = model["base_positions"]
    for i, parent in enumerate(model["parents"]):
        tx, tz, ty = P[:, i + 3]
        T = np.eye(4)
        T[:3, :3] = rot(2, tz) @ rot(1, ty) @ rot(0, tx)
        relative = model["base_relatives"][i] @ T
        absolutes.append(relative if parent == -1 else absolutes[parent] @ relative)
        M = absolutes[i] @ model["inverse_base_absolutes"][i]
        pos = pos + model["weights"][:, i:i + 1] * (base @ M[:3].T)
    if model["is_mirrored"]:
        pos[:, 0] = -pos[:, 0]
    angle = np.linalg.norm(theta[0:3])
    if angle >= 1e-4:  # Rodrigues: I + sin K + (1 − cos) K²
        k = theta[0:3] / angle
        K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
        pos = pos @ (np.eye(3) + math.sin(angle) * K + (1 - math.cos(angle)) * K @ K).T
    pos = pos + theta[3:6]
    if us is None:
        return (points - pos[corr]).ravel()
    tri = model["triangles"][corr]
    hit = (us[:, :1] * pos[tri[:, 0]] + us[:, 1:] * pos[tri[:, 1]]
           + (1 - us.sum(1, keepdims=True)) * pos[tri[:, 2]])
    return (points - hit).ravel()


def check_ht(function, inp, output, g):
    model = {key: np.array(value) for key, value in inp["data"]["model"].items()
             if key != "bone_names"}
    model["is_mirrored"] = bool(inp["data"]["model"]["is_mirrored"])
    theta = np.array(inp["theta"])
    us = np.array(inp["us"]).reshape(-1, 2) if inp["us"] else None
    corr, points = np.array(inp["data"]["correspondences"]), np.array(inp["data"]["points"])

    def err(theta, us):
        return ht_residuals(theta, us, model, corr, points)
    if function == "objective":
        return verdict(output, err(theta, us))
    # every column by central differences: a column of theta at once, and,
    # since err[r] depends only on us[r // 3], a whole column of us at once
    h, cols = 1e-6, []
    for c in range(2 if us is not None else 0):
        e = np.zeros_like(us)
        e[:, c] = h
        cols.append((err(theta, us + e) - err(theta, us - e)) / (2 * h))
    for t in range(len(theta)):
        e = np.zeros_like(theta)
        e[t] = h
        cols.append((err(theta + e, us) - err(theta - e, us)) / (2 * h))
    J = np.array(output)
    expected = np.stack(cols, 1)
    if J.shape != expected.shape:
        return f"shape {J.shape} != {expected.shape}"
    bad = np.abs(J - expected) / np.maximum(1, np.abs(J) + np.abs(expected)) > TOL
    if bad.any():
        where = list(zip(*np.nonzero(bad)))[:10]
        return "; ".join(f"[{r}][{c}]: {expected[r, c]} != {J[r, c]}" for r, c in where)
    return None
