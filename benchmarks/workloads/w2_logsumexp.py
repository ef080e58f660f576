"""W2: logsumexp of a 1,000,000-vector, written vectorised.

m = max(x); log(sum(exp(x - m))) + m. The max is a non-smooth primitive whose
adjoint cancels exactly (d/dm of the expression is -1 + 1), so a tool must
treat it correctly but gains nothing from differentiating it.
"""
import math

import numpy as np

DESCRIPTION = "logsumexp, x of 1,000,000, vectorised numpy; grad wrt x"
WRT = (0,)


def primal(x):
    m = np.max(x)
    return np.log(np.sum(np.exp(x - m))) + m


def hand_grad(x):
    # An expert writes loops in numba: one exp per element (stored in the
    # output buffer, then scaled), no temporaries of size n.
    n = x.shape[0]
    m = x[0]
    for i in range(1, n):
        if x[i] > m:
            m = x[i]
    g = np.empty(n)
    s = 0.0
    for i in range(n):
        e = math.exp(x[i] - m)
        g[i] = e
        s += e
    r = 1.0 / s
    for i in range(n):
        g[i] *= r
    return (g,)


def make_inputs(size="full", seed=0):
    n = 1_000_000 if size == "full" else 50
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(n) * 3.0,)


def jax_grad_fn():
    from ._peers import jax_setup
    jax, jnp = jax_setup()

    def f(x):
        m = jnp.max(x)
        return jnp.log(jnp.sum(jnp.exp(x - m))) + m

    g = jax.jit(jax.grad(f))
    return lambda x: (g(x),)


def torch_grad(args):
    import torch
    from ._peers import torch_leaves
    (x,) = torch_leaves(args, WRT)
    m = torch.max(x)
    y = torch.log(torch.sum(torch.exp(x - m))) + m
    y.backward()
    return (x.grad.numpy(),)


def autograd_grad_fn():
    import autograd
    import autograd.numpy as anp

    def f(x):
        m = anp.max(x)
        return anp.log(anp.sum(anp.exp(x - m))) + m

    g = autograd.grad(f)
    return lambda x: (g(x),)
