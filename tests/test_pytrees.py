"""Containers as arguments (pytrees): dicts, NamedTuples, lists and tuples
of floats and arrays, flattened at the boundary; gradients, tangents and
seeds with the argument's structure; what the flattening refuses."""
from typing import NamedTuple

import numpy as np
import pytest

import s2sad
from gradcheck import (assert_same_structure, check_tree_grad, check_tree_jvp,
                       numerical_tree_grad, tree_leaves)

HERE = __file__
rng = np.random.default_rng(7)


# ---- a small model: a dict of parameters ------------------------------------------

def mlp_loss(params, x, y):
    h = np.tanh(x @ params["W1"] + params["b1"])
    out = params["out"]
    pred = h @ out["W"] + out["b"]
    return np.mean((pred - y) ** 2)


PARAMS = {"W1": rng.normal(size=(3, 4)), "b1": rng.normal(size=4),
          "out": {"W": rng.normal(size=4), "b": 0.3}}
X, Y = rng.normal(size=(5, 3)), rng.normal(size=5)


def test_dict_of_parameters(jit):
    g = check_tree_grad(mlp_loss, (PARAMS, X, Y), jit=jit)
    assert isinstance(g, dict) and isinstance(g["out"], dict)
    assert isinstance(g["out"]["b"], float)


def test_dict_jvp_takes_a_dict_tangent(jit):
    check_tree_jvp(mlp_loss, (PARAMS, X, Y), jit=jit)


def test_dict_vjp_weights_the_output(jit):
    seed = 2.5
    g = s2sad.vjp(mlp_loss, jit=jit)(PARAMS, X, Y, seed)
    expected = numerical_tree_grad(mlp_loss, (PARAMS, X, Y), 0)
    for a, b in zip(tree_leaves(g), tree_leaves(expected)):
        np.testing.assert_allclose(a, seed * np.asarray(b), rtol=1e-5, atol=1e-6)


def test_value_and_grad_of_a_dict(jit):
    value, g = s2sad.value_and_grad(mlp_loss, jit=jit)(PARAMS, X, Y)
    assert value == pytest.approx(mlp_loss(PARAMS, X, Y))
    assert_same_structure(g, PARAMS)


def test_generated_source_reads_the_leaves():
    df = s2sad.grad(mlp_loss, jit=False)
    df(PARAMS, X, Y)
    src = df.source
    assert "def grad_mlp_loss(params_W1, params_b1, params_out_W, params_out_b, x, y):" in src
    assert "params['out']['W'] -> params_out_W" in src
    assert 'params["' not in src.replace("# ", "#").split("def grad_")[1].split("#")[0]


def test_data_in_a_dict_is_a_constant(jit):
    def loss(w, data):
        return np.sum((data["x"] @ w - data["y"]) ** 2)

    data = {"x": X, "y": Y}
    w = rng.normal(size=3)
    g = s2sad.grad(loss, jit=jit)(w, data)
    np.testing.assert_allclose(g, 2 * X.T @ (X @ w - Y), rtol=1e-10)


def test_wrt_by_name_and_a_tuple_of_wrt(jit):
    def loss(w, data):
        return np.sum((data["x"] @ w["a"] - data["y"]) ** 2) * w["s"]

    w = {"a": rng.normal(size=3), "s": 1.5}
    data = {"x": X, "y": Y}
    ga, gd = s2sad.grad(loss, wrt=("w", "data"), jit=jit)(w, data)
    assert_same_structure(ga, w)
    assert_same_structure(gd, data)
    np.testing.assert_allclose(gd["y"], -2 * w["s"] * (X @ w["a"] - Y), rtol=1e-10)


# ---- NamedTuple state: an ODE step -------------------------------------------------

class State(NamedTuple):
    x: np.ndarray
    v: np.ndarray


class Coeffs(NamedTuple):
    k: float
    c: float


def energy_after_steps(s, coeffs, dt):
    x, v = s
    for _ in range(20):
        a = -coeffs.k * x - coeffs[1] * v
        x = x + dt * v
        v = v + dt * a
    return 0.5 * np.sum(v * v) + 0.5 * coeffs.k * np.sum(x * x)


STATE = State(rng.normal(size=3), rng.normal(size=3))
COEFFS = Coeffs(2.0, 0.3)


def test_namedtuple_state(jit):
    g = check_tree_grad(energy_after_steps, (STATE, COEFFS, 0.05), jit=jit)
    assert type(g) is State


def test_namedtuple_coefficients(jit):
    g = check_tree_grad(energy_after_steps, (STATE, COEFFS, 0.05), wrt=1, jit=jit)
    assert type(g) is Coeffs and isinstance(g.k, float)


def test_namedtuple_jvp(jit):
    check_tree_jvp(energy_after_steps, (STATE, COEFFS, 0.05), jit=jit)
    check_tree_jvp(energy_after_steps, (STATE, COEFFS, 0.05), wrt=1, jit=jit)


# ---- nested tuples and lists --------------------------------------------------------

def layers_loss(layers, x):
    (W1, b1), (W2, b2) = layers
    h = np.tanh(x @ W1 + b1)
    return np.sum(np.tanh(h @ W2 + b2))


LAYERS = [(rng.normal(size=(3, 4)), rng.normal(size=4)),
          (rng.normal(size=(4, 2)), rng.normal(size=2))]


def test_list_of_tuples_stays_a_list_of_tuples(jit):
    g = check_tree_grad(layers_loss, (LAYERS, X), jit=jit)
    assert isinstance(g, list) and all(isinstance(t, tuple) for t in g)


def test_nested_tuples_by_index(jit):
    def f(p):
        return p[0] * np.sum(p[1][0] ** 2) + p[1][-1] * p[0]

    check_tree_grad(f, ((1.5, (np.arange(3.0), 0.5)),), jit=jit)
    check_tree_jvp(f, ((1.5, (np.arange(3.0), 0.5)),), jit=jit)


def test_tuple_of_arrays_unpacked(jit):
    def f(p, y):
        a, b = p
        return np.sum(a * y) + b ** 2

    g = check_tree_grad(f, ((np.ones(3), 2.0), np.arange(3.0)), jit=jit)
    assert isinstance(g, tuple)


def test_alias_of_a_part_in_a_loop_and_a_branch(jit):
    def f(p, n):
        layer = p["layer"]
        total = 0.0
        for i in range(n):
            if i % 2 == 0:
                total += np.sum(np.sin(layer["w"] * i))
            else:
                total += layer["s"] * p["c"][i]
        return total

    p = {"layer": {"w": rng.normal(size=3), "s": 0.4}, "c": rng.normal(size=4)}
    check_tree_grad(f, (p, 4), jit=jit)


def test_int_leaves_are_constants_with_zero_gradient(jit):
    def f(p):
        return p["x"] ** 2 * p["n"]

    g = s2sad.grad(f, jit=jit)({"x": 3.0, "n": 2})
    assert g == {"x": 12.0, "n": 0.0}


def test_element_writes_into_a_leaf_do_not_touch_the_callers_array(jit):
    def f(p):
        buf = p["a"]
        buf[0] = buf[0] * 3.0
        return np.sum(buf * buf)

    a = np.arange(1.0, 4.0)
    g = s2sad.grad(f, jit=jit)({"a": a})
    np.testing.assert_allclose(a, [1.0, 2.0, 3.0])
    np.testing.assert_allclose(g["a"], [18.0, 4.0, 6.0])


def test_a_new_structure_generates_a_new_derivative(jit):
    def f(p):
        return p[0] * p[-1]

    df = s2sad.grad(f, jit=jit)
    assert df((2.0, np.ones(2)))[0] == pytest.approx(2.0)
    assert df((2.0, 1.0, 5.0))[2] == pytest.approx(2.0)  # now p[-1] is the third leaf


def test_jacobian_of_a_dict_has_blocks_per_leaf(jit):
    def f(p, x):
        return np.tanh(x @ p["W"]) * p["s"]

    p = {"W": rng.normal(size=(3, 2)), "s": 0.7}
    for mode in ("rev", "fwd"):
        J = s2sad.jacobian(f, mode=mode, jit=jit)(p, X)
        assert J["W"].shape == (5, 2, 3, 2) and J["s"].shape == (5, 2)
        np.testing.assert_allclose(J["s"], np.tanh(X @ p["W"]), rtol=1e-10)
        col = np.zeros((3, 2))
        col[1, 0] = 1e-6
        fd = (f({"W": p["W"] + col, "s": 0.7}, X) - f({"W": p["W"] - col, "s": 0.7}, X)) / 2e-6
        np.testing.assert_allclose(J["W"][:, :, 1, 0], fd, rtol=1e-5, atol=1e-8)


def test_hessian_of_a_container_is_refused():
    with pytest.raises(TypeError, match="container arguments"):
        s2sad.hessian(mlp_loss)(PARAMS, X, Y)


def test_tangent_of_the_wrong_structure_is_a_value_error():
    with pytest.raises(ValueError, match="keys"):
        s2sad.jvp(mlp_loss, jit=False)(PARAMS, X, Y, {"W1": 1.0})


# ---- refusals: never a wrong gradient ---------------------------------------------

def helper(q):
    return q["a"]


def passed_to_helper(p):
    return helper(q=p) * 2.0  # (bound by position: a copy of helper takes p's leaves)


def passed_to_numpy(p):
    return np.sum(a=p) * 2.0  # (not a Python helper: nothing takes p's leaves)


def test_passed_whole_to_a_helper_by_keyword(jit):
    assert s2sad.grad(passed_to_helper, jit=jit)({"a": 1.0}) == {"a": 2.0}


def with_len(p):
    return len(p) * p["a"]


def iterated(p):  # a loop over a container is unrolled (tests/test_other_styles.py), not a break
    s = 0.0
    for k in p:
        if s > 1.0:
            break
        s += 1.0
    return s * p["a"]


def variable_key(p):
    k = "a"
    return p[k]


def method_call(p):
    return p.values()


def written(p):
    p["a"] = p["a"] * 2.0
    return p["a"]


def missing_key(p):
    return p["zz"]


def returned_whole(p):
    return p


def unpacked_dict(p):
    a, b = p
    return a


def rebound(p):
    p = p["a"]
    return p


def alias_rebound(p):
    q = p["n"]
    q = p["m"]
    return q["x"]


def out_of_range(p):
    return p[0] * p[2]


def shadowed_in_comprehension(p):
    return sum([p[0] * 2.0 for p in [(1.0, 2.0)]]) + p[1]


def test_the_length_of_a_container_is_its_number_of_entries(jit):
    g = s2sad.grad(with_len, jit=jit)({"a": 1.0, "b": 2.0})
    assert g == {"a": 2.0, "b": 0.0}


@pytest.mark.parametrize("fn, arg, construct", [
    (passed_to_numpy, {"a": 1.0}, "passed whole as a="),
    (iterated, {"a": 1.0}, "a loop over a container argument with break"),
    (variable_key, {"a": 1.0}, "p[k] (a key that is not a constant)"),
    (method_call, {"a": 1.0}, "p.values on a dict"),
    (written, {"a": 1.0}, "writing p['a']"),
    (missing_key, {"a": 1.0}, "the dict has no key 'zz'"),
    (returned_whole, {"a": 1.0}, "returning p"),
    (unpacked_dict, {"a": 1.0, "b": 2.0}, "unpacking p (a dict"),
    (rebound, {"a": 1.0}, "assigning to 'p'"),
    (alias_rebound, {"n": {"x": 1.0}, "m": {"x": 2.0}}, "'q', bound to p['n']"),
    (out_of_range, (1.0, np.ones(2)), "p[2] (a tuple of 2 has no element 2)"),
    (shadowed_in_comprehension, (1.0, np.ones(2)), "'p' bound again"),
], ids=lambda v: getattr(v, "__name__", None))
def test_refused_with_file_line_and_construct(fn, arg, construct, jit):
    with pytest.raises(TypeError) as info:
        s2sad.grad(fn, jit=jit)(arg)
    message = str(info.value)
    line = fn.__code__.co_firstlineno
    assert construct in message, message
    assert f"{HERE}:" in message and fn.__name__ in message
    body_lines = range(line + 1, line + 6)
    assert any(f"{HERE}:{n}," in message for n in body_lines), message
    assert "Pass its leaves as separate arguments" in message


def test_a_nested_tuple_output_is_summed_or_refused_never_wrong():
    def nested(x):
        return (x * 2.0, (x ** 2, x))

    try:
        g = s2sad.grad(nested, jit=False)(3.0)
    except s2sad.UnsupportedSyntaxError as exc:
        assert f"{HERE}:" in str(exc)
    else:
        assert g == pytest.approx(2.0 + 6.0 + 1.0)  # the sum of all outputs


def test_tuple_output_is_summed_and_its_seed_is_a_tuple(jit):
    def pair(p):
        return p["a"] * 2.0, p["a"] ** 2

    assert s2sad.grad(pair, jit=jit)({"a": 3.0}) == {"a": 8.0}
    assert s2sad.vjp(pair, jit=jit)({"a": 3.0}, (1.0, 0.5)) == {"a": 5.0}


def test_a_leaf_that_is_not_a_number_is_a_type_error():
    with pytest.raises(TypeError, match=r"p\['name'\] is str"):
        s2sad.grad(lambda_free, jit=False)({"a": 1.0, "name": "x"})


def lambda_free(p):
    return p["a"]
