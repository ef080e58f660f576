"""Functions as people define them (issue #19, item 1): lambdas, nested
defs and lambdas closing over the differentiated function's variables,
functools.partial, numpy functions passed directly, and assert."""
import functools
import re
from functools import partial

import numpy as np
import pytest

import s2sad
from gradcheck import check_grad, check_jvp, numerical_grad

X = np.array([0.3, -0.7, 1.1, 0.5])
W = np.array([[0.2, -0.1, 0.4, 0.3], [0.5, 0.1, -0.3, 0.2]])


# ---- lambdas given to s2sad ---------------------------------------------------

def test_inline_lambda(jit):
    g = s2sad.grad(lambda x: np.sum(np.sin(x)), jit=jit)
    np.testing.assert_allclose(g(X), np.cos(X))


def test_lambdas_on_one_line_are_told_apart_by_column(jit):
    first, second = s2sad.grad(lambda x: x * 2.0, jit=jit), s2sad.grad(lambda x: x ** 3, jit=jit)
    assert first(2.0) == 2.0
    assert second(2.0) == pytest.approx(12.0)
    same_params = [lambda x: np.sum(x * x), lambda x: np.sum(np.exp(x))]
    np.testing.assert_allclose(s2sad.grad(same_params[1], jit=jit)(X), np.exp(X))
    np.testing.assert_allclose(s2sad.grad(same_params[0], jit=jit)(X), 2 * X)


def test_constant_lambdas_on_one_line():
    pair = (lambda x: 1.0, lambda x: 2.0)
    assert s2sad.value_and_grad(pair[1], jit=False)(0.5) == (2.0, 0.0)
    assert s2sad.value_and_grad(pair[0], jit=False)(0.5) == (1.0, 0.0)


def test_lambda_whose_file_changed_is_refused(monkeypatch):
    import linecache
    h = lambda x: x * 5.0  # noqa: E731
    name = h.__code__.co_filename
    lines = linecache.getlines(name)
    monkeypatch.setitem(linecache.cache, name,
                        (1, None, ["x = 1\n"] * len(lines), name))
    with pytest.raises(s2sad.SourceUnavailableError, match="cannot tell which lambda"):
        s2sad.grad(h, jit=False)(1.0)


def test_lambda_inside_a_lambda_is_not_confused_with_it(jit):
    outer = lambda x: np.sum(x * x) + (lambda y: 3.0 * y)(1.0)  # noqa: E731
    # the inner lambda is called in place: refused, not differentiated as the outer
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="lambda that is not assigned"):
        s2sad.grad(outer, jit=jit)(X)


def test_lambda_assigned_to_a_name_and_several_arguments(jit):
    loss = lambda W, x: np.sum(np.tanh(W @ x) ** 2)  # noqa: E731
    check_grad(loss, (W, X), wrt=(0, 1), jit=jit)
    check_jvp(loss, (W, X), wrt=1, jit=jit)


def test_hessian_of_a_lambda(jit):
    h = s2sad.hessian(lambda x: np.sum(x ** 3) + x[0] * x[1], jit=jit)(X)
    expected = np.diag(6 * X)
    expected[0, 1] = expected[1, 0] = 1.0
    np.testing.assert_allclose(h, expected, atol=1e-8)


def test_lambda_closing_over_a_local_of_its_maker(jit):
    def make(scale):
        return s2sad.grad(lambda x: scale * np.sum(x * x), jit=jit)
    np.testing.assert_allclose(make(3.0)(X), 6 * X)


def test_lambda_without_source_is_refused():
    made = eval("lambda x: x * x")
    with pytest.raises(s2sad.SourceUnavailableError, match="notebook cell"):
        s2sad.grad(made)(1.0)


def test_lambda_in_a_notebook_cell(jit):
    # IPython registers each cell's source in linecache under its own name
    import linecache
    cell = "import numpy as np\ncell_fn = lambda x: np.sum(np.cos(x)) * 2.0\n"
    filename = "<ipython-input-7-0123456789ab>"
    linecache.cache[filename] = (len(cell), None, cell.splitlines(True), filename)
    namespace = {}
    exec(compile(cell, filename, "exec"), namespace)
    np.testing.assert_allclose(s2sad.grad(namespace["cell_fn"], jit=jit)(X), -2 * np.sin(X))


# ---- nested functions inside a differentiated function -----------------------

def nested_in_loop(x, w):
    def sq(u):
        return (u * w) ** 2
    s = 0.0
    for i in range(x.shape[0]):
        s += sq(x[i])
    return s


def closure_over_loop_variable(x):
    total = 0.0
    for i in range(x.shape[0]):
        scale = 1.0 + i
        term = lambda u: np.sin(u) * scale  # noqa: E731
        total += term(x[i])
    return total


def closure_over_local_and_keyword_call(x, w):
    shift = np.sum(x) * 0.5

    def energy(u, power=2.0):
        return (u - shift) ** 2 * power * w
    return energy(x[0]) + energy(power=3.0, u=x[1]) + np.sum(energy(x))


def late_binding(x):
    c = 2.0
    f = lambda u: u * c  # noqa: E731
    first = f(x)
    c = np.sin(x)  # Python reads c when f is called
    return first + f(x)


def nested_calling_nested(x, w):
    def inner(u):
        return np.tanh(u * w)

    def outer(u):
        return inner(u) * inner(2.0 * u) + u
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0.0:
            s += outer(x[i])
        else:
            s -= inner(x[i])
    return s


def default_captures_early(x):
    total = 0.0
    for i in range(3):
        f = lambda u, k=i * 1.5: u * k  # noqa: E731
        total += f(x[i])
    return total


def helper_with_nested(x):
    def cube(u):
        return u * u * u
    return cube(x) + x


def calls_helper_with_nested(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += helper_with_nested(x[i])
    return s


def nested_array_function(W, x):
    def layer(v):
        return np.tanh(W @ v)
    return np.sum(layer(x) ** 2)


def nested_while(x):
    def step(v):
        return v * 0.5 + np.sin(v)
    v = x
    k = 0
    while np.sum(v * v) > 0.1 and k < 20:
        v = step(v)
        k += 1
    return np.sum(v)


def doc_and_loop(x, w):
    def body(v):
        """sum of a loop"""
        s = 0.0
        for i in range(v.shape[0]):
            if v[i] > 0.0:
                s += v[i] * w
            else:
                s -= v[i] ** 2
        return s
    return body(x) + body(x * 2.0)

def tuple_return(x):
    def pair(u):
        return u * 2.0, np.sin(u)
    a, b = pair(x[0])
    return a * b + x[1]

def unused(x):
    def never(u):
        return u / 0.0
    return x * 3.0

def bound_after_def(x):
    def f(u):
        return u * c
    c = np.cos(x)
    return f(x)

def in_if(x):
    if x > 0.0:
        def f(u):
            return u * u
        y = f(x)
    else:
        y = x
    return y

def mutated_capture(x):
    b = np.ones(3)
    def f(u):
        return np.sum(b * u)
    b[1] = x * 2.0
    return f(x)

def kwonly(x, w):
    def f(u, *, scale=2.0, shift):
        return u * scale + shift
    return f(x, shift=w) + f(x, scale=w, shift=1.0)

def two_levels(x, w):
    def outer(u):
        def inner(v):
            return v * w
        return inner(u) * inner(2.0 * u)
    return outer(x)

def helper_kw(x, *, p=1.5):
    g = lambda u: u ** 2 * p
    return g(x)

def calls_helper_kw(x):
    return helper_kw(x, p=2.0) + helper_kw(x)


def apply(g, x):
    return g(x)


def apply_sum(x, g, scale=1.0):
    s = 0.0
    for i in range(x.shape[0]):
        s += g(x[i]) * scale
    return s


def passes_a_lambda(x):
    return apply(lambda u: u * u, x) + x


def passes_nested_functions(x, w):
    def sq(u):
        return (u * w) ** 2
    return apply_sum(x, sq) + apply_sum(x, g=sq, scale=2.0) + apply(sq, x[0])


def passes_lambdas_in_a_loop(x):
    t = 0.0
    for i in range(3):
        t += apply(lambda u: np.sin(u) * i, x[i]) + apply_sum(x, lambda u: u * x[i])
    return t


NESTED = [
    (nested_in_loop, (X, 1.3), (0, 1)),
    (closure_over_loop_variable, (X,), 0),
    (closure_over_local_and_keyword_call, (X, 0.7), (0, 1)),
    (late_binding, (0.4,), 0),
    (nested_calling_nested, (X, 0.9), (0, 1)),
    (default_captures_early, (X,), 0),
    (calls_helper_with_nested, (X,), 0),
    (nested_array_function, (W, X), (0, 1)),
    (nested_while, (X,), 0),
    (doc_and_loop, (X, 0.7), (0, 1)),
    (tuple_return, (X,), 0),
    (unused, (0.3,), 0),
    (bound_after_def, (0.3,), 0),
    (in_if, (0.3,), 0),
    (mutated_capture, (0.3,), 0),
    (kwonly, (0.3, 0.8), (0, 1)),
    (two_levels, (0.3, 0.8), (0, 1)),
    (calls_helper_kw, (0.3,), 0),
    (passes_a_lambda, (0.3,), 0),
    (passes_nested_functions, (X, 0.8), (0, 1)),
    (passes_lambdas_in_a_loop, (X,), 0),
]


@pytest.mark.parametrize("fn,args,wrt", NESTED, ids=[f.__name__ for f, _, _ in NESTED])
def test_nested_functions_reverse(fn, args, wrt, jit):
    check_grad(fn, args, wrt=wrt, jit=jit)


@pytest.mark.parametrize("fn,args,wrt", NESTED, ids=[f.__name__ for f, _, _ in NESTED])
def test_nested_functions_forward(fn, args, wrt, jit):
    check_jvp(fn, args, wrt=wrt if isinstance(wrt, int) else wrt[0], jit=jit)


def test_late_binding_reads_the_value_at_the_call():
    # if the capture were read at the def, the gradient would be 4.0
    assert s2sad.grad(late_binding, jit=False)(0.4) == pytest.approx(
        2.0 + np.sin(0.4) + 0.4 * np.cos(0.4))


def test_hessian_through_nested_functions(jit):
    h = s2sad.hessian(nested_in_loop, jit=jit)(X, 1.3)
    np.testing.assert_allclose(h, 2 * 1.3 ** 2 * np.eye(4), atol=1e-8)
    f = lambda x: nested_calling_nested(x, 0.9)  # noqa: E731
    h = s2sad.hessian(f, jit=jit)(X)
    g = s2sad.grad(f, jit=False)
    numeric = np.stack([numerical_grad(lambda v: g(v)[k], (X,), 0) for k in range(4)])
    np.testing.assert_allclose(h, numeric, rtol=1e-4, atol=1e-6)


def test_helper_specialised_for_the_function_passed():
    source = s2sad.grad(passes_nested_functions, wrt=(0, 1), jit=False).source_for(X, 0.8)
    # (the lifted `sq` is `passes_nested_functions_sq` when another test lifted an `sq` first:
    # lifted names are unique in a process, so two never meet in one module)
    sq = re.search(r"def (\w*sq)\(u, w\):", source).group(1)
    assert f"def apply_sum_{sq}(x, scale, {sq}_w):" in source
    assert f"def apply_{sq}(x, {sq}_w):" in source
    assert f"s += {sq}(x[i], {sq}_w) * scale" in source
    assert source.count(f"def apply_sum_{sq}(") == 1  # both calls share one
    h = s2sad.hessian(passes_a_lambda, jit=False)(0.3)
    assert h == pytest.approx(2.0)


def test_lifted_helper_reads_like_hand_written_code():
    source = s2sad.grad(nested_in_loop, wrt=(0, 1), jit=False).source_for(X, 1.3)
    sq = re.search(r"def (\w*sq)\(u, w\):", source).group(1)
    assert sq in ("sq", "nested_in_loop_sq") and f"def vjp_{sq}(u, w, " in source
    assert f"{sq}(x[i], w)" in source


def returns_nested(x):
    def f(u):
        return u * x
    return f


def passes_nested(x):
    def f(u):
        return u * x
    return np.sum(np.apply_along_axis(f, 0, x))


def calls_before_def(x):
    y = f(x)

    def f(u):
        return u * 2.0
    return y


def calls_outside_the_block(x):
    if x > 0.0:
        def f(u):
            return u * 2.0
    return f(x)


def apply_twice(g, x):
    return apply(g, x)


def passes_a_lambda_on(x):
    return apply_twice(lambda u: u * u, x)


def sorts_by_a_lambda(x):
    return sorted([x, 2.0 * x], key=lambda y: -y)[0]


def recursive_nested(x):
    def f(u, n):
        return u if n == 0 else f(u * 2.0, n - 1)
    return f(x, 2)


def mutually_recursive_nested(x):
    def f(u, n):
        return u if n == 0 else g(u * 2.0, n - 1)

    def g(u, n):
        return f(u + 1.0, n)
    return f(x, 2)


def writes_captured_array(x):
    y = x.copy()

    def f(u):
        y[0] = u
        return u
    f(x[1])
    return np.sum(y)


def rebinds_nested_name(x):
    def f(u):
        return u * 2.0
    f = 3.0
    return x * f


def passes_to_a_nested_apply(x):
    def apply(g, u):  # not the module's apply: never specialised as if it were
        return g(u) * 100.0

    def sq(u):
        return u * u
    return apply(sq, x)


REFUSED = [
    (returns_nested, "other than by calling it"),
    (passes_nested, "other than by calling it"),
    (calls_before_def, "where its def may not have run"),
    (calls_outside_the_block, "where its def may not have run"),
    (passes_a_lambda_on, "apply_twice using its function parameter 'g' other than by calling"),
    (sorts_by_a_lambda, "a lambda that is not assigned to a name"),
    (mutually_recursive_nested, "nested functions calling each other recursively"),
    (rebinds_nested_name, "assigning to 'f'"),
]


def test_nested_function_writing_into_a_captured_array(jit):
    # called as a statement: inlined (inline_nested.py), so the write is y's
    check_grad(writes_captured_array, (X.copy(),), jit=jit)


def test_recursive_nested_function(jit):
    # lifted as a recursive helper calling itself with what it captures
    assert np.isclose(s2sad.grad(recursive_nested, jit=jit)(0.5), 4.0)


def test_nested_function_passed_to_a_nested_function(jit):
    # the nested apply, not the module's (the copy of it for sq: nested_function_args.py)
    assert np.isclose(s2sad.grad(passes_to_a_nested_apply, jit=jit)(0.5), 100.0)


@pytest.mark.parametrize("fn,says", REFUSED, ids=[f.__name__ for f, _ in REFUSED])
def test_nested_functions_refused(fn, says):
    arg = X.copy() if fn is passes_nested else 0.5
    with pytest.raises(s2sad.UnsupportedSyntaxError, match=says) as info:
        s2sad.grad(fn, jit=False)(arg)
    # (a helper misusing the function passed to it is named at its own line)
    line = (apply_twice if fn is passes_a_lambda_on else fn).__code__.co_firstlineno
    reported = int(str(info.value).split(f"{__file__}:")[1].split(",")[0])
    assert line <= reported <= line + 6


# ---- functools.partial ------------------------------------------------------------

def model(W, x, scale=2.0, bias=0.0):
    return np.sum(np.tanh(W @ x + bias) * scale)


def test_partial_positional_array(jit):
    p = partial(model, W)
    check_grad(p, (X,), jit=jit)
    check_jvp(p, (X,), jit=jit)


def test_partial_keywords_and_wrt_counts_remaining_parameters(jit):
    p = partial(model, scale=3.0, bias=0.5)
    g = s2sad.grad(p, wrt=1, jit=jit)(W, X)  # wrt=1 is x, the second remaining parameter
    expected = numerical_grad(lambda x: model(W, x, 3.0, 0.5), (X,), 0)
    np.testing.assert_allclose(g, expected, rtol=1e-5, atol=1e-7)
    gW, gx = s2sad.grad(p, wrt=(0, 1), jit=jit)(W, X)
    np.testing.assert_allclose(gx, expected, rtol=1e-5, atol=1e-7)
    assert gW.shape == W.shape


def test_partial_of_a_partial_and_hessian(jit):
    p = partial(partial(model, W), bias=0.1)
    h = s2sad.hessian(p, jit=jit)(X)
    g = s2sad.grad(p, jit=False)
    numeric = np.stack([numerical_grad(lambda v: g(v)[k], (X,), 0) for k in range(4)])
    np.testing.assert_allclose(h, numeric, rtol=1e-4, atol=1e-6)


def test_partial_negative_wrt_and_bound_values_are_not_parameters(jit):
    p = partial(model, W)  # remaining: x, scale, bias
    g = s2sad.grad(p, wrt=-1, jit=jit)(X)  # bias, never the bound W
    expected = numerical_grad(lambda b: model(W, X, 2.0, b), (0.0,), 0)
    np.testing.assert_allclose(g, expected, rtol=1e-5, atol=1e-7)
    h = s2sad.hessian(partial(model, W, X), wrt=-1, jit=jit)(2.0, 0.3)  # bias
    assert np.shape(h) == ()
    with pytest.raises(TypeError):  # as functools: W is not the partial's to take
        s2sad.grad(p, jit=jit)(X, W=W)
    with pytest.raises(TypeError):
        s2sad.grad(p, jit=jit)(X, 2.0, 0.0, W)
    with pytest.raises(ValueError):
        s2sad.grad(p, wrt=3, jit=jit)


def test_partial_of_a_lambda_and_of_numpy(jit):
    p = partial(lambda a, b: np.sum(a * np.sin(b)), X)
    np.testing.assert_allclose(s2sad.grad(p, jit=jit)(X), X * np.cos(X))
    j = s2sad.jacobian(partial(np.outer, X), jit=jit)(X)
    np.testing.assert_allclose(j, np.einsum("i,jk->ijk", X, np.eye(4)))


# ---- numpy functions passed directly ---------------------------------------------

def test_numpy_functions_jacobian_and_hessian(jit):
    np.testing.assert_allclose(s2sad.grad(np.sin, jit=jit)(0.3), np.cos(0.3))
    j = s2sad.jacobian(np.outer, jit=jit)(X, X[:3])
    np.testing.assert_allclose(j, np.einsum("ik,j->ijk", np.eye(4), X[:3]))
    assert s2sad.hessian(np.sin, jit=jit)(0.3) == pytest.approx(-np.sin(0.3))
    np.testing.assert_allclose(s2sad.jacobian(np.tanh, jit=jit)(X),
                               np.diag(1 - np.tanh(X) ** 2))


# ---- assert ---------------------------------------------------------------------------

def with_asserts(x, w):
    assert x.shape[0] == 4, "x must have 4 elements"
    s = 0.0
    for i in range(x.shape[0]):
        assert w > 0.0
        s += np.sin(x[i] * w)
    return s


def test_assert_runs_in_the_forward_sweep_and_adds_nothing(jit):
    check_grad(with_asserts, (X, 0.8), wrt=(0, 1), jit=jit)
    check_jvp(with_asserts, (X, 0.8), wrt=0, jit=jit)
    with pytest.raises(AssertionError):
        s2sad.grad(with_asserts, jit=jit)(X, -0.8)
    with pytest.raises(AssertionError, match="4 elements"):
        s2sad.grad(with_asserts, jit=jit)(X[:3], 0.8)
    assert "AssertionError" in s2sad.grad(with_asserts, jit=jit).source_for(X, 0.8)


def test_functools_is_the_real_partial():
    assert partial is functools.partial


square_lambda = lambda u: u * u  # noqa: E731


def calls_a_module_level_lambda(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += square_lambda(x[i])
    return s


def test_module_level_lambda_as_a_helper(jit):
    check_grad(calls_a_module_level_lambda, (X,), jit=jit)
