"""Calls are bound to their callee's real signature before anything else
looks at them: a value passed by keyword, a default left out, a
keyword-only parameter all get their gradient (they used to be taken as
constants, a zero gradient without an error). Parameters a rule does not
implement are refused, never ignored. Each case is checked against finite
differences (or numpy's own semantics), compiled and as Python."""
import numpy as np
import pytest

import s2sad
from gradcheck import check_grad, check_jvp

rng = np.random.default_rng(3)
M = rng.normal(size=(3, 4))
T3 = rng.normal(size=(2, 3, 4))
V = rng.uniform(0.5, 1.5, 5)


# ---- helpers called with keywords, defaults and keyword-only parameters ------

def h(u, v=2.0):
    return u * u * v


def h_kwonly(u, *, scale=2.0):
    return u * scale


def h_posonly(u, v, /, w=0.5):
    return u * v + w * u * u


def by_keyword(a):
    return h(u=a)


def keyword_after_position(a):
    return h(2.0, v=a)


def keywords_swapped(a, b):
    return h(v=b, u=a)


def same_value_twice(a):
    return h(a, v=a)


def default_left_out(a):
    return h(a)


def keyword_only_given(a):
    return h_kwonly(a, scale=a)


def keyword_only_default(a):
    return h_kwonly(a) + h_kwonly(a, scale=3.0)


def positional_only(a, b):
    return h_posonly(a, b, w=b)


def in_a_loop(a, n):
    s = 0.0
    for i in range(n):
        s += h(v=a, u=s + 1.0)
    return s


@pytest.mark.parametrize("f, args", [
    (by_keyword, (1.5,)), (keyword_after_position, (1.5,)), (keywords_swapped, (1.5, 2.5)),
    (same_value_twice, (1.5,)), (default_left_out, (1.5,)), (keyword_only_given, (1.5,)),
    (keyword_only_default, (1.5,)), (positional_only, (1.5, 0.7)), (in_a_loop, (0.3, 3)),
])
def test_helper_calls_bound_to_signature(f, args, jit):
    wrt = tuple(i for i, a in enumerate(args) if isinstance(a, float))
    check_grad(f, args, wrt=wrt, jit=jit)
    check_jvp(f, args, wrt=wrt, jit=jit)


def top_level_keyword_only(x, *, scale=2.0):
    return np.sum(x * x) * scale


def test_top_level_keyword_only_parameter(jit):
    df = s2sad.grad(top_level_keyword_only, wrt=("x", "scale"), jit=jit)
    dx, dscale = df(V, scale=3.0)
    np.testing.assert_allclose(dx, 6.0 * V)
    np.testing.assert_allclose(dscale, np.sum(V * V))
    np.testing.assert_allclose(s2sad.grad(top_level_keyword_only, jit=jit)(V), 4.0 * V)


# ---- numpy parameters a rule used to ignore ------------------------------------

def cumsum_axis0(x):
    return np.sum(np.cumsum(x, axis=0) ** 2)


def cumsum_axis1_positional(x):
    return np.sum(np.cumsum(x, 1) ** 2)


def cumsum_flat(x):
    return np.sum(np.cumsum(x) ** 2)


def transpose_axes_keyword(x):
    return np.sum(np.transpose(x, axes=[2, 0, 1]) * np.arange(24.0).reshape(4, 2, 3))


def transpose_axes_method(x):
    return np.sum(x.transpose(1, 2, 0) * np.arange(24.0).reshape(3, 4, 2))


def norm_ord_3(x):
    return np.linalg.norm(x, ord=3)


def norm_ord_1(x):
    return np.linalg.norm(x, 1)


def norm_axis_1(x):
    return np.sum(np.linalg.norm(x, axis=1) ** 2 * np.arange(1.0, 4.0))


def norm_axis_p(x):
    return np.sum(np.linalg.norm(x, ord=4, axis=0) * np.arange(1.0, 5.0))


def clip_keywords(x):
    return np.sum(np.clip(x, a_min=-0.5, a_max=0.5) ** 2)


@pytest.mark.parametrize("f, x", [
    (cumsum_axis0, M), (cumsum_axis1_positional, M), (cumsum_flat, M),
    (transpose_axes_keyword, T3), (transpose_axes_method, T3),
    (norm_ord_3, V), (norm_ord_1, V - 1.0), (clip_keywords, M),
])
def test_parameters_are_used(f, x, jit):
    check_grad(f, (x,), jit=jit)
    check_jvp(f, (x,), jit=jit)


# numba has no axis= for norm: these run as Python after a fallback warning
@pytest.mark.parametrize("f, x", [(norm_axis_1, M), (norm_axis_p, M)])
def test_norm_over_an_axis(f, x):
    check_grad(f, (x,), jit=False)
    check_jvp(f, (x,), jit=False)


# ---- keepdims ----------------------------------------------------------------

def sum_keepdims(x):
    return np.sum(np.sum(x, axis=1, keepdims=True) * x)


def mean_keepdims_all(x):
    return np.sum(np.mean(x, keepdims=True) * x)


def max_keepdims(x):
    return np.sum(x - np.max(x, axis=0, keepdims=True)) + np.sum(np.exp(x - x.max(1, keepdims=True)))


def prod_keepdims_negative_axis(x):
    return np.sum(np.prod(x, axis=-1, keepdims=True) * x)


def sum_keepdims_tuple(x):
    return np.sum(np.sum(x, axis=(0, 2), keepdims=True) * x)


@pytest.mark.parametrize("f, x, compiles", [
    (sum_keepdims, M, True), (mean_keepdims_all, M, True), (prod_keepdims_negative_axis, M, False),
    (max_keepdims, M, False), (sum_keepdims_tuple, T3, False),
])
def test_keepdims(f, x, compiles, jit):
    if jit and not compiles:
        pytest.skip("numba lacks this reduction over an axis; the jit=False run checks it")
    check_grad(f, (x,), jit=jit)
    check_jvp(f, (x,), jit=jit)


# ---- refused, never ignored -----------------------------------------------------

def sum_with_dtype(x):
    return np.sum(x, dtype=np.float32)


def norm_matrix_ord_3(x):
    return np.linalg.norm(x, ord=3)  # (numpy has no matrix 3-norm; 2 and 'nuc' are implemented)


def norm_half(x):
    return np.linalg.norm(x[0], 0.5)


def cumsum_tuple_axis(x):
    return np.sum(np.cumsum(x, axis=(0, 1)))


def keepdims_variable(x, k):
    return np.sum(np.sum(x, axis=0, keepdims=k))


def helper_unknown_keyword(a):
    return h(a, w=a)


@pytest.mark.parametrize("f, args, match", [
    (sum_with_dtype, (M,), "does not implement parameter 'dtype'"),
    (norm_matrix_ord_3, (M,), "parameter 'ord'"),
    (norm_half, (M,), "parameter 'ord'"),
    (cumsum_tuple_axis, (M,), "parameter 'axis'"),
    (keepdims_variable, (M, True), "keepdims"),
    (helper_unknown_keyword, (1.0,), "unexpected keyword argument 'w'"),
])
def test_unimplemented_parameters_are_refused(f, args, match, jit):
    with pytest.raises((LookupError, TypeError), match=match) as info:
        s2sad.grad(f, jit=jit)(*args)
    assert "test_binding.py" in str(info.value)  # names the user's file and line


# ---- values that used to get a zero gradient or a crash -------------------------

def nested_list_literal(x):
    return np.sum(np.array([[x, 2.0 * x], [x ** 2, x]]) * np.array([[1.0, 2.0], [3.0, 4.0]]))


def linspace_ends(a, b):
    return np.sum(np.linspace(a, b, 5) ** 2) + np.sum(np.linspace(a, b, num=4, endpoint=False))


def dot_scalar_vector(s, v):
    return np.sum(np.dot(s, v) ** 2) + np.sum(np.dot(v, s))


def repeated_list_index(v):
    return np.sum(v[[0, 0, 2]] ** 2)


def power_zero_exponent(x):
    return np.power(x, 0.0) + x ** 0.0


def power_zero_base(y):
    return np.power(0.0, y) + 0.0 ** y


def stacked_linalg(a):
    return np.sum(np.linalg.inv(a) * W3) + np.sum(np.linalg.det(a) * np.arange(1.0, 3.0))


def batched_matmul(a, b):
    return np.sum(np.matmul(a, b) * W4) + np.sum((a @ b[0]) ** 2)


W3 = rng.normal(size=(2, 3, 3))
W4 = rng.normal(size=(2, 3, 5))
A3 = rng.normal(size=(2, 3, 3)) + 3.0 * np.eye(3)


def full_fill_value(a):
    return np.sum(np.full(3, a) * np.arange(3.0)) + np.sum(np.full_like(V, a))


@pytest.mark.parametrize("f, args", [
    (nested_list_literal, (1.3,)), (linspace_ends, (0.5, 2.0)), (dot_scalar_vector, (1.5, V)),
    (repeated_list_index, (V,)), (power_zero_base, (1.5,)), (full_fill_value, (0.7,)),
    (stacked_linalg, (A3,)), (batched_matmul, (rng.normal(size=(2, 3, 4)), rng.normal(size=(1, 4, 5)))),
])
def test_values_get_their_gradient(f, args):
    wrt = tuple(i for i, a in enumerate(args) if isinstance(a, (float, np.ndarray)))
    check_grad(f, args, wrt=wrt, jit=False)
    check_jvp(f, args, wrt=wrt, jit=False)
    with _maybe_fallback():
        check_grad(f, args, wrt=wrt, jit=True)


class _maybe_fallback:
    """numba lacks a few of these forms (x[[0, 0, 2]]); falling back is
    allowed here, a wrong value is not."""
    def __enter__(self):
        import warnings
        self._ctx = warnings.catch_warnings()
        self._ctx.__enter__()
        warnings.simplefilter("ignore", s2sad.NumbaFallbackWarning)

    def __exit__(self, *exc):
        return self._ctx.__exit__(*exc)


def test_power_at_zero_is_zero_as_in_jax(jit):
    # finite differences cannot see 0 ** 0 (x ** 0.0 is 1 near 0); JAX gives 0
    assert s2sad.grad(power_zero_exponent, jit=jit)(0.0) == 0.0
    assert s2sad.grad(power_zero_base, jit=jit)(1.5) == 0.0


def c_literal(v):
    # (np.r_ and np.c_ of pieces work: test_everyday_python.py, test_more_python_forms.py)
    return np.sum(np.c_[v, 0:3] ** 2)


def active_index(v, a):
    return v[int(a)] * a + np.sum(np.c_[v, v])


def svd_stack(a):
    return np.sum(np.linalg.svd(a, full_matrices=False)[1])


def index_after_int_and_slice(a, b):
    return np.sum(a[0, 1:, b])


def arange_from_float(a):
    return np.sum(np.arange(a, a + 3.0))


@pytest.mark.parametrize("f, args, match", [
    (c_literal, (V,), "np.c_"),
    (svd_stack, (np.ones((2, 3, 3)),), "stacks of matrices"),
    (index_after_int_and_slice, (np.ones((2, 3, 4)), np.array([0, 2])), "index array"),
    (arange_from_float, (0.5,), "arange"),
])
def test_refused_not_wrong(f, args, match, jit):
    with pytest.raises((LookupError, TypeError, s2sad.UnsupportedSyntaxError), match=match):
        s2sad.grad(f, jit=jit)(*args)


def test_rule_table_lists_every_rule_once():
    """The documentation's table of functions (made from the registry when the
    site is built) has a row for every function with a gradient rule."""
    from s2sad import rule_table, support_table
    names = [name for name, _status, _text in support_table.rows()]
    assert len(names) == len(set(names))
    for line in rule_table.table().splitlines()[3:-1]:
        for listed in line.split(" | ")[0].strip("| ").split(", "):
            assert listed.strip("`") in names, listed


# ---- a numpy function passed directly: through its rule --------------------------

def test_numpy_function_passed_directly(jit):
    a, b = np.array([1.0, 2.0]), np.arange(3.0)
    da, db = s2sad.grad(np.outer, wrt=(0, 1), jit=jit)(a, b)
    np.testing.assert_allclose(da, np.full(2, b.sum()))
    np.testing.assert_allclose(db, np.full(3, a.sum()))
    np.testing.assert_allclose(s2sad.jacobian(np.outer, jit=jit)(a, b)[1, 2], [0.0, 2.0])
    assert s2sad.grad(np.sin, jit=jit)(0.5) == pytest.approx(np.cos(0.5))
    assert "np.cos(x)" in s2sad.grad(np.sin, jit=jit).source


# ---- the output kind of an index by a list (what vjp's seed must be) -------------

def index_list_then_slices(x):
    return x[[0, 1, 2], :, :]


def test_list_index_output_kind(jit):
    x = rng.normal(size=(4, 3, 5))
    seed = rng.normal(size=(3, 3, 5))
    with _maybe_fallback():  # numba cannot index with a list literal
        got = s2sad.vjp(index_list_then_slices, jit=jit)(x, seed)
    expected = np.zeros_like(x)
    expected[:3] = seed
    np.testing.assert_allclose(got, expected)


def index_from_a_shape(x):
    y = x * x
    return y[x.shape[0] - 1] + y[len(x) - 2]


def test_an_index_from_a_shape_is_not_refused(jit):
    check_grad(index_from_a_shape, (V,), jit=jit)


# ---- found by the systematic grid (tests/systematic) -----------------------------

def gather_literal_array(x):
    return np.sum(x[np.array([3, 3, 1])] * np.array([1.0, 10.0, 100.0]))


def gather_sorted(x):
    return np.sum(x[np.argsort(x)] * np.array([1.0, 10.0, 100.0, 1000.0]))


def gather_2d_index(x):
    return np.sum(x[np.array([[0, 0], [1, 3]])] ** 2)


def transpose_negative_axes(x):
    return np.sum(np.transpose(x, (-1, 0)) * np.arange(12.0).reshape(4, 3))


def mean_tuple_axis(x):
    return np.sum(np.mean(x, axis=(0, 2)) ** 2)


def int_powers_at_zero(x):
    return x ** 0 + 3.0 * x ** 1


@pytest.mark.parametrize("f, x", [
    (gather_literal_array, np.array([0.5, 1.5, 2.5, 3.5])),
    (gather_sorted, np.array([3.0, 1.0, 2.0, 0.5])),
    (gather_2d_index, np.arange(4.0)), (transpose_negative_axes, M), (mean_tuple_axis, T3),
])
def test_grid_findings(f, x, jit):
    with _maybe_fallback():
        check_grad(f, (x,), jit=jit)


def test_int_powers_at_zero(jit):
    assert s2sad.grad(int_powers_at_zero, jit=jit)(0.0) == 3.0
    assert s2sad.hessian(int_powers_at_zero, jit=False)(0.0) == 0.0


def clip_none(x):
    return np.sum(np.clip(x, None, None))  # (numpy raises: one bound is needed)


def sum_keepdims_positional(x):
    return np.sum(np.sum(x, 0, True))


@pytest.mark.parametrize("f, args, match", [
    (clip_none, (M,), "a_min"),
    (sum_keepdims_positional, (M,), "implement"),
])
def test_grid_refusals(f, args, match):
    with pytest.raises(LookupError, match=match):
        s2sad.grad(f, jit=False)(*args)


def product_with_zeros(x):
    return np.prod(x) + np.sum(np.prod(x.reshape(2, 2), axis=1) * np.array([1.0, 3.0]))


def test_prod_is_exact_at_zeros(jit):
    x = np.array([0.5, 0.0, 2.0, 0.0])
    with _maybe_fallback():  # numba has no np.prod over an axis
        g = s2sad.grad(product_with_zeros, jit=jit)(x)
    np.testing.assert_allclose(g, [0.0, 1.0 * 0.0 + 0.5, 0.0, 3.0 * 2.0])
    with _maybe_fallback():
        h = s2sad.hessian(product_with_zeros, jit=jit)(np.array([0.5, 0.0, 2.0, 1.5]))
    np.testing.assert_allclose(h[0, 1], 2.0 * 1.5 + 1.0)


# ---- calls outside assignments, and element reads of a gathered copy --------

def h_default_then_kwonly(p0=0.3, *, p1):
    return p0 * p1


def k_kwonly(u, *, p1=2.0):
    if h_default_then_kwonly(p1=u) > 0.1:  # bound in the helper's own copy too
        return u * p1
    return h_default_then_kwonly(p1=u)


def helper_in_if_test(x):
    if h_default_then_kwonly(p1=x[1]) <= -0.3:
        return np.sum(x) * 2.0
    return np.sum(x * x)


def helper_in_ifexp_test_and_body(x):
    return k_kwonly(x[0], p1=x[1]) + (x[2] if h_default_then_kwonly(p1=x[1]) > 0 else x[0])


def helper_in_while_test(x):
    s = 0.0
    while h(v=2.0, u=s) < 3.0:
        s = s + x[0]
    return s * x[1]


def keepdims_in_if_test(x):
    if np.sum(x, axis=0, keepdims=True)[0] > 0:
        return np.sum(x * 2.0)
    return np.sum(x)


def element_of_gather(x):
    return x[np.array([2, 0, 1])][1] * 3.0 + x[[0, 0, 2]][1] * x[[2, 1]][0]


def element_of_gather_in_loop(x):
    idx = np.array([1, 1, 0, 2])
    s = 0.0
    for i in range(3):
        s += x[idx][i] * x[i]
    return s


@pytest.mark.parametrize("f", [helper_in_if_test, helper_in_ifexp_test_and_body,
                               helper_in_while_test, keepdims_in_if_test, element_of_gather,
                               element_of_gather_in_loop])
def test_calls_outside_assignments_and_gathered_elements(f, jit):
    check_grad(f, (np.array([1.0, 2.0, 3.0]),), jit=jit)


def norms_of_zero(x):
    z = x - x  # identically zero: finite differences see a zero derivative
    return np.linalg.norm(z) + np.linalg.norm(z, ord=1.5) ** 2 + np.sum(
        np.linalg.norm(np.outer(z, x), axis=0)) + x[0]


def test_norm_at_the_zero_vector_has_gradient_zero(jit):
    # (0 / 0 gave nan, times the zero Jacobian of x - x: nan)
    check_grad(norms_of_zero, (np.array([1.0, 2.0, 3.0]),), jit=jit)
    check_jvp(norms_of_zero, (np.array([1.0, 2.0, 3.0]),), jit=jit)


# ---- module attributes that are None ------------------------------------------------

def newaxis_index(x, A):
    return np.sum(x[::2, np.newaxis] * A[np.newaxis, 0, :2]) + np.sum(x[None, 1:] ** 2)


def test_np_newaxis_is_none_in_an_index(jit):
    x, A = np.array([0.5, -1.0, 2.0, 0.3, 1.1]), np.arange(6.0).reshape(2, 3) / 3.0
    check_grad(newaxis_index, (x, A), wrt=0, jit=jit)
    check_grad(newaxis_index, (x, A), wrt=1, jit=jit)


# ---- spellings that mean a form the rule implements (transforms/frontend/calls/respellings.py) ------

def reshape_order_c(x):
    return np.sum(np.reshape(x, (2, 3), order="C")[1] * np.arange(3.0))


def sum_out_none(x):
    return np.sum(x ** 2, axis=0, out=None) @ np.arange(3.0)


def clip_one_sided(x):
    return np.sum(np.clip(x, None, 0.3) ** 2) + np.sum(np.clip(x, a_min=-0.1, a_max=None) ** 3)


def clip_numpy2_names(x):
    return np.sum(np.clip(x, min=-0.4, max=0.6) * x)


def reshape_order_a(x):
    return np.sum(np.reshape(x, (2, 3), order="A")[1] * np.arange(3.0))


@pytest.mark.parametrize("fn", [reshape_order_c, sum_out_none, clip_one_sided,
                                clip_numpy2_names])
def test_default_and_alias_spellings(fn, jit):
    x = np.array([[0.5, -1.2, 0.25], [1.4, 0.05, -0.6]])
    check_grad(fn, (x,), jit=jit)
    check_jvp(fn, (x,), jit=jit)


def test_order_a_is_refused_not_dropped(jit):
    # (order="F" is implemented: tests/test_numpy_more.py)
    with pytest.raises(LookupError, match="order"):
        s2sad.grad(reshape_order_a, jit=jit)(np.ones((2, 3)))
