"""The Jacobian of a dense layer relu(x @ W + b) with respect to W, and the
per-example Jacobians of a batch.

Run:  python examples/jacobian_dense.py
"""
import numpy as np

import s2sad


def dense(x, W, b):
    return np.maximum(x @ W + b, 0.0)


def rowwise_model(x, W):
    """Each output row depends only on its own input row."""
    return np.tanh(x @ W) * x[:, :1]


def main():
    rng = np.random.default_rng(0)
    x, W, b = rng.normal(size=(7, 5)), rng.normal(size=(5, 10)), rng.normal(size=10)

    J = s2sad.jacobian(dense, wrt="W")(x, W, b)
    print("Jacobian shape (output shape + W's shape):", J.shape)
    assert J.shape == (7, 10, 5, 10)
    g = s2sad.grad(dense, wrt="W")(x, W, b)
    print("summed over the output axes it is the gradient:",
          np.allclose(J.sum(axis=(0, 1)), g, atol=1e-3))

    # per-example Jacobians without the (batch, outs, batch, ins) intermediate;
    # valid only when examples do not interact (no batch normalisation)
    x2, W2 = rng.normal(size=(4, 3)), rng.normal(size=(3, 2))
    bj = s2sad.batch_jacobian(rowwise_model)(x2, W2)
    full = s2sad.jacobian(rowwise_model)(x2, W2)
    print("batch_jacobian shape:", bj.shape, "full:", full.shape)
    diagonal = np.stack([full[k, :, k, :] for k in range(4)])
    assert np.allclose(bj, diagonal)
    print("batch_jacobian equals the per-example diagonal of the full Jacobian")


if __name__ == "__main__":
    main()
