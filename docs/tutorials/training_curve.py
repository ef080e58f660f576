"""Training a small model

A two-layer network fitted to noisy samples of a curve by gradient descent.
The parameters live in a dict, as in JAX or autograd code; s2sad returns the
gradient as a dict of the same keys, and the training loop is plain numpy.
"""
# %%
# The model and its loss. `params` is a dict of arrays (a pytree): the
# derivative takes it apart into its leaves and gives the gradient back as a
# dict.
import numpy as np

import s2sad


def predict(params, x):
    hidden = np.tanh(np.outer(x, params["w1"]) + params["b1"])
    return hidden @ params["w2"] + params["b2"]


def loss(params, x, y):
    residual = predict(params, x) - y
    return np.mean(residual ** 2)


# %%
# Data: 200 noisy samples of a wave; 80 of them held out to watch for
# overfitting.
rng = np.random.default_rng(1)
x = np.sort(rng.uniform(-3.0, 3.0, 200))
y = np.sin(2.0 * x) * np.exp(-0.1 * x * x) + rng.normal(0.0, 0.1, x.shape)
held_out = rng.permutation(200)[:80]
train = np.setdiff1d(np.arange(200), held_out)

width = 24
params = {"w1": rng.normal(0.0, 1.0, width), "b1": rng.normal(0.0, 1.0, width),
          "w2": rng.normal(0.0, 1.0 / np.sqrt(width), width), "b2": 0.0}

# %%
# Adam, written out: the gradient is a dict with `params`' keys, so the update
# is a loop over them.
loss_and_gradient = s2sad.value_and_grad(loss)
value, gradient = loss_and_gradient(params, x[train], y[train])
print("gradient keys and shapes:", {k: np.shape(v) for k, v in gradient.items()})

rate, beta1, beta2 = 0.02, 0.9, 0.999
m = {k: np.zeros_like(v) for k, v in params.items()}
v = {k: np.zeros_like(v) for k, v in params.items()}
train_curve, held_out_curve = [], []
for step in range(1, 1501):
    value, gradient = loss_and_gradient(params, x[train], y[train])
    for k in params:
        m[k] = beta1 * m[k] + (1 - beta1) * gradient[k]
        v[k] = beta2 * v[k] + (1 - beta2) * gradient[k] ** 2
        correction = np.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
        params[k] = params[k] - rate * correction * m[k] / (np.sqrt(v[k]) + 1e-8)
    train_curve.append(value)
    held_out_curve.append(loss(params, x[held_out], y[held_out]))
print(f"loss after {step} steps: training {train_curve[-1]:.4f}, "
      f"held out {held_out_curve[-1]:.4f} (the noise alone gives 0.01)")

# %%
# The training curve, and the fitted curve against the data.
import matplotlib.pyplot as plt

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6))
left.semilogy(train_curve, label="training")
left.semilogy(held_out_curve, label="held out")
left.set_xlabel("step")
left.set_ylabel("mean squared error")
left.legend()
grid = np.linspace(-3.0, 3.0, 400)
right.plot(x[train], y[train], ".", ms=4, label="training samples")
right.plot(x[held_out], y[held_out], "x", ms=4, label="held-out samples")
right.plot(grid, predict(params, grid), "k", label="model")
right.legend(fontsize=8)
fig.tight_layout()

# %%
# Each step called the compiled gradient once; only the first call generated
# and compiled it. The wrapper's own work per call (checking the arguments'
# types, taking the dict apart) is a few microseconds.
import time

start = time.perf_counter()
for _ in range(200):
    loss_and_gradient(params, x[train], y[train])
per_call = (time.perf_counter() - start) / 200
print(f"one loss-and-gradient call: {per_call * 1e6:.0f} µs" if per_call < 1e-3
      else f"one loss-and-gradient call: {per_call * 1e3:.1f} ms")
