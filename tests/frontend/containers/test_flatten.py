"""flatten.py: a tuple or list argument given whole to a numpy function is
the literal of its leaves (np.concatenate(t) reads (t_0, t_1)), len() of a
container is its number of entries, and a tuple or list of numbers given
as an argument gets its gradient in the same structure (as JAX and
autograd give it). Against finite differences, compiled and as Python."""
from functools import partial

import numpy as np
import pytest
from scipy.special import logsumexp

import s2sad
from gradcheck import check_tree_grad

PAIR = (np.array([0.5, -1.2, 2.0]), np.array([1.5, 0.3, -0.7]))


def concatenated(t):
    return np.sum(np.concatenate(t) ** 2 * np.arange(1.0, 7.0))


def stacked(t):
    return np.sum(np.sin(np.stack(t)) * np.array([[1.0], [2.0]]))


def vstacked(t):
    return np.sum(np.vstack(t) ** 3)


def hstacked(t):
    return np.sum(np.cos(np.hstack(t)))


def column_stacked(t):
    return np.sum(np.column_stack(t) @ np.array([1.0, -2.0]))


def stacked_by_keyword(t):
    return np.sum(np.stack(arrays=t, axis=1) ** 2 * np.arange(6.0).reshape(3, 2))


def selected(choices, x):
    return np.sum(np.select([x > 0.0, x <= 0.0], choices) ** 2)


def nested(t):
    return np.sum(np.concatenate((np.concatenate(t[0]), t[1])) ** 2)


def counted(t):
    return len(t) * np.sum(t[0] * t[1])


@pytest.mark.parametrize("f", [concatenated, stacked, vstacked, hstacked, column_stacked,
                               stacked_by_keyword, counted])
def test_a_tuple_given_whole_to_numpy(f, jit):
    check_tree_grad(f, (PAIR,), jit=jit)
    check_tree_grad(f, (list(PAIR),), jit=jit)  # (a list too)


def test_select_of_a_tuple(jit):
    check_tree_grad(selected, (PAIR, np.array([1.0, -1.0, 2.0])), jit=jit)


def test_nested_tuples(jit):
    check_tree_grad(nested, ((PAIR, np.array([0.1, 0.2])),), jit=jit)


def polynomial(p):
    return p[0] * p[1] ** 2 + np.sin(p[2])


@pytest.mark.parametrize("given", [(1.0, 2.0, 0.5), [1.0, 2.0, 0.5]])
def test_the_gradient_of_numbers_has_their_structure(given, jit):
    g = s2sad.grad(polynomial, jit=jit)(given)
    assert type(g) is type(given) and all(type(v) is float for v in g)
    np.testing.assert_allclose(g, [4.0, 4.0, np.cos(0.5)], rtol=1e-12)


def nested_lists(m):
    return m[0][0] * m[1][1] - m[0][1] * m[1][0]


def test_nested_lists_of_numbers_too(jit):
    g = s2sad.grad(nested_lists, jit=jit)([[1.0, 2.0], [3.0, 4.0]])
    assert g == [[4.0, -3.0], [-2.0, 1.0]]


def inner(p, x):
    return np.tanh(p["W"] @ x + p["b"])


def middle(p, x):
    return inner(p, x) * 2.0


def two_levels_down(p, x):
    return np.sum(middle(p, x) ** 2)


def test_a_container_passed_down_two_helpers(jit):
    """(The copy of middle called a copy of inner its module did not have:
    NameError 'inner_spread'.)"""
    p = {"W": np.array([[0.3, -0.2], [0.5, 0.1]]), "b": np.array([0.1, -0.2])}
    check_tree_grad(two_levels_down, (p, np.array([1.0, 2.0])), jit=jit)


# ---- parameter lists used as lists ----------------------------------------------------

W = np.array([[0.3, -0.2], [0.5, 0.1]])
B = np.array([0.1, -0.2])
LAYERS = [(W, B), (W * 0.5, B * 2.0), (W.T, -B)]
X2 = np.array([1.0, 2.0])


def all_but_last(layers, x):
    for W, b in layers[:-1]:
        x = np.tanh(W @ x + b)
    W, b = layers[-1]  # (the loop's names bound again after it)
    return np.sum(W @ x + b)


def the_middle_ones(params, x):
    for W, b in params[1:-1]:
        x = np.tanh(W @ x + b)
    return np.sum(x) + np.sum(params[::2][1][0])


def last_entry_after_the_loop(params, x):
    for W, b in params:
        x = np.sin(W @ x) + b
    return np.sum(x * b)  # (b is the last entry's, as in Python)


def squares(params):
    return sum([np.sum(w ** 2) for layer in params for w in layer])


def apply_pair(pair):
    p, x = pair
    for W, b in p:
        x = np.tanh(W @ x + b)
    return x


def in_a_tuple(params, x):
    return np.sum(apply_pair((params, x)))


@pytest.mark.parametrize("f", [all_but_last, the_middle_ones, last_entry_after_the_loop,
                               in_a_tuple])
def test_parameter_lists(f, jit):
    """(Slices of a list argument, a loop's names read after it and a list
    given to a helper inside a tuple were refused.)"""
    check_tree_grad(f, (LAYERS, X2), wrt=0, jit=jit)
    check_tree_grad(f, (LAYERS, X2), wrt=1, jit=jit)


def test_a_comprehension_with_two_fors(jit):
    check_tree_grad(squares, (LAYERS,), jit=jit)


# ---- a helper calling itself with a container: its copy calls itself ----

def halved_sum(params, n):
    if n == 0:
        return np.sum(params[0] * params[1])
    return 0.5 * halved_sum(params, n - 1)


def halved_objective(params):
    return halved_sum(params, 2)


def test_recursion_passing_the_container_on(jit):
    """(Refused before: a helper calling itself with a container.)"""
    check_tree_grad(halved_objective, ((np.array([1.0, -0.5]), np.array([0.5, 2.0])),), jit=jit)


def log_partition(natural_params, data):
    """autograd's hmm_em: a list of sequences is the sum of each one's value,
    by the function calling itself on each (isinstance decides)."""
    if isinstance(data, list):
        return sum(map(partial(log_partition, natural_params), data))
    log_pi, log_A, log_B = natural_params
    log_alpha = log_pi
    for y in data:
        log_alpha = logsumexp(log_alpha[:, None] + log_A, axis=0) + log_B[:, y]
    return logsumexp(log_alpha)


def test_recursion_over_a_list_of_sequences(jit):
    rs = np.random.RandomState(0)
    params = [np.log(rs.rand(3)), np.log(rs.rand(3, 3)), np.log(rs.rand(3, 4))]
    data = [np.array([0, 1, 3]), np.array([2, 2]), np.array([1, 0, 0, 3])]
    check_tree_grad(log_partition, (params, data), wrt=0, jit=jit)
