"""RK4: fit a damped oscillator x'' = -k x - c v to observations.

Classic RK4 on the state (x, v), 10,000 steps; the loss is the sum over steps
of (x_i - obs_i)^2. Gradient wrt stiffness k, damping c and the initial state
x0, v0 (a parameter-estimation objective).
"""
import numpy as np

DESCRIPTION = "RK4 damped oscillator, 10,000 steps, least-squares loss; grad wrt k, c, x0, v0"
WRT = (0, 1, 2, 3)


def primal(k, c, x0, v0, dt, obs):
    x = x0
    v = v0
    h2 = 0.5 * dt
    loss = 0.0
    for i in range(obs.shape[0]):
        k1x = v
        k1v = -k * x - c * v
        k2x = v + h2 * k1v
        k2v = -k * (x + h2 * k1x) - c * (v + h2 * k1v)
        k3x = v + h2 * k2v
        k3v = -k * (x + h2 * k2x) - c * (v + h2 * k2v)
        k4x = v + dt * k3v
        k4v = -k * (x + dt * k3x) - c * (v + dt * k3v)
        x = x + dt / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x)
        v = v + dt / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v)
        r = x - obs[i]
        loss += r * r
    return loss


def hand_grad(k, c, x0, v0, dt, obs):
    # Store only the state at the start of each step (2 arrays); the stage
    # values are recomputed from it in the reverse sweep (cheap, no tape).
    n = obs.shape[0]
    xs = np.empty(n + 1)
    vs = np.empty(n + 1)
    x = x0
    v = v0
    h2 = 0.5 * dt
    d6 = dt / 6.0
    for i in range(n):
        xs[i] = x
        vs[i] = v
        k1x = v
        k1v = -k * x - c * v
        k2x = v + h2 * k1v
        k2v = -k * (x + h2 * k1x) - c * (v + h2 * k1v)
        k3x = v + h2 * k2v
        k3v = -k * (x + h2 * k2x) - c * (v + h2 * k2v)
        k4x = v + dt * k3v
        k4v = -k * (x + dt * k3x) - c * (v + dt * k3v)
        x = x + d6 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x)
        v = v + d6 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v)
    xs[n] = x
    vs[n] = v
    gk = 0.0
    gc = 0.0
    xb = 0.0  # adjoints of the state after step i
    vb = 0.0
    for i in range(n - 1, -1, -1):
        xb += 2.0 * (xs[i + 1] - obs[i])
        x = xs[i]
        v = vs[i]
        # recompute the stage points (x2, v2), (x3, v3), (x4, v4)
        k1x = v
        k1v = -k * x - c * v
        x2 = x + h2 * k1x
        v2 = v + h2 * k1v
        k2x = v2
        k2v = -k * x2 - c * v2
        x3 = x + h2 * k2x
        v3 = v + h2 * k2v
        k3x = v3
        k3v = -k * x3 - c * v3
        x4 = x + dt * k3x
        v4 = v + dt * k3v
        # x_new = x + d6 (k1x + 2 k2x + 2 k3x + k4x), same for v
        k1xb = d6 * xb
        k2xb = 2.0 * d6 * xb
        k3xb = 2.0 * d6 * xb
        k4xb = d6 * xb
        k1vb = d6 * vb
        k2vb = 2.0 * d6 * vb
        k3vb = 2.0 * d6 * vb
        k4vb = d6 * vb
        # stage 4: k4x = v4, k4v = -k x4 - c v4; x4 = x + dt k3x, v4 = v + dt k3v
        gk -= k4vb * x4
        gc -= k4vb * v4
        x4b = -k * k4vb
        v4b = -c * k4vb + k4xb
        k3xb += dt * x4b
        k3vb += dt * v4b
        # stage 3
        gk -= k3vb * x3
        gc -= k3vb * v3
        x3b = -k * k3vb
        v3b = -c * k3vb + k3xb
        k2xb += h2 * x3b
        k2vb += h2 * v3b
        # stage 2
        gk -= k2vb * x2
        gc -= k2vb * v2
        x2b = -k * k2vb
        v2b = -c * k2vb + k2xb
        k1xb += h2 * x2b
        k1vb += h2 * v2b
        # stage 1: k1x = v, k1v = -k x - c v
        gk -= k1vb * x
        gc -= k1vb * v
        xb = xb + x4b + x3b + x2b - k * k1vb
        vb = vb + v4b + v3b + v2b - c * k1vb + k1xb
    return gk, gc, xb, vb


def make_inputs(size="full", seed=0):
    n = 10_000 if size == "full" else 60
    dt = 0.01
    rng = np.random.default_rng(seed)
    # observations: a slightly different oscillator plus noise
    t = dt * np.arange(1, n + 1)
    obs = np.exp(-0.2 * t) * np.cos(1.9 * t) + 0.05 * rng.standard_normal(n)
    return (4.0, 0.3, 1.0, 0.0, dt, obs)


def jax_grad_fn():
    from ._peers import jax_setup
    jax, jnp = jax_setup()

    def f(k, c, x0, v0, dt, obs):
        h2 = 0.5 * dt

        def rhs(x, v):
            return v, -k * x - c * v

        def step(state, o):
            x, v = state
            k1x, k1v = rhs(x, v)
            k2x, k2v = rhs(x + h2 * k1x, v + h2 * k1v)
            k3x, k3v = rhs(x + h2 * k2x, v + h2 * k2v)
            k4x, k4v = rhs(x + dt * k3x, v + dt * k3v)
            x = x + dt / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x)
            v = v + dt / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v)
            return (x, v), (x - o) ** 2

        _, r2 = jax.lax.scan(step, (x0, v0), obs)
        return jnp.sum(r2)

    return jax.jit(jax.grad(f, argnums=WRT))


def _loop(k, c, x0, v0, dt, obs):
    """The primal with scalar ops only, for torch and autograd tapes."""
    x, v, h2, loss = x0, v0, 0.5 * dt, 0.0
    for i in range(obs.shape[0]):
        k1x, k1v = v, -k * x - c * v
        k2x, k2v = v + h2 * k1v, -k * (x + h2 * k1x) - c * (v + h2 * k1v)
        k3x, k3v = v + h2 * k2v, -k * (x + h2 * k2x) - c * (v + h2 * k2v)
        k4x, k4v = v + dt * k3v, -k * (x + dt * k3x) - c * (v + dt * k3v)
        x = x + dt / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x)
        v = v + dt / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v)
        loss = loss + (x - obs[i]) ** 2
    return loss


def torch_grad(args):
    from ._peers import torch_leaves
    k, c, x0, v0, dt, obs = torch_leaves(args, WRT)
    _loop(k, c, x0, v0, dt, obs).backward()
    return tuple(t.grad.item() for t in (k, c, x0, v0))


def autograd_grad_fn():
    import autograd
    g = autograd.grad(lambda p, dt, obs: _loop(*p, dt, obs))
    return lambda k, c, x0, v0, dt, obs: tuple(g((k, c, x0, v0), dt, obs))
