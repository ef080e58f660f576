"""Every language construct of the reverse-mode core, against finite
differences, compiled with numba and as plain Python."""
import math

import numpy as np
import pytest

import s2sad
from gradcheck import check_grad

rng = np.random.default_rng(0)
X = rng.uniform(0.2, 1.5, 6)
W = rng.uniform(-1.0, 1.0, 6)
A = rng.uniform(0.2, 1.5, (3, 4))


# ---- straight-line code -----------------------------------------------------

def arithmetic(x, y):
    a = x * y + x / y - 3.0 * x
    b = -a + x ** 2 + y ** 0.5 + 2.0 ** x + x ** y
    return a * b - abs(a - 2.0) + min(x, y) * max(x, 2.0 * y)


def augmented(x, y):
    z = x
    z += y
    z *= x
    z -= 2.0 * y
    z /= y
    z **= 2
    return z


def tuples(x, y):
    a, b = x * y, x + y
    a, b = b, a
    return a * a + 3.0 * b


def conditional_expression(x, y):
    z = x * x if x > y else y * y * y
    return z + (x if y < 0.5 else y)


@pytest.mark.parametrize("f", [arithmetic, augmented, tuples, conditional_expression])
def test_scalar_code(f, jit):
    for x, y in [(0.7, 1.3), (1.6, 0.4)]:
        check_grad(f, (x, y), wrt=(0, 1), jit=jit)


# ---- branches ------------------------------------------------------------------

def branches(x, y):
    if x > 1.0 and y < 1.0:
        z = x * y
    elif x > 0.5 or not y > 2.0:
        z = x / y
        if z > 1.0:
            z = z * z
    else:
        z = y
    return z * x


def branch_on_active(x):
    y = 0.0
    for i in range(x.shape[0]):
        if x[i] * x[i] > 0.5:
            y += math.sin(x[i])
        else:
            y -= x[i] ** 3
    return y


def test_branches(jit):
    for x, y in [(1.2, 0.5), (0.7, 3.0), (0.2, 3.0), (0.8, 1.5)]:
        check_grad(branches, (x, y), wrt=(0, 1), jit=jit)
    check_grad(branch_on_active, (X,), jit=jit)


# ---- loops ---------------------------------------------------------------------

def counted_loops(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        s += w[i] * np.tanh(x[i])
    for i in range(1, x.shape[0], 2):
        s = s * x[i]
    for i in range(x.shape[0] - 1, 0, -2):
        s = s + x[i] * x[i - 1]
    for j in range(2, 4):
        s = s / (1.0 + w[j] * w[j])
    return s


def nested_loops(A):
    total = 0.0
    for i in range(A.shape[0]):
        row = 0.0
        for j in range(A.shape[1]):
            row = row + A[i, j] * A[i, j] * (j + 1)
        total = total + math.sqrt(row)
    for i in range(A.shape[0]):
        for j in range(i):
            total = total * (1.0 + 0.1 * A[i, j])
    return total


def loop_over_rows(A):
    s = 0.0
    for row in A:
        s += np.sum(row * row) * row[0]
    return s


def euler(a, b, c):
    x = 0.5
    dt = 0.01
    for _ in range(200):
        x = x + dt * (a * math.sin(x) - b * x ** 3 + c)
    return x


def while_loop(x):
    t = 0.0
    y = x
    while t < 1.0:
        y = y + 0.1 * math.cos(y) * x
        t += 0.15
    return y


def data_dependent_while(x):
    y = x
    n = 0
    while y < 10.0:
        y = y * 1.5 + x
        n += 1
    return y * n


def break_continue(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] < 0.3:
            continue
        s += x[i] * x[i]
        if s > 3.0:
            break
        s = s * 1.1
    return s


def while_break(x):
    y = x
    while True:
        y = y * y + 0.1
        if y > 5.0:
            break
    return y


def early_return(x, y):
    if x > 1.0:
        return x * y
    for i in range(5):
        y = y * x
        if y < 0.1:
            return y * 2.0
    return y + x


def counter_reused(x):
    s = 0.0
    t = 0
    for i in range(3):
        s += x[t] * x[t] * x[i]
        t = t + 1
    for t in range(2):          # rebinds t, which the first loop's adjoint reads
        s += x[t] * 0.5
    return s


@pytest.mark.parametrize("f,args,wrt", [
    (counted_loops, (X, W), (0, 1)),
    (counter_reused, (X,), 0),
    (nested_loops, (A,), 0),
    (loop_over_rows, (A,), 0),
    (euler, (1.0, 0.5, 0.2), (0, 1, 2)),
    (while_loop, (0.7,), 0),
    (data_dependent_while, (0.7,), 0),
    (break_continue, (X,), 0),
    (while_break, (1.1,), 0),
    (early_return, (1.3, 0.5), (0, 1)),
    (early_return, (0.6, 0.5), (0, 1)),
    (early_return, (0.6, 0.05), (0, 1)),
])
def test_loops(f, args, wrt, jit):
    check_grad(f, args, wrt=wrt, jit=jit)
    # the value is the primal's, although the reverse sweep restores
    # earlier values of the variables it came from
    value, _ = s2sad.value_and_grad(f, wrt=wrt, jit=jit)(*args)
    np.testing.assert_allclose(value, f(*[a.copy() if isinstance(a, np.ndarray) else a
                                          for a in args]))


# ---- subscripts and local arrays ---------------------------------------------

def local_buffers(x, w):
    n = x.shape[0]
    buf = np.zeros(n)
    out = 0.0
    for k in range(3):
        for i in range(n):
            buf[i] = x[i] * w[i] + k * buf[i]
        for i in range(n):
            out += buf[i] * buf[i]
    return out


def reused_buffer(x):
    n = x.shape[0]
    tmp = np.empty(2)
    s = 0.0
    for i in range(n - 1):
        tmp[0] = x[i] * x[i + 1]
        tmp[1] = math.exp(-x[i])
        s += tmp[0] * tmp[1]
    return s


def slices(x):
    y = np.zeros_like(x)
    y[1:] = x[:-1] * 2.0
    y[0] = x[-1]
    z = y[::2] * x[1::2]
    return np.sum(z * z) + y[2] * x[3]


def matrix_entries(A):
    B = np.ones((A.shape[1], A.shape[0]))
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            B[j, i] = A[i, j] * (i + j + 1.0)
    return np.sum(B * B)


def writes_argument(x):
    for i in range(1, x.shape[0]):
        x[i] = x[i] + x[i - 1] * x[i]
    return np.sum(x)


@pytest.mark.parametrize("f,args,wrt", [
    (local_buffers, (X, W), (0, 1)),
    (reused_buffer, (X,), 0),
    (slices, (X,), 0),
    (matrix_entries, (A,), 0),
    (writes_argument, (X,), 0),
])
def test_subscripts(f, args, wrt, jit):
    check_grad(f, args, wrt=wrt, jit=jit)


# ---- helpers ---------------------------------------------------------------------

def square_plus(a, b):
    return a * a + b


def helper_of_helper(a):
    return square_plus(a, 1.0) * math.sin(a)


def vector_norm(v):
    return math.sqrt(np.sum(v * v))


def uses_helpers(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        s += helper_of_helper(x[i]) * square_plus(w[i], x[i])
    return s + vector_norm(x * w)


def test_helpers(jit):
    check_grad(uses_helpers, (X, W), wrt=(0, 1), jit=jit)


# ---- non-differentiable calls pass through ------------------------------------

def nondifferentiable(x):
    n = len(x)
    k = int(np.argmax(x))
    s = float(n) * np.sign(x[0]) + np.floor(x[1])
    shape = np.shape(x)
    for i in range(shape[0]):
        if x[i] > x[k] - 0.5:
            s += x[i] * x[k]
    return s + x[0] * n


def test_nondifferentiable_calls(jit):
    check_grad(nondifferentiable, (X,), jit=jit)


# ---- outputs -------------------------------------------------------------------

def array_output(x):
    return np.sin(x) * x


def tuple_output(x, y):
    return x * y, np.sum(x) + y


def test_outputs_are_summed(jit):
    check_grad(array_output, (X,), jit=jit)
    check_grad(tuple_output, (X, 0.3), wrt=(0, 1), jit=jit)


# ---- recursion ------------------------------------------------------------------

def det_by_minors(A):
    n = A.shape[0]
    if n == 1:
        return A[0, 0]
    total = 0.0
    sign = 1.0
    for j in range(n):
        minor = np.empty((n - 1, n - 1))
        for r in range(1, n):
            k = 0
            for c in range(n):
                if c != j:
                    minor[r - 1, k] = A[r, c]
                    k += 1
        total += sign * A[0, j] * det_by_minors(minor)
        sign = -sign
    return total


def test_recursive_helper(jit):
    M = rng.uniform(0.0, 1.0, (4, 4))
    df = check_grad(det_by_minors, (M,), jit=jit)
    np.testing.assert_allclose(df(M)[0], np.linalg.det(M) * np.linalg.inv(M).T, rtol=1e-10)


# ---- arrays of integers ---------------------------------------------------------------

def index_buffer(x):
    idx = np.zeros(2, dtype=np.int64)
    idx[0] = 1
    s = 0.0
    for i in range(2):
        j = idx[i]
        s += x[j] * x[j]
        j = j + 1
        s += x[j] * x[j]
    return s


def test_local_integer_array_indexes(jit):
    # np.zeros(..., dtype=np.int64) holds integers: its elements index x
    check_grad(index_buffer, (np.array([1.0, 2.0, 3.0]),), jit=jit)


def gather_squares(x, idx):
    s = 0.0
    for i in range(idx.shape[0]):
        s += x[idx[i]] ** 2
    return s


def gathers(x, A, idx):
    rows = A[idx]
    across = A[1, idx]
    down = A[idx, 2]
    return np.sum(x[idx] * x[idx]) + np.sum(rows * rows) + np.sum(across * x[idx]) \
        + np.sum(down * down)


def test_index_arrays_add_up_repeated_indices(jit):
    # dx[idx] += g would keep one of each repeat, as numpy's x[idx] += g does
    idx = np.array([2, 0, 2, 1, 2])
    check_grad(gathers, (X[:3], A[:, :3], idx), wrt=(0, 1), jit=jit)
    check_grad(gather_squares, (X[:3], idx), jit=jit)


def test_unsigned_index_array(jit):
    # an unsigned array is an array of integers (indices), not of floats
    idx = np.array([2, 0, 2], dtype=np.uint32)
    x = np.array([1.0, 2.0, 3.0])
    # d/dx of x[2]^2 + x[0]^2 + x[2]^2
    np.testing.assert_allclose(s2sad.grad(gather_squares, jit=jit)(x, idx), [2.0, 0.0, 12.0])


# ---- raise ----------------------------------------------------------------------

def checked_sqrt(x):
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] < 0.0:
            raise ValueError("negative input")
        s += math.sqrt(x[i])
    return s


def early_error(x, n):
    if n > 3:
        raise IndexError("n is too large")
        x = 2.0 * x  # never runs
    return x * x


def test_raise_runs_in_the_forward_sweep(jit):
    x = np.array([0.5, 1.5, 2.0])
    df = check_grad(checked_sqrt, (x,), jit=jit)
    with pytest.raises(ValueError, match="negative input"):
        df(np.array([0.5, -1.0]))
    assert check_grad(early_error, (1.5, 2), jit=jit)(1.5, 2) == (pytest.approx(3.0),)
    with pytest.raises(IndexError, match="n is too large"):
        s2sad.grad(early_error, jit=jit)(1.5, 4)
    h = s2sad.hessian(checked_sqrt, jit=jit)(x)
    np.testing.assert_allclose(h, np.diag(-0.25 * x ** -1.5), rtol=1e-10)


def _max_of_three(x):
    return max(x[0], x[1] * 2.0, x[2]) + min(x[0] ** 2, x[1], x[2], x[3])


def _max_with_tie(x):
    return max(x[0], x[0], x[1]) * x[2]


@pytest.mark.parametrize("f", [_max_of_three, _max_with_tie])
def test_builtin_max_min_of_several(f, jit):
    """max(a, b, c) is max(max(a, b), c): the first of equal values wins."""
    check_grad(f, (np.array([1.5, -2.0, 3.0, 0.5]),), jit=jit)


def _builtin_sum_of_array(x):
    return sum(x ** 2) + np.sum(sum(x.reshape(2, 2)) ** 2)  # a matrix: the sum of its rows


def _builtin_max_min_of_vector(x):
    return max(x) * 2.0 + min(np.sin(x))


def _builtin_sum_of_rows(x):
    a = x.reshape(2, 2)
    t = 0.0
    for row in a:
        t = t + sum(row) * row[0]
    return t


@pytest.mark.parametrize("f", [_builtin_sum_of_array, _builtin_max_min_of_vector,
                               _builtin_sum_of_rows])
def test_builtin_reductions_of_arrays(f, jit):
    """Python's sum, max and min of an array iterate over its first axis."""
    check_grad(f, (np.array([1.5, -2.0, 3.0, 0.5]),), jit=jit)


def _imports_inside(x):
    from scipy.special import erf, logsumexp
    import math as m
    return logsumexp(x) + np.sum(erf(x)) * m.pi


def _helper_importing(v):
    from scipy.special import expit
    return np.sum(expit(v) * v)


def _calls_helper_importing(x):
    return _helper_importing(x * 2.0) + _helper_importing(np.sin(x))


@pytest.mark.parametrize("f", [_imports_inside, _calls_helper_importing])
def test_imports_inside_a_function(f, jit):
    """An import among the function's first statements binds its names for good."""
    check_grad(f, (np.array([0.5, -1.0, 2.0]),), jit=jit)


def _imports_in_a_branch(x):
    if x[0] > 0:
        from scipy.special import erf  # noqa: F401
    return x[0]


def test_import_in_a_branch_is_refused():
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="import"):
        s2sad.grad(_imports_in_a_branch, jit=False)(np.ones(2))


def strided_from_expressions(x, m):
    # (reversed, each range's start is an expression: `stop - (m - 3)`)
    s = 1.0
    for i in range(m - 3, x.shape[0], 2):
        s = s * x[i] * (i + 1)
    for i in range(x.shape[0] - 1, m - 4, -3):
        s = s * x[i] + x[i - 1]
    return s


def test_strided_loops_from_expressions(jit):
    # the reversed loops' ranges read `12 - (m - 3)`, not `12 - m - 3`
    check_grad(strided_from_expressions, (np.linspace(0.6, 1.4, 12), 5), wrt=0, jit=jit)
