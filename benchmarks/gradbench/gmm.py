"""gmm: the log-posterior of a Gaussian mixture with a Wishart prior, and its
gradient w.r.t. alpha, mu, q and l.

Written as loops over points, components and dimensions with small buffers
(xc, Lxc, beta) reused at every iteration, as in benchmarks/workloads/w3_gmm.
Q_k = diag(exp(q_k)) + the strictly lower part filled column by column from l_k.
"""
import math

import numpy as np
import s2sad

from ._common import Function, matrix, primal, vector


def logsumexp(v):
    mx = v[0]
    for c in range(1, v.shape[0]):
        if v[c] > mx:
            mx = v[c]
    se = 0.0
    for c in range(v.shape[0]):
        se += math.exp(v[c] - mx)
    return mx + math.log(se)


def log_gamma_d(d, a):
    """log of the multivariate gamma function Γ_d(a)."""
    out = 0.25 * d * (d - 1) * math.log(math.pi)
    for j in range(1, d + 1):
        out += math.lgamma(a + 0.5 * (1 - j))
    return out


def gmm(alpha, mu, q, l, x, gamma, m):
    n = x.shape[0]
    d = x.shape[1]
    k = alpha.shape[0]
    qdiag = np.empty((k, d))
    sum_q = np.zeros(k)
    for c in range(k):
        for j in range(d):
            qdiag[c, j] = math.exp(q[c, j])
            sum_q[c] += q[c, j]
    xc = np.empty(d)
    Lxc = np.empty(d)
    beta = np.empty(k)
    slse = 0.0
    for i in range(n):
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
        slse += logsumexp(beta)
    # Wishart prior; its normalising constant does not depend on the parameters
    nu = d + m + 1.0
    cst = nu * d * (math.log(gamma) - 0.5 * math.log(2.0)) - log_gamma_d(d, 0.5 * nu)
    prior = k * cst
    for c in range(k):
        fro = 0.0
        for j in range(d):
            fro += qdiag[c, j] * qdiag[c, j]
        for t in range(l.shape[1]):
            fro += l[c, t] * l[c, t]
        prior += -0.5 * gamma * gamma * fro + m * sum_q[c]
    return -0.5 * n * d * math.log(2.0 * math.pi) + slse - n * logsumexp(alpha) + prior


def inputs(inp):
    d = int(inp["d"])
    return (vector(inp["alpha"]), matrix(inp["mu"], d), matrix(inp["q"], d),
            matrix(inp["l"], d * (d - 1) // 2), matrix(inp["x"], d), float(inp["gamma"]),
            float(inp["m"]))


def jacobian_output(grads):
    return {name: g.tolist() for name, g in zip(("alpha", "mu", "q", "l"), grads)}


def define(jit):
    objective = primal(gmm, jit)
    jacobian = s2sad.grad(gmm, wrt=(0, 1, 2, 3), jit=jit, boundscheck=False)
    rng = np.random.default_rng(0)
    args = (rng.standard_normal(2), rng.random((2, 3)), rng.standard_normal((2, 3)),
            rng.standard_normal((2, 3)), rng.standard_normal((4, 3)), 1.0, 0.0)
    objective(*args)
    jacobian(*args)
    return {"objective": Function(objective, inputs),
            "jacobian": Function(jacobian, inputs, jacobian_output)}
