"""An object of the user's class (not a number, array or container) holding
values that depend on the differentiated arguments carries no gradient:
what is read back from it would have none. Such a function is refused with
a message naming the class and the line; it used to crash inside the
generated code (or, run another way, give a zero gradient)."""
import types

import numpy as np
import pytest

import s2sad
from gradcheck import check_grad


class Box:
    def __init__(self, v):
        self.v = v


class Accumulator:
    def __init__(self):
        self.total = 0.0

    def add(self, v):
        self.total += v


class Settings:
    scale = 2.5


def boxed(x):
    b = Box(x * x)
    return np.sum(b.v)


def namespaced(x):
    s = types.SimpleNamespace(a=x * 2.0)
    return np.sum(s.a)


def accumulated(x):
    a = Accumulator()
    a.add(np.sum(x * x))
    return a.total


@pytest.mark.parametrize("f, cls", [(boxed, "Box"), (namespaced, "SimpleNamespace"),
                                    (accumulated, "Accumulator")])
def test_an_object_holding_differentiated_values_is_refused(f, cls):
    with pytest.raises(s2sad.UnsupportedSyntaxError, match=f"object of the class {cls}"):
        s2sad.grad(f, jit=False)(np.array([0.5, -1.0]))


def settings_read(x):
    cfg = Settings()
    return np.sum(x * x) * cfg.scale


def test_an_object_of_constants_is_read():
    # (an attribute of an object made in the function has no kind s2sad
    # knows: compiled, numba refuses the statement and it runs as Python)
    check_grad(settings_read, (np.array([0.5, -1.0]),), jit=False)
    with pytest.warns(s2sad.NumbaFallbackWarning):
        check_grad(settings_read, (np.array([0.5, -1.0]),), jit=True)
