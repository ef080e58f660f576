"""The Jacobian of sigmoid(x + delta) with respect to the scalar delta, on
201 points: it is the derivative of the sigmoid. Plots both to a PNG when
matplotlib is installed (pip install -e ".[plot]").

Run:  python examples/jacobian_sigmoid.py [sigmoid.png]
"""
import sys

import numpy as np

import s2sad


def sigmoid_shift(x, delta):
    return 1.0 / (1.0 + np.exp(-(x + delta)))


def main():
    x = np.linspace(-10.0, 10.0, 201)
    y = sigmoid_shift(x, 0.0)
    dy_dx = s2sad.jacobian(sigmoid_shift, wrt="delta")(x, 0.0)   # shape (201,)
    assert dy_dx.shape == (201,)
    assert np.allclose(dy_dx, y * (1 - y))
    print("max of dy/dx:", dy_dx.max(), "at x =", x[np.argmax(dy_dx)])
    path = sys.argv[1] if len(sys.argv) > 1 else "sigmoid.png"
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot (pip install -e '.[plot]')")
        return
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.plot(x, y, label="y")
    ax.plot(x, dy_dx, label="dy/dx")
    ax.set_xlabel("x")
    ax.legend()
    fig.savefig(path, dpi=100)
    print("saved", path)


if __name__ == "__main__":
    main()
