"""Cheap loop values are recomputed in the reverse sweep instead of taped
(transforms/reverse/recompute.py); loop-carried restores move to the top of the
reverse iteration when nothing later in the body reads the newer value."""
import math

import numpy as np
import pytest

import s2sad
from gradcheck import check_grad


def euler(a, b, x0):
    x = x0
    for i in range(50):
        x = x + 0.01 * (a * math.sin(x) - b * x * x * x)
    return x


def test_only_the_state_is_taped(jit):
    check_grad(euler, (1.1, 0.4, 0.3), wrt=(0, 1, 2), jit=jit)
    src = s2sad.grad(euler, wrt=(0, 1, 2), jit=False).source_for(1.1, 0.4, 0.3)
    assert src.count("_tape = np.empty") == 1 and "x_tape" in src, src
    # the reverse iteration restores x, then recomputes sin(x) from it
    reverse = src[src.index("for i in range(49, -1, -1):"):]
    assert reverse.index("x = x_tape[i]") < reverse.index("sin = math.sin(x)"), src


def written_in_a_branch(a, x0):
    x = x0
    for i in range(5):
        s = math.sin(x) * a
        if i % 2 == 0:
            x = x + 0.1 * s
        else:
            x = x - 0.05 * s * x
    return x


def read_after_its_update(a, x0):
    x = x0
    y = 0.0
    for i in range(5):
        s = math.sin(x) * a
        t = s * y
        x = x + 0.1 * s
        y = y + 0.2 * t + x      # reads the new x: x is not restored early
    return x + y


def with_an_exit(a, v):
    x = 0.3
    for i in range(v.shape[0]):
        w = v[i] * a
        e = math.exp(w - x)
        x = x + 0.1 * e
        if x > 1.0:
            break
    return x


def in_a_while_loop(a, x0):
    x = x0
    n = 0
    while n < 4:
        s = math.cos(x) * a
        n += 1
        x = x + 0.1 * s * n
    return x


def nested(a, v):
    x = 0.2
    for i in range(3):
        for j in range(v.shape[0]):
            u = math.tanh(v[j] * x) * a
            x = x + 0.1 * u
        x = x * 0.9
    return x


@pytest.mark.parametrize("f, args", [
    (written_in_a_branch, (0.7, 0.3)),
    (read_after_its_update, (0.7, 0.3)),
    (with_an_exit, (0.7, np.array([0.1, 0.5, 2.0, 3.0]))),
    (in_a_while_loop, (0.7, 0.3)),
    (nested, (0.7, np.array([0.1, -0.5, 0.8]))),
])
def test_recomputed_values_are_right(f, args, jit):
    check_grad(f, args, wrt=(0, 1), jit=jit)


def test_read_after_update_keeps_its_tape():
    src = s2sad.grad(read_after_its_update, wrt=(0, 1), jit=False).source_for(0.7, 0.3)
    assert "sin_tape" in src and "x_tape" in src, src
