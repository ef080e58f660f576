"""W5: elementwise loop y = sum_i w[i] * tanh(x[i]) over 1,000,000 elements.

The loop body is independent per element, so the hand gradient needs no tape
at all; a source transformer should see that too (nothing is overwritten).
"""
import math

import numpy as np

DESCRIPTION = "y += w[i]*tanh(x[i]) over 1,000,000 elements; grad wrt w, x"
WRT = (0, 1)


def primal(w, x):
    y = 0.0
    for i in range(x.shape[0]):
        y += w[i] * math.tanh(x[i])
    return y


def hand_grad(w, x):
    # One tanh per element, reused for both gradients.
    n = x.shape[0]
    gw = np.empty(n)
    gx = np.empty(n)
    for i in range(n):
        t = math.tanh(x[i])
        gw[i] = t
        gx[i] = w[i] * (1.0 - t * t)
    return gw, gx


def make_inputs(size="full", seed=0):
    n = 1_000_000 if size == "full" else 40
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(n), rng.standard_normal(n))


def jax_grad_fn():
    # Vectorised: how a JAX user writes it.
    from ._peers import jax_setup
    jax, jnp = jax_setup()
    return jax.jit(jax.grad(lambda w, x: jnp.sum(w * jnp.tanh(x)), argnums=WRT))


def jax_loop_grad_fn():
    # The literal loop as jax.lax.fori_loop, for comparison with the loop code.
    from ._peers import jax_setup
    jax, jnp = jax_setup()

    def f(w, x):
        return jax.lax.fori_loop(0, x.shape[0], lambda i, y: y + w[i] * jnp.tanh(x[i]), 0.0)

    return jax.jit(jax.grad(f, argnums=WRT))


def torch_grad(args):
    import torch
    from ._peers import torch_leaves
    w, x = torch_leaves(args, WRT)
    torch.sum(w * torch.tanh(x)).backward()
    return w.grad.numpy(), x.grad.numpy()


def autograd_grad_fn():
    import autograd
    import autograd.numpy as anp
    g = autograd.grad(lambda p: anp.sum(p[0] * anp.tanh(p[1])))
    return lambda w, x: tuple(g((w, x)))
