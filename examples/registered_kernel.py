"""A numba kernel s2sad cannot read, given a gradient rule with
register_gradient, used inside a differentiated loop.

Run:  python examples/registered_kernel.py
"""
import numba
import numpy as np

import s2sad


@numba.njit
def smooth_step(x):
    """A hand-optimised kernel: 3x^2 - 2x^3 on [0, 1], clamped."""
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        t = min(max(x[i], 0.0), 1.0)
        out[i] = t * t * (3.0 - 2.0 * t)
    return out


@s2sad.register_gradient(smooth_step)
def smooth_step_grad(dy, y, x):
    inside = (x > 0.0) & (x < 1.0)
    return dy * 6.0 * x * (1.0 - x) * inside


def energy(x, w):
    total = 0.0
    for k in range(3):
        total += np.sum(w * smooth_step(x * (k + 1.0)))
    return total


def main():
    x = np.linspace(0.05, 0.9, 6)
    w = np.linspace(1.0, 2.0, 6)
    g = s2sad.grad(energy)(x, w)
    eps = 1e-6
    fd = np.array([(energy(x + eps * e, w) - energy(x - eps * e, w)) / (2 * eps)
                   for e in np.eye(6)])
    print("s2sad:      ", g)
    print("finite diff:", fd)
    assert np.allclose(g, fd, atol=1e-6)


if __name__ == "__main__":
    main()
