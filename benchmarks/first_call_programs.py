"""The programs benchmarks/first_call.py measures: for each, the source of a
module defining the function `f`, its arguments `ARGS` and `WRT` (the
argument positions or names to differentiate), and, where numba compiles
`f`, `hand_grad(*ARGS)`: its gradient written by hand in numba's subset
(forward tangents for a few parameters, the adjoint of a linear stencil,
the closed form of the others). The time numba takes to compile `f` and
`hand_grad` is what a person writing the gradient by hand waits for;
tests/test_first_call_programs.py checks each hand gradient against finite
differences."""

import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUICKSTART = os.path.join(ROOT, "examples", "quickstart.py")

# name -> (module source defining the function `f`, the arguments `ARGS`
# and `WRT`, the argument positions or names to differentiate, and where
# numba compiles f `hand_grad`; a description)
PROGRAMS = {
    "quickstart": (f"""
import importlib.util
_spec = importlib.util.spec_from_file_location("quickstart", {QUICKSTART!r})
_mod = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_mod)
f = _mod.simulate
import numpy as np

def hand_grad(a, b, c):
    # tangents along a, b and c carried through the loop by hand
    x, dt = 0.5, 0.01
    da = db = dc = 0.0
    for _ in range(1000):
        slope = 1.0 + dt * (a * np.cos(x) - 3.0 * b * x * x)
        da, db, dc = (slope * da + dt * np.sin(x), slope * db - dt * x ** 3,
                      slope * dc + dt)
        x = x + dt * (a * np.sin(x) - b * x ** 3 + c)
    return da, db, dc

ARGS = (1.0, 0.5, 0.2)
WRT = ("a", "b", "c")
""", "Euler loop of the README's quickstart, 1000 steps, 3 scalars"),
    "logistic": ("""
import numpy as np

def f(w, X, y):
    z = X @ w
    return np.mean(np.log1p(np.exp(-y * z)))


def hand_grad(w, X, y):
    z = X @ w
    dz = -y / (1.0 + np.exp(y * z)) / z.shape[0]
    return X.T @ dz

_r = np.random.default_rng(0)
ARGS = (_r.normal(size=5), _r.normal(size=(50, 5)), np.sign(_r.normal(size=50)))
WRT = 0
""", "logistic regression loss, 50 x 5"),
    "gp_nll": ("""
import numpy as np

def f(theta, X, y):
    ell, sf2 = np.exp(theta[0]), np.exp(theta[1])
    d = X[:, None, :] - X[None, :, :]
    K = sf2 * np.exp(-0.5 * np.sum(d * d, axis=2) / (ell * ell)) + 1e-6 * np.eye(X.shape[0])
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, y))
    return 0.5 * (y @ alpha) + np.sum(np.log(np.diag(L)))


def hand_grad(theta, X, y):
    # 0.5 tr((K^-1 - alpha alpha^T) dK/dtheta_j)
    ell, sf2 = np.exp(theta[0]), np.exp(theta[1])
    n = X.shape[0]
    D = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            for e in range(X.shape[1]):
                D[i, j] += (X[i, e] - X[j, e]) ** 2
    K0 = sf2 * np.exp(-0.5 * D / (ell * ell))
    K = K0 + 1e-6 * np.eye(n)
    Kinv = np.linalg.inv(K)
    alpha = Kinv @ y
    W = Kinv - np.outer(alpha, alpha)
    g = np.empty(2)
    g[0] = 0.5 * np.sum(W * K0 * D / (ell * ell))
    g[1] = 0.5 * np.sum(W * K0)
    return g

_r = np.random.default_rng(0)
ARGS = (np.array([0.1, -0.2]), _r.normal(size=(20, 2)), _r.normal(size=20))
WRT = 0
""", "Gaussian-process negative log likelihood (cholesky, solve), 20 points"),
    "mlp_dict": ("""
import numpy as np

def f(params, x, y):
    h = np.tanh(x @ params["W1"] + params["b1"])
    out = h @ params["W2"] + params["b2"]
    return np.mean((out - y) ** 2)

_r = np.random.default_rng(0)
ARGS = ({"W1": _r.normal(size=(4, 16)), "b1": np.zeros(16),
         "W2": _r.normal(size=(16, 1)), "b2": np.zeros(1)},
        _r.normal(size=(32, 4)), _r.normal(size=(32, 1)))
WRT = 0
""", "two-layer MLP, parameters in a dict"),
    "euler": ("""
import numpy as np

def f(k, x0, dt, steps):
    x = x0
    t = 0.0
    for _ in range(steps):
        x = x + dt * (-k * x + np.sin(t))
        t = t + dt
    return x


def hand_grad(k, x0, dt, steps):
    x, t, dx = x0, 0.0, 0.0
    for _ in range(steps):
        dx = dx + dt * (-x - k * dx)
        x = x + dt * (-k * x + np.sin(t))
        t = t + dt
    return dx

ARGS = (0.7, 1.0, 0.01, 500)
WRT = 0
""", "Euler loop, scalar ODE, 500 steps"),
    "heat": ("""
import numpy as np

def f(u0, alpha, steps):
    u = u0.copy()
    n = u.shape[0]
    for _ in range(steps):
        new = u.copy()
        for i in range(1, n - 1):
            new[i] = u[i] + alpha * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        u = new
    return np.sum(u * u)


def hand_grad(u0, alpha, steps):
    # the loop's adjoint by hand (the stencil is linear: no tape)
    u = u0.copy()
    n = u.shape[0]
    for _ in range(steps):
        new = u.copy()
        for i in range(1, n - 1):
            new[i] = u[i] + alpha * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        u = new
    lam = 2.0 * u
    for _ in range(steps):
        prev = np.zeros(n)
        prev[0] = lam[0]
        prev[n - 1] = lam[n - 1]
        for i in range(1, n - 1):
            prev[i] += (1.0 - 2.0 * alpha) * lam[i]
            prev[i - 1] += alpha * lam[i]
            prev[i + 1] += alpha * lam[i]
        lam = prev
    return lam

ARGS = (np.sin(np.linspace(0.0, 3.0, 64)), 0.2, 50)
WRT = 0
""", "1-D heat stencil, 64 cells, 50 steps"),
    "softmax_xent": ("""
import numpy as np

def f(W, X, labels):
    logits = X @ W
    m = np.max(logits, axis=1, keepdims=True)
    logp = logits - m - np.log(np.sum(np.exp(logits - m), axis=1, keepdims=True))
    return -np.mean(np.sum(labels * logp, axis=1))

_r = np.random.default_rng(0)
ARGS = (_r.normal(size=(8, 3)), _r.normal(size=(40, 8)), np.eye(3)[_r.integers(0, 3, 40)])
WRT = 0
""", "softmax cross-entropy, 40 x 8, 3 classes"),
    "rk4": ("""
import numpy as np

def rhs(x, v, k, c):
    return v, -k * x - c * v

def f(k, c, x0, v0, dt, steps):
    x, v = x0, v0
    for _ in range(steps):
        a1, b1 = rhs(x, v, k, c)
        a2, b2 = rhs(x + 0.5 * dt * a1, v + 0.5 * dt * b1, k, c)
        a3, b3 = rhs(x + 0.5 * dt * a2, v + 0.5 * dt * b2, k, c)
        a4, b4 = rhs(x + dt * a3, v + dt * b3, k, c)
        x = x + dt / 6.0 * (a1 + 2.0 * a2 + 2.0 * a3 + a4)
        v = v + dt / 6.0 * (b1 + 2.0 * b2 + 2.0 * b3 + b4)
    return x * x + v * v


def hand_grad(k, c, x0, v0, dt, steps):
    # tangents along k and c carried through the steps by hand
    x, v = x0, v0
    dx, dv = np.zeros(2), np.zeros(2)  # d/dk, d/dc
    dk, dc = np.array([1.0, 0.0]), np.array([0.0, 1.0])
    for _ in range(steps):
        a1, b1 = v, -k * x - c * v
        da1, db1 = dv, -k * dx - c * dv - x * dk - v * dc
        x2, v2 = x + 0.5 * dt * a1, v + 0.5 * dt * b1
        dx2, dv2 = dx + 0.5 * dt * da1, dv + 0.5 * dt * db1
        a2, b2 = v2, -k * x2 - c * v2
        da2, db2 = dv2, -k * dx2 - c * dv2 - x2 * dk - v2 * dc
        x3, v3 = x + 0.5 * dt * a2, v + 0.5 * dt * b2
        dx3, dv3 = dx + 0.5 * dt * da2, dv + 0.5 * dt * db2
        a3, b3 = v3, -k * x3 - c * v3
        da3, db3 = dv3, -k * dx3 - c * dv3 - x3 * dk - v3 * dc
        x4, v4 = x + dt * a3, v + dt * b3
        dx4, dv4 = dx + dt * da3, dv + dt * db3
        a4, b4 = v4, -k * x4 - c * v4
        da4, db4 = dv4, -k * dx4 - c * dv4 - x4 * dk - v4 * dc
        x = x + dt / 6.0 * (a1 + 2.0 * a2 + 2.0 * a3 + a4)
        v = v + dt / 6.0 * (b1 + 2.0 * b2 + 2.0 * b3 + b4)
        dx = dx + dt / 6.0 * (da1 + 2.0 * da2 + 2.0 * da3 + da4)
        dv = dv + dt / 6.0 * (db1 + 2.0 * db2 + 2.0 * db3 + db4)
    g = 2.0 * x * dx + 2.0 * v * dv
    return g[0], g[1]

ARGS = (2.0, 0.1, 1.0, 0.0, 0.01, 300)
WRT = (0, 1)
""", "RK4 damped oscillator with a helper function, 300 steps"),
    "quadratic": ("""
import numpy as np

def f(x, A, b):
    return 0.5 * (x @ (A @ x)) - b @ x


def hand_grad(x, A, b):
    return 0.5 * (A @ x + A.T @ x) - b

_r = np.random.default_rng(0)
ARGS = (_r.normal(size=10), _r.normal(size=(10, 10)), _r.normal(size=10))
WRT = 0
""", "loop-free quadratic form, 10 variables"),
}

