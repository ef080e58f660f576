"""HEAT: 1-D heat equation, explicit 3-point stencil, fixed end values.

u is advanced in a buffer `un` and copied back into `u` every step, so `u`
is overwritten nsteps times: reverse mode must record (or recompute) it.
Loss: sum_i (u_T[i] - target[i])^2. Gradient wrt the initial condition u0
and the diffusivity kappa.
"""
import numpy as np

DESCRIPTION = "1-D heat equation, explicit stencil, 256 points x 4000 steps; grad wrt u0, kappa"
WRT = (0, 1)


def primal(u0, kappa, dx, dt, nsteps, target):
    N = u0.shape[0]
    r = kappa * dt / (dx * dx)
    u = np.empty(N)
    un = np.empty(N)
    for i in range(N):
        u[i] = u0[i]
    for t in range(nsteps):
        un[0] = u[0]
        un[N - 1] = u[N - 1]
        for i in range(1, N - 1):
            un[i] = u[i] + r * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        for i in range(N):
            u[i] = un[i]
    loss = 0.0
    for i in range(N):
        loss += (u[i] - target[i]) * (u[i] - target[i])
    return loss


def hand_grad(u0, kappa, dx, dt, nsteps, target):
    # The stencil is linear in u, so the adjoint of u needs no stored states
    # (it is the transposed stencil); only d/d kappa needs them, so every u_t
    # goes into one (nsteps+1) x N array written in place (no copies).
    # Measured choices (each ~2x on the reverse sweep here):
    # - the tape is stored in reverse time order, V[nsteps - t] = u_t, so the
    #   reverse sweep reads memory ascending (the 8 MB tape is out of cache,
    #   and descending reads defeat the prefetcher);
    # - d/d kappa is accumulated per grid point (one scalar sum would be a
    #   serial add chain that cannot vectorise);
    # - the transposed stencil is a gather (no scatter), like the primal.
    N = u0.shape[0]
    c = dt / (dx * dx)
    r = kappa * c
    V = np.empty((nsteps + 1, N))
    for i in range(N):
        V[nsteps, i] = u0[i]
    for a in range(nsteps, 0, -1):  # a = nsteps - t: u_t -> u_{t+1}
        V[a - 1, 0] = V[a, 0]
        V[a - 1, N - 1] = V[a, N - 1]
        for i in range(1, N - 1):
            V[a - 1, i] = V[a, i] + r * (V[a, i - 1] - 2.0 * V[a, i] + V[a, i + 1])
    lam = np.empty(N)  # adjoint of u_{t+1}
    lam_prev = np.empty(N)  # adjoint of u_t
    acc = np.zeros(N)
    for i in range(N):
        lam[i] = 2.0 * (V[0, i] - target[i])
    for a in range(1, nsteps + 1):  # t = nsteps - a, from nsteps - 1 down to 0
        for i in range(1, N - 1):
            acc[i] += lam[i] * (V[a, i - 1] - 2.0 * V[a, i] + V[a, i + 1])
        # the end values are copied (un[0] = u[0]); with them set aside as
        # zero, the interior update is the same symmetric stencil
        lb0 = lam[0]
        lbn = lam[N - 1]
        lam[0] = 0.0
        lam[N - 1] = 0.0
        for i in range(1, N - 1):
            lam_prev[i] = (1.0 - 2.0 * r) * lam[i] + r * (lam[i - 1] + lam[i + 1])
        lam_prev[0] = lb0 + r * lam[1]
        lam_prev[N - 1] = lbn + r * lam[N - 2]
        tmp = lam
        lam = lam_prev
        lam_prev = tmp
    gk = 0.0
    for i in range(N):
        gk += acc[i]
    return lam, c * gk


def make_inputs(size="full", seed=0):
    N, nsteps = (256, 4000) if size == "full" else (12, 15)
    dx = 1.0 / (N - 1)
    xg = np.linspace(0.0, 1.0, N)
    rng = np.random.default_rng(seed)
    u0 = np.exp(-80.0 * (xg - 0.4) ** 2) + 0.1 * rng.standard_normal(N)
    target = 0.3 * np.exp(-20.0 * (xg - 0.5) ** 2)
    kappa = 1.0
    dt = 0.4 * dx * dx / kappa  # r = 0.4 < 0.5: stable
    return (u0, kappa, dx, dt, nsteps, target)


def jax_grad_fn():
    from ._peers import jax_setup
    jax, jnp = jax_setup()

    def f(u0, kappa, dx, dt, nsteps, target):
        r = kappa * dt / (dx * dx)

        def step(t, u):
            return u.at[1:-1].add(r * (u[:-2] - 2.0 * u[1:-1] + u[2:]))

        u = jax.lax.fori_loop(0, nsteps, step, u0)
        return jnp.sum((u - target) ** 2)

    return jax.jit(jax.grad(f, argnums=WRT), static_argnums=(4,))


def torch_grad(args):
    import torch
    from ._peers import torch_leaves
    u0, kappa, dx, dt, nsteps, target = torch_leaves(args, WRT)
    r = kappa * dt / (dx * dx)
    u = u0
    for t in range(nsteps):
        u = torch.cat([u[:1], u[1:-1] + r * (u[:-2] - 2.0 * u[1:-1] + u[2:]), u[-1:]])
    torch.sum((u - target) ** 2).backward()
    return u0.grad.numpy(), kappa.grad.item()


def autograd_grad_fn():
    import autograd
    import autograd.numpy as anp

    def f(p, dx, dt, nsteps, target):
        u, kappa = p
        r = kappa * dt / (dx * dx)
        for t in range(nsteps):
            u = anp.concatenate([u[:1], u[1:-1] + r * (u[:-2] - 2.0 * u[1:-1] + u[2:]), u[-1:]])
        return anp.sum((u - target) ** 2)

    g = autograd.grad(f)
    return lambda u0, kappa, dx, dt, nsteps, target: tuple(g((u0, kappa), dx, dt, nsteps, target))

