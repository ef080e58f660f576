"""ode: s classical RK4 steps of the linear chain y₀' = x₀, yᵢ' = xᵢ yᵢ₋₁
over t ∈ [0, 2], and the gradient of the last component of y w.r.t. x."""
import numpy as np
import s2sad

from ._common import Function, primal, vector


def rhs(x, y):
    f = np.empty(x.shape[0])
    f[0] = x[0]
    for i in range(1, x.shape[0]):
        f[i] = x[i] * y[i - 1]
    return f


def ode(x, s):
    h = 2.0 / s
    y = np.zeros(x.shape[0])
    for _ in range(s):
        k1 = rhs(x, y)
        k2 = rhs(x, y + (0.5 * h) * k1)
        k3 = rhs(x, y + (0.5 * h) * k2)
        k4 = rhs(x, y + h * k3)
        y = y + (h / 6.0) * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return y


def ode_last(x, s):
    y = ode(x, s)
    return y[x.shape[0] - 1]


def define(jit):
    fns = {"primal": primal(ode, jit), "gradient": s2sad.grad(ode_last, jit=jit)}
    for fn in fns.values():
        fn(vector([0.5, 0.25]), 2)
    return {name: Function(fn, lambda inp: (vector(inp["x"]), int(inp["s"])))
            for name, fn in fns.items()}
