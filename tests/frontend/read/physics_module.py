"""A user's module a differentiated function reaches through its name
(tests/frontend/read/test_module_attributes.py)."""
import numpy as np

DT = 0.1
WEIGHTS = np.array([1.0, 2.0, 3.0])


def force(x):
    return -np.sin(x) * WEIGHTS[0]


def energy(x):
    return 0.5 * x * x
