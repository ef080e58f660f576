"""Shared set-up for peer AD libraries (imported lazily by the workloads)."""


def jax_setup():
    """Return (jax, jnp) configured for float64 on the CPU."""
    import jax
    jax.config.update("jax_enable_x64", True)
    jax.config.update("jax_platforms", "cpu")
    import jax.numpy as jnp
    return jax, jnp


def torch_setup():
    """Return torch, single-threaded (the numba columns use one core too)."""
    import torch
    if torch.get_num_threads() != 1:
        torch.set_num_threads(1)
    return torch


def torch_leaves(args, wrt):
    """Wrap args as tensors; the ones in wrt require grad."""
    import numpy as np
    torch = torch_setup()
    out = []
    for i, a in enumerate(args):
        if isinstance(a, np.ndarray):
            t = torch.from_numpy(a)
        elif isinstance(a, float):
            t = torch.tensor(a, dtype=torch.float64)
        else:
            t = a
        if i in wrt:
            t = t.detach().clone().requires_grad_(True) if isinstance(a, float) \
                else t.requires_grad_(True)
        out.append(t)
    return out
