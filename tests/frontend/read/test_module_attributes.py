"""A user's module's functions and values read as names of the function
(transforms/frontend/read/module_attributes.py)."""
import warnings

import numpy as np
import pytest

import s2sad
from frontend.passes import lowered, source
from frontend.read import physics_module
from frontend.read import physics_module as physics
from gradcheck import check_grad
from s2sad.transforms.frontend.read import module_attributes


def step(x):
    v = x
    for _ in range(3):
        v = v + physics.DT * physics.force(v) + np.cos(v) * physics.WEIGHTS[1]
    return v * v


def shadowed(x):
    force = 2.0
    return physics.force(x) * force


def test_attributes_become_names():
    _, after = lowered(module_attributes, step)
    assert after == source('''
        def step(x):
            v = x
            for _ in range(3):
                v = v + DT * force(v) + np.cos(v) * WEIGHTS[1]
            return v * v''')


def test_a_name_the_function_binds_is_not_taken():
    _, after = lowered(module_attributes, shadowed)
    assert "physics_module_force(x) * force" in after


def test_gradients(jit):
    check_grad(step, [0.7], jit=jit)
    check_grad(shadowed, [0.4], jit=jit)


def test_compiled_without_falling_back():
    """Through the module numba compiled neither the function nor DT: the
    derivative ran as Python with NumbaFallbackWarning."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.NumbaFallbackWarning)
        d = s2sad.grad(step, jit="require")(0.7)
    h = 1e-6
    assert d == pytest.approx((step(0.7 + h) - step(0.7 - h)) / (2 * h), rel=1e-6)


def test_a_rebound_value_generates_again(monkeypatch, jit):
    d = s2sad.grad(step, jit=jit)
    first = d(0.7)
    monkeypatch.setattr(physics_module, "DT", 0.3)
    h = 1e-6
    assert d(0.7) != first
    assert d(0.7) == pytest.approx((step(0.7 + h) - step(0.7 - h)) / (2 * h), rel=1e-6)

