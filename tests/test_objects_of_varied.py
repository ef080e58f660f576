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


class SGD:
    def __init__(self, lr):
        self.lr = lr

    def step(self, w, g):
        return w - self.lr * g


def stepped(w, opt):
    w2 = opt.step(w, w * np.sum(w * w))
    return np.sum(w2 ** 2)


def step(w, g, lr):
    return w - lr * g


def stepped_by_function(w, opt):
    w2 = step(w, w * np.sum(w * w), opt.lr)
    return np.sum(w2 ** 2)


def test_a_method_of_an_object_argument_is_named_with_what_to_write():
    w = np.array([0.5, -1.0, 2.0])
    with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
        s2sad.grad(stepped, jit=False)(w, SGD(0.1))
    message = str(info.value)
    assert "the method opt.step (of the class SGD)" in message, message
    assert "step(..., opt.<attribute>)" in message, message
    # what the message says to write works
    g = s2sad.grad(stepped_by_function, jit=False)(w, SGD(0.1))
    eps = 1e-6
    num = [(stepped_by_function(w + eps * e, SGD(0.1)) - stepped_by_function(w - eps * e, SGD(0.1)))
           / (2 * eps) for e in np.eye(3)]
    np.testing.assert_allclose(g, num, rtol=1e-6, atol=1e-8)
