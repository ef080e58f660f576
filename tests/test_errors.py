"""Bad input gets an error of ours naming the file, line and construct."""
import math
import os

import numba
import numpy as np
import pytest

import s2sad

HERE = os.path.basename(__file__)


def with_try(x):
    try:
        y = x * 2.0
    except ZeroDivisionError:
        y = 0.0
    return y


def with_comprehension(x):
    return sum([x * k for k in range(3)])


def with_generator(x):
    yield x


def with_global(x):
    global COUNTER
    return x


def with_class(x):
    class Box:
        pass
    return x


def with_nested_function(x):
    def inner(y):
        return y * y
    return inner(x)


def with_with(x):
    with open("f") as fh:
        pass
    return x


def with_lambda(x):
    g = lambda y: y * y  # noqa: E731
    return g(x)


def with_starred(x):
    return max(*x)


def with_del(x):
    y = x * 2
    del y
    return x


def without_return(x):
    y = x * 2


@pytest.mark.parametrize("fn,construct", [
    (with_try, "a try statement"),
    (with_comprehension, "a list comprehension"),
    (with_generator, "yield"),
    (with_global, "a global statement"),
    (with_class, "a class definition"),
    (with_nested_function, "a nested function definition"),
    (with_with, "a with block"),
    (with_lambda, "a lambda"),
    (with_starred, "star-unpacking"),
    (with_del, "del"),
    (without_return, "a function without a return statement"),
])
def test_unsupported_syntax_names_file_line_and_construct(fn, construct):
    with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
        s2sad.grad(fn, jit=False)(1.0)
    message = str(info.value)
    assert construct in message
    line = fn.__code__.co_firstlineno
    assert f"{HERE}:" in message and f"in {fn.__name__}" in message
    reported = int(message.split(f"{HERE}:")[1].split(",")[0])
    assert line <= reported <= line + 4  # the line of the construct itself


@numba.njit
def opaque_kernel(x):
    return x * 3.0


def calls_opaque(x):
    y = x * x
    return opaque_kernel(y)


def calls_opaque_inactive(x):
    k = opaque_kernel(2.0)
    return x * k


def test_missing_gradient_is_a_lookup_error():
    with pytest.raises(LookupError, match="No gradient defined for operation 'opaque_kernel'") as info:
        s2sad.grad(calls_opaque, jit=False)(1.0)
    line = calls_opaque.__code__.co_firstlineno + 2
    assert f"{HERE}:{line}" in str(info.value)


def test_opaque_call_on_constants_needs_no_gradient(jit):
    assert s2sad.grad(calls_opaque_inactive, jit=jit)(2.0) == pytest.approx(6.0)


def test_functions_without_source():
    with pytest.raises(s2sad.SourceUnavailableError, match="no Python source"):
        s2sad.grad(math.sin)(1.0)
    with pytest.raises(s2sad.SourceUnavailableError, match="lambda"):
        s2sad.grad(lambda x: x * x)(1.0)
    namespace = {}
    exec("def made_by_exec(x):\n    return x * x\n", namespace)
    with pytest.raises(s2sad.SourceUnavailableError, match="define it in a file"):
        s2sad.grad(namespace["made_by_exec"])(1.0)


def undefined_name(x):
    return x * not_defined_anywhere(x)  # noqa: F821


def test_undefined_name():
    with pytest.raises(NameError, match="not_defined_anywhere"):
        s2sad.grad(undefined_name, jit=False)(1.0)


def uses_np_mean_axis(x):
    return np.sum(np.mean(x, axis=0))


def test_jit_require_raises_and_jit_true_falls_back():
    x = np.ones((2, 3))
    with pytest.warns(s2sad.NumbaFallbackWarning, match="uses_np_mean_axis"):
        g = s2sad.grad(uses_np_mean_axis)(x)
    np.testing.assert_allclose(g, np.full((2, 3), 0.5))
    with pytest.raises(s2sad.JitError, match="uses_np_mean_axis"):
        s2sad.grad(uses_np_mean_axis, jit="require")(x)


def raises_itself(x):
    if x > 1.0:
        y = np.zeros(2)[5]  # an IndexError the user's code raises
    return x


def test_user_errors_pass_through_unchanged():
    with pytest.raises(IndexError):
        s2sad.grad(raises_itself, jit=False)(2.0)

