"""Everyday Python and numpy a user writes without thinking of AD: string
options passed to helpers, boolean masks built from comparisons, keepdims
inside helpers, errors raised inside s2sad's definitions of numpy
functions, pure calls written as statements. Against finite differences,
compiled and as Python."""
import functools
import warnings

import numpy as np
import pytest
import scipy.special

import s2sad
from gradcheck import check_grad

rng = np.random.default_rng(37)
X = np.array([-0.9, -0.2, 0.45, 0.8, 1.3, 1.9])  # no point on the masks' edges (0.3, 1)
M = rng.normal(size=(3, 3))  # square: a lost keepdims would broadcast along the wrong axis


# ---- strings are constants of the specialisation ----------------------------------

def scaled(x, mode="double"):
    if mode == "double":
        return x * 2.0
    elif mode == "square":
        return x * x
    return x


def padded(x, how):
    return np.pad(x, 1, mode=how)  # the rule needs the mode as a constant: it is one here


def activation(x, name, scale, flag, offset):
    y = x * scale
    if flag:
        y = np.tanh(y)
    if offset is not None:
        y = y + offset
    if name == "relu":
        return np.maximum(y, 0.0)
    return y


def string_options(x):
    return (np.sum(scaled(x, "square") ** 2) + np.sum(scaled(x, mode="double"))
            + np.sum(scaled(x)))


def string_argument(x, mode):
    return np.sum(scaled(x, mode) ** 2)


def string_mode_for_numpy(x):
    return np.sum(padded(x, "edge") ** 2) + np.sum(padded(x, "constant") * x[0])


def mixed_constants(x):
    return (np.sum(activation(x, "relu", 3, True, None) ** 2)
            + np.sum(activation(x, "id", 2, False, 0.5)))


def string_variable(x):
    s = "square"
    return np.sum(scaled(x, s))


def string_expression(x):
    return np.sum(scaled(x, mode="sq" + "uare"))  # known only at run time: compared there


@pytest.mark.parametrize("fn, args", [
    (string_options, (X,)),
    (string_argument, (X, "square")),
    (string_argument, (X, "other")),
    (string_mode_for_numpy, (X,)),
    (mixed_constants, (X,)),
    (string_variable, (X,)),
    (string_expression, (X,)),
], ids=["options", "argument", "argument-other", "numpy-mode", "str-int-bool-none",
        "variable", "expression"])
def test_string_arguments_are_constants(fn, args, jit):
    check_grad(fn, args, jit=jit)


def test_string_argument_specialises_per_text():
    df = s2sad.grad(string_argument)
    np.testing.assert_allclose(df(X, "square"), 4.0 * X ** 3)
    np.testing.assert_allclose(df(X, "double"), 8.0 * X)
    np.testing.assert_allclose(df(X, "other"), 2.0 * X)
    # only the branch the text takes is differentiated
    vjp = df.source_for(X, "square").split("def vjp_scaled")[1].split("\ndef ")[0]
    assert "mode ==" not in vjp and "x * x" not in df.source_for(X, "double").split(
        "def vjp_scaled")[1].split("\ndef ")[0]


def test_string_is_not_differentiable():
    with pytest.raises(TypeError, match="argument 'mode' is str"):
        s2sad.grad(string_argument, wrt=1)(X, "square")


# ---- boolean arrays never need a gradient ----------------------------------------------

def select(x, m):
    return np.where(m, x, 0.0)


def masks_to_helper(x):
    m = np.asarray([x > 0.3, x < 1])
    return np.sum(select(x, m[0]) ** 2) + np.sum(select(x, m[0] & m[1]))


def mask_index(x):
    m = np.asarray([x > 0.3, x < 1])
    return np.sum(x[m[0]] ** 2) + np.sum(x[m[0] & m[1]] * 3.0)


def mask_assignment(x):
    m = np.array([x > 0.3, x < 1])
    k = m[0] | m[1]
    y = x.copy()
    y[k] = 0.0
    return np.sum(y * x)


def mask_arithmetic(x):
    m = np.asarray([x > 0.3, x < 1])
    return np.sum(np.sum(m, axis=0) * x) + np.sum(m[0] * x ** 2)


def bool_literal_index(x):
    keep = np.array([True, False, True, True, False, True])
    return np.sum(x[keep] ** 2)


def mask_reductions(x):
    m = np.asarray([x > 0.3, x < 1])
    y = x.copy()
    y[np.any(m, axis=0)] = 0.0
    return np.sum(select(x, m.all(axis=0))) + np.sum(x[np.all(m, axis=0)] ** 2) + np.sum(y * x)


@pytest.mark.parametrize("fn", [masks_to_helper, mask_index, mask_assignment, mask_arithmetic,
                                bool_literal_index])
def test_boolean_arrays(fn, jit):
    check_grad(fn, (X,), jit=jit)


def test_boolean_reductions_over_an_axis():
    # (numba has no np.all or np.any over an axis: Python only)
    check_grad(mask_reductions, (X,), jit=False)


# ---- keepdims in a helper's forward copy ------------------------------------------------

def centred(a):
    return a - np.mean(a, axis=1, keepdims=True)


def normalised(a):
    return ((a - np.max(a, axis=0, keepdims=True)) / np.std(a, axis=0, keepdims=True)
            + np.linalg.norm(a, axis=1, keepdims=True) + np.prod(a, axis=1, keepdims=True)
            + scipy.special.logsumexp(a, axis=1, keepdims=True)
            + np.var(a, keepdims=True) + np.min(a, keepdims=True))


def centred_loss(a):
    return np.sum(centred(a) ** 2 * np.arange(9.0).reshape(3, 3))


def normalised_loss(a):
    return np.sum(np.sin(normalised(a)))


@pytest.mark.parametrize("fn", [centred_loss, normalised_loss])
def test_keepdims_in_helpers(fn, jit):
    check_grad(fn, (M,), jit=jit)


def test_runtime_forms_keep_dims():
    """The helpers numba compiles for reductions over an axis keep the
    reduced axes as numpy does, compiled and as Python."""
    import numba
    from s2sad.runtime import max_axis, mean_axis, norm_axis, std_axis, var_axis
    a = rng.normal(size=(3, 4, 2))
    cases = [(lambda a: mean_axis(a, axis=1, keepdims=True), np.mean(a, axis=1, keepdims=True)),
             (lambda a: std_axis(a, axis=(0, 2), keepdims=True),
              np.std(a, axis=(0, 2), keepdims=True)),
             (lambda a: max_axis(a, keepdims=True), np.max(a, keepdims=True)),
             (lambda a: norm_axis(a, axis=-1, keepdims=True),
              np.linalg.norm(a, axis=-1, keepdims=True)),
             (lambda a: var_axis(a, ddof=1, keepdims=False), np.var(a, ddof=1))]
    for form, expected in cases:
        for run in (form, numba.njit(form)):
            got = run(a)
            assert np.shape(got) == np.shape(expected)
            np.testing.assert_allclose(got, expected)


# ---- errors raised inside s2sad's definitions name the user's line ---------------------

def convolve_2d(x):
    y = np.sin(x)
    z = np.convolve(y, x)
    return np.sum(z)


def take_2d_indices(x, i):
    return np.sum(np.take(x, i, axis=1))


@pytest.mark.parametrize("fn, args, line", [
    (convolve_2d, (M,), "z = np.convolve(y, x)"),
    (take_2d_indices, (M, np.array([[0, 1]])), "return np.sum(np.take(x, i, axis=1))"),
])
def test_definition_errors_name_the_users_line(fn, args, line, jit):
    with pytest.raises(ValueError) as info:
        s2sad.grad(fn, jit=jit)(*args)
    message = str(info.value)
    assert f"{__file__}:" in message and f"in {fn.__name__} (`{line}`)" in message, message


# ---- pure calls written as statements --------------------------------------------------

def pure_statements(x):
    u = np.sin(x)
    np.sum(u)
    u.mean()
    np.dot(u, u)
    return np.sum(u * u)


def pure_statement_in_helper(u):
    np.sum(u)
    return u * 2.0


def pure_statement_caller(x):
    return np.sum(pure_statement_in_helper(x) ** 2)


@pytest.mark.parametrize("fn", [pure_statements, pure_statement_caller])
def test_pure_calls_as_statements(fn, jit):
    check_grad(fn, (X,), jit=jit)


def test_pure_call_statement_still_raises_as_numpy_does():
    def mismatched(x, w):
        np.dot(x, w)  # numpy raises: the statement still runs
        return np.sum(x)
    with pytest.raises(ValueError):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s2sad.grad(mismatched, jit=False)(X, np.ones(4))


# ---- np.r_, functools.partial and map ------------------------------------------------

def joined(x, w):
    y = np.r_[x, 2.0 * w, x[0]]
    return np.sum(np.sin(y) * np.arange(y.shape[0]))


def joined_rows(x):
    a = x.reshape(2, 3)
    return np.sum(np.r_[a, a ** 2] * np.arange(12.0).reshape(4, 3))


def model(W, x, scale=1.0):
    return np.tanh(W @ x) * scale


def bound_inside(W, x):
    g = functools.partial(model, W, scale=2.0)
    return np.sum(g(x) ** 2) + np.sum(g(x * 0.5, scale=3.0))


def bound_then_rebound(W, x):
    g = functools.partial(model, W)
    W = W * 2.0  # the partial keeps the value it was given
    return np.sum(g(x)) + np.sum(W)


def apply_to(h, x):
    return h(x)


def bound_passed_to_helper(W, x):
    g = functools.partial(model, W)
    return np.sum(apply_to(g, x) ** 2)


def mapped(x):
    return sum(map(lambda v: v * v, x)) + np.sum(np.array(list(map(np.sin, x))))


def plus_product(a, b):
    return a * b + a


def mapped_pairs(x, y):
    return sum(map(plus_product, x, y))


WM = rng.normal(size=(3, 4))
XV = rng.normal(size=4)


@pytest.mark.parametrize("fn, args, wrt", [
    (joined, (X, XV), (0, 1)),
    (joined_rows, (X,), 0),
    (bound_inside, (WM, XV), (0, 1)),
    (bound_then_rebound, (WM, XV), (0, 1)),
    (bound_passed_to_helper, (WM, XV), (0, 1)),
    (mapped, (XV,), 0),
    (mapped_pairs, (XV, XV[::-1].copy()), (0, 1)),
], ids=["r_", "r_-rows", "partial", "partial-rebound", "partial-to-helper", "map", "map-pairs"])
def test_function_tools_and_r_(fn, args, wrt, jit):
    check_grad(fn, args, wrt=wrt, jit=jit)


def test_r_with_a_slice_is_refused():
    def ranged(x):
        return np.sum(np.r_[0:3] * x)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="np.r_"):
        s2sad.grad(ranged)(XV[:3])


def test_map_elsewhere_is_refused():
    def mapped_sum(x):
        return np.sum(map(np.sin, x))
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="map"):
        s2sad.grad(mapped_sum)(XV)


# ---- np.median along an axis -----------------------------------------------------------

def medians(x):
    return np.sum(np.median(x, axis=1) ** 2) + np.sum(np.median(x, axis=0) * np.arange(4.0))


def median_kept(x):
    return np.sum(np.sin(np.median(x, axis=-1, keepdims=True) * x))


@pytest.mark.parametrize("fn", [medians, median_kept])
def test_median_along_an_axis(fn, jit):
    check_grad(fn, (rng.normal(size=(3, 4)),), jit=jit)


def test_median_over_a_tuple_of_axes_is_refused():
    def over_both(x):
        return np.median(x, axis=(0, 1))
    with pytest.raises(LookupError, match="one int axis"):
        s2sad.grad(over_both)(M)


# ---- list.sort() of a list of numbers --------------------------------------------------

def sorted_in_place(x):
    values = [x[0], x[2] * 2.0, x[1]]
    values.sort()
    return values[0] * 2.0 + values[2] ** 2 + values[1]


def sorted_in_place_reversed(x):
    values = [x[0], x[2] * 2.0, x[1]]
    values.sort(reverse=True)
    return values[0] * 2.0 + values[2] ** 2


def sorted_appended(x):
    out = []  # (a list that grows is an array by then: sorted as one)
    for i in range(3):
        out.append(x[i] * 2.0)
    out.sort()
    return out[0] + 3.0 * out[2]


@pytest.mark.parametrize("fn", [sorted_in_place, sorted_in_place_reversed, sorted_appended])
def test_list_sort(fn, jit):
    check_grad(fn, (np.array([0.3, 0.1, 0.7]),), jit=jit)


def test_list_sort_with_a_key_is_refused():
    def keyed(x):
        values = [x[0], x[1]]
        values.sort(key=abs)
        return values[0]
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="key="):
        s2sad.grad(keyed)(np.array([0.3, -0.1]))


# ---- a container passed to a helper by keyword -----------------------------------------

def predict(x, p, scale=1.0):
    return np.tanh(p["W"] @ x + p["b"]) * scale


def keyword_container_loss(params, x):
    return np.sum(predict(x, p=params) ** 2) + np.sum(predict(p=params, x=x, scale=2.0))


def test_container_by_keyword(jit):
    params = {"W": rng.normal(size=(3, 4)), "b": rng.normal(size=3)}
    x = rng.normal(size=4)
    got = s2sad.grad(keyword_container_loss, jit=jit)(params, x)
    eps = 1e-6
    for key, leaf in params.items():
        expected = np.zeros_like(leaf)
        for idx in np.ndindex(*leaf.shape):
            up = {k: v.copy() for k, v in params.items()}
            down = {k: v.copy() for k, v in params.items()}
            up[key][idx] += eps
            down[key][idx] -= eps
            expected[idx] = (keyword_container_loss(up, x)
                             - keyword_container_loss(down, x)) / (2 * eps)
        np.testing.assert_allclose(got[key], expected, rtol=1e-5, atol=1e-6)


def sorted_ends(x):
    s = sorted(x)
    return s[0] * s[-1]


def test_sorted_of_values_with_a_gradient_is_np_sort():
    # (more in test_more_python_forms.py)
    check_grad(sorted_ends, [XV.copy()], jit=False)
