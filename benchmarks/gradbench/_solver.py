"""The gradient-descent solver of GradBench's particle and saddle evals
(GRADBENCH.md §7). The expected answers were produced with exactly this
solver, and its iteration count is part of what is timed."""
import math

import numpy as np


def norm(v):
    return math.sqrt(float(np.sum(np.square(v))))


def argmin(F, G, x0):
    """argmin of F (gradient G) by gradient descent from x0 (a float or a
    float array): the step size doubles after 10 accepted steps in a row and
    halves after a rejected one."""
    x, fx, gx, i, eta = x0, F(x0), G(x0), 0, 1e-5
    while True:
        if norm(gx) <= 1e-5:
            return x
        if i == 10:
            eta, i = 2.0 * eta, 0
            continue
        x_new = x - eta * gx
        if norm(x - x_new) <= 1e-5:
            return x
        f_new = F(x_new)
        if f_new < fx:
            x, fx, gx, i = x_new, f_new, G(x_new), i + 1
        else:
            eta, i = eta / 2.0, 0


def argmax(F, G, x0):
    return argmin(lambda x: -F(x), lambda x: -G(x), x0)
