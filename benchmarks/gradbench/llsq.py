"""llsq: the linear least-squares objective ½ Σᵢ (sign(tᵢ) − Σⱼ xⱼ tᵢʲ)²."""
import numpy as np
import s2sad

from ._common import Function, primal, vector


def llsq(x, n):
    total = 0.0
    for i in range(n):
        t = -1.0 + i * 2.0 / (n - 1)
        r = np.sign(t)
        tj = 1.0  # t to the power j
        for j in range(x.shape[0]):
            r -= x[j] * tj
            tj *= t
        total += r * r
    return 0.5 * total


def define(jit):
    fns = {"primal": primal(llsq, jit),
           "gradient": s2sad.grad(llsq, jit=jit, boundscheck=False)}
    for fn in fns.values():
        fn(vector([0.5, -0.25]), 3)
    return {name: Function(fn, lambda inp: (vector(inp["x"]), int(inp["n"])))
            for name, fn in fns.items()}
