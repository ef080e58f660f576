"""Helpers that write into arrays they are given (numba style, `step(u, out,
k)` filling `out`): the caller's array changes, and the derivative follows
it (transforms/frontend/effects/written_args.py). Against finite differences, compiled and as
Python, reverse and forward mode; the forms it cannot follow are refused."""
import math

import numpy as np
import pytest

import s2sad
from frontend.passes import lowered, source
from gradcheck import check_grad, check_jvp, wrt_cases
from s2sad.transforms.frontend.effects import written_args

U0 = np.sin(np.linspace(0.0, 3.0, 7))


def heat_step(u, out, k):
    n = u.shape[0]
    for i in range(1, n - 1):
        out[i] = u[i] + k * (u[i + 1] - 2.0 * u[i] + u[i - 1])
    out[0] = u[0]
    out[n - 1] = u[n - 1]


def swapping(u0, k):
    u = u0.copy()
    un = np.zeros_like(u)
    for t in range(4):
        heat_step(u, un, k)
        u, un = un, u
    return np.sum(u * u)


def copying_back(u0, k):
    u = u0.copy()
    un = np.zeros_like(u)
    for t in range(4):
        heat_step(u, un, k)
        u[:] = un
    return np.sum(u ** 3)


def scale_first(y, s):
    y[0] = s * y[0]
    return y * 1.0


def passes_it_on(y, s):
    scale_first(y, s)  # writes into its own parameter through another helper
    return np.sum(y)


def two_outputs(x, a, b):
    a[:] = np.sin(x)
    b[1:] = x[:-1] * a[1:]
    return np.sum(a * b)


def results_and_writes(x, s):
    z = x.copy()
    c = scale_first(z, s)  # c and z both changed
    total = passes_it_on(z, s)
    total = total + np.sum(z * c)
    a, b = np.zeros_like(x), np.ones_like(x)
    r = two_outputs(x, a, b)
    return total + r + np.sum(a * b * b)


def inside_an_expression(x, s):
    z = x.copy()
    return np.sum(2.0 * scale_first(z, s)) + x[0]  # z is not read again: the call runs first


def relax(vx, vy, k):
    vx -= k * np.roll(vy, 1)
    vy -= k * np.roll(vx, -1)
    return vx, vy


def relaxing(x, k):
    vx, vy = x.copy(), x[::-1].copy()
    for t in range(3):
        vx, vy = relax(vx, vy, k)  # (fluid solvers' `project`: the same arrays, returned)
    return np.sum(vx * vx + vy)


def relax_scaled(vx, s):
    vx *= s
    return vx, s


def returns_a_parameter_it_reads(x, s):
    u = x * 1.0
    w, t = relax_scaled(u, s)  # w is u, t is s
    return np.sum(u * x) * t + np.sum(w * w)


@pytest.mark.parametrize("fn, args, wrts", [
    (relaxing, (U0, 0.3), (0, 1)),
    (returns_a_parameter_it_reads, (U0, 1.7), (0, 1)),
    (inside_an_expression, (U0, 1.7), (0, 1)),
    (swapping, (U0, 0.2), (0, 1)),
    (copying_back, (U0, 0.2), (0, 1)),
    (results_and_writes, (U0, 1.7), (0, 1)),
])
def test_written_arguments_follow_python(fn, args, wrts, jit):
    for wrt in wrt_cases(wrts, jit):
        check_grad(fn, args, wrt=wrt, jit=jit)
        check_jvp(fn, args, wrt=wrt, jit=jit)


def given_a_slice(u0, k):
    u = u0.copy()
    un = np.zeros((2, u.shape[0]))
    heat_step(u, un[1], k)
    return np.sum(un)


def given_twice(u0, k):
    u = u0.copy()
    heat_step(u, u, k)  # reads what it writes: a copy would change what it computes
    return np.sum(u)


def read_again_in_the_expression(x, s):
    z = x.copy()
    return np.sum(2.0 * scale_first(z, s)) + np.sum(z)  # which z? Python: the written one


def aliased_after(x, k):
    vx, vy = x * 1.0, x * 2.0
    a, b = relax(vx, vy, k)
    a[1] = 0.0  # vx is a: it sees the write (a is renamed vx: view_writes.py)
    return np.sum(vx * b) + np.sum(a)


def test_a_returned_argument_written_by_its_second_name(jit):
    check_grad(aliased_after, [U0.copy(), 0.2], jit=jit)


@pytest.mark.parametrize("fn", [given_a_slice, given_twice, read_again_in_the_expression])
def test_forms_it_cannot_follow_are_refused(fn):
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="writes into"):
        s2sad.grad(fn, jit=False)(U0, 0.2)


def step_into(u, out, k):
    out[1] = u[0] * k


def calls_step(u, k):
    un = np.zeros(3)
    step_into(u, un, k)
    return np.sum(un)


def test_the_call_writes_back_what_the_copy_returns():
    _, after = lowered(written_args, calls_step, np.ones(3), 2.0)
    assert after == source('''
        def calls_step(u, k):
            un = np.zeros(3)
            un_written = step_into_writing(u, un, k)
            un[:] = un_written
            return np.sum(un)''')



# ---- a helper writing through a view or another name of its parameter ---------
# (each was differentiated wrongly, with no error: the write was not seen as
# one into the parameter, so the caller's array was not followed)

def normalise_rows(P):
    for row in P:
        row /= 1.0 + np.sum(row * row)


def scale_first_row(P, s):
    r = P[0]
    r *= s


def scale_through_another_name(P, s):
    Q = P
    Q *= s


def set_through_a_transpose(P, s):
    T = P.T
    T[0, 1] = s * T[1, 0]


def rows_normalised(A):
    Y = A.copy()
    normalise_rows(Y)
    return np.sum(Y * A)


def first_row_scaled(A):
    Y = A.copy()
    scale_first_row(Y, A[1, 1])
    return np.sum(Y * A)


def scaled_by_another_name(A):
    Y = A.copy()
    scale_through_another_name(Y, A[1, 1])
    return np.sum(Y * A)


def set_transposed(A):
    Y = A.copy()
    set_through_a_transpose(Y, A[1, 1])
    return np.sum(Y * A)


def normalised_in_a_loop(A):
    Y = A * 1.0
    for t in range(2):
        normalise_rows(Y)
    return np.sum(Y ** 3)


M0 = np.array([[0.3, -0.7, 1.1], [0.5, 0.2, -0.9], [-0.4, 0.8, 0.6], [1.2, -0.3, 0.1]])


@pytest.mark.parametrize("f", [rows_normalised, first_row_scaled, scaled_by_another_name,
                               normalised_in_a_loop], ids=lambda f: f.__name__)
def test_a_write_through_a_view_of_a_parameter(f, jit):
    check_grad(f, [M0.copy()], jit=jit)
    check_jvp(f, [M0.copy()], jit=jit)


def test_a_write_through_a_transposed_parameter_is_refused():
    # (the call is rewritten as writing; the helper's copy then writes
    # through a view view_writes does not take: refused, naming the helper)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="'T' is a view of 'P'"):
        s2sad.grad(set_transposed, jit=False)(M0.copy())


# ---- a list holding a parameter --------------------------------------------------------

def item_replaced(p, q):
    lst = [p, np.sum(q)]
    lst[1] = lst[1] * 2.0 * p  # replaces the item: no write into p (a number: none could be)
    return lst[0] * lst[1]


def list_item_replaced(x, c):
    s = 0.0
    for i in range(2):
        s += item_replaced(np.sin(x[i]) * c, x)
    return s


def item_written_into(P, s):
    lst = [P, s]
    lst[0][1] = lst[0][1] * s  # writes into P: the caller's array
    return s


def list_item_written_into(A):
    Y = A * 1.0
    item_written_into(Y, 3.0)
    return np.sum(Y ** 2 * A)


def test_replacing_an_item_of_a_list_holding_a_parameter_is_no_write(jit):
    # (it was taken as a write into the number: `arg[:] = arg_written` raised)
    assert written_positions_of(item_replaced) == ((), ())
    check_grad(list_item_replaced, [U0[:3].copy(), 0.7], jit=jit)
    check_jvp(list_item_replaced, [U0[:3].copy(), 0.7], jit=jit)


def test_writing_into_an_item_of_a_list_holding_a_parameter(jit):
    assert written_positions_of(item_written_into) == ((), (0, 1))  # (if arrays)
    check_grad(list_item_written_into, [M0.copy()], jit=jit)


def written_positions_of(fn):
    from s2sad.transforms.frontend.effects.helper_effects import written_positions
    from s2sad.transforms.frontend.pipeline import parse
    return written_positions(fn, lambda f: f, parse)


# ---- a nested function in a helper that writes ---------------------------------------

def scaled_with_a_lambda(P, c):
    s = P[1]
    for e in P:
        s -= 0.4 * math.tanh(e)  # (a number: no write; taken as one, a copy is made)
    g = lambda u: np.sin(u) * s * c + u * u
    P[0] = g(P[2])
    return P


def lambda_in_a_writing_helper(x, a):
    y = x ** 2
    scaled_with_a_lambda(y, a)
    return np.sum(y * x)


def test_a_writing_helper_with_a_nested_function(jit):
    # (its copy named the lambda the reader lifted out of it, which the
    # helper's module does not define: a NameError; fuzz seed 103)
    check_grad(lambda_in_a_writing_helper, [U0[:4].copy(), 0.7], jit=jit)
    check_jvp(lambda_in_a_writing_helper, [U0[:4].copy(), 0.7], jit=jit)


def fill_half(out, s):
    out[0] = out[0] * s
    return np.sum(out)


def written_argument_made_by_a_ufunc(x, s):
    # the helper writes into an array nobody else holds: the call's own
    # (it was refused: "giving an array it writes into as an expression")
    a = fill_half(np.log1p(x ** 2), s)
    return a + fill_half(np.zeros_like(x) + x, s)


def test_a_new_array_made_for_the_call_is_written_into(jit):
    check_grad(written_argument_made_by_a_ufunc, [U0[:4].copy(), 0.7], wrt=(0, 1), jit=jit)
    check_jvp(written_argument_made_by_a_ufunc, [U0[:4].copy(), 0.7], jit=jit)
