"""HEAT2D: 2-D heat equation, explicit 5-point Laplacian, fixed edge values.

As HEAT in two dimensions: u is advanced in a buffer `un` and copied back
every step. Loss: sum_ij (u_T[i, j] - target[i, j])^2. Gradient wrt the
initial condition u0 and the diffusivity kappa.
"""
import numpy as np

DESCRIPTION = "2-D heat equation, 5-point stencil, 48 x 48 points x 400 steps; grad wrt u0, kappa"
WRT = (0, 1)


def primal(u0, kappa, dx, dt, nsteps, target):
    nx = u0.shape[0]
    ny = u0.shape[1]
    r = kappa * dt / (dx * dx)
    u = np.empty((nx, ny))
    un = np.empty((nx, ny))
    for i in range(nx):
        for j in range(ny):
            u[i, j] = u0[i, j]
    for t in range(nsteps):
        for j in range(ny):
            un[0, j] = u[0, j]
            un[nx - 1, j] = u[nx - 1, j]
        for i in range(1, nx - 1):
            un[i, 0] = u[i, 0]
            un[i, ny - 1] = u[i, ny - 1]
            for j in range(1, ny - 1):
                un[i, j] = u[i, j] + r * (u[i - 1, j] + u[i + 1, j] + u[i, j - 1]
                                          + u[i, j + 1] - 4.0 * u[i, j])
        for i in range(nx):
            for j in range(ny):
                u[i, j] = un[i, j]
    loss = 0.0
    for i in range(nx):
        for j in range(ny):
            loss += (u[i, j] - target[i, j]) * (u[i, j] - target[i, j])
    return loss


def hand_grad(u0, kappa, dx, dt, nsteps, target):
    # As HEAT's: the stencil is linear in u, so the adjoint of u is the
    # transposed stencil (symmetric inside, a gather); d/d kappa needs the
    # states, stored in reverse time order, V[nsteps - t] = u_t, so the
    # reverse sweep reads them ascending; d/d kappa is summed per point.
    nx = u0.shape[0]
    ny = u0.shape[1]
    c = dt / (dx * dx)
    r = kappa * c
    V = np.empty((nsteps + 1, nx, ny))
    for i in range(nx):
        for j in range(ny):
            V[nsteps, i, j] = u0[i, j]
    for a in range(nsteps, 0, -1):  # a = nsteps - t: u_t -> u_{t+1}
        for j in range(ny):
            V[a - 1, 0, j] = V[a, 0, j]
            V[a - 1, nx - 1, j] = V[a, nx - 1, j]
        for i in range(1, nx - 1):
            V[a - 1, i, 0] = V[a, i, 0]
            V[a - 1, i, ny - 1] = V[a, i, ny - 1]
            for j in range(1, ny - 1):
                V[a - 1, i, j] = V[a, i, j] + r * (V[a, i - 1, j] + V[a, i + 1, j]
                                                   + V[a, i, j - 1] + V[a, i, j + 1]
                                                   - 4.0 * V[a, i, j])
    lam = np.empty((nx, ny))  # adjoint of u_{t+1}
    lam_prev = np.empty((nx, ny))  # adjoint of u_t
    acc = np.zeros((nx, ny))
    for i in range(nx):
        for j in range(ny):
            lam[i, j] = 2.0 * (V[0, i, j] - target[i, j])
    for a in range(1, nsteps + 1):  # t = nsteps - a, from nsteps - 1 down to 0
        for i in range(1, nx - 1):
            for j in range(1, ny - 1):
                acc[i, j] += lam[i, j] * (V[a, i - 1, j] + V[a, i + 1, j] + V[a, i, j - 1]
                                          + V[a, i, j + 1] - 4.0 * V[a, i, j])
        # the edge values are copied (un[0, j] = u[0, j]): they pass their
        # adjoint on, and with them then set to zero the interior update is
        # the same symmetric stencil everywhere
        for j in range(ny):
            lam_prev[0, j] = lam[0, j]
            lam_prev[nx - 1, j] = lam[nx - 1, j]
            lam[0, j] = 0.0
            lam[nx - 1, j] = 0.0
        for i in range(1, nx - 1):
            lam_prev[i, 0] = lam[i, 0]
            lam_prev[i, ny - 1] = lam[i, ny - 1]
            lam[i, 0] = 0.0
            lam[i, ny - 1] = 0.0
        for i in range(1, nx - 1):
            for j in range(1, ny - 1):
                lam_prev[i, j] = (1.0 - 4.0 * r) * lam[i, j] + r * (
                    lam[i - 1, j] + lam[i + 1, j] + lam[i, j - 1] + lam[i, j + 1])
        for j in range(1, ny - 1):  # an edge point feeds its one inner neighbour
            lam_prev[0, j] += r * lam[1, j]
            lam_prev[nx - 1, j] += r * lam[nx - 2, j]
        for i in range(1, nx - 1):
            lam_prev[i, 0] += r * lam[i, 1]
            lam_prev[i, ny - 1] += r * lam[i, ny - 2]
        tmp = lam
        lam = lam_prev
        lam_prev = tmp
    gk = 0.0
    for i in range(nx):
        for j in range(ny):
            gk += acc[i, j]
    return lam, c * gk


def make_inputs(size="full", seed=0):
    (nx, ny), nsteps = ((48, 48), 400) if size == "full" else ((6, 7), 5)
    dx = 1.0 / (nx - 1)
    xg = np.linspace(0.0, 1.0, nx)[:, None]
    yg = np.linspace(0.0, 1.0, ny)[None, :]
    rng = np.random.default_rng(seed)
    u0 = np.exp(-40.0 * ((xg - 0.4) ** 2 + (yg - 0.6) ** 2)) + 0.1 * rng.standard_normal((nx, ny))
    target = 0.3 * np.exp(-10.0 * ((xg - 0.5) ** 2 + (yg - 0.5) ** 2))
    kappa = 1.0
    dt = 0.2 * dx * dx / kappa  # r = 0.2 < 0.25: stable
    return (u0, kappa, dx, dt, nsteps, target)


def jax_grad_fn():
    from ._peers import jax_setup
    jax, jnp = jax_setup()

    def f(u0, kappa, dx, dt, nsteps, target):
        r = kappa * dt / (dx * dx)

        def step(t, u):
            lap = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1]
            return u.at[1:-1, 1:-1].add(r * lap)

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
        lap = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] - 4.0 * u[1:-1, 1:-1]
        inner = torch.cat([u[1:-1, :1], u[1:-1, 1:-1] + r * lap, u[1:-1, -1:]], dim=1)
        u = torch.cat([u[:1], inner, u[-1:]], dim=0)
    torch.sum((u - target) ** 2).backward()
    return u0.grad.numpy(), kappa.grad.item()
