"""particle: the control w that lands a charged particle at x = 0, by gradient
descent on naive_euler(w), whose derivative is taken by AD through the Euler
loop and through the inner gradient of the potential (nested AD). Variants:
first letter the outer mode (d/dw), second the inner (∇ₓ p); r reverse,
f forward.

Both modes nest either way: s2sad differentiates the generated inner
derivative like any helper. s2sad cannot take a function as an argument, so
the Euler loop is written twice, once per inner mode (`naive_euler_r`,
`naive_euler_f`). The solver's objective is naive_euler compiled with
numba, calling the compiled inner derivative (`_common.primal`'s
`derivatives`); the outer derivatives are compiled whole."""
import math

import numpy as np
import s2sad

from ._common import Function, primal, unavailable
from ._solver import argmin


def potential(x, w):
    """Σ 1/‖x − charge‖ over the charges (10, 10 − w) and (10, 0)."""
    a0 = x[0] - 10.0
    a1 = x[1] - (10.0 - w)
    b0 = x[0] - 10.0
    b1 = x[1]
    return 1.0 / math.sqrt(a0 * a0 + a1 * a1) + 1.0 / math.sqrt(b0 * b0 + b1 * b1)


grad_potential = s2sad.grad(potential, wrt=0)  # inner reverse mode
jvp_potential = s2sad.jvp(potential, wrt=0)    # inner forward mode


def acceleration_r(x, w):
    return -grad_potential(x, w)


def acceleration_f(x, w):
    """−∇ₓ p by forward mode, one jvp per axis."""
    e0 = np.zeros(2)
    e0[0] = 1.0
    e1 = np.zeros(2)
    e1[1] = 1.0
    _, d0 = jvp_potential(x, w, e0)
    _, d1 = jvp_potential(x, w, e1)
    a = np.empty(2)
    a[0] = -d0
    a[1] = -d1
    return a


def naive_euler_r(w):
    """x_f² where x_f is where the particle crosses the x axis."""
    x = np.zeros(2)
    x[1] = 8.0
    xdot = np.zeros(2)
    xdot[0] = 0.75
    dt = 0.1
    while True:
        xddot = acceleration_r(x, w)
        x_new = x + dt * xdot
        if x_new[1] <= 0.0:
            break
        x = x_new
        xdot = xdot + dt * xddot
    dt_f = -x[1] / xdot[1]  # interpolate linearly to the x axis
    x_f = x[0] + dt_f * xdot[0]
    return x_f * x_f


def naive_euler_f(w):
    """naive_euler_r with the inner gradient in forward mode."""
    x = np.zeros(2)
    x[1] = 8.0
    xdot = np.zeros(2)
    xdot[0] = 0.75
    dt = 0.1
    while True:
        xddot = acceleration_f(x, w)
        x_new = x + dt * xdot
        if x_new[1] <= 0.0:
            break
        x = x_new
        xdot = xdot + dt * xddot
    dt_f = -x[1] / xdot[1]
    x_f = x[0] + dt_f * xdot[0]
    return x_f * x_f


def outer_derivative(fn, outer, jit):
    if outer == "r":
        return s2sad.grad(fn, jit=jit)
    d = s2sad.jvp(fn, jit=jit)
    return lambda w: d(w, 1.0)[1]


def define(jit):
    example = (np.array([0.0, 8.0]), 0.0)
    compiled = {"r": primal(naive_euler_r, jit, {"grad_potential": example}),
                "f": primal(naive_euler_f, jit, {"jvp_potential": example + (np.ones(2),)})}
    functions = {}
    for name in ("rr", "ff", "fr", "rf"):
        fn = naive_euler_r if name[1] == "r" else naive_euler_f
        try:
            derivative = outer_derivative(fn, name[0], jit)
            derivative(0.0)  # compile now, the inner derivative that fn calls too
            fn = compiled[name[1]]
            fn(0.0)
        except Exception as exc:
            functions[name] = unavailable(f"the {name} variant", exc)
            continue
        functions[name] = Function(
            lambda w, fn=fn, derivative=derivative: argmin(fn, derivative, w),
            lambda inp: (float(inp["w"]),))
    return functions

