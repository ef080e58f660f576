"""Parallel workloads: W3, W5 and a pairwise particle energy written with
numba.prange (and, for comparison, the same functions with range).

W3 here allocates its small buffers (xc, Lxc, beta) in each iteration of
the loop over points: shared buffers would make the iterations depend on
each other (numba would race on them, and s2sad refuses the prange)."""
import math

import numpy as np
from numba import prange


def w3_prange(alpha, mu, q, l, x, wishart_gamma, wishart_m):
    n = x.shape[0]
    d = x.shape[1]
    k = alpha.shape[0]
    qdiag = np.empty((k, d))
    sum_q = np.zeros(k)
    for c in range(k):
        for j in range(d):
            qdiag[c, j] = math.exp(q[c, j])
            sum_q[c] += q[c, j]
    slse = 0.0
    for i in prange(n):
        xc = np.empty(d)  # each iteration's own buffers
        Lxc = np.empty(d)
        beta = np.empty(k)
        for c in range(k):
            for j in range(d):
                xc[j] = x[i, j] - mu[c, j]
            for j in range(d):
                Lxc[j] = qdiag[c, j] * xc[j]
            t = 0
            for col in range(d - 1):
                for row in range(col + 1, d):
                    Lxc[row] += l[c, t] * xc[col]
                    t += 1
            sq = 0.0
            for j in range(d):
                sq += Lxc[j] * Lxc[j]
            beta[c] = alpha[c] + sum_q[c] - 0.5 * sq
        mx = beta[0]
        for c in range(1, k):
            if beta[c] > mx:
                mx = beta[c]
        se = 0.0
        for c in range(k):
            se += math.exp(beta[c] - mx)
        slse += mx + math.log(se)
    ma = alpha[0]
    for c in range(1, k):
        if alpha[c] > ma:
            ma = alpha[c]
    sa = 0.0
    for c in range(k):
        sa += math.exp(alpha[c] - ma)
    lse_alpha = ma + math.log(sa)
    # Wishart prior; the constant C does not depend on the parameters.
    nu = d + wishart_m + 1.0
    lgd = 0.25 * d * (d - 1) * math.log(math.pi)
    for j in range(1, d + 1):
        lgd += math.lgamma(0.5 * nu + 0.5 * (1 - j))
    cst = nu * d * (math.log(wishart_gamma) - 0.5 * math.log(2.0)) - lgd
    prior = k * cst
    for c in range(k):
        fro = 0.0
        for j in range(d):
            fro += qdiag[c, j] * qdiag[c, j]
        for t in range(l.shape[1]):
            fro += l[c, t] * l[c, t]
        prior += -0.5 * wishart_gamma * wishart_gamma * fro + wishart_m * sum_q[c]
    return -0.5 * n * d * math.log(2.0 * math.pi) + slse - n * lse_alpha + prior



def w3_serial(alpha, mu, q, l, x, wishart_gamma, wishart_m):
    n = x.shape[0]
    d = x.shape[1]
    k = alpha.shape[0]
    qdiag = np.empty((k, d))
    sum_q = np.zeros(k)
    for c in range(k):
        for j in range(d):
            qdiag[c, j] = math.exp(q[c, j])
            sum_q[c] += q[c, j]
    slse = 0.0
    for i in range(n):
        xc = np.empty(d)  # each iteration's own buffers
        Lxc = np.empty(d)
        beta = np.empty(k)
        for c in range(k):
            for j in range(d):
                xc[j] = x[i, j] - mu[c, j]
            for j in range(d):
                Lxc[j] = qdiag[c, j] * xc[j]
            t = 0
            for col in range(d - 1):
                for row in range(col + 1, d):
                    Lxc[row] += l[c, t] * xc[col]
                    t += 1
            sq = 0.0
            for j in range(d):
                sq += Lxc[j] * Lxc[j]
            beta[c] = alpha[c] + sum_q[c] - 0.5 * sq
        mx = beta[0]
        for c in range(1, k):
            if beta[c] > mx:
                mx = beta[c]
        se = 0.0
        for c in range(k):
            se += math.exp(beta[c] - mx)
        slse += mx + math.log(se)
    ma = alpha[0]
    for c in range(1, k):
        if alpha[c] > ma:
            ma = alpha[c]
    sa = 0.0
    for c in range(k):
        sa += math.exp(alpha[c] - ma)
    lse_alpha = ma + math.log(sa)
    # Wishart prior; the constant C does not depend on the parameters.
    nu = d + wishart_m + 1.0
    lgd = 0.25 * d * (d - 1) * math.log(math.pi)
    for j in range(1, d + 1):
        lgd += math.lgamma(0.5 * nu + 0.5 * (1 - j))
    cst = nu * d * (math.log(wishart_gamma) - 0.5 * math.log(2.0)) - lgd
    prior = k * cst
    for c in range(k):
        fro = 0.0
        for j in range(d):
            fro += qdiag[c, j] * qdiag[c, j]
        for t in range(l.shape[1]):
            fro += l[c, t] * l[c, t]
        prior += -0.5 * wishart_gamma * wishart_gamma * fro + wishart_m * sum_q[c]
    return -0.5 * n * d * math.log(2.0 * math.pi) + slse - n * lse_alpha + prior



def w5_prange(w, x):
    y = 0.0
    for i in prange(x.shape[0]):
        y += w[i] * math.tanh(x[i])
    return y


def w5_serial(w, x):
    y = 0.0
    for i in range(x.shape[0]):
        y += w[i] * math.tanh(x[i])
    return y


def energy_prange(pos, eps):
    """Softened Coulomb energy of n particles, every ordered pair halved."""
    n = pos.shape[0]
    e = 0.0
    for i in prange(n):
        for j in range(n):
            if j != i:
                dx = pos[i, 0] - pos[j, 0]
                dy = pos[i, 1] - pos[j, 1]
                dz = pos[i, 2] - pos[j, 2]
                e += 0.5 / math.sqrt(dx * dx + dy * dy + dz * dz + eps)
    return e


def energy_serial(pos, eps):
    n = pos.shape[0]
    e = 0.0
    for i in range(n):
        for j in range(n):
            if j != i:
                dx = pos[i, 0] - pos[j, 0]
                dy = pos[i, 1] - pos[j, 1]
                dz = pos[i, 2] - pos[j, 2]
                e += 0.5 / math.sqrt(dx * dx + dy * dy + dz * dz + eps)
    return e


def w3_inputs(n, seed=0):
    from .w3_gmm import make_inputs
    alpha, mu, q, l, _, gamma, m = make_inputs("full", seed)
    x = np.random.default_rng(seed + 1).standard_normal((n, mu.shape[1]))
    return (alpha, mu, q, l, x, gamma, m)


def w5_inputs(n, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(n), rng.standard_normal(n))


def energy_inputs(n, seed=0):
    return (np.random.default_rng(seed).standard_normal((n, 3)), 0.01)


# name -> (prange function, range function, wrt, inputs(size), full size, small size)
WORKLOADS = {
    "W3": (lambda: w3_prange, lambda: w3_serial, (0, 1, 2, 3), w3_inputs, 100_000, 20),
    "W5": (lambda: w5_prange, lambda: w5_serial, (0, 1), w5_inputs, 1_000_000, 100),
    "pairwise": (lambda: energy_prange, lambda: energy_serial, 0, energy_inputs, 2_000, 10),
}
