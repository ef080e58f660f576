"""Divisions by one value done once, as a reciprocal (transforms/optimise/reciprocals.py).

Gradients against finite differences, compiled and as Python; the function's
value against the function itself; the generated source for whether the
rewrite fired, and where it must not (a divisor bound twice, a parameter,
an augmented one, a single division)."""
import math

import numpy as np
import pytest

import s2sad
from gradcheck import check_grad

rng = np.random.default_rng(5)


def energy(pos, eps):
    n = pos.shape[0]
    e = 0.0
    for i in range(n):
        for j in range(n):
            if j != i:
                dx = pos[i, 0] - pos[j, 0]
                dy = pos[i, 1] - pos[j, 1]
                e += 0.5 / math.sqrt(dx * dx + dy * dy + eps)
    return e


def test_pairwise_energy_divides_once_per_pair(jit):
    args = (rng.normal(size=(5, 2)), 0.01)
    check_grad(energy, args, wrt=0, jit=jit)
    value, _ = s2sad.value_and_grad(energy, jit=jit)(*args)
    assert value == energy(*args)  # 0.5 * (1 / s) is 0.5 / s
    src = s2sad.grad(energy, jit=False).source_for(*args)
    assert "inv_sqrt = 1.0 / sqrt" in src and "e += 0.5 * inv_sqrt" in src, src
    code = [ln for ln in src.splitlines() if not ln.lstrip().startswith("#")]
    assert sum(ln.count(" / ") for ln in code) == 1, src  # the reciprocal is the only division


def quotients(x, a):
    s = a * a + x[0] * x[0] + 1.0
    y = x[1] / s + 3.0 / s
    return y * x[2] + math.log(s) / s


def test_a_quotient_of_two_values(jit):
    args = (rng.normal(size=3), 0.7)
    check_grad(quotients, args, wrt=(0, 1), jit=jit)
    value, _ = s2sad.value_and_grad(quotients, wrt=(0, 1), jit=jit)(*args)
    assert value == quotients(*args)  # x / s and 3 / s are kept as written
    src = s2sad.grad(quotients, wrt=(0, 1), jit=False).source_for(*args)
    assert "inv_s = 1.0 / s" in src, src
    assert "x[1] / s" in src and "3.0 / s" in src, src


def rebound(x, a):
    s = a * a + 1.0
    y = x[0] / s
    s = s * x[1]
    return y + x[2] / s


def augmented(x, a):
    s = a * a + 1.0
    s += x[1] * x[1]
    return x[0] / s + x[2] / s


def parameter(x, a):
    y = x[0] / a
    a = a * x[1]
    return y + x[2] / a


def once(x, a):
    s = x.shape[0] * 1.5  # a constant divisor: only `g / s` in the derivative
    return a * x[0] * x[2] / s


@pytest.mark.parametrize("f", [rebound, augmented, parameter, once])
def test_no_reciprocal_where_it_must_not_be_used(jit, f):
    args = (rng.normal(size=3) + 2.0, 0.7)
    check_grad(f, args, wrt=(0, 1), jit=jit)
    src = s2sad.grad(f, wrt=(0, 1), jit=False).source_for(*args)
    assert "inv_" not in src, src


def shifted(x):
    s = x - 1.0
    return 1.0 / s + 2.0 / s


def test_division_by_zero_as_before(jit):
    # d/dx (3 / (x - 1)) at x = 1: -3 / 0 = -inf, both ways
    assert s2sad.grad(shifted, jit=jit)(1.0) == -math.inf
    assert "inv_s" in s2sad.grad(shifted, jit=False).source_for(1.0)
    assert math.isclose(s2sad.grad(shifted, jit=jit)(3.0), -0.75)


def branch(x, a):
    total = 0.0
    for i in range(x.shape[0]):
        s = a * a + x[i] * x[i] + 0.5
        if x[i] / s > 0.25:  # the primal's test keeps its division
            total += x[i] / s + 1.0 / s
    return total


def test_a_primal_test_keeps_its_division(jit):
    args = (rng.normal(size=6), 0.7)
    check_grad(branch, args, wrt=(0, 1), jit=jit)
    src = s2sad.grad(branch, wrt=(0, 1), jit=False).source_for(*args)
    tests = [ln for ln in src.splitlines() if ln.strip() == "if x[i] / s > 0.25:"]
    assert len(tests) == 2 and "inv_s" in src, src  # (in both sweeps)
