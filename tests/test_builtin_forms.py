"""numpy functions and Python builtins everyday numeric code uses: np.ptp,
ufuncs' accumulate and at, math.fsum, functools.reduce, max/min with key=,
sorted inside an expression, list(x) / x.tolist(), divmod and
np.ndenumerate loops: values against numpy's and Python's, gradients
against finite differences (compiled and as Python), ties and kinks
against the documented choice, and the refusals with their lines.

The compiled cases are a sample (conftest.py); S2SAD_FULL=1 runs them all."""
import functools
import math
import operator

import numpy as np
import pytest

import s2sad
from gradcheck import FULL, check_grad

X1 = np.array([0.7, -1.3, 2.1, 0.4, 1.6])
X2 = np.array([[0.5, -1.2, 0.8], [1.4, 0.3, -0.6]])
X3 = np.arange(24.0).reshape(2, 3, 4) * 0.37 % 1.9 - 0.8
W1 = np.array([1.0, 2.0, -0.5, 3.0, 0.25])
W2 = np.array([[1.0, -2.0, 0.5], [3.0, 0.7, -1.1]])


def _check(fn, args, wrt=0, jit=True):
    """The value numpy (Python) gives, and the gradient against finite differences."""
    value, _ = s2sad.value_and_grad(fn, wrt=wrt, jit=jit)(*args)
    expected = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    np.testing.assert_allclose(value, expected, rtol=1e-12, atol=1e-12)
    check_grad(fn, args, wrt=wrt, jit=jit)


# ---- np.ptp -----------------------------------------------------------------------------

def ptp_all(x):
    return np.ptp(x) * 3.0


def ptp_axis0(x):
    return np.sum(np.ptp(x, axis=0) * np.arange(1.0, 1.0 + x.shape[1]))


def ptp_last_kept(x):
    return np.sum(np.ptp(x, -1, keepdims=True) * x)


def ptp_tuple(x):
    return np.sum(np.ptp(x, axis=(0, 2)) ** 2)


def ptp_not_kept(x):
    return np.sum(np.ptp(x, axis=1, keepdims=False) * np.arange(1.0, 1.0 + x.shape[0]))


# ---- ufuncs' accumulate -------------------------------------------------------------------

def add_accumulate(x):
    return np.sum(np.add.accumulate(x) ** 2)


def add_accumulate_axis1(x):
    return np.sum(np.add.accumulate(x, axis=1) * W2)


def add_accumulate_none(x):
    return np.sum(np.add.accumulate(x, None) * W1)


def multiply_accumulate(x):
    return np.sum(np.multiply.accumulate(x) * W1)


def multiply_accumulate_rows(x):
    return np.sum(np.multiply.accumulate(x, axis=-1) ** 2)


def maximum_accumulate(x):
    return np.sum(np.maximum.accumulate(x) * W1)


def maximum_accumulate_cols(x):
    return np.sum(np.maximum.accumulate(x) * W2)


def maximum_accumulate_rows(x):
    return np.sum(np.maximum.accumulate(x, axis=1) * W2)


def minimum_accumulate(x):
    return np.sum(np.minimum.accumulate(x) * W1)


def minimum_accumulate_3d(x):
    return np.sum(np.minimum.accumulate(x, axis=2) ** 2)


# ---- np.add.at / np.subtract.at ---------------------------------------------------------

IDX = np.array([0, 3, 0, 4, 0])


def add_at(x, v):
    y = x * 1.0
    np.add.at(y, IDX, v)
    return np.sum(y * y)


def add_at_scalar(x, s):
    y = x * 2.0
    np.add.at(y, [1, 1, 2], s)
    return np.sum(y ** 3)


def add_at_rows(a, v):
    b = a * 1.0
    np.add.at(b, np.array([1, 1, 0]), v)
    return np.sum(b * W2)


def add_at_row_broadcast(a, r):
    b = a + 0.0
    np.add.at(b, np.array([0, 1, 1]), r)
    return np.sum(b ** 2)


def add_at_int(x, v):
    y = x * 1.0
    np.add.at(y, 2, v)
    return np.sum(y ** 2)


def subtract_at(x, v):
    y = x * 1.0
    np.subtract.at(y, IDX, v)
    return np.sum(y * W1)


def add_at_argument(x, v):
    np.add.at(x, IDX, v)  # into the argument itself (the caller's array is not changed)
    return np.sum(x ** 2)


# ---- Python builtins and functools ---------------------------------------------------------

def fsum_array(x):
    return math.fsum(x * x) + math.fsum(x[i] * W1[i] for i in range(x.shape[0]))


def reduce_lambda(x):
    return functools.reduce(lambda a, b: a * b + 1.0, x)


def reduce_operators(x):
    return functools.reduce(operator.mul, [x[0], x[1] * 2.0, x[2]]) \
        + functools.reduce(operator.add, x, 0.5)


def reduce_nested_def(x):
    def smooth_max(a, b):
        return np.log(np.exp(a) + np.exp(b))
    parts = [x[i] * x[i + 1] for i in range(x.shape[0] - 1)]
    return functools.reduce(smooth_max, parts) * 2.0


def reduce_in_if_test(x):
    s = 0.0
    if functools.reduce(max, x) > 1.0:
        s = scaled_sum(x)  # (a helper call in the body is not beside the test's fold)
    for v in sorted(x, reverse=True)[:2]:
        s += scaled_sum(x) * v
    return s


def scaled_sum(x):
    return np.sum(x) * 0.5


def reduce_range_list(x):
    return functools.reduce(lambda a, k: a + x[k] ** 2 * k, range(x.shape[0]), 0.0)


def max_key(x):
    return max([x[0], x[1], x[2]], key=lambda v: abs(v)) * 3.0 + min(x, key=lambda v: (v - 1.0) ** 2)


def max_key_args(x):
    return max(x[0] * 2.0, x[3], key=abs) - min(x[1], x[4], key=lambda v: -v)


def builtin_reductions(x):
    return max(x) + min(x) * 2.0 + sum(x) * 3.0 + sum(x * x)


def sorted_inside(x):
    return sorted(x, reverse=True)[0] * 2.0 + sorted(x)[1] * 5.0


def list_forms(x):
    lst = list(x)
    s = lst[0] * lst[1] + sum(lst)
    for v in lst:
        s += v * v
    return s


def tolist_forms(x):
    values = x.tolist()
    total = 0.0
    for k, v in enumerate(values):
        total += v * v * (k + 1)
    total += values[2] * x[0]
    return total + values[-1] * 3.0


def list_of_rows(a):
    rows = list(a)
    return np.sum(rows[1] * rows[0]) + np.sum(sum(rows) ** 2)


def divmod_scalars(a, b):
    q, r = divmod(a, b)
    return q * 0.5 + r * r + divmod(a * 2.0, b)[1]


def divmod_arrays(x, b):
    q, r = divmod(x, b)
    return np.sum(q + r ** 2)


def ndenumerate_2d(a):
    s = 0.0
    for (i, j), v in np.ndenumerate(a):
        if v < 0.0:
            continue
        s += v * v * (i + 1) + v * j
    return s


def ndenumerate_1d(x):
    s = 0.0
    for (i,), v in np.ndenumerate(x * x):
        s += v * (i + 1.0)
    return s


def ndenumerate_3d(x):
    s = 0.0
    for (i, j, k), v in np.ndenumerate(x):
        s += np.sin(v) * (i + j - k)
    return s


def smooth_step(t):
    return t * t if t < 1.0 else 2.0 * t - 1.0


def vectorize_float(x):
    ramp = np.vectorize(smooth_step, otypes=[float])
    y = np.vectorize(lambda t: np.sin(t) * t, otypes=[np.float64])(x) * 2.0
    return np.sum(ramp(x) * W2) + np.sum(y ** 2)


CASES = [
    (ptp_all, (X1,), (0,)), (ptp_all, (X2,), (0,)), (ptp_axis0, (X2,), (0,)),
    (ptp_last_kept, (X3,), (0,)), (ptp_tuple, (X3,), (0,)), (ptp_not_kept, (X2,), (0,)),
    (add_accumulate, (X1,), (0,)), (add_accumulate, (X2,), (0,)),
    (add_accumulate_axis1, (X2,), (0,)), (add_accumulate_none, (X1,), (0,)),
    (multiply_accumulate, (X1,), (0,)), (multiply_accumulate_rows, (X3,), (0,)),
    (multiply_accumulate, (np.array([0.7, 0.0, 2.1, -0.4, 1.6]),), (0,)),  # (a zero)
    (maximum_accumulate, (X1,), (0,)), (maximum_accumulate_cols, (X2,), (0,)),
    (maximum_accumulate_rows, (X2,), (0,)), (minimum_accumulate, (X1,), (0,)),
    (minimum_accumulate_3d, (X3,), (0,)),
    (add_at, (X1, np.array([0.3, -0.2, 1.1, 0.5, 0.9])), (0, 1)),
    (add_at_scalar, (X1, 0.7), (0, 1)), (add_at_rows, (X2, X2[::-1][[0, 1, 1]] * 0.5), (0, 1)),
    (add_at_row_broadcast, (X2, np.array([0.2, -0.4, 0.9])), (0, 1)),
    (add_at_int, (X1, 1.3), (0, 1)), (subtract_at, (X1, W1 * 0.1), (0, 1)),
    (add_at_argument, (X1, W1), (0,)),  # (v: f writes into x, which FD reuses)
    (fsum_array, (X1,), (0,)), (reduce_lambda, (X1,), (0,)), (reduce_operators, (X1,), (0,)),
    (reduce_nested_def, (X1,), (0,)), (reduce_range_list, (X1,), (0,)),
    (reduce_in_if_test, (X1,), (0,)),
    (builtin_reductions, (X1,), (0,)), (max_key, (X1,), (0,)), (max_key_args, (X1,), (0,)), (sorted_inside, (X1,), (0,)),
    (list_forms, (X1,), (0,)), (tolist_forms, (X1,), (0,)), (list_of_rows, (X2,), (0,)),
    (divmod_scalars, (7.3, 2.1), (0, 1)), (divmod_scalars, (-7.3, 2.1), (0, 1)),
    (divmod_scalars, (7.3, -2.1), (0, 1)), (divmod_arrays, (X1 * 3.0, 1.7), (0, 1)),
    (ndenumerate_2d, (X2,), (0,)), (ndenumerate_1d, (X1,), (0,)), (ndenumerate_3d, (X3,), (0,)),
    (vectorize_float, (X2 + 0.3,), (0,)),
]


# compiled by default (numba compiles each derivative for seconds): one case of each kind
# of definition or loop the forms become; S2SAD_FULL=1 compiles every case
COMPILED_SAMPLE = {maximum_accumulate, add_at, reduce_lambda, max_key,
                   divmod_scalars, ndenumerate_2d}
GRID = [(fn, args, wrts, compiled) for fn, args, wrts in CASES for compiled in (True, False)
        if not compiled or FULL or fn in COMPILED_SAMPLE]


@pytest.mark.parametrize("fn, args, wrts, compiled", GRID, ids=[
    f"{'jit' if c[3] else 'python'}-{c[0].__name__}-{np.ndim(c[1][0])}d" for c in GRID])
def test_values_and_gradients(fn, args, wrts, compiled):
    _check(fn, args, wrt=wrts if len(wrts) > 1 else wrts[0], jit=compiled)


# ---- ties and kinks: the documented choice, where finite differences are one-sided ---------

MODES = [False, True] if FULL else [False]  # (the compiled forms: test_values_and_gradients)


@pytest.mark.parametrize("jit", MODES)
def test_ptp_ties_share_the_gradient(jit):
    x = np.array([3.0, 1.0, 3.0, 1.0, 2.0])  # two maxima, two minima: as JAX's max - min
    g = s2sad.grad(ptp_all, jit=jit)(x)
    np.testing.assert_allclose(g, 3.0 * np.array([0.5, -0.5, 0.5, -0.5, 0.0]))
    np.testing.assert_allclose(s2sad.grad(ptp_all, jit=jit)(np.full(4, 2.0)), np.zeros(4))


@pytest.mark.parametrize("jit", MODES)
def test_running_maximum_ties_are_shared_as_np_maximum(jit):
    x = np.array([1.0, 3.0, 3.0, 2.0, 3.0])
    # running maximum 1, 3, 3, 3, 3, out[i] = np.maximum(out[i - 1], x[i]): at the ties
    # (i = 2 and 4) np.maximum shares the cotangent between out[i - 1] and x[i]
    at2 = W1[2] + W1[3] + 0.5 * W1[4]  # (what out[2] receives)
    expected = np.array([W1[0], W1[1] + 0.5 * at2, 0.5 * at2, 0.0, 0.5 * W1[4]])
    np.testing.assert_allclose(s2sad.grad(maximum_accumulate, jit=jit)(x), expected)
    y = -x
    np.testing.assert_allclose(s2sad.grad(minimum_accumulate, jit=jit)(y), -(-expected))


@pytest.mark.parametrize("jit", MODES)
def test_max_key_tie_goes_to_the_first_item(jit):
    def first_of_ties(x):
        return max([x[0], x[1], x[2]], key=lambda v: abs(v))
    # |x0| == |x1|: Python's max returns the first, x0
    g = s2sad.grad(first_of_ties, jit=jit)(np.array([-2.0, 2.0, 1.0]))
    np.testing.assert_allclose(g, [1.0, 0.0, 0.0])


def reduce_sums_and_differences(a, b, c):
    return functools.reduce(operator.mul, [a, b + c]) \
        + functools.reduce(operator.truediv, [a, b - c, c]) \
        + functools.reduce(operator.sub, (a, b * c, a - c), b + 1.0)


def test_reduce_of_items_that_are_sums(jit):
    """Each item is one operand: a * (b + c), not a * b + c (the reduction
    was written as text, `(value * b + c)`: a wrong value and gradient)."""
    args = (2.0, 3.0, 0.5)
    a, b, c = args
    expected = a * (b + c) + a / (b - c) / c + ((b + 1.0) - a - b * c - (a - c))
    np.testing.assert_allclose(s2sad.value_and_grad(reduce_sums_and_differences, wrt=0,
                                                    jit=jit)(*args)[0], expected, rtol=1e-12)
    check_grad(reduce_sums_and_differences, args, wrt=(0, 1, 2), jit=jit)


def test_divmod_matches_python_signs_and_derivatives():
    for a, b in [(7.3, 2.1), (-7.3, 2.1), (7.3, -2.1), (-7.3, -2.1), (0.5, 3.0)]:
        def remainder(a, b):
            return divmod(a, b)[1]
        value, (da, db) = s2sad.value_and_grad(remainder, wrt=(0, 1), jit=False)(a, b)
        assert value == divmod(a, b)[1]
        assert da == 1.0 and db == -math.floor(a / b)


# ---- refusals and numpy's own errors --------------------------------------------------------

def ptp_method(x):
    return x.ptp()


def test_ptp_method_is_numpys_attribute_error():
    assert not hasattr(np.ndarray, "ptp")  # numpy 2 removed it
    with pytest.raises(AttributeError, match=r"test_builtin_forms.py:\d+.*has no attribute 'ptp'"):
        s2sad.grad(ptp_method, jit=False)(X1)


def ptp_keepdims_variable(x, keep):
    return np.sum(np.ptp(x, axis=0, keepdims=keep))


def accumulate_dtype(x):
    return np.sum(np.add.accumulate(x, dtype=np.float32))


def add_at_in_expression(x, v):
    y = x * 1.0
    z = np.add.at(y, IDX, v)
    return np.sum(y) + (z is None)


def multiply_at(x, v):
    y = x * 1.0
    np.multiply.at(y, IDX, v)
    return np.sum(y)


def add_at_2d_indices(x, v):
    y = x * 1.0
    np.add.at(y, np.array([[0, 1], [1, 2]]), v)
    return np.sum(y)


def reduce_in_condition(x):
    return functools.reduce(operator.add, x) if x[0] > 0.0 else 0.0


def reduce_beside_helper(x):
    return scale_in_place(x) + functools.reduce(operator.add, x)


def scale_in_place(x):
    x *= 2.0
    return 0.0


def reduce_empty(x):
    return functools.reduce(operator.add, x[:0]) + np.sum(x)


def max_key_default(x):
    return max(x, key=abs, default=0.0)


def tolist_2d(a):
    rows = a.tolist()
    return rows[0][1]


def ndenumerate_break(a):
    s = 0.0
    for (i, j), v in np.ndenumerate(a):
        if v > 1.0:
            break
        s += v
    return s


def ndenumerate_index_name(a):
    s = 0.0
    for idx, v in np.ndenumerate(a):
        s += v
    return s


def ndenumerate_wrong_rank(a):
    s = 0.0
    for (i, j), v in np.ndenumerate(a):
        s += v
    return s


def vectorized(x):
    return np.sum(np.vectorize(lambda t: t * t)(x))


def vectorized_two_arguments(x):
    f = np.vectorize(lambda t, u: t * u, otypes=[float])
    return np.sum(f(x, x))


@pytest.mark.parametrize("fn, args, error, match", [
    (ptp_keepdims_variable, (X2, True), LookupError, r":\d+.*keepdims written as the constant"),
    (accumulate_dtype, (X1,), LookupError, r":\d+.*np.add.accumulate.*'dtype'"),
    (add_at_in_expression, (X1, W1), SyntaxError, r":\d+.*np.add.at\(...\) inside an expr"),
    (multiply_at, (X1, W1), SyntaxError, r":\d+.*np.multiply.at\(...\), which writes"),
    (add_at_2d_indices, (X1, 1.0), ValueError, r"1-d array \(or list\) of indices"),
    (reduce_in_condition, (X1,), SyntaxError, r":\d+.*functools.reduce\(...\) inside a cond"),
    (reduce_beside_helper, (X1,), SyntaxError, r":\d+.*beside a call of `scale_in_place`"),
    (reduce_empty, (X1,), TypeError, r"reduce\(\) of empty iterable"),
    (max_key_default, (X1,), SyntaxError, r":\d+.*default="),
    (tolist_2d, (X2,), TypeError, r"0-dimensional|length-1|scalar"),
    (ndenumerate_break, (X2,), SyntaxError, r":\d+.*with break or else"),
    (ndenumerate_index_name, (X2,), SyntaxError, r":\d+.*one name per axis"),
    (ndenumerate_wrong_rank, (X1,), ValueError, r"values to unpack"),
    (vectorized, (X1,), SyntaxError, r":\d+.*np.vectorize\(...\) without otypes"),
    (vectorized_two_arguments, (X1,), SyntaxError, r":\d+.*several arguments"),
])
def test_refused_with_the_line(fn, args, error, match):
    with pytest.raises(error, match=match):
        s2sad.grad(fn, jit=False)(*args)


def test_python_raises_the_same_where_it_must():
    with pytest.raises(TypeError):
        reduce_empty(X1)
    with pytest.raises(ValueError):
        ndenumerate_wrong_rank(X1)
    with pytest.raises(TypeError):
        float(X2[0])  # what tolist_2d's element conversion raises (Python's rows are lists)


@pytest.mark.parametrize("fn, args, wrts", CASES,
                         ids=[f"{c[0].__name__}-{np.ndim(c[1][0])}d" for c in CASES])
def test_forward_mode(fn, args, wrts):
    from gradcheck import check_jvp
    for wrt in wrts:
        check_jvp(fn, args, wrt=wrt, jit=False)
