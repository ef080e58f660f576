"""C-style chained subscript writes (`A[i][j] = v`, `+=`, `A[i][1:3] = v`,
`T[i][j][k] = v`) against finite differences of the function itself
(numpy's semantics: an integer index gives a view, so the write lands in
A), reverse and forward, compiled and not; and the forms numpy writes into
a copy or at a shifted position, which are refused with the line."""
import numpy as np
import pytest

import s2sad
from frontend.passes import lowered
from s2sad.transforms.errors import UnsupportedSyntaxError
from s2sad.transforms.frontend.statements import chained_writes
from gradcheck import check_grad, check_jvp, numerical_grad

X = np.array([0.7, -1.2, 0.4])
M = np.array([[0.5, -1.0, 2.0, 0.3], [1.5, 0.3, -0.7, 1.0], [0.2, 0.9, 1.1, -0.4]])


def constant_position(x):
    A = np.zeros((3, 3))
    A[0][1] = 2.0 * x[0]
    A[-1][0] = x[1] * x[2]
    return np.sum(A * A) + A[0][1] * x[2]


def loop_writes_then_reads(x):
    n = x.shape[0]
    A = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            A[i][j] = np.sin(x[i]) * x[j]
    s = 0.0
    for i in range(n):
        for j in range(n):
            s += A[i][j] * A[j][i] * x[j]
    return s


def loop_increments(x):
    n = x.shape[0]
    A = np.ones((n, n))
    for k in range(2):
        for i in range(n):
            for j in range(n):
                A[i][j] += x[i] * A[j][i]
                A[i][j] -= 0.1 * x[j] ** 2
    return np.sum(A ** 2)


def row_slice_write(x):
    A = np.zeros((3, 4))
    for i in range(3):
        A[i][1:4] = x[i] * x
        A[i][0] *= x[i]
    return np.sum(A ** 2) + A[2][1] * x[0]


def rows_of_argument(A, x):
    for i in range(A.shape[0]):
        A[i][i % A.shape[1]] = A[i][0] * x[i]
    return np.sum(np.tanh(A))


def three_levels(x):
    T = np.zeros((2, 3, 3))
    for i in range(2):
        for j in range(3):
            for k in range(3):
                T[i][j][k] = x[j] * x[k] + i
    T[1][2][0] += x[0]
    T[0][1][1:] = x[1:] * 2.0
    return np.sum(T * T)


def mixed_levels(x):
    T = np.zeros((2, 3, 3))
    T[1, 2][0] = x[0] * x[1]       # a tuple of integers, then an index
    T[0][1, 2] = x[2] * x[2]       # an integer, then a tuple
    i = int(x.shape[0] - 2)
    T[i][i + 1][0] = x[1]          # integer expressions
    return np.sum(T * T) + T[1][2][0]


def list_of_lists(x):
    A = [[0.0 for j in range(3)] for i in range(2)]   # filled into an array
    A[1][2] = x[0] * x[1]
    for i in range(2):
        A[i][0] += x[i]
    return A[1][2] * x[2] + A[0][0] * A[1][0]


def list_of_computed_lists(x):
    A = [[x[i] * x[j] for j in range(3)] for i in range(3)]
    for i in range(3):
        A[i][i] = np.sin(A[i][i])
    return np.sum(np.array(A) ** 2)


def nested_list_literal(x):
    A = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    A[1][2] = x[0] * x[1]
    return A[1][2] * x[2]


def test_nested_list_literal():
    """A literal list of lists used as its array would be is that array
    (transforms/frontend/containers/nested_literals.py): written into and differentiated
    (it was refused; more in test_more_python_forms.py)."""
    check_grad(nested_list_literal, [X.copy()], jit=False)


def list_of_rows(x):
    rows = []
    for i in range(3):
        rows.append(x * x[i])
    for i in range(3):
        rows[i][i] = np.sin(x[i])
    return np.sum(np.array(rows) ** 2)


def fill_first_column(A, x):
    for i in range(A.shape[0]):
        A[i][0] = x[i] * x[i]


def helper_writes(x):
    A = np.ones((3, 2))
    fill_first_column(A, x)
    return np.sum(A * A)


def checkpointed_loop(x):
    A = np.ones((3, 3))
    for t in s2sad.checkpointed(range(4)):
        for i in range(3):
            A[i][(i + t) % 3] = np.sin(A[i][i] * x[i])
    return np.sum(A)


CASES = [(constant_position, (X,)), (loop_writes_then_reads, (X,)), (loop_increments, (X,)),
         (row_slice_write, (X,)), (three_levels, (X,)),
         (mixed_levels, (X,)), (list_of_lists, (X,)), (list_of_computed_lists, (X,)),
         (helper_writes, (X,)), (checkpointed_loop, (X,)), (list_of_rows, (X,))]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0].__name__)
def test_chained_writes_gradient(case, jit):
    f, args = case[0], case[1]
    wrt = case[2] if len(case) > 2 else 0
    check_grad(f, [a.copy() for a in args], wrt=wrt, jit=jit)


@pytest.mark.parametrize("jit", [False, True])
def test_writes_into_an_argument(jit):
    # (the function writes into its argument: differences of a copy)
    copying = lambda A, x: rows_of_argument(A.copy(), x.copy())  # noqa: E731
    got = s2sad.grad(rows_of_argument, wrt=(0, 1), jit=jit)(M, X)
    for p, g in enumerate(got):
        np.testing.assert_allclose(g, numerical_grad(copying, (M, X), p), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", CASES[:6], ids=lambda c: c[0].__name__)
def test_chained_writes_forward(case):
    check_jvp(case[0], [a.copy() for a in case[1]], jit=False)


def test_value_is_numpy_value():
    for f, args, *_ in CASES:
        value, _ = s2sad.value_and_grad(f, jit=False)(*[a.copy() for a in args])
        np.testing.assert_allclose(value, f(*[a.copy() for a in args]), rtol=1e-12)


def test_generated_code_writes_one_subscript():
    src = s2sad.grad(loop_increments, jit=False).source_for(X)
    assert "A[i, j] = A[i, j] +" in src or "A[i, j] +=" in src, src


# ---- forms numpy does not write through as A[i, j]: refused with the line ----

def slice_then_index(x):
    A = np.zeros((4, 3))
    A[1:3][0] = x            # numpy writes A[1]
    return np.sum(A * A)


def index_array_then_index(x):
    A = np.zeros((4, 3))
    idx = np.array([2, 0])
    A[idx][0] = x            # writes into a copy: A unchanged
    return np.sum(A * A)


def mask_then_index(x):
    A = np.zeros((3, 3))
    A[x > 0.0][0] = x[0]     # a copy too
    return np.sum(A * A) + x[0]


def list_index_then_index(x):
    A = np.zeros((3, 3))
    A[[0, 1]][0] = x
    return np.sum(A * A)


def float_index_then_index(x):
    A = np.zeros((3, 3))
    k = x[0] * 0.0
    A[k][0] = x[1]
    return np.sum(A * A)


def ellipsis_then_index(x):
    A = np.zeros((3, 3))
    A[..., 0][1] = x[1]
    return np.sum(A * A)


@pytest.mark.parametrize("f, words", [
    (slice_then_index, "shifted position"), (index_array_then_index, "into a copy"),
    (mask_then_index, "into a copy"), (list_index_then_index, "into a copy"),
    (float_index_then_index, "not an integer"), (ellipsis_then_index, "not an integer")])
def test_refused_with_line(f, words):
    with pytest.raises(UnsupportedSyntaxError) as err:
        s2sad.grad(f, jit=False)(X.copy())
    msg = str(err.value)
    assert "test_chained_writes.py" in msg and "chained subscript write" in msg, msg
    assert words in msg, msg
    # (the line of the write)
    import inspect
    lines, first = inspect.getsourcelines(f)
    line = next(first + k for k, t in enumerate(lines) if "][" in t and "=" in t.split("][")[1])
    assert f":{line}," in msg, (line, msg)


def test_numpy_semantics_of_the_refused_forms():
    """What the refusals protect: numpy's meaning of these writes."""
    A = np.zeros((4, 3))
    A[1:3][0] = 1.0
    assert A[1].tolist() == [1.0, 1.0, 1.0] and A.sum() == 3.0
    B = np.zeros((4, 3))
    B[np.array([2, 0])][0] = 1.0
    assert B.sum() == 0.0


def written_in_one_subscript(A, v):
    B = A * 1.0
    B[0][1] = v
    return np.sum(B)


def test_the_check_sees_one_subscript():
    before, after = lowered(chained_writes, written_in_one_subscript, np.ones((2, 3)), 1.0)
    assert before == after and "    B[0, 1] = v" in after.splitlines()

