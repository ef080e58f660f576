"""Benchmark workloads for s2sad.

Each module defines ``primal`` (plain numba-compilable Python, written once),
``hand_grad`` (an expert's hand-written reverse-mode gradient, numba-compilable),
``WRT``, ``make_inputs(size, seed)``, ``DESCRIPTION`` and optionally peer
gradients (``jax_grad_fn``, ``jax_loop_grad_fn``, ``torch_grad``,
``autograd_grad_fn``) which import their library lazily.
"""
import importlib

# short name -> module name (order = report order)
WORKLOADS = {
    "W1": "w1_euler",
    "W2": "w2_logsumexp",
    "W3": "w3_gmm",
    "W4": "w4_mlp",
    "W5": "w5_elementwise",
    "RK4": "rk4_oscillator",
    "BUILD": "building_heating",
    "HEAT": "heat_stencil",
    "HEAT2D": "heat2d_stencil",
}


def load(name):
    """Import a workload module by short name (e.g. "W3")."""
    return importlib.import_module(__name__ + "." + WORKLOADS[name])
