"""Fitting a simulation's parameters with scipy.optimize

A predator-prey model, stepped forward with explicit Euler in a plain Python
loop, has four rates. Given noisy observations of both populations, we find
the rates that reproduce them: `scipy.optimize.minimize` does the search,
and s2sad gives it the exact gradient of the misfit through the whole
simulation, compiled with numba.
"""
# %%
# The model: Lotka-Volterra, `x' = a x - b x y` (prey) and `y' = d x y - g y`
# (predators), integrated with a fixed step. It is written as one would write
# it without any automatic differentiation in mind: a loop, scalars, and two
# arrays filled in place.
import numpy as np
from scipy.optimize import minimize

import s2sad


def simulate(rates, x0, y0, dt, n):
    a, b, d, g = rates[0], rates[1], rates[2], rates[3]
    xs = np.empty(n)
    ys = np.empty(n)
    x, y = x0, y0
    for t in range(n):
        x, y = x + dt * (a * x - b * x * y), y + dt * (d * x * y - g * y)
        xs[t] = x
        ys[t] = y
    return xs, ys


def misfit(rates, x_seen, y_seen, x0, y0, dt):
    xs, ys = simulate(rates, x0, y0, dt, x_seen.shape[0])
    return np.sum((xs - x_seen) ** 2 + (ys - y_seen) ** 2)


# %%
# Synthetic observations: the true rates, plus noise.
true_rates = np.array([1.1, 0.4, 0.1, 0.4])
x0, y0, dt, n = 10.0, 5.0, 0.01, 2000
rng = np.random.default_rng(0)
x_true, y_true = simulate(true_rates, x0, y0, dt, n)
x_seen = x_true + rng.normal(0.0, 0.5, n)
y_seen = y_true + rng.normal(0.0, 0.5, n)

# %%
# `s2sad.value_and_grad` returns the misfit and its gradient with respect to
# the first argument, the rates: exactly what `minimize(..., jac=True)` asks
# for. The first call generates the derivative and compiles it; the fit then
# calls it once per iteration.
misfit_and_gradient = s2sad.value_and_grad(misfit)

guess = np.array([0.8, 0.3, 0.15, 0.5])
result = minimize(misfit_and_gradient, guess, args=(x_seen, y_seen, x0, y0, dt),
                  jac=True, method="L-BFGS-B", bounds=[(0.01, 3.0)] * 4)
print(f"converged: {result.success}, {result.nit} iterations, "
      f"{result.nfev} misfit and gradient evaluations")
print("true rates:  ", true_rates)
print("fitted rates:", np.round(result.x, 3))

# %%
# The gradient is exact, not an approximation: it agrees with central finite
# differences to rounding. `s2sad.check_grads` makes that comparison (and
# raises if it fails).
s2sad.check_grads(misfit, (guess, x_seen, y_seen, x0, y0, dt), modes="rev")
value, gradient = misfit_and_gradient(guess, x_seen, y_seen, x0, y0, dt)
print("misfit at the guess:", round(value, 2))
print("its gradient:       ", np.round(gradient, 1))

# %%
# The data, the simulation from the first guess and the fitted simulation.
import matplotlib.pyplot as plt

time = dt * np.arange(1, n + 1)
x_guess, y_guess = simulate(guess, x0, y0, dt, n)
x_fit, y_fit = simulate(result.x, x0, y0, dt, n)
fig, ax = plt.subplots(figsize=(8, 3.5))
ax.plot(time, x_seen, ".", ms=1.5, color="tab:blue", alpha=0.4, label="prey, observed")
ax.plot(time, y_seen, ".", ms=1.5, color="tab:red", alpha=0.4, label="predators, observed")
ax.plot(time, x_guess, ":", color="tab:blue", label="prey, first guess")
ax.plot(time, y_guess, ":", color="tab:red", label="predators, first guess")
ax.plot(time, x_fit, color="tab:blue", label="prey, fitted")
ax.plot(time, y_fit, color="tab:red", label="predators, fitted")
ax.set_xlabel("time")
ax.set_ylabel("population")
ax.legend(ncol=3, fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.2))
fig.tight_layout()

# %%
# What s2sad generated is ordinary Python, compiled with numba. The derivative
# of the helper `simulate` is a function of its own, `vjp_simulate`: its
# forward sweep records on tapes the values the reverse sweep reads, and its
# reverse sweep runs the loop backwards, each statement's adjoint under the
# statement as a comment. Here is that reverse loop:
lines = misfit_and_gradient.source.split("def vjp_simulate")[1].splitlines()
start = lines.index("    # for t in range(n):")
end = next(k for k in range(start + 2, len(lines)) if not lines[k].startswith("        "))
print("\n".join(lines[start:end]))
