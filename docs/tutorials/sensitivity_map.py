"""A stencil's sensitivity map

Heat spreads over a plate whose conductivity varies from point to point. A
sensor reads the temperature at one point after a while. Which parts of the
plate does that reading depend on, and how strongly? One reverse-mode
gradient answers for every point at once: the gradient of the reading with
respect to the conductivity field is a map, as large as the plate, that we
can look at as an image.
"""
# %%
# The simulation is an explicit 5-point stencil in a time loop, written the
# way numba code is written: loops over the grid, a buffer `un` for the next
# step, copied back into `u`.
import numpy as np

import s2sad


def sensor_reading(kappa, u0, steps, si, sj):
    nx, ny = u0.shape
    u = u0.copy()
    un = np.zeros_like(u0)
    for t in range(steps):
        for i in range(1, nx - 1):
            for j in range(1, ny - 1):
                un[i, j] = u[i, j] + kappa[i, j] * (
                    u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j])
        for i in range(1, nx - 1):
            for j in range(1, ny - 1):
                u[i, j] = un[i, j]
    return u[si, sj]


# %%
# The plate: 64 x 64 points, a hot spot on the left, a wall of low
# conductivity across the middle with a gap at the top, and a sensor on the
# far side.
n = 64
x, y = np.meshgrid(np.linspace(0.0, 1.0, n), np.linspace(0.0, 1.0, n), indexing="ij")
u0 = np.exp(-((x - 0.25) ** 2 + (y - 0.3) ** 2) / 0.01)
kappa = np.full((n, n), 0.2)
kappa[30:34, 0:44] = 0.005
steps, si, sj = 800, 46, 24

# %%
# `wrt=("kappa", "u0")` asks for both gradients from one reverse sweep: how
# the reading changes with the conductivity at each point, and with the
# initial temperature at each point.
dreading = s2sad.grad(sensor_reading, wrt=("kappa", "u0"))
dkappa, du0 = dreading(kappa, u0, steps, si, sj)
print("reading:", round(sensor_reading(kappa, u0, steps, si, sj), 6))
print("gradient shapes:", dkappa.shape, du0.shape)

# %%
# A check at one point against a finite difference, since a map is easy to
# believe and hard to verify by eye:
eps = 1e-6
bumped = kappa.copy()
bumped[40, 30] += eps
finite = (sensor_reading(bumped, u0, steps, si, sj)
          - sensor_reading(kappa, u0, steps, si, sj)) / eps
print(f"d reading / d kappa[40, 30]: s2sad {dkappa[40, 30]:.6e}, finite difference {finite:.6e}")

# %%
# The maps, on logarithmic colour scales (the sensitivities span orders of
# magnitude). Red on the middle map: raising the conductivity there raises the
# reading. The wall is the bottleneck on the heat's way from the hot spot (o)
# to the sensor (+), so its conductivity matters most; around the hot spot,
# faster spreading sends the heat elsewhere too (blue). On the right: the
# initial temperature matters in a wide region around the sensor that the
# wall cuts off; heat that starts inside the wall leaves it slowly, on both
# sides, and counts most.
import matplotlib.pyplot as plt
from matplotlib.colors import LogNorm, SymLogNorm

fig, axes = plt.subplots(1, 3, figsize=(11, 3.6))
limit = np.abs(dkappa).max()
norms = [None, SymLogNorm(linthresh=limit * 1e-3, vmin=-limit, vmax=limit),
         LogNorm(vmin=du0.max() * 1e-4, vmax=du0.max())]
panels = [(kappa, "conductivity kappa", "viridis"),
          (dkappa, "d reading / d kappa", "RdBu_r"),
          (du0, "d reading / d u0 (inside)", "magma")]
for ax, (field, title, cmap), norm in zip(axes, panels, norms):
    shown = field.copy()
    if field is du0:  # (the edges are held at their initial values: left out)
        shown[0, :] = shown[-1, :] = shown[:, 0] = shown[:, -1] = np.nan
    image = ax.imshow(shown.T, origin="lower", cmap=cmap, norm=norm)
    ax.plot([si], [sj], "k+", ms=10, mew=2)
    ax.plot([0.25 * (n - 1)], [0.3 * (n - 1)], "wo", ms=5, mec="k")
    ax.set_title(title)
    ax.set_xticks([])
    ax.set_yticks([])
    fig.colorbar(image, ax=ax, shrink=0.8)
fig.tight_layout()

# %%
# The gradient of this stencil is close to what one would write by hand:
# s2sad's reverse sweep gathers what each point receives from its neighbours
# instead of scattering into them, and stores the tapes in the order the
# reverse sweep reads them (see [How it works](../how-it-works.md)). The
# generated source says where it did so, in comments:
notes = [line.strip() for line in dreading.source.splitlines()
         if line.strip().startswith(("# the ", "# ("))]
print("\n".join(dict.fromkeys(notes)))
