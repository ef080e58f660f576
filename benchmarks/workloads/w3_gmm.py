"""W3: GradBench/ADBench Gaussian-mixture log-posterior with a Wishart prior.

Written as explicit loops over points, components and dimensions, with small
buffers (xc, Lxc, beta) overwritten at every iteration: the pattern that makes
reverse mode hard (each overwritten value must be recorded or recomputed).
Q_k = diag(exp(q_k)) + strictly-lower part filled column by column from l_k.
"""
import math

import numpy as np

DESCRIPTION = "GMM log-posterior + Wishart prior (d=10, k=25, n=1000), explicit loops; grad wrt alpha, mu, q, l"
WRT = (0, 1, 2, 3)


def primal(alpha, mu, q, l, x, wishart_gamma, wishart_m):
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


def hand_grad(alpha, mu, q, l, x, wishart_gamma, wishart_m):
    # Per point: compute all k betas, keeping xc and Lxc of every component in
    # small k-by-d scratch arrays (cheaper than recomputing them), then use the
    # posterior weights w_c = softmax(beta)_c as the adjoint of beta_c.
    #   d beta/d alpha_c = 1,  d beta/d q_cj = 1 - Lxc_j qdiag_j xc_j,
    #   d beta/d l_c[t(row,col)] = -Lxc_row xc_col,  d beta/d mu_c = L^T Lxc.
    n = x.shape[0]
    d = x.shape[1]
    k = alpha.shape[0]
    nl = l.shape[1]
    qdiag = np.empty((k, d))
    sum_q = np.zeros(k)
    for c in range(k):
        for j in range(d):
            qdiag[c, j] = math.exp(q[c, j])
            sum_q[c] += q[c, j]
    galpha = np.zeros(k)
    gmu = np.zeros((k, d))
    gq = np.zeros((k, d))
    gl = np.zeros((k, nl))
    wsum = np.zeros(k)  # sum over points of w_c: the "1" terms of alpha and q
    XC = np.empty((k, d))
    LX = np.empty((k, d))
    beta = np.empty(k)
    for i in range(n):
        for c in range(k):
            for j in range(d):
                XC[c, j] = x[i, j] - mu[c, j]
                LX[c, j] = qdiag[c, j] * XC[c, j]
            t = 0
            for col in range(d - 1):
                for row in range(col + 1, d):
                    LX[c, row] += l[c, t] * XC[c, col]
                    t += 1
            sq = 0.0
            for j in range(d):
                sq += LX[c, j] * LX[c, j]
            beta[c] = alpha[c] + sum_q[c] - 0.5 * sq
        mx = beta[0]
        for c in range(1, k):
            if beta[c] > mx:
                mx = beta[c]
        se = 0.0
        for c in range(k):
            beta[c] = math.exp(beta[c] - mx)  # reuse beta for the weights
            se += beta[c]
        r = 1.0 / se
        for c in range(k):
            w = beta[c] * r
            wsum[c] += w
            t = 0
            for col in range(d - 1):
                # (L^T Lxc)_col = qdiag_col Lxc_col + sum_row l[t] Lxc_row
                acc = qdiag[c, col] * LX[c, col]
                for row in range(col + 1, d):
                    gl[c, t] -= w * LX[c, row] * XC[c, col]
                    acc += l[c, t] * LX[c, row]
                    t += 1
                gmu[c, col] += w * acc
            gmu[c, d - 1] += w * qdiag[c, d - 1] * LX[c, d - 1]
            for j in range(d):
                gq[c, j] -= w * LX[c, j] * qdiag[c, j] * XC[c, j]
    ma = alpha[0]
    for c in range(1, k):
        if alpha[c] > ma:
            ma = alpha[c]
    sa = 0.0
    for c in range(k):
        sa += math.exp(alpha[c] - ma)
    g2 = wishart_gamma * wishart_gamma
    for c in range(k):
        galpha[c] = wsum[c] - n * math.exp(alpha[c] - ma) / sa
        for j in range(d):
            gq[c, j] += wsum[c] + wishart_m - g2 * qdiag[c, j] * qdiag[c, j]
        for t in range(nl):
            gl[c, t] -= g2 * l[c, t]
    return galpha, gmu, gq, gl


def make_inputs(size="full", seed=0):
    d, k, n = (10, 25, 1000) if size == "full" else (3, 4, 10)
    rng = np.random.default_rng(seed)
    # GradBench data: x, alpha, q, l standard normal; mu uniform [0, 1).
    x = rng.standard_normal((n, d))
    alpha = rng.standard_normal(k)
    mu = rng.uniform(0.0, 1.0, (k, d))
    q = rng.standard_normal((k, d))
    l = rng.standard_normal((k, d * (d - 1) // 2))
    return (alpha, mu, q, l, x, 1.0, 0.0)


def _tril_basis(d):
    """E[t] is the d-by-d one-hot matrix for the t-th strictly-lower entry."""
    E = np.zeros((d * (d - 1) // 2, d, d))
    t = 0
    for col in range(d - 1):
        for row in range(col + 1, d):
            E[t, row, col] = 1.0
            t += 1
    return E


def _constant(n, d, k, gamma, m):
    nu = d + m + 1.0
    lgd = 0.25 * d * (d - 1) * math.log(math.pi)
    lgd += sum(math.lgamma(0.5 * nu + 0.5 * (1 - j)) for j in range(1, d + 1))
    cst = nu * d * (math.log(gamma) - 0.5 * math.log(2.0)) - lgd
    return -0.5 * n * d * math.log(2.0 * math.pi) + k * cst


def _vectorised(xp, lse, alpha, mu, q, l, x, gamma, m, E, const):
    """The objective as a JAX / autograd user writes it (xp = jnp or anp)."""
    n, d = x.shape
    qdiag = xp.exp(q)
    L = xp.einsum("kt,tij->kij", l, E) + qdiag[:, :, None] * np.eye(d)
    xc = x[:, None, :] - mu[None, :, :]                      # n,k,d
    Lxc = xp.einsum("kij,nkj->nki", L, xc)
    beta = alpha + xp.sum(q, axis=1) - 0.5 * xp.sum(Lxc * Lxc, axis=2)
    prior = (-0.5 * gamma * gamma * (xp.sum(qdiag * qdiag) + xp.sum(l * l))
             + m * xp.sum(q))
    return const + xp.sum(lse(beta, axis=1)) - n * lse(alpha) + prior


def jax_grad_fn():
    from ._peers import jax_setup
    jax, jnp = jax_setup()
    from jax.scipy.special import logsumexp
    cache = {}

    def grad(alpha, mu, q, l, x, gamma, m):
        key = (x.shape, alpha.shape[0], gamma, m)
        if key not in cache:
            n, d = x.shape
            E = jnp.asarray(_tril_basis(d))
            const = _constant(n, d, alpha.shape[0], gamma, m)
            f = lambda a, mu_, q_, l_, x_: _vectorised(
                jnp, logsumexp, a, mu_, q_, l_, x_, gamma, m, E, const)
            cache[key] = jax.jit(jax.grad(f, argnums=WRT))
        return cache[key](alpha, mu, q, l, x)

    return grad


def torch_grad(args):
    import torch
    from ._peers import torch_leaves
    alpha, mu, q, l, x, gamma, m = torch_leaves(args, WRT)
    n, d = x.shape
    E = torch.from_numpy(_tril_basis(d))
    const = _constant(n, d, alpha.shape[0], args[5], args[6])
    qdiag = torch.exp(q)
    L = torch.einsum("kt,tij->kij", l, E) + torch.diag_embed(qdiag)
    xc = x[:, None, :] - mu[None, :, :]
    Lxc = torch.einsum("kij,nkj->nki", L, xc)
    beta = alpha + q.sum(1) - 0.5 * (Lxc * Lxc).sum(2)
    prior = -0.5 * gamma * gamma * ((qdiag * qdiag).sum() + (l * l).sum()) + m * q.sum()
    obj = const + torch.logsumexp(beta, 1).sum() - n * torch.logsumexp(alpha, 0) + prior
    obj.backward()
    return tuple(t.grad.numpy() for t in (alpha, mu, q, l))


def autograd_grad_fn():
    import autograd
    import autograd.numpy as anp
    from autograd.scipy.special import logsumexp

    def f(p, x, gamma, m):
        n, d = x.shape
        return _vectorised(anp, logsumexp, *p, x, gamma, m, _tril_basis(d),
                           _constant(n, d, p[0].shape[0], gamma, m))

    g = autograd.grad(f)
    return lambda alpha, mu, q, l, x, gamma, m: tuple(g((alpha, mu, q, l), x, gamma, m))
