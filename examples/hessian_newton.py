"""The Hessian of a two-layer network's loss with respect to the first
layer's weights, and a damped Newton step with it.

Run:  python examples/hessian_newton.py
"""
import numpy as np

import s2sad


def loss(W1, x, W2):
    h = np.tanh(x @ W1)
    out = h @ W2
    return np.mean(out * out)


def main():
    rng = np.random.default_rng(1)
    x, W1, W2 = rng.normal(size=(8, 3)), rng.normal(size=(3, 4)) * 0.5, rng.normal(size=(4, 2))
    H = s2sad.hessian(loss)(W1, x, W2)          # forward over reverse
    n = W1.size
    flat = H.reshape(n, n)
    print("Hessian shape:", H.shape, "flattened:", flat.shape)
    print("symmetric:", np.allclose(flat, flat.T))
    g = s2sad.grad(loss)(W1, x, W2).ravel()
    damping = max(0.0, -np.linalg.eigvalsh(flat).min()) + 0.1
    step = np.linalg.solve(flat + damping * np.eye(n), g)
    before, after = loss(W1, x, W2), loss(W1 - step.reshape(W1.shape), x, W2)
    print(f"loss {before:.6f} -> {after:.6f} after one damped Newton step")
    assert after < before


if __name__ == "__main__":
    main()
