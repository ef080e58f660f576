"""W4: MLP 784 -> 128 tanh -> 10, batch 64, mean softmax cross-entropy.

Matrix products are vectorised (np @, BLAS inside numba); the log-sum-exp of
each row is an explicit loop, as a numba user writes it. Labels are an int
array (not differentiable).
"""
import math

import numpy as np

DESCRIPTION = "MLP 784-128(tanh)-10, batch 64, mean softmax cross-entropy; grad wrt W1, b1, W2, b2"
WRT = (0, 1, 2, 3)


def primal(W1, b1, W2, b2, X, labels):
    h = np.tanh(X @ W1 + b1)
    z = h @ W2 + b2
    B = z.shape[0]
    C = z.shape[1]
    loss = 0.0
    for i in range(B):
        m = z[i, 0]
        for j in range(1, C):
            if z[i, j] > m:
                m = z[i, j]
        s = 0.0
        for j in range(C):
            s += math.exp(z[i, j] - m)
        loss += m + math.log(s) - z[i, labels[i]]
    return loss / B


def hand_grad(W1, b1, W2, b2, X, labels):
    # Standard backprop: keep h (needed for dW2 and tanh'), overwrite z in
    # place with dz = (softmax - onehot) / B, then two GEMMs per layer.
    h = np.tanh(X @ W1 + b1)
    z = h @ W2 + b2
    B = z.shape[0]
    C = z.shape[1]
    for i in range(B):
        m = z[i, 0]
        for j in range(1, C):
            if z[i, j] > m:
                m = z[i, j]
        s = 0.0
        for j in range(C):
            e = math.exp(z[i, j] - m)
            z[i, j] = e
            s += e
        r = 1.0 / (s * B)
        for j in range(C):
            z[i, j] *= r
        z[i, labels[i]] -= 1.0 / B
    gW2 = h.T @ z
    gb2 = z.sum(axis=0)
    da = z @ W2.T
    for i in range(B):
        for j in range(h.shape[1]):
            da[i, j] *= 1.0 - h[i, j] * h[i, j]
    gW1 = X.T @ da
    gb1 = da.sum(axis=0)
    return gW1, gb1, gW2, gb2


def make_inputs(size="full", seed=0):
    B, D, H, C = (64, 784, 128, 10) if size == "full" else (5, 7, 6, 4)
    rng = np.random.default_rng(seed)
    W1 = rng.standard_normal((D, H)) / math.sqrt(D)
    b1 = rng.standard_normal(H) * 0.1
    W2 = rng.standard_normal((H, C)) / math.sqrt(H)
    b2 = rng.standard_normal(C) * 0.1
    X = rng.uniform(0.0, 1.0, (B, D))
    labels = rng.integers(0, C, B).astype(np.int64)
    return (W1, b1, W2, b2, X, labels)


def jax_grad_fn():
    from ._peers import jax_setup
    jax, jnp = jax_setup()

    def f(W1, b1, W2, b2, X, labels):
        z = jnp.tanh(X @ W1 + b1) @ W2 + b2
        logp = jax.nn.log_softmax(z, axis=1)
        return -jnp.mean(jnp.take_along_axis(logp, labels[:, None], axis=1))

    return jax.jit(jax.grad(f, argnums=WRT))


def torch_grad(args):
    import torch
    from ._peers import torch_leaves
    W1, b1, W2, b2, X, labels = torch_leaves(args, WRT)
    z = torch.tanh(X @ W1 + b1) @ W2 + b2
    loss = torch.nn.functional.cross_entropy(z, labels)
    loss.backward()
    return tuple(t.grad.numpy() for t in (W1, b1, W2, b2))


def autograd_grad_fn():
    import autograd
    import autograd.numpy as anp
    from autograd.scipy.special import logsumexp

    def f(p, X, labels):
        W1, b1, W2, b2 = p
        z = anp.dot(anp.tanh(anp.dot(X, W1) + b1), W2) + b2
        lse = logsumexp(z, axis=1)
        return anp.mean(lse - z[anp.arange(z.shape[0]), labels])

    g = autograd.grad(f)
    return lambda W1, b1, W2, b2, X, labels: tuple(g((W1, b1, W2, b2), X, labels))
