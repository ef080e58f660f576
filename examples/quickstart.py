"""s2sad in one page: differentiate a loop, read the derivative, check it.

Run:  python examples/quickstart.py
"""
import inspect

import numpy as np

import s2sad


def simulate(a, b, c, x0=0.5, dt=0.01, steps=1000):
    """Explicit Euler for x' = a sin(x) - b x^3 + c; returns x(T)."""
    x = x0
    for _ in range(steps):
        x = x + dt * (a * np.sin(x) - b * x ** 3 + c)
    return x


def main():
    print("The function:\n")
    print(inspect.getsource(simulate))

    dsimulate = s2sad.grad(simulate, wrt=("a", "b", "c"))  # compiled with numba
    a, b, c = 1.0, 0.5, 0.2
    grads = dsimulate(a, b, c)

    print("Its derivative, as s2sad generated it:\n")
    print(dsimulate.source)

    eps = 1e-6
    params = [a, b, c]
    print(f"{'':4}{'s2sad':>14}{'finite diff.':>16}")
    for k, name in enumerate("abc"):
        up, down = list(params), list(params)
        up[k] += eps
        down[k] -= eps
        fd = (simulate(*up) - simulate(*down)) / (2 * eps)
        print(f"d/d{name}{grads[k]:14.8f}{fd:16.8f}")
        assert abs(grads[k] - fd) < 1e-6 * max(1.0, abs(fd)), "gradient mismatch"
    print("\nThe gradient matches finite differences.")


if __name__ == "__main__":
    main()
