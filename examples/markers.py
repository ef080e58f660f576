"""Gradient control with markers: stop_gradient, stop_recording,
reset_recording, and partial derivatives with stop_gradients.

Run:  python examples/markers.py
"""
import numpy as np

import s2sad


def em_objective(mu, x):
    """One EM-style step for a mixture mean: the responsibilities are held
    fixed (stop_gradient) while the mean moves."""
    d2 = (x - mu) ** 2
    resp = s2sad.stop_gradient(np.exp(-d2) / np.sum(np.exp(-d2)))
    return np.sum(resp * d2)


def recorded(x, y):
    x_sq = x * x
    with s2sad.stop_recording():
        y_sq = y * y          # a constant for the derivative
    return x_sq + y_sq


def after_reset(x, y):
    y_sq = y * y
    s2sad.reset_recording()   # everything before this is a constant
    x_sq = x * x
    return x_sq + y_sq


def chain(x):
    a = x
    b = 2.0 * a
    return a + b


def main():
    x = np.array([0.1, 0.5, 1.2])
    mu = 0.3
    for step in range(5):
        mu -= 0.5 * s2sad.grad(em_objective)(mu, x)
        print(f"EM step {step}: mu = {mu:.6f}")

    print("stop_recording: dz/dx, dz/dy =", s2sad.grad(recorded, wrt=(0, 1))(3.0, 4.0))
    print("reset_recording: dz/dx, dz/dy =", s2sad.grad(after_reset, wrt=(0, 1))(3.0, 4.0))
    print("total derivatives w.r.t. a, b:", s2sad.grad(chain, wrt=("a", "b"))(1.0))
    print("partial derivatives:", s2sad.grad(chain, wrt=("a", "b"), stop_gradients=("a", "b"))(1.0))


if __name__ == "__main__":
    main()
