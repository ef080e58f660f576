"""Module-level tuples, lists and dicts of arrays read by a function: the
literal of their elements, each a module-level name
(transforms/frontend/containers/module_containers.py)."""
import numpy as np

import s2sad
from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.containers import module_containers

S = (np.array([1.0, 2.0]), np.array([0.5, -0.5]))
LAYERS = [(np.array([[0.3, -0.2], [0.5, 0.1]]), np.array([0.1, -0.2])),
          (np.array([[0.1, 0.4], [-0.3, 0.2]]), np.array([0.0, 0.3]))]
PARAMS = {"w": np.array([1.0, 2.0]), "b": np.array([0.5, -0.5]), "c": 3.0}
SHAPE = (2, 3)


def module_tuple(x):
    return np.sum(x * S[0] + S[1])


def test_the_tuple_is_the_literal_of_its_elements():
    _, after = lowered(module_containers, module_tuple)
    assert after == source('''
        def module_tuple(x):
            S = (S_0, S_1)
            return np.sum(x * S[0] + S[1])''')


def test_module_tuple(jit):
    check_grad(module_tuple, [np.array([1.0, 2.0])], jit=jit)


def layers_loop(x):
    for W, b in LAYERS:
        x = np.tanh(W @ x + b)
    return np.sum(x) * len(LAYERS)


def hidden_layers(x):
    for W, b in LAYERS[:-1]:
        x = np.tanh(W @ x + b)
    W, b = LAYERS[-1]
    return np.sum(W @ x + b)


def test_a_sliced_list_a_loop_iterates_is_the_literal_too(jit):
    _, after = lowered(module_containers, hidden_layers, np.ones(2))
    assert after.startswith(source("""
        def hidden_layers(x):
            LAYERS = [(LAYERS_0_0, LAYERS_0_1), (LAYERS_1_0, LAYERS_1_1)]"""))
    check_grad(hidden_layers, [np.array([0.3, -0.7])], jit=jit)


def dict_reads(x):
    w, b = PARAMS["w"], PARAMS["b"]
    return np.sum(x * w + b) * PARAMS["c"] + np.sum(np.zeros(SHAPE))


def indexed(x):
    s = 0.0
    for i in range(2):  # (a key that is not a constant, into arrays of one shape)
        s = s + np.sum(S[i] * x) * LAYERS[-1][1][i]
    first, *rest = LAYERS
    return s + np.sum(first[1] * x) + np.sum(helper(x))


def helper(x):
    return x * S[0] + PARAMS["b"]


def test_lists_dicts_loops_and_helpers(jit):
    for fn in (layers_loop, dict_reads, indexed):
        check_grad(fn, [np.array([0.4, -0.7])], jit=jit)


def test_a_tuple_of_ints_stays_as_it_is():
    _, after = lowered(module_containers, dict_reads)
    assert "SHAPE =" not in after and "np.zeros(SHAPE)" in after


GROWING = [np.array([1.0, 2.0])]


def appends(x):
    GROWING.append(x)
    return np.sum(x * GROWING[0])


def test_a_container_the_function_changes_stays_as_it_is():
    _, after = lowered(module_containers, appends)
    assert "GROWING =" not in after


HISTORY = [np.array([1.0, 2.0])]


def remember(v):
    HISTORY.append(v)


def reads_what_a_helper_changes(x):
    remember(x)
    return np.sum(HISTORY[-1] * x)


def test_a_container_a_helper_changes_stays_as_it_is():
    """Its literal would not see the helper's append (HISTORY[-1] is x in
    Python)."""
    _, after = lowered(module_containers, reads_what_a_helper_changes)
    assert "HISTORY =" not in after


def reads_weights(x):
    return np.sum(x * S[0])


def test_a_changed_element_is_read_again(jit):
    df = s2sad.grad(reads_weights, jit=jit)
    x = np.array([0.1, 0.2])
    np.testing.assert_allclose(df(x), [1.0, 2.0])
    S[0][0] = 5.0  # in place: compiled code would keep the value it was compiled with
    try:
        np.testing.assert_allclose(df(x), [5.0, 2.0])
    finally:
        S[0][0] = 1.0
    np.testing.assert_allclose(df(x), [1.0, 2.0])


SIZES = [2, 3, 1]
SHAPES = list(zip(SIZES[:-1], SIZES[1:]))  # [(2, 3), (3, 1)]: a network's layer shapes


def shaped_layers(weights, x):
    """A flat weight vector cut into layers of SHAPES (autograd's
    bayesian_neural_net): the loop runs once per shape, each layer's
    matrix of its own shape."""
    for m, n in SHAPES:
        W = weights[: m * n].reshape((m, n))
        x = np.tanh(np.dot(x, W))
        weights = weights[m * n:]
    return np.sum(x)


def test_a_list_of_shapes_is_the_literal_of_its_tuples():
    _, after = lowered(module_containers, shaped_layers)
    assert "SHAPES = [(SHAPES_0_0, SHAPES_0_1), (SHAPES_1_0, SHAPES_1_1)]" in after


def make_shaped_layers(sizes):
    shapes = list(zip(sizes[:-1], sizes[1:]))  # (captured by the function below)

    def unpack(weights):
        for m, n in shapes:
            yield weights[: m * n].reshape((m, n))
            weights = weights[m * n:]

    def predict(weights, x):
        for W in unpack(weights):
            x = np.tanh(np.dot(x, W))
        return np.sum(x ** 2)

    return predict


def test_a_list_of_shapes(jit):
    w = np.linspace(-0.8, 0.9, 9)
    x = np.array([[0.5, -1.0], [0.3, 0.2]])
    check_grad(shaped_layers, [w, x], wrt=(0, 1), jit=jit)
    check_grad(make_shaped_layers([2, 3, 1]), [w, x], wrt=(0, 1), jit=jit)
