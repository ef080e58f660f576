"""saddle: the saddle point of f(x, y) = ‖x‖² − ‖y‖² by nested gradient
descent: x* = argmin_x f(x, argmax_y f(x, y)), the outer gradient taken by AD
through the inner solver's loop (nested AD), then y* = argmax_y f(x*, y).
Variants: first letter the outer mode, second the inner; r reverse,
f forward.

The inner solver is the solver of GRADBENCH.md §7 (`_solver.argmin`) written
out as differentiable code, once per inner mode: s2sad cannot take the
objective or its gradient as arguments. As in particle, the outer solver
evaluates r1cost compiled with numba, calling the compiled inner derivative;
its derivatives are compiled whole."""
import math

import numpy as np
import s2sad

from ._common import Function, primal, unavailable, vector
from ._solver import argmax, argmin


def f(x, y):
    return (x[0] * x[0] + x[1] * x[1]) - (y[0] * y[0] + y[1] * y[1])


grad_f_y = s2sad.grad(f, wrt=1)  # inner reverse mode
jvp_f_y = s2sad.jvp(f, wrt=1)    # inner forward mode


def dfdy_f(x, y):
    """∂f/∂y by forward mode, one jvp per component of y."""
    e0 = np.zeros(2)
    e0[0] = 1.0
    e1 = np.zeros(2)
    e1[1] = 1.0
    _, d0 = jvp_f_y(x, y, e0)
    _, d1 = jvp_f_y(x, y, e1)
    g = np.empty(2)
    g[0] = d0
    g[1] = d1
    return g


def r1cost_r(x, start):
    """f(x, argmax_y f(x, y)), the argmax by _solver.argmax from start with
    ∂f/∂y by reverse mode."""
    y = start
    fy = -f(x, y)
    gy = -grad_f_y(x, y)
    i = 0
    eta = 1e-5
    while True:
        if math.sqrt(gy[0] * gy[0] + gy[1] * gy[1]) <= 1e-5:
            break
        if i == 10:
            eta = 2.0 * eta
            i = 0
            continue
        y_new = y - eta * gy
        step = y - y_new
        if math.sqrt(step[0] * step[0] + step[1] * step[1]) <= 1e-5:
            break
        f_new = -f(x, y_new)
        if f_new < fy:
            y = y_new
            fy = f_new
            gy = -grad_f_y(x, y)
            i += 1
        else:
            eta = eta / 2.0
            i = 0
    return f(x, y)


def r1cost_f(x, start):
    """r1cost_r with ∂f/∂y by forward mode."""
    y = start
    fy = -f(x, y)
    gy = -dfdy_f(x, y)
    i = 0
    eta = 1e-5
    while True:
        if math.sqrt(gy[0] * gy[0] + gy[1] * gy[1]) <= 1e-5:
            break
        if i == 10:
            eta = 2.0 * eta
            i = 0
            continue
        y_new = y - eta * gy
        step = y - y_new
        if math.sqrt(step[0] * step[0] + step[1] * step[1]) <= 1e-5:
            break
        f_new = -f(x, y_new)
        if f_new < fy:
            y = y_new
            fy = f_new
            gy = -dfdy_f(x, y)
            i += 1
        else:
            eta = eta / 2.0
            i = 0
    return f(x, y)


def gradient(fn, wrt, outer, jit):
    """The gradient of fn w.r.t. argument wrt (a 2-vector), by reverse mode or
    by forward mode (one jvp per component)."""
    if outer == "r":
        return s2sad.grad(fn, wrt=wrt, jit=jit)
    d = s2sad.jvp(fn, wrt=wrt, jit=jit)

    def by_columns(*args):
        g = np.empty(2)
        for k in range(2):
            e = np.zeros(2)
            e[k] = 1.0
            g[k] = d(*args, e)[1]
        return g
    return by_columns


def variant(name, jit):
    r1cost = r1cost_r if name[1] == "r" else r1cost_f
    d_r1cost = gradient(r1cost, 0, name[0], jit)
    d_f_y = gradient(f, 1, name[0], jit)
    v = vector([1.0, 1.0])  # the solvers' objectives, compiled
    inner = {"grad_f_y": (v, v)} if name[1] == "r" else {"jvp_f_y": (v, v, v)}
    r1cost = primal(r1cost, jit, inner)
    f_xy = primal(f, jit)

    def saddle(start):
        x = argmin(lambda x: r1cost(x, start), lambda x: d_r1cost(x, start), start)
        y = argmax(lambda y: f_xy(x, y), lambda y: d_f_y(x, y), start)
        return np.concatenate([x, y])

    saddle(vector([1.0, 1.0]))  # compile now
    return saddle


def define(jit):
    functions = {}
    for name in ("rr", "ff", "fr", "rf"):
        try:
            functions[name] = Function(variant(name, jit), lambda inp: (vector(inp["start"]),))
        except Exception as exc:
            functions[name] = unavailable(f"the {name} variant", exc)
    return functions

