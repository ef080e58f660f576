"""Custom gradients: TensorFlow style (a backward closure) and JAX style
(custom_vjp with fwd/bwd).

Run:  python examples/custom_gradient.py
"""
import math

import numpy as np

import s2sad


def clip_by_norm(t, clip_norm):
    norm = math.sqrt(t * t)
    return t * clip_norm / max(norm, clip_norm)


@s2sad.custom_gradient
def clip_gradients(y):
    def backward(dy):
        return clip_by_norm(dy, 0.5)
    return y, backward


def clipped_square(v):
    return clip_gradients(v * v)


@s2sad.custom_gradient
def log1pexp(x):
    """log(1 + e^x) whose gradient stays finite where e^x overflows."""
    e = np.exp(x)

    def backward(dy):
        return dy * (1.0 - 1.0 / (1.0 + e))
    return np.log(1.0 + e), backward


def softplus_sum(x):
    return np.sum(log1pexp(x))


@s2sad.custom_vjp
def straight_round(x):
    return np.round(x)


def straight_round_fwd(x):
    return np.round(x), 0.0


def straight_round_bwd(residuals, g):
    return (g,)  # straight-through: pass the gradient on unchanged


straight_round.defvjp(straight_round_fwd, straight_round_bwd)


def quantised_loss(w, x):
    s = 0.0
    for i in range(x.shape[0]):
        s += (straight_round(w * x[i]) - x[i]) ** 2
    return s


def main():
    print("clipped gradient of v*v at v=2:", s2sad.grad(clipped_square)(2.0), "(4 clipped to 2)")
    with np.errstate(over="ignore"):
        g = s2sad.grad(softplus_sum)(np.array([0.0, 10.0, 1000.0]))
    print("stable log1pexp gradient:", g)
    print("straight-through round:", s2sad.grad(quantised_loss)(1.3, np.array([0.3, 1.7, -2.2])))
    print("\nThe generated code calls the split-off backward:\n")
    print(s2sad.grad(clipped_square).source_for(2.0))


if __name__ == "__main__":
    main()
