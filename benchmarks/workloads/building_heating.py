"""Building heating: two-node RC thermal model with a smooth thermostat.

Air node Ta and building-mass node Tm, forward Euler, half-hour steps over
half a year (8760 steps). Heating power P = Pmax * sigmoid(gain (T_set - Ta)).
Cost per step: energy price * P * dt, plus a comfort penalty when Ta is below
T_comfort (an `if` in the loop). Gradient wrt the parameter vector
p = [R_ao, R_am, C_a, C_m, gain, T_set] (model calibration + control tuning).
"""
import math

import numpy as np

DESCRIPTION = "2-node RC building model + thermostat, 8760 steps, energy + comfort cost; grad wrt 6 params"
WRT = (0,)


def primal(p, T_out, solar, price, Ta0, Tm0, dt, p_max, T_comfort, w_comfort):
    R_ao = p[0]
    R_am = p[1]
    C_a = p[2]
    C_m = p[3]
    gain = p[4]
    T_set = p[5]
    Ta = Ta0
    Tm = Tm0
    cost = 0.0
    for t in range(T_out.shape[0]):
        P = p_max / (1.0 + math.exp(-gain * (T_set - Ta)))
        qa = (T_out[t] - Ta) / R_ao + (Tm - Ta) / R_am + P + solar[t]
        qm = (Ta - Tm) / R_am
        cost += price[t] * P * dt
        if Ta < T_comfort:
            cost += w_comfort * (T_comfort - Ta) * (T_comfort - Ta) * dt
        Ta = Ta + dt * qa / C_a
        Tm = Tm + dt * qm / C_m
    return cost


def hand_grad(p, T_out, solar, price, Ta0, Tm0, dt, p_max, T_comfort, w_comfort):
    # Store the two temperatures per step; recompute P, qa, qm backwards.
    R_ao = p[0]
    R_am = p[1]
    C_a = p[2]
    C_m = p[3]
    gain = p[4]
    T_set = p[5]
    n = T_out.shape[0]
    Tas = np.empty(n)
    Tms = np.empty(n)
    Ta = Ta0
    Tm = Tm0
    for t in range(n):
        Tas[t] = Ta
        Tms[t] = Tm
        P = p_max / (1.0 + math.exp(-gain * (T_set - Ta)))
        qa = (T_out[t] - Ta) / R_ao + (Tm - Ta) / R_am + P + solar[t]
        qm = (Ta - Tm) / R_am
        Ta = Ta + dt * qa / C_a
        Tm = Tm + dt * qm / C_m
    g = np.zeros(6)
    Tab = 0.0  # adjoints of the state after step t
    Tmb = 0.0
    for t in range(n - 1, -1, -1):
        Ta = Tas[t]
        Tm = Tms[t]
        P = p_max / (1.0 + math.exp(-gain * (T_set - Ta)))
        qa = (T_out[t] - Ta) / R_ao + (Tm - Ta) / R_am + P + solar[t]
        qm = (Ta - Tm) / R_am
        # Tm' = Tm + dt qm / C_m ; Ta' = Ta + dt qa / C_a
        qmb = Tmb * dt / C_m
        g[3] -= Tmb * dt * qm / (C_m * C_m)
        qab = Tab * dt / C_a
        g[2] -= Tab * dt * qa / (C_a * C_a)
        # qm = (Ta - Tm) / R_am
        Tab += qmb / R_am
        Tmb -= qmb / R_am
        g[1] -= qmb * qm / R_am
        # qa = (T_out - Ta)/R_ao + (Tm - Ta)/R_am + P + solar
        g[0] -= qab * (T_out[t] - Ta) / (R_ao * R_ao)
        g[1] -= qab * (Tm - Ta) / (R_am * R_am)
        Tab -= qab / R_ao + qab / R_am
        Tmb += qab / R_am
        # P = p_max sigmoid(s), s = gain (T_set - Ta); dP/ds = P (1 - P/p_max)
        Pb = qab + price[t] * dt
        sb = Pb * P * (1.0 - P / p_max)
        g[4] += sb * (T_set - Ta)
        g[5] += sb * gain
        Tab -= sb * gain
        if Ta < T_comfort:
            Tab -= 2.0 * w_comfort * (T_comfort - Ta) * dt
    return (g,)


def make_inputs(size="full", seed=0):
    n = 8760 if size == "full" else 48
    dt = 0.5  # hours
    rng = np.random.default_rng(seed)
    hours = dt * np.arange(n)
    day = 2.0 * np.pi * hours / 24.0
    T_out = 4.0 + 5.0 * np.sin(day - 2.0) + rng.normal(0.0, 1.0, n)
    solar = 1.5 * np.maximum(0.0, np.sin(day - 1.5))          # kW into the air
    price = np.where((hours % 24.0 >= 17.0) & (hours % 24.0 < 21.0), 0.35, 0.2)
    # R in K/kW, C in kWh/K, gain in 1/K, temperatures in C, p_max in kW.
    # T_set below T_comfort: Ta crosses T_comfort about half the steps, so
    # the comfort branch is taken often and not taken often.
    p = np.array([5.0, 1.0, 10.0, 50.0, 2.0, 19.5])
    return (p, T_out, solar, price, 19.0, 18.0, dt, 10.0, 20.0, 1.0)


def jax_grad_fn():
    from ._peers import jax_setup
    jax, jnp = jax_setup()

    def f(p, T_out, solar, price, Ta0, Tm0, dt, p_max, T_comfort, w_comfort):
        R_ao, R_am, C_a, C_m, gain, T_set = p

        def step(state, inp):
            Ta, Tm = state
            to, so, pr = inp
            P = p_max * jax.nn.sigmoid(gain * (T_set - Ta))
            qa = (to - Ta) / R_ao + (Tm - Ta) / R_am + P + so
            qm = (Ta - Tm) / R_am
            gap = jnp.maximum(T_comfort - Ta, 0.0)
            cost = pr * P * dt + w_comfort * gap * gap * dt
            return (Ta + dt * qa / C_a, Tm + dt * qm / C_m), cost

        _, costs = jax.lax.scan(step, (Ta0, Tm0), (T_out, solar, price))
        return jnp.sum(costs)

    g = jax.jit(jax.grad(f))
    return lambda *args: (g(*args),)


def _loop(sig, p, T_out, solar, price, Ta0, Tm0, dt, p_max, T_comfort, w_comfort):
    """Scalar-op primal for the torch and autograd tapes (sig = sigmoid)."""
    R_ao, R_am, C_a, C_m, gain, T_set = p[0], p[1], p[2], p[3], p[4], p[5]
    Ta, Tm, cost = Ta0, Tm0, 0.0
    for t in range(T_out.shape[0]):
        P = p_max * sig(gain * (T_set - Ta))
        qa = (T_out[t] - Ta) / R_ao + (Tm - Ta) / R_am + P + solar[t]
        qm = (Ta - Tm) / R_am
        cost = cost + price[t] * P * dt
        if Ta < T_comfort:
            cost = cost + w_comfort * (T_comfort - Ta) ** 2 * dt
        Ta, Tm = Ta + dt * qa / C_a, Tm + dt * qm / C_m
    return cost


def torch_grad(args):
    import torch
    from ._peers import torch_leaves
    targs = torch_leaves(args, WRT)
    _loop(torch.sigmoid, *targs).backward()
    return (targs[0].grad.numpy(),)


def autograd_grad_fn():
    import autograd
    import autograd.numpy as anp
    g = autograd.grad(lambda *a: _loop(lambda s: 1.0 / (1.0 + anp.exp(-s)), *a))
    return lambda *args: (g(*args),)
