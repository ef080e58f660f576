"""Bad input gets an error of ours naming the file, line and construct."""
import functools
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
    return sum({x * k for k in range(3)})


def with_generator(x):
    yield x


def with_global(x):
    global COUNTER
    COUNTER = 1
    return x


def with_class(x):
    class Box:
        pass
    return x


def with_nested_function(x):
    def inner(y):
        return y * x
    return inner


def with_with(x):
    with open("f") as fh:
        pass
    return x


def with_lambda(x):
    return sorted([x, 2.0 * x], key=lambda y: -y)[0]


def with_starred(x):
    return max(*x)


def with_del(x):
    y = x * 2
    del y
    return y


def without_return(x):
    y = x * 2


def with_raise_from(x):
    if x > 0:
        raise ValueError("no") from None
    return x


def with_walrus(x):
    if x > 0 or (y := x * 2) > 0:
        return y
    return x


def with_set_comprehension(x):
    s = {k for k in range(3)}
    return x * len(s)


def with_dict_comprehension(x):
    s = {k: k for k in range(3)}
    return x * len(s)


def with_generator_expression(x):
    return np.sum(np.array(x * k for k in range(3)))


def with_import(x):
    if x > 0.0:  # (an import among the first statements binds its names for good)
        import math as m
    return m.sin(x)


def with_yield_from(x):
    yield from [x]


def with_match(x):
    match x:
        case 1.0:
            return x
    return x * 2


def with_set_display(x):
    s = {1, 2}
    return x * len(s)


def with_dict_display(x):
    d = {"a": x}
    key = "a"
    return d[key]  # a key only known at run time


def with_varargs(*x):
    return x[0]


def with_bare_return(x):
    return


def with_attribute_store(x):
    a = np.zeros(3)
    a.real += x  # writes into a through a view s2sad cannot follow by name
    return np.sum(a)


def with_list_of_active_values(x):
    a = [x, x]
    b = a  # (a second name of the list: not one variable per element)
    return b[0] * a[1]


SYNTAX = [
    (with_try, "try ... except"),
    (with_comprehension, "a set comprehension"),
    (with_generator, "yield"),
    (with_global, "assigning the global variable 'COUNTER'"),
    (with_class, "a class definition"),
    (with_nested_function, "using the nested function 'inner' other than by calling it"),
    (with_with, "a with block"),
    (with_lambda, "a lambda that is not assigned to a name"),
    (with_starred, "star-unpacking"),
    (with_del, "del y followed by a read of 'y'"),
    (without_return, "a function without a return statement"),
    (with_raise_from, "raise ... from"),
    (with_walrus, "the := operator"),
    (with_set_comprehension, "a set comprehension"),
    (with_dict_comprehension, "a dict comprehension"),
    (with_generator_expression, "a generator expression"),
    (with_import, "import"),
    (with_yield_from, "yield from"),
    (with_match, "a match statement"),
    (with_set_display, "a set display"),
    (with_dict_display, "a dict other than one bound once"),
    (with_varargs, "*args"),
    (with_bare_return, "a return without a value"),
    (with_attribute_store, "assignment through an attribute (a.real = ...)"),
    (with_list_of_active_values, "a tuple or list of values that need a gradient"),
]


@pytest.mark.parametrize("fn,construct", SYNTAX, ids=[f.__name__ for f, _ in SYNTAX])
def test_unsupported_syntax_names_file_line_and_construct(fn, construct, jit):
    with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
        s2sad.grad(fn, jit=jit)(1.0)
    message = str(info.value)
    assert construct in message
    line = fn.__code__.co_firstlineno
    assert f"{HERE}:" in message and f"in {fn.__name__}" in message
    reported = int(message.split(f"{HERE}:")[1].split(",")[0])
    assert line <= reported <= line + 4  # the line of the construct itself


# The error says what to do for every construct (transforms/frontend/refused_syntax.py HINTS
# and the passes that reject what parses but cannot be differentiated).
@pytest.mark.parametrize("fn", [f for f, _ in SYNTAX], ids=[f.__name__ for f, _ in SYNTAX])
def test_unsupported_syntax_says_what_to_do(fn):
    with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
        s2sad.grad(fn, jit=False)(1.0)
    hint = str(info.value).split("is not supported in a differentiated function")[1]
    assert len(hint.strip(". ")) > 10, str(info.value)


def with_assert(x):
    assert x > 0
    return x * x


async def async_function(x):
    return x


def with_bit_operator(x):
    n = 3 ^ 1
    return x * n


# assert runs in the forward sweep (tests/test_functions.py); async def is
# rejected; bitwise operators on integers work.
def test_assert_statement():
    assert s2sad.grad(with_assert, jit=False)(1.5) == 3.0
    with pytest.raises(AssertionError):
        s2sad.grad(with_assert, jit=False)(-1.0)


def test_async_function():
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="async"):
        s2sad.grad(async_function, jit=False)(1.0)


def test_bitwise_operator_on_integers():
    assert s2sad.grad(with_bit_operator, jit=False)(1.0) == 2.0


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


class CallableObject:
    def __call__(self, x):
        return x * x


def two_arguments(x, y):
    return x * y


@pytest.mark.parametrize("fn,says", [
    (math.gcd, "no Python source"),  # no gradient rule (np.sin itself has one: test_binding)
    (CallableObject(), "no Python source"),
    (functools.partial(CallableObject(), 2.0), "no Python source"),
    (eval("lambda x: x * x"), "define it in a file or a notebook cell"),
], ids=["builtin", "callable object", "partial", "lambda"])
def test_functions_without_source(fn, says, jit):
    with pytest.raises(s2sad.SourceUnavailableError, match=says):
        s2sad.grad(fn, jit=jit)(1.0)


def test_a_numba_kernel_is_differentiated_from_its_python_source(jit):
    assert s2sad.grad(opaque_kernel, jit=jit)(1.0) == 3.0


def test_function_made_by_exec_says_define_it_in_a_file(jit):
    namespace = {}
    exec("def made_by_exec(x):\n    return x * x\n", namespace)
    with pytest.raises(s2sad.SourceUnavailableError, match="define it in a file"):
        s2sad.grad(namespace["made_by_exec"], jit=jit)(1.0)


def scaled_sum(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        s += w[i] * x[i] * x[i]
    return s


@pytest.mark.parametrize("bad", [
    3, True, np.arange(3), np.arange(3, dtype=np.uint8), "abc", None, {"a": 1.0}, 1j,
    np.ones(3, dtype=complex), np.array([1.0, "a"], dtype=object), [[1.0], [2.0, 3.0]],
], ids=["int", "bool", "int array", "uint8 array", "str", "None", "dict", "complex",
        "complex array", "object array", "ragged list"])
def test_non_float_argument_in_wrt_is_a_type_error(bad, jit):
    with pytest.raises(TypeError) as info:
        s2sad.grad(scaled_sum, wrt=0, jit=jit)(bad, np.ones(3))
    message = str(info.value)
    assert "argument 'x'" in message and f"{HERE}:" in message and "scaled_sum" in message
    assert "Pass" in message or "Convert" in message  # what to do


def test_object_array_not_in_wrt_is_a_type_error(jit):
    with pytest.raises(TypeError, match="argument 'w' is an array of dtype object"):
        s2sad.grad(scaled_sum, jit=jit)(np.ones(2), np.array([1.0, None], dtype=object))


def test_nested_lists_of_numbers_are_arrays(jit):
    g = s2sad.grad(scaled_sum, jit=jit)([1.0, 2.0], [[3], [4]][0] + [5])
    np.testing.assert_allclose(g, [6.0, 20.0])


def marked(x):
    s2sad.reset_recording()
    with s2sad.stop_recording():
        y = 2.0 * x
    return s2sad.stop_gradient(x) * y


@numba.njit
def marked_in_numba(x):
    s2sad.reset_recording()
    return s2sad.stop_gradient(x) * 2.0


def test_markers_outside_a_differentiated_function_are_identities():
    x = np.arange(3.0)
    assert s2sad.stop_gradient(x) is x
    assert s2sad.reset_recording() is None
    assert marked(3.0) == 18.0
    with pytest.raises(KeyError):  # stop_recording does not swallow exceptions
        with s2sad.stop_recording():
            raise KeyError("k")
    # in the user's own numba code too (not `with`: numba compiles no context managers)
    assert marked_in_numba(3.0) == 6.0
    np.testing.assert_array_equal(marked_in_numba(x), 2.0 * x)


def undefined_name(x):
    return x * not_defined_anywhere(x)  # noqa: F821


def test_undefined_name():
    with pytest.raises(NameError, match="not_defined_anywhere"):
        s2sad.grad(undefined_name, jit=False)(1.0)


def uses_np_einsum(x):
    # (numba has no np.rot90 with axes; the name is what the test matches)
    return np.sum(np.rot90(x, axes=(0, 1))) * 0.5


def test_jit_require_raises_and_jit_true_falls_back():
    x = np.ones((2, 3))
    with pytest.warns(s2sad.NumbaFallbackWarning, match="uses_np_einsum"):
        g = s2sad.grad(uses_np_einsum)(x)
    np.testing.assert_allclose(g, np.full((2, 3), 0.5))
    with pytest.raises(s2sad.JitError, match="uses_np_einsum"):
        s2sad.grad(uses_np_einsum, jit="require")(x)


def raises_itself(x):
    if x > 1.0:
        y = np.zeros(2)[5]  # an IndexError the user's code raises
    return x


def test_user_errors_pass_through_unchanged():
    with pytest.raises(IndexError):
        s2sad.grad(raises_itself, jit=False)(2.0)



def _complex_abs(x):
    return np.abs(x[0] + 1j * x[1])


def _complex_product(x):
    z = np.exp(1j * x[0]) * x[1]
    return np.real(z) + 2.0 * np.imag(z)


def _complex_square(x):
    z = x[0] + x[1] * 1j
    return np.real(z * z)


@pytest.mark.parametrize("f", [_complex_abs, _complex_product, _complex_square])
def test_complex_intermediates_are_refused(f, jit):
    """The rules are for real numbers: |x + iy| gave the wrong sign for y."""
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="complex number") as info:
        s2sad.grad(f, jit=jit)(np.array([0.7, -1.3]))
    assert f"{HERE}:" in str(info.value)


# ---- an integer or bool output: TypeError, as JAX and TensorFlow raise ----------------

def returns_argmax(x):
    return np.argmax(x)


def returns_mask(x):
    return x > 0


def returns_all(x):
    return np.all(x > 0)


def counts_positive(x):
    n = 0
    for v in x:
        if v > 0:
            n += 1
    return n


def returns_value_and_count(x):
    return np.sum(x * x), 3


@pytest.mark.parametrize("fn, what", [(returns_argmax, "int"), (returns_mask, r"array1d\[b\]"),
                                      (returns_all, "bool"), (counts_positive, "int")],
                         ids=lambda v: getattr(v, "__name__", ""))
def test_integer_or_bool_output_is_a_type_error(fn, what, jit):
    with pytest.raises(TypeError, match=rf"test_errors\.py:\d+, in {fn.__name__}: "
                                        rf"{fn.__name__} returns {what}; gradients are defined "
                                        rf"for float outputs"):
        s2sad.grad(fn, jit=jit)(np.array([1.0, -2.0]))


def test_a_count_beside_a_float_output_adds_nothing(jit):
    # (outputs are summed, as TensorFlow does: the constant adds a zero gradient)
    x = np.array([1.0, -2.0])
    np.testing.assert_allclose(s2sad.grad(returns_value_and_count, jit=jit)(x), 2 * x)


def test_numbas_reason_is_given_whole():
    """The fallback warning quotes numba's reason up to the end of a
    sentence (or a word), with the lines a line ending in ':' introduces."""
    from s2sad.backend import _numba_reason
    typing = Exception(
        "Failed in nopython mode pipeline (step: nopython frontend)\n"
        "No implementation of function Function(<function vstack>) found for signature:\n"
        " \n >>> vstack(array(float64, 2d, C))\n \n"
        "There are 2 candidate implementations:\n"
        "During: resolving callee type: Function(<function vstack>)\n")
    reason = _numba_reason(typing)
    assert reason == ("Exception: No implementation of function Function(<function vstack>) "
                      "found for signature: >>> vstack(array(float64, 2d, C))")
    long = Exception(("This sentence is long enough. " * 40) + "And it goes on without end " * 20)
    reason = _numba_reason(long)
    assert reason.endswith("long enough.") and len(reason) <= 620
    words = Exception("word " * 400)
    assert _numba_reason(words).endswith("word ...")
    coloured = Exception("\x1b[1m\x1b[1mUntyped global name 'h':\x1b[0m \x1b[1mCannot determine "
                         "Numba type of <class 'function'>\x1b[0m")
    assert _numba_reason(coloured) == ("Exception: Untyped global name 'h': Cannot determine "
                                       "Numba type of <class 'function'>")
