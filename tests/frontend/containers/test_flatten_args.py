"""Tuples and lists given to a helper (`h((a, b))`, `h([u, v])`, a tuple
variable): the helper's cotangent for the container is split back onto its
parts. Reverse and forward mode against finite differences, compiled and as
Python. (A tuple argument was taken as a constant: a zero gradient with no
error.) A dict, tuple or list argument, or a local dict, passed whole to a
helper goes to a copy of the helper taking its leaves as parameters."""
import numpy as np
import pytest

import s2sad
from frontend.passes import lowered, source
from gradcheck import check_grad, check_jvp, check_tree_grad
from s2sad.pytrees import structure_of
from s2sad.transforms.frontend.containers import flatten_args
from s2sad.transforms.frontend.containers.structure import PytreeError

X = np.array([0.9, -1.4, 2.2])


def product(t):
    return t[0] * t[1]


def weighted(parts):
    return np.sum(parts[0] * parts[1]) + parts[0][1]


def unpacked(pair):
    a, b = pair
    return a * np.sin(b)


def nested(t):
    return t[0][0] * t[0][1] + t[1] ** 2


def loops_over(items):
    total = 0.0
    for v in items:
        total = total + v * v
    return total


def tuple_variable(x):
    pair = (x[0], x[1] * 2.0)
    return product(pair) + product([x[2], x[0]])


def tuple_of_arrays(x):
    return weighted((x, x * x)) + weighted([np.sin(x), x])


def unpacks_in_helper(x):
    return unpacked((x[0], x[1])) + unpacked([x[2] ** 2, x[0]])


def nested_tuple(x):
    return nested(((x[0], x[1]), x[2]))


def iterates_in_helper(x):
    return loops_over((x[0], x[1], x[2] * x[0]))


def constant_part(x):
    return product((x[1], 3.0)) + product((2.0, 5.0))


CASES = [tuple_variable, tuple_of_arrays, unpacks_in_helper, nested_tuple,
         iterates_in_helper, constant_part]


# numba has no mutable container for the cotangent of a nested tuple (a
# tuple holding a tuple and a number): that derivative runs as Python
PYTHON_ONLY = {nested_tuple}
JIT = [pytest.param(f, jit, id=f"{f.__name__}-{jit}") for f in CASES
       for jit in (False, True) if not (jit and f in PYTHON_ONLY)]


@pytest.mark.parametrize("f,jit", JIT)
def test_reverse(f, jit):
    check_grad(f, (X.copy(),), jit=jit)


@pytest.mark.parametrize("f,jit", JIT)
def test_forward(f, jit):
    check_jvp(f, (X.copy(),), jit=jit)


# ---- a container passed whole to a helper (flatten.py, spread_copy) ---------------
def energy(p, x):
    return np.sum(p["w"] * x ** 2) + p["b"] * np.sum(x)


def dict_argument_to_helper(params, x):
    return energy(params, x) + params["b"] ** 2


def dense(q, v, scale=1.0):
    return np.tanh(q["W"] @ v + q["b"]) * scale


def two_layers(params, x):
    h = dense(params["l1"], x)
    return np.sum(dense(params["l2"], h, 2.0) ** 2)


def pair_scaled(t, s=2.0):
    a, b = t
    return np.sum(a * b) * s


def tuple_argument_to_helper(ab, x):
    return pair_scaled(ab) + pair_scaled(ab, x[0])


def local_dict_to_helper(x):
    params = {"w": x * 2.0, "b": x[0]}
    return energy(params, x) + energy(params, np.sin(x))


PARAMS = {"w": X * 1.5, "b": 0.7}
LAYERS = {"l1": {"W": np.linspace(-0.3, 0.4, 6).reshape(2, 3), "b": np.array([0.1, -0.2])},
          "l2": {"W": np.array([[0.2, -0.5], [0.3, 0.1]]), "b": np.array([0.05, 0.1])}}
def by_keyword(params, x):
    return energy(p=params, x=x)  # (by keyword: bound by position first)


WHOLE = [(dict_argument_to_helper, (PARAMS, X)), (two_layers, (LAYERS, X)),
         (tuple_argument_to_helper, ((X * 0.5, np.cos(X)), X)), (by_keyword, (PARAMS, X))]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("f,args", WHOLE, ids=[f.__name__ for f, _ in WHOLE])
def test_container_passed_whole(f, args, jit):
    check_tree_grad(f, args, wrt=0, jit=jit)
    check_tree_grad(f, args, wrt=1, jit=jit)


@pytest.mark.parametrize("jit", [False, True])
def test_local_dict_passed_whole(jit):
    check_grad(local_dict_to_helper, (X.copy(),), jit=jit)


def writes_into(p, x):
    p["w"] = x  # the caller's dict would change
    return np.sum(p["w"])


def passes_writer(params, x):
    return writes_into(params, x)


def by_keyword(params, x):
    return energy(p=params, x=x)   # bound by position first: energy(params, x=x)


def by_keyword_to_numpy(params, x):
    return np.sum(a=params) * x[0]


@pytest.mark.parametrize("jit", [False, True])
def test_container_passed_whole_by_keyword(jit):
    check_tree_grad(by_keyword, (PARAMS, X), wrt=0, jit=jit)
    check_tree_grad(by_keyword, (PARAMS, X), wrt=1, jit=jit)


@pytest.mark.parametrize("f", [passes_writer, by_keyword_to_numpy])
def test_container_uses_it_cannot_follow_are_refused(f):
    with pytest.raises(PytreeError) as info:
        s2sad.grad(f, jit=False)(PARAMS, X)
    assert f"{__file__}:" in str(info.value)


def with_params(p, x):
    layer = p["l1"]
    return layer["w"] * x + p["b"]


def test_one_parameter_per_leaf():
    p = {"l1": {"w": 2.0}, "b": np.ones(3)}
    before, after = lowered(flatten_args, with_params, 2.0, np.ones(3), X,
                            structures={"p": structure_of(p, "test", ("p",))})
    assert after == source('''
        def with_params(p_l1_w, p_b, x):
            return p_l1_w * x + p_b''')



def _squares(value):
    # a helper recursing into the parts of its container: a copy per part
    if isinstance(value, (list, tuple)):
        return sum([_squares(v) for v in value])
    flat = np.ravel(value)
    return 0.5 * np.dot(flat, flat)


def layered_penalty(layers):
    return _squares(layers) + np.sum(layers[0][0])


def test_a_helper_recursing_into_parts_of_other_structures(jit):
    layers = [(np.array([[0.3, -1.0], [0.2, 0.5]]), np.array([0.1, 0.4])),
              (np.array([[1.5], [-0.7]]), np.array([0.9]))]
    check_tree_grad(layered_penalty, [layers], jit=jit)


both_sums = lambda p: np.sum(p[0] * p[0]) + np.sum(np.sin(p[1]))  # noqa: E731 - module-level lambda


def through_a_lambda(p):
    return both_sums(p) * 2.0


def test_a_lambda_taking_the_container(jit):
    check_tree_grad(through_a_lambda, [[np.array([0.5, -0.2]), np.array([[1.0, 0.3]])]], jit=jit)
