"""Methods and attributes of module-level objects: a copy of the method with
`self` read as the object, the values it holds read as constants
(transforms/frontend/functions/object_methods.py)."""
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pytest

import s2sad
from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.functions import object_methods

W1 = np.array([[0.3, -0.2], [0.5, 0.1]])
W2 = np.array([[0.1, 0.4], [-0.3, 0.2]])


class Layer:
    def __init__(self, scale):
        self.scale = scale

    def forward_pass(self, params, x):
        return np.tanh(params @ x) * self.scale


LAYER = Layer(2.0)


def method_call(params, x):
    return np.sum(LAYER.forward_pass(params, x))


def test_the_method_is_copied_for_the_object():
    _, after = lowered(object_methods, method_call)
    assert after == source('''
        def method_call(params, x):
            return np.sum(forward_pass_LAYER(params, x))''')


def test_method_call(jit):
    check_grad(method_call, [W1, np.array([1.0, 2.0])], wrt=(0, 1), jit=jit)


class Dense:
    """A layer holding its weights, an activation's name, a loop count."""
    FACTOR = 3.0

    def __init__(self, W, scale, activation="tanh", repeats=2):
        self.W, self.scale, self.activation, self.repeats = W, scale, activation, repeats

    def activate(self, z):
        if self.activation == "tanh":
            return np.tanh(z)
        return z

    def __call__(self, x):
        return self.activate(self.W @ x) * self.scale

    def repeated(self, x):
        def once(u):  # (a nested function reading self)
            return self(u) + self.scale
        for _ in range(self.repeats):
            x = once(x)
        return x

    @classmethod
    def scaled(cls, x):
        return x * cls.FACTOR

    @staticmethod
    def squash(x):
        return np.sin(x)


class Model:
    def __init__(self):
        self.first = Dense(W1, 2.0)
        self.second = Dense(W2, 0.5, activation="linear")
        self.squash = np.arctan  # (a function the object holds)

    def __call__(self, x):
        return self.squash(self.second(self.first(x)))


MODEL = Model()
DENSE = Dense(W2, 1.5)


def composed(x):
    # a callable object, objects held by objects, methods calling methods,
    # a class method, a static method
    return (np.sum(MODEL(x)) + np.sum(MODEL.first.repeated(x))
            + np.sum(Dense.scaled(x) * DENSE.squash(x)))


def test_objects_of_objects_and_their_methods(jit):
    check_grad(composed, [np.array([0.4, -0.7])], jit=jit)


@dataclass
class Config:
    alpha: float
    beta: np.ndarray


class Pair(NamedTuple):
    a: float
    b: np.ndarray


CONFIG = Config(0.5, np.array([1.0, -1.0]))
PAIR = Pair(2.0, np.array([0.5, 0.25]))


def configured(x):
    return np.sum(x * CONFIG.alpha + CONFIG.beta * x * x + PAIR.b * x * PAIR.a)


def test_dataclass_and_namedtuple_fields(jit):
    check_grad(configured, [np.array([0.4, -0.7])], jit=jit)


def fixed_point(f, a, x0):
    x = x0
    for _ in range(5):
        x = f(a, x)
    return x


class Newton:
    def __init__(self, damping):
        self.damping = damping

    def step(self, a, x):
        return x - self.damping * (x * x - a) / (2.0 * x)


NEWTON = Newton(0.8)


def bound_method_passed(a):
    return fixed_point(NEWTON.step, a, 1.0)


def test_a_bound_method_passed_to_a_helper(jit):
    check_grad(bound_method_passed, [2.0], jit=jit)


class Scaled:
    def __init__(self, scale, W):
        self.scale, self.W = scale, W

    def apply(self, x):
        return np.sum(np.tanh(self.W @ x)) * self.scale


SCALED = Scaled(2.0, np.eye(2))


def reads_changing_object(x):
    return SCALED.apply(x)


def test_a_changed_attribute_is_read_again(jit):
    """The values are read when the derivative is generated: rebinding an
    attribute, or changing an array it holds in place, generates it again
    (compiled code would otherwise keep the values it was compiled with)."""
    df = s2sad.grad(reads_changing_object, jit=jit)
    x = np.array([0.1, 0.2])
    before = SCALED.scale, SCALED.W
    try:
        np.testing.assert_allclose(df(x), 2.0 * (1 - np.tanh(x) ** 2))
        SCALED.scale = 4.0
        np.testing.assert_allclose(df(x), 4.0 * (1 - np.tanh(x) ** 2))
        SCALED.W[0, 0] = 3.0  # (the object's own array, changed in place)
        check_grad(reads_changing_object, [x], jit=jit)
        assert df(x)[0] == pytest.approx(4.0 * 3.0 * (1 - np.tanh(0.3) ** 2))
    finally:
        SCALED.scale, SCALED.W = before[0], np.eye(2)
