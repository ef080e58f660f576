"""lse: log-sum-exp in its stable form, and its gradient (the softmax)."""
import math

import s2sad

from ._common import Function, primal, vector


def lse(x):
    a = x[0]
    for i in range(1, x.shape[0]):
        if x[i] > a:
            a = x[i]
    s = 0.0
    for i in range(x.shape[0]):
        s += math.exp(x[i] - a)
    return a + math.log(s)


def define(jit):
    fns = {"primal": primal(lse, jit),
           "gradient": s2sad.grad(lse, jit=jit, boundscheck=False)}
    for fn in fns.values():
        fn(vector([0.5, -1.0, 2.0]))
    return {name: Function(fn, lambda inp: (vector(inp["x"]),)) for name, fn in fns.items()}
