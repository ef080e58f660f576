"""W1: scalar loop. Explicit Euler on x' = a*sin(x) - b*x**3 + c; output x(T).

A purely scalar recurrence: the worst case for tape-based tools (every step
is a handful of scalar ops) and the best case for compiled reverse mode.
"""
import math

import numpy as np

DESCRIPTION = "explicit Euler, x' = a sin x - b x^3 + c, 10,000 steps; grad wrt a, b, c"
WRT = (0, 1, 2)


def primal(a, b, c, x0, dt, n):
    x = x0
    for i in range(n):
        x = x + dt * (a * math.sin(x) - b * x * x * x + c)
    return x


def hand_grad(a, b, c, x0, dt, n):
    # The recurrence cannot be run backwards cheaply, so store the n states
    # (one preallocated array: 8 bytes per step), then sweep back.
    xs = np.empty(n)
    x = x0
    for i in range(n):
        xs[i] = x
        x = x + dt * (a * math.sin(x) - b * x * x * x + c)
    ga = 0.0
    gb = 0.0
    gc = 0.0
    xb = 1.0  # adjoint of the current state, seeded by d x(T) / d x(T)
    for i in range(n - 1, -1, -1):
        x = xs[i]
        s = math.sin(x)
        x2 = x * x
        ga += xb * dt * s
        gb -= xb * dt * x2 * x
        gc += xb * dt
        xb = xb * (1.0 + dt * (a * math.cos(x) - 3.0 * b * x2))
    return ga, gb, gc


def make_inputs(size="full", seed=0):
    n = 10_000 if size == "full" else 100
    # dt*n = 10 time units; b > 0 keeps the trajectory bounded.
    return (1.3, 0.7, 0.4, 0.5, 10.0 / n, n)


def jax_grad_fn():
    from ._peers import jax_setup
    jax, jnp = jax_setup()

    def f(a, b, c, x0, dt, n):
        def step(i, x):
            return x + dt * (a * jnp.sin(x) - b * x * x * x + c)
        return jax.lax.fori_loop(0, n, step, x0)

    return jax.jit(jax.grad(f, argnums=WRT), static_argnums=(5,))


def torch_grad(args):
    import torch
    from ._peers import torch_leaves
    a, b, c, x0, dt, n = torch_leaves(args, WRT)
    x = x0
    for i in range(n):
        x = x + dt * (a * torch.sin(x) - b * x * x * x + c)
    x.backward()
    return a.grad.item(), b.grad.item(), c.grad.item()


def autograd_grad_fn():
    import autograd
    import autograd.numpy as anp

    def f(p, x0, dt, n):
        a, b, c = p
        x = x0
        for i in range(n):
            x = x + dt * (a * anp.sin(x) - b * x * x * x + c)
        return x

    g = autograd.grad(f)
    return lambda a, b, c, x0, dt, n: tuple(g((a, b, c), x0, dt, n))
