"""Everyday Python the way source-to-source AD users write it (lists built by
append, chained assignment, writes through attributes), against finite
differences, compiled with numba and as plain Python, in reverse and
forward mode."""
import os

import numpy as np
import pytest

import s2sad
from gradcheck import check_grad, check_jvp


# ---- lists built by appends in straight-line code ------------------------------------

def two_appends(u):
    parts = []
    parts.append(u * u)
    parts.append(3.0 * u)
    return parts[0] + parts[1] * parts[0]


def appends_to_a_started_list(u, w):
    acc = [u * 2.0, 1.5]
    acc.append(u * w)
    return acc[0] * acc[2] + acc[1]


def append_of_a_name_rebound_later(u):
    vals = []
    s = u * u
    vals.append(s)
    s = np.sin(u)  # the list holds the old value of s
    vals.append(s)
    return vals[0] - 2.0 * vals[1]


def appends_then_sum(v):
    pieces = []
    pieces.append(np.sum(v ** 2))
    pieces.append(v[0] * v[1])
    return sum(pieces)


def appends_of_arrays(v):
    rows = []
    rows.append(v * 2.0)
    rows.append(np.cos(v))
    return np.sum(np.stack(rows) ** 2)


@pytest.mark.parametrize("fn, args, wrt", [
    (two_appends, (0.7,), 0),
    (appends_to_a_started_list, (0.7, -1.2), (0, 1)),
    (append_of_a_name_rebound_later, (0.4,), 0),
    (appends_then_sum, (np.array([0.3, -1.1, 2.0]),), 0),
    (appends_of_arrays, (np.array([0.3, -1.1, 2.0]),), 0),
], ids=["two", "started", "rebound", "sum", "arrays"])
def test_straight_line_appends(fn, args, wrt, jit):
    check_grad(fn, args, wrt=wrt, jit=jit)
    check_jvp(fn, args, wrt=wrt, jit=jit)


def second_derivative_through_appends(u):
    parts = []
    parts.append(u * u * u)
    parts.append(np.exp(u))
    return parts[0] * parts[1]


def test_second_derivative_through_appends(jit):
    u = 0.6
    got = s2sad.grad(s2sad.grad(second_derivative_through_appends, jit=jit), jit=jit)(u)
    # d2/du2 (u^3 e^u) = (6u + 6u^2 + u^3) e^u
    assert np.isclose(got, (6 * u + 6 * u ** 2 + u ** 3) * np.exp(u))


def appended_under_a_condition(u):
    parts = []
    parts.append(u * 2.0)
    if u > 0.0:
        parts.append(u * u)
    return parts[0] * parts[-1]


def popped(u):
    parts = []
    parts.append(u * 2.0)
    parts.append(u * u)
    last = parts.pop()
    return last + parts[0]


def extended(u):
    parts = [u]
    parts.extend([u * 2.0])
    return parts[0] + parts[1]


@pytest.mark.parametrize("fn, u, want", [
    (appended_under_a_condition, 0.7, 6 * 0.7 ** 2),   # 2u * u^2
    (appended_under_a_condition, -0.7, -8 * 0.7),      # 2u * 2u
    (popped, 0.7, 2 * 0.7 + 2.0)], ids=["appended-taken", "appended-not-taken", "popped"])
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_lists_grown_and_popped_in_both_modes(fn, u, want, mode, jit):
    # (a list grown under a condition or popped is a stack of its elements;
    # both were refused; forward mode used to give a zero tangent for them)
    got = s2sad.grad(fn, jit=jit)(u) if mode == "grad" else s2sad.jvp(fn, jit=jit)(u, 1.0)[1]
    assert np.isclose(got, want)


@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_extend_is_refused_in_both_modes(mode, jit):
    with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
        if mode == "grad":
            s2sad.grad(extended, jit=jit)(0.7)
        else:
            s2sad.jvp(extended, jit=jit)(0.7, 1.0)
    assert "test_tangent_styles.py:" in str(info.value) and "extended" in str(info.value)


def loop_appends_and_straight_appends(v):
    out = []
    out.append(v[0] * 3.0)
    total = out[0]
    for i in range(v.shape[0]):
        total = total + v[i] ** 2
    return total


def test_a_list_read_between_appends_is_left_as_written(jit):
    check_grad(loop_appends_and_straight_appends, (np.array([0.5, -1.0, 2.0]),), jit=jit)


# ---- chained assignment ---------------------------------------------------------------

def chained_names(u):
    a = b = u * u
    return a + b * u


def chained_into_a_slot(v):
    out = np.zeros(3)
    out[1] = s = v[0] * v[1]
    return np.sum(out * v) + s * v[2]


def chained_in_a_loop(v):
    total = 0.0
    for i in range(v.shape[0]):
        prev = cur = np.sin(v[i])
        total = total + prev * cur
    return total


@pytest.mark.parametrize("fn, args", [
    (chained_names, (0.8,)),
    (chained_into_a_slot, (np.array([0.5, -1.5, 2.0]),)),
    (chained_in_a_loop, (np.array([0.5, -1.5, 2.0]),)),
], ids=["names", "slot", "loop"])
def test_chained_assignment(fn, args, jit):
    check_grad(fn, args, jit=jit)
    check_jvp(fn, args, jit=jit)


def chained_array_then_written(u):
    a = b = np.zeros(3)  # one array with two names, as in Python
    a[0] = u
    return np.sum(b) * u


def test_chained_array_names_are_one_array(jit):
    # a write through one name changes the other, as in Python: b is a
    # (frontend/effects/view_writes.py)
    check_grad(chained_array_then_written, (0.7,), jit=jit)
    value, _ = s2sad.value_and_grad(chained_array_then_written, jit=False)(0.7)
    assert value == chained_array_then_written(0.7)


# ---- writes through an attribute ------------------------------------------------------

def through_real(u):
    a = np.zeros(3)
    a.real += u
    return np.sum(a) * u


def through_flat(u):
    a = np.zeros(3)
    a.flat[1] = u
    return np.sum(a) * u


def through_transpose(u):
    a = np.zeros((2, 2))
    a.T[0, 1] = u
    return a[1, 0] * u


@pytest.mark.parametrize("fn, shown", [
    (through_real, "a.real = ..."), (through_flat, "a.flat[...] = ..."),
    (through_transpose, "a.T[...] = ...")])
@pytest.mark.parametrize("mode", ["grad", "jvp"])
def test_writes_through_attributes_are_refused(fn, shown, mode, jit):
    # these wrote into memory the derivative did not follow: a zero
    # gradient with no error before
    with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
        if mode == "grad":
            s2sad.grad(fn, jit=jit)(0.7)
        else:
            s2sad.jvp(fn, jit=jit)(0.7, 1.0)
    message = str(info.value)
    assert f"assignment through an attribute ({shown})" in message
    assert f"test_tangent_styles.py:{fn.__code__.co_firstlineno + 2}" in message


# ---- max and min of a list written out -----------------------------------------------

def largest_of_three(v):
    return max([v[0] * 2.0, v[1], v[2] ** 2]) + min((v[0], v[2]))


def test_max_and_min_of_a_list_literal(jit):
    v = np.array([0.4, -1.0, 1.5])
    check_grad(largest_of_three, (v,), jit=jit)
    check_jvp(largest_of_three, (v,), jit=jit)


def first_of_equal_values_wins(u):
    return max([u, u * 1.0]) * 2.0 + max([u * 3.0])


def test_max_of_a_list_ties_go_to_the_first(jit):
    # Python's max returns the first of equal values: the gradient goes there
    assert np.isclose(s2sad.grad(first_of_equal_values_wins, jit=jit)(0.5), 5.0)


# ---- loops over a tuple or list written out ----------------------------------------------

def over_a_tuple_of_names(u, w):
    a = u * 2.0
    b = np.array([u, w * u])
    total = 0.0
    for piece in (a, b, w):
        total = total + np.sum(np.sin(piece))
    return total


def body_rebinds_what_an_element_reads(u):
    a = u * 2.0
    total = 0.0
    for v in [a, np.cos(u), 3.0]:
        a = a * v  # the list was made before: it holds the first a
        total = total + a
    return total + v  # the loop's name keeps the last element, as in Python


def nested_over_pairs(u):
    total = 0.0
    for scale, v in ((1.0, u), (2.0, u * u)):
        for piece in (v, 3.0 * v):
            total = total + scale * piece ** 2
    return total


def early_return_from_a_literal_loop(u):
    for v in (u, u * u, u * u * u):
        if v > 0.5:
            return v * 2.0
    return u


@pytest.mark.parametrize("fn, args, wrt", [
    (over_a_tuple_of_names, (0.7, -0.4), (0, 1)),
    (body_rebinds_what_an_element_reads, (0.7,), 0),
    (nested_over_pairs, (0.7,), 0),
    (early_return_from_a_literal_loop, (0.6,), 0),
    (early_return_from_a_literal_loop, (0.3,), 0),
], ids=["tuple", "rebinds", "nested", "return-early", "return-late"])
def test_loops_over_literals(fn, args, wrt, jit):
    check_grad(fn, args, wrt=wrt, jit=jit)
    check_jvp(fn, args, wrt=wrt, jit=jit)


# ---- local dicts -------------------------------------------------------------------------

def _weighted(terms):
    return terms["lin"] * 2.0 + terms["sq"] * terms["lin"]


def dict_written_out_for_a_helper(u):
    return _weighted({"lin": u, "sq": u * u}) + _weighted(dict(lin=3.0, sq=u))


def dict_get_with_defaults(u):
    d = {"a": u * 2.0, "b": np.sin(u)}
    return d.get("a", 0.0) * d.get("b") + d.get("missing", 1.5) * u


def dict_views(u):
    d = {"a": u * 2.0, "b": u * u, "c": np.exp(u)}
    total = sum(d.values()) + len(d.keys())
    for k, v in d.items():
        total = total + v * len(k)
    for v in d.values():
        total = total * 0.5 + v
    return total + max(d.values())


@pytest.mark.parametrize("fn", [dict_written_out_for_a_helper, dict_get_with_defaults,
                                dict_views])
def test_local_dicts(fn, jit):
    check_grad(fn, (0.7,), jit=jit)
    check_jvp(fn, (0.7,), jit=jit)


def dict_values_as_an_argument(u):
    d = {"a": u, "b": u * 2.0}
    return np.sum(np.array(list(d.values())))


def test_other_uses_of_a_dict_view_are_refused(jit):
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="a dict other than one bound once"):
        s2sad.grad(dict_values_as_an_argument, jit=jit)(0.7)


# ---- second derivatives through while loops ----------------------------------------------

def counted_while(u):
    x = u
    n = 0
    while n < 4:
        x = np.sin(x) * u
        n += 1
    return x


def converging_while(u):
    x = 1.0
    n = 0
    while n < 40 and abs(x - np.cos(u * x)) > 1e-13:
        x = np.cos(u * x)
        n += 1
    return x * u


@pytest.mark.parametrize("fn", [counted_while, converging_while])
def test_second_derivative_through_a_while_loop(fn, jit):
    # the first derivative keeps the loop's values on list tapes; the second
    # differentiates those tapes (it used to refuse them, naming the
    # generated code)
    u, h = 0.7, 1e-4
    got = s2sad.grad(s2sad.grad(fn, jit=jit), jit=jit)(u)
    expected = (fn(u + h) - 2 * fn(u) + fn(u - h)) / h ** 2
    assert np.isclose(got, expected, rtol=1e-4, atol=1e-5)
    assert np.isclose(s2sad.hvp(fn, jit=jit)(u, 1.0), expected, rtol=1e-4, atol=1e-5)


# ---- JAX-style parameters --------------------------------------------------------------

BATCH = np.linspace(-1.0, 1.0, 12).reshape(4, 3)


def mlp_over_layer_pairs(params):
    h = BATCH
    for W, b in params:  # a list of (weights, bias) pairs, as JAX's examples write it
        h = np.tanh(h @ W + b)
    return np.sum(h ** 2)


def mlp_over_enumerated_pairs(params):
    h = BATCH
    for i, (W, b) in enumerate(params):
        h = np.tanh(h @ W + b) * (i + 1.0)
    return np.sum(h)


@pytest.mark.parametrize("fn", [mlp_over_layer_pairs, mlp_over_enumerated_pairs])
def test_loop_unpacking_layer_pairs(fn, jit):
    r = np.random.default_rng(5)
    params = [(r.normal(size=(3, 4)), r.normal(size=4)), (r.normal(size=(4, 2)), r.normal(size=2))]
    got = s2sad.grad(fn, jit=jit)(params)
    assert isinstance(got, list) and all(isinstance(layer, tuple) for layer in got)
    eps = 1e-6
    for li, layer in enumerate(params):
        for pi, leaf in enumerate(layer):
            expected = np.zeros_like(leaf)
            for idx in np.ndindex(*leaf.shape):
                shifted = []
                for sign in (1, -1):
                    p = [tuple(a.copy() for a in lay) for lay in params]
                    p[li][pi][idx] += sign * eps
                    shifted.append(fn(p))
                expected[idx] = (shifted[0] - shifted[1]) / (2 * eps)
            np.testing.assert_allclose(got[li][pi], expected, rtol=1e-5, atol=1e-7)


PROJECTION = np.linspace(0.1, 1.2, 12).reshape(3, 4)


def copy_of_a_module_matrix(v):
    P = PROJECTION.copy()  # a method of a module-level array has its kind
    P[0] = P[0] * 2.0
    return np.sum((P @ v) ** 2) + PROJECTION.sum() * v[0]


def test_methods_of_module_level_arrays(jit):
    check_grad(copy_of_a_module_matrix, (np.array([0.1, 0.5, -0.3, 0.8]),), jit=jit)
    check_jvp(copy_of_a_module_matrix, (np.array([0.1, 0.5, -0.3, 0.8]),), jit=jit)


# ---- a list used as a stack ------------------------------------------------------------

def stack_of_names(u):
    stack = []
    a = u * u
    stack.append(a)
    if u > 0.0:
        b = np.sin(u)
        stack.append(b)
    top = stack.pop()
    rest = 1.0
    if u > 0.0:
        rest = stack.pop()
    return top * rest + top


@pytest.mark.parametrize("u", [0.7, -0.4])
def test_a_list_pushed_and_popped_as_a_stack(u, jit):
    # pushes of names and pops pair up as a derivative's own tapes do
    check_grad(stack_of_names, (u,), jit=jit)
    check_jvp(stack_of_names, (u,), jit=jit)


def stack_of_expressions(u):
    stack = []
    stack.append(u * u)
    stack.append(np.sin(u))
    top = stack.pop()
    return top * stack.pop()


@pytest.mark.parametrize("u", [0.7, -0.4])
def test_a_pushed_expression_pairs_with_its_pop(u, jit):
    # the appended expression is taken into a variable first (normalize.py),
    # so it is pushed and popped as a name is (its gradient was lost, zero
    # with no error, before either)
    check_grad(stack_of_expressions, (u,), jit=jit)
    check_jvp(stack_of_expressions, (u,), jit=jit)


# ---- np.linalg.cholesky ----------------------------------------------------------------

def gaussian_log_density(A, r):
    L = np.linalg.cholesky(A)
    z = np.linalg.solve(L, r)
    return -0.5 * np.dot(z, z) - np.sum(np.log(np.diag(L)))


def upper_factor(A):
    U = np.linalg.cholesky(A, upper=True)
    return np.sum(U * np.arange(9.0).reshape(3, 3))


SPD = np.array([[2.0, 0.3, -0.2], [0.3, 1.5, 0.4], [-0.2, 0.4, 1.8]])


@pytest.mark.parametrize("A", [SPD, SPD + np.triu(np.full((3, 3), 5.0), 1)],
                         ids=["symmetric", "upper-triangle-ignored"])
def test_numpy_cholesky(A, jit):
    # numpy reads the lower triangle only (the upper one, with upper=True):
    # finite differences of the other triangle are zero, and so is the gradient
    if jit and os.environ.get("S2SAD_FULL", "") in ("", "0"):
        pytest.skip("compiling the Cholesky helpers takes ~100 s: S2SAD_FULL=1 (and the "
                    "systematic grid's --jit run) compile it")
    r = np.array([0.5, -1.0, 0.25])
    check_grad(gaussian_log_density, (A, r), wrt=(0, 1), jit=jit)
    if jit:
        return  # (the rest as Python only)
    check_jvp(gaussian_log_density, (A, r), jit=jit)
    B = SPD + np.tril(np.full((3, 3), 5.0), -1) if A is not SPD else SPD
    check_grad(upper_factor, (B,), jit=jit)
    check_jvp(upper_factor, (B,), jit=jit)


# ---- any() and all() of a generator ---------------------------------------------------------

def any_large(v):
    if any(abs(u) > 1.5 for u in v):
        return np.sum(v ** 2)
    return np.sum(np.sin(v))


def all_positive_pairs(v):
    if all(v[i] < v[i + 1] for i in range(v.shape[0] - 1) if v[i] > -5.0):
        return v[0] * v[1] * v[2]
    return np.sum(v) * 2.0


@pytest.mark.parametrize("fn", [any_large, all_positive_pairs])
@pytest.mark.parametrize("v", [np.array([0.3, 0.9, 1.2]), np.array([0.3, -1.9, 1.2])],
                         ids=["first-branch", "second-branch"])
def test_any_and_all_of_a_generator(fn, v, jit):
    check_grad(fn, (v,), jit=jit)
    check_jvp(fn, (v,), jit=jit)


# ---- an update of a slice from an overlapping slice of the same array -------------------

def differences_in_place(v):
    y = np.copy(v)
    y[1:] -= y[:-1]  # numpy reads the right side before writing (numba would not)
    return np.sum(y ** 2)


def sums_in_place(v):
    y = v * 1.0
    y[1:] += y[:-1]
    y[:-1] *= y[1:]
    return np.sum(y ** 3)


@pytest.mark.parametrize("fn", [differences_in_place, sums_in_place])
def test_overlapping_slice_updates(fn, jit):
    # the generated update kept `y[1:] -= y[:-1]`, which numba runs element
    # by element through the overlap: a wrong value and gradient when compiled
    v = np.array([0.3, -1.2, 2.0, 0.7])
    check_grad(fn, (v,), jit=jit)
    check_jvp(fn, (v,), jit=jit)
