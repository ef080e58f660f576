"""Functions in the styles of myia's and JAX's own gradient tests: scalar
Python with branches, while loops, nested functions, closures and tuples
(myia), and JAX's API habits (several argnums with keyword flags, pytrees
as arguments, jacobians of tuple outputs, nested derivatives, custom
gradients written with a lambda), against finite differences, compiled with
numba and as plain Python. What s2sad refuses of these styles is refused
with the user's file and line."""
import collections
import dataclasses
import functools
import os
import operator
from typing import NamedTuple

import numpy as np
import pytest

import s2sad
from gradcheck import check_grad, check_jvp, check_tree_grad, numerical_grad

HERE = __file__
rng = np.random.RandomState(0)
FULL = os.environ.get("S2SAD_FULL", "") not in ("", "0")


@pytest.fixture(params=[True, False] if FULL else [False],
                ids=["jit", "python"] if FULL else ["python"])
def jit(request):
    # compiling is most of this file's time: every case compiled with
    # S2SAD_FULL=1, a sample of them by default (test_compiled_sample)
    return request.param


# ---- myia: scalar Python ----------------------------------------------------------------

def constant_output(x, y):
    return 7.0 + 12.0 / 35.0


def add(x, y):
    return x + y


def power_product(x, y):
    return x ** 3.0 * y ** 4.0


def literal_times(x):
    return 18.0 * x


def same_operand_twice(x):
    return x * x


def same_argument_four_times(x):
    def prod4(a, b, c, d):
        return a * b * c * d
    return prod4(x, x, x, x)


def tuple_then_index(x, y):
    tup = x + y, x * y
    z = tup[0] + tup[1]
    return z


def expression(x, y, z):
    return x * y + y / z


def temporaries(x, y, z):
    a = x * y
    b = y * a
    c = a + b
    return c / z


def shadowing(x, y, z):
    x = x * y
    y = y * z
    z = x * z
    return x + y + z


def tuple_output(x, y):
    return (x + y, x - y, x * y, x / y)


def thunks(a, b):
    def f():
        return a + 1.0

    def g():
        return b + 2.0
    return f() * g()


def higher_order(a, b):
    def apply_twice(g, x):
        return g(x) * g(x + 10.0)

    def scale(x):
        return x * b
    return apply_twice(scale, a) + apply_twice(scale, b)


def two_functions_passed(a, b):
    def combine(f, g, x):
        return f(x) * g(x)

    def double(x):
        return 2.0 * x * b

    def cube(x):
        return x ** 3
    return combine(double, cube, a) + combine(cube, double, b)


def parameter_named_like_a_nested_function(x):
    def fn(f, x):
        return f(x)

    def f(x):
        return -x * x
    return fn(f, x)


def lambda_passed_in_a_loop(x, w):
    def apply_sum(g, v, scale=1.0):
        s = 0.0
        for i in range(v.shape[0]):
            s += g(v[i]) * scale
        return s
    sq = lambda u: u * u * w  # noqa: E731
    total = 0.0
    for k in range(3):
        w = w * 1.5  # read when sq is called, as Python does
        total += apply_sum(sq, x, scale=k + 1.0)
    return total + apply_sum(v=x, g=sq)


def if_max(a, b):
    if a > b:
        return a
    else:
        return b


def if_two(a, b):
    if a > b:
        return a * a
    else:
        return b + b


def recursive_factorial(x):
    def fact(n):
        if n <= 1:
            return 1
        else:
            return n * fact(n - 1)
    return fact(x)


def recursive_factorial_by_keyword(x):
    def fact(n=x):
        if n <= 1:
            return 1
        else:
            return n * fact(n=n - 1)
    return fact()


def recursive_closure(x):
    def f(y):
        if y <= 0:
            return x
        else:
            return f(y - 1)
    return f(7)


def tail_recursive_sum(x, a):
    def fsum(x, a):
        if x == 1:
            return a
        else:
            return fsum(x - 1, a * x + a)
    return fsum(x, a)


def recursive_lambda(x):
    f = lambda n: 1.0 if n <= 0 else x * f(n - 1)  # noqa: E731
    return f(3)


def recursion_over_a_captured_array(v):
    w = v * 2.0

    def walk(i):
        if i == v.shape[0]:
            return 0.0
        return np.sin(w[i]) * v[i] + walk(i + 1)
    return walk(0)


def factorial(n):
    if n <= 1:
        return 1  # an int on this path: the function's results are still floats
    else:
        return n * factorial(n - 1)


def calls_factorial(x):
    return factorial(x) * 2.0


def sum_of_squares(n, x):
    if n == 0:
        return 0
    return x * x + sum_of_squares(n - 1, x)


def calls_sum_of_squares(x):
    return sum_of_squares(3, x) + 0.5 * x


def power_by_halving(x, n):
    if n == 0:
        return 1
    half = power_by_halving(x, n // 2)
    if n % 2 == 0:
        return half * half
    return half * half * x


def square_until_large(x):
    rval = x
    while rval < 100:
        rval = rval * rval
    return rval


def while_countdown(x, y, z):
    rval = 0
    while x > -0.1:  # not 0: finite differences would cross the boundary
        rval = rval + y
        x = x - z
    return rval


def while_countdown_augmented(x, y, z):
    rval = 0
    while x > -0.1:
        rval += y
        x -= z
    return rval


def nested_whiles(x):
    v = x
    j = 0
    while j < 3:
        i = 0
        while i < 3:
            v = v * x
            i = i + 1
        j = j + 1
    return v


def list_while(xs):
    y = 1.0
    index = 0
    while index < len(xs):
        y = y * xs[index]
        index = index + 1
    return y


def list_for(xs):
    y = 1
    for x in xs:
        y = y * x
    return y


def float_or_pair(x):
    if isinstance(x, float):
        return x * x * x
    else:
        a, b = x
        return a * b


def cap_param(x, y):
    def cap(x):
        if x > 42:
            x = 42
        return x
    return y - cap(x)


def local_called_twice(x, y):
    def f(x):
        return x * x
    return f(x) + f(y)


def polymorphic_helper(x, y):
    def helper(a, b):
        return a * a + b * b
    return helper(x, x + x) * helper(y, y + y)


def counted_while(n, x):
    rval = x
    while n > 0:
        n = n - 1
        rval = rval - x * rval
    return rval


def is_none_default(x, w=None):
    if w is None:
        return x * x
    return x * w


SCALAR_CASES = [
    (constant_output, (13.0, 14.0), (0, 1)),
    (add, (1.0, 4.0), (0, 1)),
    (add, (5.0, -13.0), (0, 1)),
    (power_product, (3.0, 4.0), (0, 1)),
    (literal_times, (3.0,), 0),
    (same_operand_twice, (3.0,), 0),
    (same_argument_four_times, (3.0,), 0),
    (tuple_then_index, (3.0, 5.0), (0, 1)),
    (expression, (3.0, 4.0, 5.0), (0, 1, 2)),
    (temporaries, (3.0, 4.0, 5.0), (0, 1, 2)),
    (shadowing, (3.0, 4.0, 5.0), (0, 1, 2)),
    (tuple_output, (3.0, 4.0), (0, 1)),
    (thunks, (4.0, 5.0), (0, 1)),
    (higher_order, (4.0, 5.0), (0, 1)),
    (two_functions_passed, (1.3, -0.4), (0, 1)),
    (parameter_named_like_a_nested_function, (-4.2,), 0),
    (lambda_passed_in_a_loop, (np.array([0.3, -0.4, 1.2]), 0.7), (0, 1)),
    (if_max, (4.0, 5.0), (0, 1)),
    (if_max, (6.4, -7.8), (0, 1)),
    (if_two, (4.0, 5.0), (0, 1)),
    (if_two, (6.4, -7.8), (0, 1)),
    (recursive_factorial, (4.1,), 0),
    (recursive_factorial, (0.5,), 0),
    (recursive_factorial_by_keyword, (4.1,), 0),
    (recursive_closure, (4.3,), 0),
    (tail_recursive_sum, (5, 1.5), (1,)),
    (factorial, (4.1,), 0),
    (recursive_lambda, (1.3,), 0),
    (recursion_over_a_captured_array, (np.array([0.3, -0.7, 1.1]),), 0),
    (calls_factorial, (3.7,), 0),
    (calls_sum_of_squares, (0.7,), 0),
    (power_by_halving, (1.3, 5), 0),
    (square_until_large, (4.0,), 0),
    (while_countdown, (4.0, 5.0, 2.0), (0, 1, 2)),
    (while_countdown, (7.0, 3.0, 1.0), (0, 1, 2)),
    (while_countdown_augmented, (4.0, 5.0, 2.0), (0, 1, 2)),
    (nested_whiles, (2.0,), 0),
    (list_while, (np.array([1.0, 2.0, 3.0, 4.0]),), 0),
    (list_for, (np.array([1.0, 2.0, 3.0, 4.0]),), 0),
    (float_or_pair, (4.5,), 0),
    (cap_param, (33.0, 42.0), (0, 1)),
    (cap_param, (44.0, 42.0), (0, 1)),
    (local_called_twice, (4.2, 3.3), (0, 1)),
    (polymorphic_helper, (1.3, 2.1), (0, 1)),
    (counted_while, (5, 0.3), (1,)),
    (is_none_default, (1.3,), 0),
]


def _case_id(case):
    return f"{case[0].__name__}-{'-'.join(str(a) for a in case[1] if np.ndim(a) == 0)}"


@pytest.mark.parametrize("fn, args, wrt", SCALAR_CASES, ids=[_case_id(c) for c in SCALAR_CASES])
def test_myia_scalar_styles(fn, args, wrt, jit):
    check_grad(fn, args, wrt=wrt, jit=jit)


@pytest.mark.parametrize("fn, args, wrt", [
    (shadowing, (3.0, 4.0, 5.0), (0, 1, 2)),
    (if_two, (6.4, -7.8), (0, 1)),
    (while_countdown, (4.0, 5.0, 2.0), (0, 1, 2)),
    (nested_whiles, (2.0,), 0),
    (tuple_output, (3.0, 4.0), (0, 1)),
    (calls_factorial, (3.7,), 0),
    (power_by_halving, (1.3, 5), 0),
], ids=["shadowing", "if", "while", "nested-whiles", "tuple-output", "factorial", "power"])
def test_myia_scalar_styles_forward(fn, args, wrt, jit):
    check_jvp(fn, args, wrt=wrt, jit=jit)


# ---- myia: arrays -----------------------------------------------------------------------

MA = np.arange(1, 7, dtype=float).reshape(2, 3) / 3.0
MB = np.arange(2, 8, dtype=float).reshape(2, 3) / 2.0


def array_divide(xs, ys):
    div = xs / ys
    return np.sum(div)


def filled_then_divided(x, y):
    xs = np.full((4, 3), x)
    ys = np.full((4, 3), y)
    return np.sum(xs / ys)


def reshape_then_divide(xs, ys):
    xs = np.reshape(xs, (6,))
    ys = np.reshape(ys, (6,))
    return np.sum(xs / ys)


def dot_sum(x, y):
    d = np.dot(x, y)
    return np.sum(d)


def transpose_dot(x, y):
    xt = np.transpose(x, (1, 0))
    yt = np.transpose(y, (1, 0))
    return np.sum(np.dot(xt, yt))


def transpose_by_int_args(x, y, axis1, axis2):
    perm = (axis1, axis2)
    xt = np.transpose(x, perm)
    yt = np.transpose(y, perm)
    return np.sum(np.dot(xt, yt))


@pytest.mark.parametrize("fn, args", [
    (array_divide, (MA, MB)),
    (filled_then_divided, (3.1, 7.6)),
    (reshape_then_divide, (MA, MB)),
    (dot_sum, (MA, MB.T.copy())),
    (transpose_dot, (rng.randn(3, 4), rng.randn(2, 3))),
    (transpose_by_int_args, (rng.randn(3, 4), rng.randn(2, 3), 1, 0)),
], ids=["divide", "full", "reshape", "dot", "transpose", "transpose-int-args"])
@pytest.mark.filterwarnings("ignore::numba.NumbaPerformanceWarning")
def test_myia_array_styles(fn, args, jit):
    check_grad(fn, args, wrt=(0, 1), jit=jit)


# ---- myia: derivatives of derivatives -----------------------------------------------------

def fourth_power(x):
    return x * x * x * x


def branch_on_x(x, y, z):
    if x < 0:
        return y * z
    else:
        return y + z


@pytest.mark.parametrize("fn, args, wrt", [
    (fourth_power, (3.0,), 0),
    (nested_whiles, (1.3,), 0),
    (branch_on_x, (-7.0, 3.0, 1.5), 1),
    (branch_on_x, (4.0, 5.0, 2.0), 1),
    (while_countdown, (4.0, 5.0, 2.0), 1),
    (recursive_factorial, (4.1,), 0),
], ids=["power", "whiles", "if-neg", "if-pos", "while", "recursion"])
def test_myia_grad_of_grad(fn, args, wrt, jit):
    # myia's grad2 tests differentiate the gradient again: here w.r.t. every
    # float argument, against finite differences of the first gradient
    first = s2sad.grad(fn, wrt=wrt, jit=jit)
    floats = tuple(i for i, a in enumerate(args) if isinstance(a, float))
    for i in floats:
        got = s2sad.grad(first, wrt=i, jit=jit)(*args)
        expected = numerical_grad(s2sad.grad(fn, wrt=wrt, jit=False), args, i)
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


# ---- myia: styles s2sad refuses, with the file and line ---------------------------------

def apply_keeps_its_function(x):
    def apply(g, u):
        h = g
        return h(u)

    def sq(u):
        return u * u
    return apply(sq, x)


def callee_parameter_hides_the_function(x):
    def apply(g, sq):
        return g(sq)

    def sq(u):
        return u * u * 3.0
    return apply(sq, x)


def callee_default_from_a_variable(x):
    k = x * 2.0

    def apply(g, u, scale=k):
        return g(u) * scale

    def sq(u):
        return u * u
    k = 5.0
    return apply(sq, x)


def returned_closure(a):
    def outer(b):
        def inner(c):
            return b
        return inner
    fn = outer(a)
    return fn(1.0)


def chosen_closure(x):
    a = x * x

    def f():
        b = x + 5

        def g():
            return a + b

        def h():
            return a * b
        return g if x < 0 else h
    return f()()


def operators_in_a_tuple(x, y):
    tup = operator.add, operator.mul
    f, g = tup
    return f(x, y) + g(x, y)


def closures_in_a_tuple(x, y):
    def f():
        return x * y

    def g():
        return x + y
    tup = f, g
    ff, gg = tup
    return ff() + gg()


def choose_function(c, x, y):
    def f1(x, y):
        return x + y

    def f2(x, y):
        return x * y

    def choose(c):
        if c:
            return f1
        else:
            return f2
    return choose(c)(x, y) + choose(not c)(x, y)


def function_by_branch(c, x, y):
    def dee(y):
        return y * y

    def doo(y):
        return y + y
    if c:
        f = dee
    else:
        f = doo
    return f(x) * f(y)


def closure_factory(x, y):
    def construct(z):
        def inner(w):
            return z + w
        return inner
    return construct(x + x)(x) * construct(y + y)(y)


def partial_of_local(x, y):
    def f(a, b):
        return a * b
    return functools.partial(f, x)(y)


def dunder_method(x, y):
    return x.__add__(y) * x.__mul__(y)


@pytest.mark.parametrize("fn, args, error, match", [
    (operators_in_a_tuple, (4.5, 6.7), LookupError, "'f \\(a local variable\\)'"),
    (closures_in_a_tuple, (4.5, 6.7), s2sad.UnsupportedSyntaxError, "nested function 'f'"),
    (choose_function, (True, 4.2, 3.3), s2sad.UnsupportedSyntaxError, "nested function 'f1'"),
    (function_by_branch, (True, 4.2, 3.3), s2sad.UnsupportedSyntaxError,
     "nested function 'dee'"),
    (partial_of_local, (1.3, 2.1), s2sad.UnsupportedSyntaxError, "nested function 'f'"),
    (dunder_method, (1.3, 2.1), LookupError, "x.__add__"),
    (apply_keeps_its_function, (1.3,), s2sad.UnsupportedSyntaxError, "nested function 'sq'"),
    (callee_parameter_hides_the_function, (1.3,), s2sad.UnsupportedSyntaxError,
     "binding 'sq'"),
    (callee_default_from_a_variable, (1.3,), s2sad.UnsupportedSyntaxError,
     "nested function 'sq'"),
], ids=["operators-in-tuple", "closures-in-tuple",
        "returned-function", "function-by-branch", "partial-of-local",
        "dunder-method", "function-stored-by-callee", "parameter-hides-function",
        "default-of-callee"])
def test_myia_styles_refused_with_the_line(fn, args, error, match):
    floats = tuple(i for i, a in enumerate(args) if isinstance(a, float))
    with pytest.raises(error, match=match) as info:
        s2sad.grad(fn, wrt=floats, jit=False)(*args)
    assert f"{HERE}:" in str(info.value) or "test_myia_jax_styles.py" in str(info.value)


@pytest.mark.parametrize("fn, args, wrt", [
    (closure_factory, (1.3, 2.1), (0, 1)),
    (chosen_closure, (4.5,), 0),
    (chosen_closure, (-4.5,), 0),
    (returned_closure, (4.0,), 0),
], ids=["closure-factory", "chosen-closure", "chosen-closure-other-branch", "returned-closure"])
def test_myia_function_made_and_called_at_once(fn, args, wrt, jit):
    """`construct(x)(y)`, `f()()`, `fn = outer(a); fn(1.0)`: the function a
    call makes, called where it is made (transforms/frontend/functions/
    returned_functions.py, made_function_names.py)."""
    check_grad(fn, args, wrt=wrt, jit=jit)


# ---- JAX: argnums, keyword flags, value_and_grad ------------------------------------------

def weighted_with_flag(x, y, z, flag=False):
    assert flag
    return 1.0 * x + 2.0 * y + 3.0 * z


def test_jax_argnums_with_a_keyword_flag(jit):
    f = weighted_with_flag
    assert s2sad.grad(f, jit=jit)(1.0, 1.0, 1.0, flag=True) == 1.0
    assert s2sad.grad(f, wrt=1, jit=jit)(1.0, 1.0, 1.0, flag=True) == 2.0
    assert s2sad.grad(f, wrt=(2, 0), jit=jit)(1.0, 1.0, 1.0, flag=True) == (3.0, 1.0)
    y = f(1.0, 1.0, 1.0, flag=True)
    assert s2sad.value_and_grad(f, jit=jit)(1.0, 1.0, 1.0, flag=True) == (y, 1.0)
    assert s2sad.value_and_grad(f, wrt=1, jit=jit)(1.0, 1.0, 1.0, flag=True) == (y, 2.0)
    assert (s2sad.value_and_grad(f, wrt=(2, 0), jit=jit)(1.0, 1.0, 1.0, flag=True)
            == (y, (3.0, 1.0)))


def test_jax_the_flag_is_checked_by_the_derivative_too():
    with pytest.raises(AssertionError):
        s2sad.grad(weighted_with_flag, jit=False)(1.0, 1.0, 1.0)


def switch_on_bool_value(x):
    y = x > 0
    if y:
        return x
    else:
        return -x


@pytest.mark.parametrize("x", [1.0, -1.0])
def test_jax_branch_on_a_stored_comparison(x, jit):
    assert s2sad.grad(switch_on_bool_value, jit=jit)(x) == np.sign(x)


def item_condition(x):
    if x.astype(bool).item():
        return x ** 2
    else:
        return x


def flag_select(x, flag):
    return x if flag else np.zeros_like(x)


def test_jax_python_values_of_arrays():
    # as Python only: numba types a 0-d array argument as a number (no
    # .astype), and cannot unify a float with np.zeros_like's 0-d array; both
    # fall back to Python with s2sad.NumbaFallbackWarning when compiled
    assert s2sad.grad(item_condition, jit=False)(np.array(2.0)) == 4.0
    assert s2sad.grad(item_condition, jit=False)(np.array(0.0)) == 1.0
    assert s2sad.grad(flag_select, jit=False)(1.0, False) == 0.0
    assert s2sad.grad(flag_select, jit=False)(1.0, True) == 1.0


# ---- JAX: jacobians, hessians, nested derivatives ----------------------------------------

A = rng.randn(4, 3)
B = rng.randn(4, 4)


def linear_map(x):
    return np.dot(A, x)


def tanh_linear(x):
    return np.tanh(np.dot(A, x))


def quadratic(x):
    return np.dot(x, np.dot(B, x))


def quad(x):
    return np.dot(x, x)


def quad_sum(x, u):
    return quad(x) + quad(u)


def pair_output(x, y):
    return (x, y)


def slice_of_tuple(x):
    return x[:2]


@pytest.mark.parametrize("mode", ["fwd", "rev"])
def test_jax_jacobian_and_hessian(mode, jit):
    x = rng.randn(3)
    np.testing.assert_allclose(s2sad.jacobian(linear_map, mode=mode, jit=jit)(x), A)
    t = np.tanh(A @ x)
    np.testing.assert_allclose(s2sad.jacobian(tanh_linear, mode=mode, jit=jit)(x),
                               (1 - t ** 2)[:, None] * A)
    if mode == "rev":
        np.testing.assert_allclose(s2sad.hessian(quadratic, jit=jit)(rng.randn(4)), B + B.T)


@pytest.mark.parametrize("mode", ["fwd", "rev"])
def test_jax_jacobian_of_a_gradient_between_arguments(mode, jit):
    # jacrev(jacfwd(f, 0), 1) and the like (JAX issue 1372), as a jacobian of grad
    x, u = rng.randn(5), rng.randn(2)
    zero = s2sad.jacobian(s2sad.grad(quad_sum, wrt=0, jit=jit), wrt=1, mode=mode,
                          jit=jit)(x, u)
    assert zero.shape == (5, 2) and not zero.any()
    np.testing.assert_allclose(
        s2sad.jacobian(s2sad.grad(quad_sum, wrt=0, jit=jit), wrt=0, mode=mode, jit=jit)(x, u),
        2 * np.eye(5))
    np.testing.assert_allclose(s2sad.hessian(quad_sum, wrt=1, jit=jit)(x, u), 2 * np.eye(2))


def test_jax_jacobian_of_a_tuple_output(jit):
    # as jax.jacrev: a tuple, one jacobian per element of the output
    jac = functools.partial(s2sad.jacobian, jit=jit)
    assert jac(pair_output)(0.0, 1.0) == (1.0, 0.0)
    assert jac(pair_output, wrt=1)(0.0, 1.0) == (0.0, 1.0)
    # a tuple of numbers is an array
    np.testing.assert_array_equal(jac(slice_of_tuple)((1.0, 2.0, 3.0)),
                                  [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])


def ragged_outputs(x, y):
    return (np.sin(x) * y[0], np.outer(x, y), np.sum(x * x))


@pytest.mark.parametrize("mode", ["fwd", "rev", "auto"])
def test_jacobian_of_a_tuple_output_of_different_shapes(mode, jit):
    # (shapes (2,), (2, 3) and (): a tuple of jacobians, each output shape + x's)
    x, y = np.array([0.4, -1.3]), np.array([0.7, 2.0, -0.5])
    jx, jy = s2sad.jacobian(ragged_outputs, wrt=(0, 1), mode=mode, jit=jit)(x, y)
    assert [j.shape for j in jx] == [(2, 2), (2, 3, 2), (2,)]
    assert [j.shape for j in jy] == [(2, 3), (2, 3, 3), (3,)]
    np.testing.assert_allclose(jx[0], np.diag(np.cos(x) * y[0]))
    np.testing.assert_allclose(jy[0], np.outer(np.sin(x), [1.0, 0.0, 0.0]))
    np.testing.assert_allclose(jx[1], np.einsum("ik,j->ijk", np.eye(2), y))
    np.testing.assert_allclose(jy[1], np.einsum("i,jk->ijk", x, np.eye(3)))
    np.testing.assert_allclose(jx[2], 2 * x)
    np.testing.assert_array_equal(jy[2], 0.0)


def two_outputs(x, y):
    return (np.sin(x), x * y[0])


@pytest.mark.parametrize("mode", ["fwd", "rev"])
def test_jax_jacobian_with_a_tuple_of_arguments(mode):
    # as jax.jacrev(f, argnums=(0, 1)): a tuple, one jacobian per argument
    np.testing.assert_array_equal(
        s2sad.jacobian(pair_output, wrt=(0, 1), mode=mode, jit=False)(0.0, 1.0),
        ([1.0, 0.0], [0.0, 1.0]))
    x, y = np.array([1.0, 2.0]), np.array([3.0, 4.0, 5.0])
    jx, jy = s2sad.jacobian(two_outputs, wrt=(0, "y"), mode=mode, jit=False)(x, y)
    # (per argument, a tuple per output: ((dsin/dx, dprod/dx), (dsin/dy, dprod/dy)))
    assert [j.shape for j in jx] == [(2, 2), (2, 2)] and [j.shape for j in jy] == [(2, 3)] * 2
    np.testing.assert_allclose(jx[0], np.diag(np.cos(x)))
    np.testing.assert_allclose(jx[1], np.diag([3.0, 3.0]))
    np.testing.assert_array_equal(jy[0], 0.0)
    np.testing.assert_array_equal(jy[1][:, 0], x)
    np.testing.assert_array_equal(jy[1][:, 1:], 0.0)


def sin3(x):
    return np.sin(np.sin(np.sin(x)))


def sin_cos(x, y):
    return np.sin(x) * np.cos(y) * np.sin(x) * np.cos(y)


@pytest.mark.parametrize("fn, args, wrt", [
    (sin3, (3.0,), 0),
    (sin3, (np.array([2.0, 3.0, 4.0]),), 0),
    (sin_cos, (3.0, 4.0), (0, 1)),
    (sin_cos, (np.array([5.0, 6.0]), np.array([7.0, 8.0])), (0, 1)),
], ids=["sin3", "sin3-array", "sin-cos", "sin-cos-array"])
def test_jax_compositions(fn, args, wrt, jit):
    check_grad(fn, args, wrt=wrt, jit=jit)


def test_jax_third_derivative(jit):
    # sin(sin(sin(x))) = x - x^3 / 2 + O(x^5)
    d3 = s2sad.grad(s2sad.grad(s2sad.grad(sin3, jit=jit), jit=jit), jit=jit)
    assert np.isclose(d3(0.0), -3.0)
    assert np.isclose(s2sad.grad(s2sad.grad(np.sin, jit=jit), jit=jit)(2.0), -np.sin(2.0))


def inner_called_twice(x):
    def inner(y):
        return y * x
    res1 = inner(4.)
    res2 = inner(5.)
    return res1 + res2


def closure_over_argument(x):
    def g(y):
        return x * y
    return g(x)


def test_jax_closures(jit):
    assert s2sad.jvp(inner_called_twice, jit=jit)(5.0, 1.0) == (45.0, 9.0)
    assert s2sad.grad(inner_called_twice, jit=jit)(5.0) == 9.0
    assert s2sad.grad(closure_over_argument, jit=jit)(1.0) == 2.0


# ---- JAX: pytrees as arguments ----------------------------------------------------------

Point = collections.namedtuple("Point", ["x", "y"])


class TypedPoint(NamedTuple):
    x: float
    y: float


def point_norm(pt):
    return np.sqrt(pt.x ** 2 + pt.y ** 2)


def unpack_pair(x, y):
    a, b = x
    return np.sum(a + b + y)


def index_pair(x, y):
    return np.sum(x[0] + x[1] + y)


def dict_of_parameters(p, x):
    return np.sum(np.tanh(p["w"] * x + p["b"]))


def list_of_weights(ws, x):
    out = x
    for w in ws:
        out = np.tanh(w * out)
    return np.sum(out)


PAIR = (np.array([0.5, 1.5]), np.array([-0.3, 2.0]))


@pytest.mark.parametrize("fn, args", [
    (point_norm, (Point(1.0, 2.0),)),
    (point_norm, (TypedPoint(1.0, 2.0),)),
    (unpack_pair, (PAIR, 3.0)),
    (index_pair, (PAIR, 3.0)),
    (dict_of_parameters, ({"w": np.array([0.5, -1.0]), "b": 0.3}, np.array([1.0, 2.0]))),
    (list_of_weights, ([0.5, np.array([1.0, -2.0])], np.array([1.0, 2.0]))),
], ids=["namedtuple", "typed-namedtuple", "unpack", "index", "dict", "list"])
def test_jax_pytree_arguments(fn, args, jit):
    got = check_tree_grad(fn, args, jit=jit)
    assert type(got) is type(args[0])
    if len(args) > 1:
        check_grad(fn, args, wrt=1, jit=jit)


# myia's aliasing tests: one array passed as several leaves

class Point3D(NamedTuple):
    x: np.ndarray
    y: np.ndarray
    z: np.ndarray


def nested_tuple_sum(x, y):
    a, b, (c, d) = x
    return sum(a + b + c + d + y)


def dict_and_point_sum(x, y):
    a = x["a"]
    pt = x["b"]
    return sum(a + pt.x + pt.y + pt.z + y)


def writes_into_a_leaf(x, y):
    a, b = x
    a[0, 0] = a[0, 0] * 3.0
    return np.sum(a * b * y)


def test_myia_one_array_as_several_leaves(jit):
    # each leaf has its own gradient, as in JAX, whatever the objects
    o = np.ones((1, 3))
    a, b, c = o * 3, o * 4, o * 5
    g = s2sad.grad(nested_tuple_sum, jit=jit)((a, a, (a, a)), a)
    assert all(np.array_equal(leaf, o) for leaf in (g[0], g[1], g[2][0], g[2][1]))
    np.testing.assert_array_equal(s2sad.grad(nested_tuple_sum, wrt=1, jit=jit)(
        (a, a, (a, a)), a), o)
    g = s2sad.grad(dict_and_point_sum, jit=jit)({"a": a, "b": Point3D(b, a, c)}, a)
    assert isinstance(g["b"], Point3D)
    assert all(np.array_equal(leaf, o) for leaf in (g["a"], *g["b"]))


def test_writing_into_an_array_passed_twice_is_refused(jit):
    # Python's writes reach the other leaf; the derivative's copy would not
    m = np.array([[0.5, 1.5], [2.0, -1.0]])
    with pytest.raises(ValueError, match="writes into 'x\\[0\\]', and 'x\\[1\\]' is the same"):
        s2sad.grad(writes_into_a_leaf, jit=jit)((m, m), 0.7)
    with pytest.raises(ValueError, match="shares its memory"):
        s2sad.grad(writes_into_a_leaf, jit=jit)((m, m[0]), 0.7)
    got = s2sad.grad(writes_into_a_leaf, jit=jit)((m, m.copy()), 0.7)
    expected = (m * 0.7 * np.array([[3.0, 1.0], [1.0, 1.0]]),
                m * 0.7 * np.array([[3.0, 1.0], [1.0, 1.0]]))
    np.testing.assert_allclose(got[0], expected[0])
    np.testing.assert_allclose(got[1], expected[1])


@dataclasses.dataclass
class DataPoint:
    x: float
    y: float


def dataclass_product(pt):
    return pt.x * pt.y


def test_myia_dataclass_argument():
    # myia differentiates dataclasses, and so does s2sad (a container like a
    # NamedTuple): the gradient is a DataPoint
    g = s2sad.grad(dataclass_product, jit=False)(DataPoint(3.0, 5.0))
    assert g == DataPoint(5.0, 3.0)


def test_myia_union_of_float_and_pair():
    # a tuple of numbers is an array: its gradient is one
    assert s2sad.grad(float_or_pair, jit=False)(4.5) == 3 * 4.5 ** 2
    np.testing.assert_array_equal(s2sad.grad(float_or_pair, jit=False)((5.5, 1.3)), [1.3, 5.5])


class ZeroPoint(Point):
    def is_zero(self):
        return (self.x == 0) and (self.y == 0)


def point_norm_or_zero(pt):
    return 0. if pt.is_zero() else np.sqrt(pt.x ** 2 + pt.y ** 2)


def test_jax_method_of_a_namedtuple_subclass_is_refused():
    with pytest.raises(TypeError, match="pt.is_zero") as info:
        s2sad.grad(point_norm_or_zero, jit=False)(ZeroPoint(1.0, 2.0))
    assert "test_myia_jax_styles.py" in str(info.value)


# ---- JAX: what grad returns for other outputs and inputs -----------------------------------

def test_jax_output_and_input_conventions(jit):
    # JAX raises for a non-scalar or tuple output; s2sad sums it (tf.gradients)
    np.testing.assert_array_equal(s2sad.grad(lambda x: x, jit=jit)(np.zeros(3)), np.ones(3))
    assert s2sad.grad(lambda x: (x, x), jit=jit)(1.0) == 2.0
    with pytest.raises(TypeError, match="argument 'x' is int"):
        s2sad.grad(lambda x: x * 2, jit=jit)(3)


# ---- JAX: custom gradients --------------------------------------------------------------

@s2sad.custom_gradient
def square_with_halved_gradient(x):
    return x ** 2, lambda g: (g * x,)


@s2sad.custom_gradient
def scaled_sine(x):
    backward = lambda g: (g * np.cos(x) * 2.0,)  # noqa: E731
    return np.sin(x) * 2.0, backward


@s2sad.custom_gradient
def cube_with_gradient_tuple_in_a_variable(x):
    def backward(g):
        grads = (g * 3.0 * x * x,)
        return grads
    return x ** 3, backward


def uses_custom(x):
    return (np.sum(np.sin(square_with_halved_gradient(x))) + np.sum(scaled_sine(x))
            + np.sum(cube_with_gradient_tuple_in_a_variable(x)))


def sin_of_product(x, y):
    return np.sin(x * y)


def sin_of_product_fwd(x, y):
    return np.sin(x * y), (x, y)


def sin_of_product_bwd(res, g):
    x, y = res
    return (g * x * y, g * np.cos(x * y) * x)  # the first is deliberately not the derivative


sin_of_product = s2sad.custom_vjp(sin_of_product)
sin_of_product.defvjp(sin_of_product_fwd, sin_of_product_bwd)


def test_jax_custom_gradient_with_a_lambda(jit):
    # JAX's style: the backward is a lambda returning a tuple, one per input
    assert s2sad.grad(square_with_halved_gradient, jit=jit)(3.0) == 3.0
    v = np.array([0.3, -0.8, 1.1])
    got = s2sad.grad(uses_custom, jit=jit)(v)
    assert isinstance(got, np.ndarray) and got.shape == v.shape  # not a 1-tuple
    np.testing.assert_allclose(got, np.cos(v ** 2) * v + 2.0 * np.cos(v) + 3.0 * v ** 2)


def test_jax_grad_of_a_custom_vjp_function_itself(jit):
    value, (dx, dy) = s2sad.value_and_grad(sin_of_product, wrt=(0, 1), jit=jit)(3.0, 4.0)
    assert np.isclose(value, np.sin(12.0))
    assert np.isclose(dx, 12.0) and np.isclose(dy, np.cos(12.0) * 3.0)


def test_custom_gradient_with_another_lambda_is_refused():
    @s2sad.custom_gradient
    def two_lambdas(x):
        return (lambda u: u * 2.0)(x), lambda g: (g * 2.0,)

    def uses(x):
        return two_lambdas(x)

    with pytest.raises(s2sad.UnsupportedSyntaxError, match="a lambda in a custom gradient"):
        s2sad.grad(uses, jit=False)(1.0)


# ---- compiled: a sample of the styles above (every case with S2SAD_FULL=1) --------------

@pytest.mark.skipif(FULL, reason="S2SAD_FULL=1 compiles every case above")
@pytest.mark.parametrize("fn, args, wrt", [
    (while_countdown, (4.0, 5.0, 2.0), (0, 1, 2)),
    (recursive_factorial, (4.1,), 0),
    (calls_sum_of_squares, (0.7,), 0),
    (higher_order, (4.0, 5.0), (0, 1)),
    (list_for, (np.array([1.0, 2.0, 3.0, 4.0]),), 0),
], ids=["while", "nested-recursion", "recursion-int-base", "nested-passed", "list-for"])
def test_compiled_sample(fn, args, wrt):
    check_grad(fn, args, wrt=wrt, jit=True)


@pytest.mark.skipif(FULL, reason="S2SAD_FULL=1 compiles every case above")
def test_compiled_sample_pytree_custom_and_refusal():
    test_jax_custom_gradient_with_a_lambda(True)
    check_tree_grad(dict_of_parameters, ({"w": np.array([0.5, -1.0]), "b": 0.3},
                                         np.array([1.0, 2.0])), jit=True)
    m = np.array([[0.5, 1.5], [2.0, -1.0]])
    with pytest.raises(ValueError, match="is the same array"):
        s2sad.grad(writes_into_a_leaf, jit=True)((m, m), 0.7)
