"""Input-gradient regularisation: a gradient inside the function being
differentiated (reverse over reverse), as in the TensorFlow guide.

Run:  python examples/input_gradient_regularisation.py
"""
import numpy as np

import s2sad


def loss(x, W):
    h = np.tanh(x @ W)
    return np.sum(h * h)


def penalty(x, W):
    """The squared norm of the loss's gradient w.r.t. the inputs."""
    g = s2sad.grad(loss, wrt=0)(x, W)
    return np.sum(g ** 2)


def main():
    rng = np.random.default_rng(0)
    x, W = rng.normal(size=(16, 3)), rng.normal(size=(3, 2))
    dpenalty = s2sad.grad(penalty, wrt=1)
    for step in range(5):
        W -= 0.05 * dpenalty(x, W)
        print(f"step {step}: penalty = {penalty(x, W):.6f}")
    eps = 1e-6
    fd = np.array([(penalty(x, W + eps * e.reshape(W.shape)) - penalty(x, W - eps * e.reshape(W.shape)))
                   / (2 * eps) for e in np.eye(W.size)]).reshape(W.shape)
    assert np.allclose(dpenalty(x, W), fd, atol=1e-6)
    print("the gradient of the penalty matches finite differences")


if __name__ == "__main__":
    main()
