"""ode: s classical RK4 steps of the linear chain y₀' = x₀, yᵢ' = xᵢ yᵢ₋₁
over t ∈ [0, 2], and the gradient of the last component of y w.r.t. x."""
import numpy as np
import s2sad

from ._common import Function, primal, vector


def ode(x, s):
    """Written as loops over the components, each stage in a buffer reused
    at every step: stage k reads component i − 1 of the previous stage, so
    F(y + c·k)ᵢ = xᵢ·(yᵢ₋₁ + c·kᵢ₋₁). (Array expressions, one temporary per
    operation, made the gradient 35 times slower than this primal at
    n = 100000, s = 100: every temporary of every step was taped.)"""
    n = x.shape[0]
    h = 2.0 / s
    y = np.zeros(n)
    k1 = np.empty(n)
    k2 = np.empty(n)
    k3 = np.empty(n)
    k4 = np.empty(n)
    for _ in range(s):
        k1[0] = x[0]
        k2[0] = x[0]
        k3[0] = x[0]
        k4[0] = x[0]
        for i in range(1, n):
            k1[i] = x[i] * y[i - 1]
        for i in range(1, n):
            k2[i] = x[i] * (y[i - 1] + 0.5 * h * k1[i - 1])
        for i in range(1, n):
            k3[i] = x[i] * (y[i - 1] + 0.5 * h * k2[i - 1])
        for i in range(1, n):
            k4[i] = x[i] * (y[i - 1] + h * k3[i - 1])
        for i in range(n):
            y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i])
    return y


def ode_last(x, s):
    y = ode(x, s)
    return y[x.shape[0] - 1]


def define(jit):
    fns = {"primal": primal(ode, jit),
           "gradient": s2sad.grad(ode_last, jit=jit, boundscheck=False)}
    for fn in fns.values():
        fn(vector([0.5, 0.25]), 2)
    return {name: Function(fn, lambda inp: (vector(inp["x"]), int(inp["s"])))
            for name, fn in fns.items()}
