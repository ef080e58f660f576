"""has_aux=True (JAX's): the function returns (output, aux), only the output
is differentiated. Gradients are checked against finite differences of the
output alone (an aux depending on x must not change them), the aux against
what Python returns, compiled and not."""
import os
import pickle

import numpy as np
import pytest

import s2sad
from gradcheck import numerical_grad

X = np.array([0.3, -0.5, 0.7])
W = np.array([[0.2, 0.1, -0.3], [0.5, -0.4, 0.6]])
JIT = [False, True]
FULL = os.environ.get("S2SAD_FULL", "") not in ("", "0")


def output_grad(f, args, wrt=0):
    """Central differences of the output (the pair's first element) only."""
    return numerical_grad(lambda *a: f(*a)[0], args, wrt)


def assert_same(got, expected):
    """Aux values equal, structure and types included (a dict stays a dict)."""
    assert type(got) is type(expected) or (np.isscalar(got) and np.isscalar(expected)), \
        (got, expected)
    if isinstance(expected, dict):
        assert list(got) == list(expected)
        for k in expected:
            assert_same(got[k], expected[k])
    elif isinstance(expected, (tuple, list)):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert_same(g, e)
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-14)


# ---- functions returning (output, aux) ---------------------------------

def aux_depends_on_x(x):
    y = np.sin(x)
    # the aux is a function of x: with it seeded, the gradient would change
    return np.sum(y * y), y * x


def aux_int(x):
    return np.sum(x ** 3), 7


def aux_tuple(x):
    y = np.tanh(x)
    return np.sum(y) * x[0], (y, 3, np.sum(x))


def aux_dict(x):
    y = np.exp(x)
    return np.sum(y * x), {"y": y, "count": 3, "parts": [y * 2.0, 1.5]}


def aux_named(x):
    y = x * 3.0
    aux = (y, np.sum(y))
    return np.sum(np.sin(y)), aux


def aux_in_branches(x):
    if x[0] > 0:
        return np.sum(x ** 2), x * 2.0
    return np.sum(x ** 3), x * 3.0


def pair_helper(x):
    y = np.tanh(x)
    return np.sum(y * y), y


def returns_helper_pair(x):
    return pair_helper(x * 2.0)


def aux_from_helper(x):
    loss, y = pair_helper(x)
    return loss * x[1], {"y": y, "loss": loss}


def aux_dict_by_name(x):
    y = np.sin(x)
    aux = {"y": y, "n": 2}
    aux["y"] = aux["y"] * x  # (written at its key, as any local dict)
    return np.sum(y * x), aux


def in_a_loop(x):
    s = 0.0
    trace = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        s = s + np.sin(x[i]) * s + x[i]
        trace[i] = s
    return s, trace


FUNCTIONS = [aux_depends_on_x, aux_int, aux_tuple, aux_dict, aux_named, aux_in_branches,
             returns_helper_pair, aux_from_helper, aux_dict_by_name, in_a_loop]
SAMPLE = {"aux_depends_on_x", "aux_dict", "returns_helper_pair", "in_a_loop"}


@pytest.mark.parametrize("jit", JIT)
@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_grad_has_aux(f, jit):
    if jit and f.__name__ not in SAMPLE:
        pytest.skip("compiled for a sample (the generated source is the same)")
    for x in (X, -X):  # (both branches of aux_in_branches)
        g, aux = s2sad.grad(f, jit=jit, has_aux=True)(x.copy())
        np.testing.assert_allclose(g, output_grad(f, [x]), rtol=1e-6, atol=1e-8)
        assert_same(aux, f(x)[1])


@pytest.mark.parametrize("jit", JIT)
def test_value_and_grad_has_aux(jit):
    (value, aux), g = s2sad.value_and_grad(aux_dict, jit=jit, has_aux=True)(X)
    np.testing.assert_allclose(value, aux_dict(X)[0])
    assert_same(aux, aux_dict(X)[1])
    np.testing.assert_allclose(g, output_grad(aux_dict, [X]), rtol=1e-6)


def test_without_has_aux_the_tuple_is_summed():
    """The same function without has_aux: TensorFlow's sum over the outputs,
    the second one included (what has_aux must not do)."""
    g = s2sad.grad(aux_int_free, jit=False)(X)
    np.testing.assert_allclose(g, numerical_grad(aux_int_free, [X], 0), rtol=1e-6)
    g_aux, _ = s2sad.grad(aux_int_free, jit=False, has_aux=True)(X)
    assert not np.allclose(g, g_aux)


def aux_int_free(x):
    return np.sum(x ** 2), np.sin(x)


def two_arguments(W, x):
    h = W @ x
    return np.sum(np.tanh(h)), {"h": h, "n": h.shape[0]}


@pytest.mark.parametrize("jit", JIT)
def test_wrt_positions_and_names(jit):
    (gW, gx), aux = s2sad.grad(two_arguments, wrt=(0, 1), jit=jit, has_aux=True)(W, X)
    np.testing.assert_allclose(gW, output_grad(two_arguments, [W, X], 0), rtol=1e-6)
    np.testing.assert_allclose(gx, output_grad(two_arguments, [W, X], 1), rtol=1e-6)
    assert_same(aux, two_arguments(W, X)[1])
    gx2, aux2 = s2sad.grad(two_arguments, wrt="x", jit=jit, has_aux=True)(W, X)
    np.testing.assert_allclose(gx2, gx)
    assert_same(aux2, aux)


def test_container_arguments():
    def loss(params, x):
        z = params["w"] * x + params["b"]
        return np.sum(z * z), z

    params = {"w": np.array([0.5, -1.0, 2.0]), "b": 0.3}
    g, aux = s2sad.grad(loss, jit=False, has_aux=True)(params, X)
    for key in params:
        def of_leaf(v, key=key):
            return loss({**params, key: v}, X)
        np.testing.assert_allclose(g[key], output_grad(of_leaf, [params[key]]), rtol=1e-6)
    np.testing.assert_allclose(aux, loss(params, X)[1])


@pytest.mark.parametrize("jit", JIT)
def test_vjp_has_aux(jit):
    def f(x):
        return np.sin(x) * x[0], {"norm": np.sum(x * x)}

    seed = np.array([0.5, -2.0, 1.0])
    g, aux = s2sad.vjp(f, jit=jit, has_aux=True)(X, seed)
    np.testing.assert_allclose(
        g, numerical_grad(lambda x: np.sum(f(x)[0] * seed), [X], 0), rtol=1e-6)
    assert_same(aux, f(X)[1])
    with pytest.raises(ValueError):  # the seed has the output's shape, not the pair's
        s2sad.vjp(f, jit=jit, has_aux=True)(X, np.ones(4))


@pytest.mark.parametrize("jit", JIT)
def test_jvp_has_aux(jit):
    t = np.array([1.0, -0.5, 2.0])
    out, tangent, aux = s2sad.jvp(aux_depends_on_x, jit=jit, has_aux=True)(X, t)
    eps = 1e-6
    expected = (aux_depends_on_x(X + eps * t)[0] - aux_depends_on_x(X - eps * t)[0]) / (2 * eps)
    np.testing.assert_allclose(out, aux_depends_on_x(X)[0])
    np.testing.assert_allclose(tangent, expected, rtol=1e-6)
    assert_same(aux, aux_depends_on_x(X)[1])


@pytest.mark.parametrize("mode", ["rev", "fwd"])
def test_jacobian_has_aux(mode):
    def f(x):
        return np.sin(x) * x[0], (np.sum(x), 2)

    jac, aux = s2sad.jacobian(f, mode=mode, jit=False, has_aux=True)(X)
    eps = 1e-6
    cols = [(f(X + eps * e)[0] - f(X - eps * e)[0]) / (2 * eps) for e in np.eye(3)]
    np.testing.assert_allclose(jac, np.array(cols).T, rtol=1e-6, atol=1e-9)
    assert_same(aux, f(X)[1])
    (jW, jx), aux = s2sad.jacobian(two_arguments, wrt=(0, 1), jit=False, has_aux=True)(W, X)
    assert jW.shape == W.shape and jx.shape == X.shape
    np.testing.assert_allclose(jx, output_grad(two_arguments, [W, X], 1), rtol=1e-6)
    assert_same(aux, two_arguments(W, X)[1])


def early_return(x):
    s = 0.0
    for i in range(x.shape[0]):
        s = s + np.sin(x[i]) * s + x[i]
        if s > 10.0:
            return s, {"stopped": i}
    return s * 2.0, {"stopped": -1}


def long_loop(x, n):
    s = 0.0
    for i in range(n):
        s = s * 0.9 + np.sin(x[i % 3]) * 0.1
    return s, s * 2.0


@pytest.mark.parametrize("jit", JIT)
def test_early_return_and_checkpointed_loop(jit):
    for x in (X, 20 * X):  # (the second returns from inside the loop)
        g, aux = s2sad.grad(early_return, jit=jit, has_aux=True)(x)
        np.testing.assert_allclose(g, output_grad(early_return, [x]), rtol=1e-6)
        assert_same(aux, early_return(x)[1])
    if jit and not FULL:
        return  # (the checkpointed variant compiles for seconds: S2SAD_FULL=1)
    # a tape over the budget: the loop is checkpointed (binomial), the aux unchanged
    g, aux = s2sad.grad(long_loop, jit=jit, has_aux=True, memory="2KB")(X, 2000)
    np.testing.assert_allclose(g, output_grad(long_loop, [X, 2000]), rtol=1e-6)
    np.testing.assert_allclose(aux, long_loop(X, 2000)[1])


gf = s2sad.grad(aux_depends_on_x, has_aux=True, jit=False)


def calls_a_has_aux_gradient(x):
    g, aux = gf(x)
    return np.sum(g * g) + np.sum(aux)


@pytest.mark.parametrize("jit", JIT)
def test_inside_a_differentiated_function(jit):
    """The aux of an inner grad is a value of the outer function like any
    other: differentiated by the outer derivative."""
    def by_hand(x):  # the inner gradient written out: 2 sin(x) cos(x)
        return np.sum((2 * np.sin(x) * np.cos(x)) ** 2) + np.sum(np.sin(x) * x)

    g = s2sad.grad(calls_a_has_aux_gradient, jit=jit)(X)
    np.testing.assert_allclose(g, numerical_grad(by_hand, [X], 0), rtol=1e-6)


def single_value(x):
    return np.sum(x)


def three_values(x):
    return np.sum(x), 1, 2


def array_of_two(x):
    return np.sin(x[:2])  # unpacks in Python, but is no pair: JAX refuses it too


@pytest.mark.parametrize("f", [single_value, three_values, array_of_two],
                         ids=lambda f: f.__name__)
def test_not_a_pair(f):
    for make in (s2sad.grad, s2sad.value_and_grad, s2sad.jvp):
        args = (X, X) if make is s2sad.jvp else (X,)
        with pytest.raises(TypeError, match="two-element tuple") as info:
            make(f, jit=False, has_aux=True)(*args)
        assert f"test_has_aux.py:{f.__code__.co_firstlineno + 1}" in str(info.value)
    with pytest.raises(TypeError, match="two-element tuple"):
        s2sad.jacobian(f, jit=False, has_aux=True)(X)


def test_aux_dict_needs_constant_keys():
    def f(x, key):
        return np.sum(x), {key: x}

    with pytest.raises(s2sad.UnsupportedSyntaxError, match="constant"):
        s2sad.grad(f, jit=False, has_aux=True)(X, "a")


def tuple_output(x):
    return (np.sum(x), np.sum(x * x)), 1


def test_tuple_output_refused():
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="a tuple as the output of the pair"):
        s2sad.grad(tuple_output, jit=False, has_aux=True)(X)


def aux_of_two_structures(x):
    if x[0] > 0:
        return np.sum(x * x), {"a": x[0], "b": x[1]}
    return pair_helper(x)  # (an aux that is no dict: rebuilding one would be wrong)


def test_aux_of_two_structures_refused():
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="different structures"):
        s2sad.grad(aux_of_two_structures, jit=False, has_aux=True)(X)


def aux_dict_given_a_new_key(x):
    aux = {"y": x}
    aux["z"] = 1.0
    return np.sum(x), aux


def test_aux_dict_given_a_new_key_refused():
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="test_has_aux.py:"):
        s2sad.grad(aux_dict_given_a_new_key, jit=False, has_aux=True)(X)


def test_pickles_with_has_aux():
    df = pickle.loads(pickle.dumps(s2sad.grad(aux_int, has_aux=True, jit=False)))
    g, aux = df(X)
    assert aux == 7
    np.testing.assert_allclose(g, 3 * X ** 2)
