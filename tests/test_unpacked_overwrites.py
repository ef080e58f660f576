"""A value the reverse sweep reads is the value it had at that point of the
forward sweep, whatever the statement overwrites: `a, b = h(b, w)` reads the
b it replaces, so the adjoint of the call must see the old b, and b's own
adjoint must receive the call's contribution to it (not be restarted at zero
after it). Swaps, unpacking in loops and branches, helpers reading and
overwriting two names, containers lowered to several names; against finite
differences, as Python and compiled."""
from typing import NamedTuple

import numpy as np
import pytest

import s2sad
from gradcheck import check_grad, numerical_grad


def pair(b, w):
    return w, b * w


def rescaled(w):
    b = 3.0
    a, b = pair(b, w)  # the call reads the b it replaces
    return b


def two(a, b):
    return a * b, a + b


def step(x, i):
    return x * x + 1.0, i + 1


def twice_unpacked(x, y):
    a = x
    b = y
    a, b = two(a, b)  # reads and overwrites both
    a, b = two(a, b)
    return a * b


def crossed(x):
    a = x
    b = 2.0
    a, b = two(b, a)  # each target is the other's operand
    return a * b


def swapped_in_a_loop(x):
    a = x * 1.0
    b = x + 2.0
    for k in range(2):
        a, b = two(a, b)
        a, b = b, a
    return a * b


def unpacked_in_a_loop(x):
    a = x
    b = 1.0
    for k in range(3):
        a, b = pair(a, b * x)
    return a + b


def with_a_counter(x):
    s = x
    i = 0
    for k in range(3):
        s, i = step(s, i)  # x, i = h(x, i)
    return s * i


def augmented_after(x):
    s = x
    t = 0.5
    for k in range(3):
        s, t = two(s, t)
        s += t
    return s


def in_branches(x):
    a = x
    b = 1.0
    for k in range(3):
        if a > 0.5:
            a, b = two(a, b)
        else:
            b, a = two(b, a * 2.0)
    return a * b


def in_a_while_loop(x):
    a = x
    b = 1.0
    n = 0
    while n < 3:
        a, b = two(a, b)
        n += 1
    return a * b


def exchanged(a, b):
    a, b = two(b, a)
    return a, b * a


def nested_helper(x):
    a = x
    b = 2.0 * x
    a, b = exchanged(a, b)  # the helper's own body unpacks into its operands too
    return a + b


def list_items(x):
    d = [x, 2.0 * x]
    d[0], d[1] = two(d[1], d[0])
    return d[0] * d[1]


def dict_items_in_a_loop(x):
    d = {"a": x, "b": 2.0 * x}
    for k in range(2):
        d["a"], d["b"] = two(d["b"], d["a"])
    return d["a"] * d["b"]


def array_items(x):
    d = np.array([x, 2.0 * x])
    d[0], d[1] = two(d[1], d[0])
    return d[0] * d[1]


def scalars_of_an_array(x):
    a = x[0]
    b = x[1]
    for k in range(2):
        a, b = two(a, b)
        b, a = a, b
    return a + b


def arrays_through(u, v):
    return np.sin(u) * v, u * u


def arrays_in_a_loop(x):
    u = x * 1.0
    v = x * 2.0
    for k in range(3):
        u, v = arrays_through(u, v)
    return np.sum(u * v)


def arrays_swapped(x):
    u = x * 1.0
    v = x + 1.0
    for k in range(3):
        u, v = v, u
        u, v = pair(u, v * x)
    return np.sum(u * v)


@s2sad.custom_vjp
def scaled(a, b):
    return a * b


def scaled_fwd(a, b):
    return a * b, (a, b)


def scaled_bwd(residuals, g):
    return g * residuals[1], g * residuals[0]


scaled.defvjp(scaled_fwd, scaled_bwd)


def custom_overwrites_its_operand(x):
    a = x + 1.0
    for k in range(3):
        a = scaled(a, x)
    return a


@s2sad.custom_gradient
def squared(y):
    def backward(dy):
        return 2.0 * y * dy
    return y * y, backward


def custom_gradient_overwrites_its_operand(x):
    y = x + 1.0
    for k in range(3):
        y = squared(y)
    return y


SCALARS = [
    (rescaled, (0.5,)), (twice_unpacked, (0.7, 1.1)), (crossed, (0.6,)),
    (swapped_in_a_loop, (0.3,)), (unpacked_in_a_loop, (0.6,)), (with_a_counter, (0.4,)),
    (augmented_after, (0.4,)), (in_branches, (0.7,)), (in_a_while_loop, (0.4,)),
    (nested_helper, (0.5,)), (list_items, (0.5,)), (dict_items_in_a_loop, (0.6,)),
    (array_items, (0.5,)), (custom_overwrites_its_operand, (0.7,)),
    (custom_gradient_overwrites_its_operand, (0.3,)),
]
ARRAYS = [
    (scalars_of_an_array, (np.array([0.3, 0.5]),)), (arrays_in_a_loop, (np.array([0.3, 0.5]),)),
    (arrays_swapped, (np.array([0.3, 0.5]),)),
]


@pytest.mark.parametrize("f, args", SCALARS + ARRAYS, ids=lambda v: getattr(v, "__name__", ""))
def test_overwritten_operands(f, args, jit):
    check_grad(f, args, jit=jit)


def test_the_reported_unpacking_python_and_compiled():
    # the numbers: 3.0, not 1.5 (the adjoint call saw the new b)
    for jit in (False, True):
        assert s2sad.grad(rescaled, jit=jit)(0.5) == pytest.approx(3.0)


def test_both_arguments_of_a_helper_that_overwrites_them(jit):
    df = s2sad.grad(twice_unpacked, wrt=(0, 1), jit=jit)
    gx, gy = df(0.7, 1.1)
    assert gx == pytest.approx(numerical_grad(twice_unpacked, (0.7, 1.1), 0), rel=1e-6)
    assert gy == pytest.approx(numerical_grad(twice_unpacked, (0.7, 1.1), 1), rel=1e-6)


class Pair(NamedTuple):
    a: float
    b: float


def record_fields_in_a_loop(p):
    a, b = p
    for k in range(2):
        a, b = two(b, a)
    return a * b


def test_record_fields_unpacked_into_names_a_helper_overwrites(jit):
    g = s2sad.grad(record_fields_in_a_loop, jit=jit)(Pair(0.5, 2.0))
    da = numerical_grad(lambda a: record_fields_in_a_loop(Pair(a, 2.0)), (0.5,), 0)
    db = numerical_grad(lambda b: record_fields_in_a_loop(Pair(0.5, b)), (2.0,), 0)
    assert g.a == pytest.approx(da, rel=1e-6) and g.b == pytest.approx(db, rel=1e-6)
