"""Second derivatives through arrays recorded on list tapes: a loop that
overwrites an array the reverse sweep needs (`t = x[:3] * x[i]`) records
it with `t_stack.append(t)` ... `t = t_stack.pop()` in the generated
gradient, and hessian, hvp, jvp-of-grad and grad-of-grad differentiate that
generated code again. Checked against central differences of the gradient
(itself checked against differences of the function)."""
import numpy as np
import pytest

import s2sad
from gradcheck import check_grad, check_jvp

X = np.array([0.35, -0.6, 0.2, 0.45])
V = np.array([0.3, -1.1, 0.8, 0.5])


def recurrent(x):
    n = x.shape[0]
    s = 0.0
    for i in range(n):
        t = x[:3] * x[i]
        s = np.sin(s + np.sum(t * t))
    return s


def state_vector(x):
    h = x[:2] * 0.5
    for i in range(x.shape[0]):
        h = np.tanh(h * x[i] + x[1:3])
    return np.sum(h * h)


def while_loop(x):
    u = x[:3].copy()
    k = 0
    while k < 3:
        u = np.sin(u * x[k + 1])
        k += 1
    return np.sum(u ** 3)


def written_in_place(x):
    # (recorded as copies: u_stack.append(u[1:].copy()), A_stack.append(A[k].copy()))
    u = np.ones(3)
    A = np.ones((3, 3))
    for k in range(3):
        u[1:] = np.sin(u[1:] * x[k])
        A[k] = np.cos(A[k - 1] * x[k + 1])
        u += x[k] * u
    return np.sum(u * u) + np.sum(A ** 3)


CASES = [recurrent, state_vector, while_loop, written_in_place]
grad_recurrent = s2sad.grad(recurrent, jit=False)
grad_state_vector = s2sad.grad(state_vector, jit=False)
grad_while_loop = s2sad.grad(while_loop, jit=False)
grad_written_in_place = s2sad.grad(written_in_place, jit=False)


def grad_of_recurrent(x):
    return np.sum(grad_recurrent(x) * V)


def grad_of_state_vector(x):
    return np.sum(grad_state_vector(x) * V)


def grad_of_while_loop(x):
    return np.sum(grad_while_loop(x) * V)


def grad_of_written_in_place(x):
    return np.sum(grad_written_in_place(x) * V)


OUTER = {recurrent: grad_of_recurrent, state_vector: grad_of_state_vector,
         while_loop: grad_of_while_loop, written_in_place: grad_of_written_in_place}
# (compiling a second derivative is slow: two cases compiled)
JIT_ONCE = [(f, False) for f in CASES] + [(recurrent, True), (written_in_place, True)]


def hessian_by_differences(f, x, eps=1e-6):
    g = s2sad.grad(f, jit=False)
    cols = []
    for k in range(x.size):
        e = np.zeros_like(x)
        e[k] = eps
        cols.append((g(x + e) - g(x - e)) / (2 * eps))
    return np.array(cols).T


def test_the_gradient_records_arrays_on_lists():
    for f in CASES:
        assert ".pop()" in s2sad.grad(f, jit=False).source_for(X), f.__name__
        check_grad(f, [X.copy()], jit=False)


@pytest.mark.parametrize("f, jit", JIT_ONCE, ids=lambda p: getattr(p, "__name__", str(p)))
def test_hessian(f, jit):
    expected = hessian_by_differences(f, X)
    np.testing.assert_allclose(s2sad.hessian(f, jit=jit)(X), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f, jit", JIT_ONCE, ids=lambda p: getattr(p, "__name__", str(p)))
def test_hvp(f, jit):
    expected = hessian_by_differences(f, X) @ V
    np.testing.assert_allclose(s2sad.hvp(f, jit=jit)(X, V), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("f, jit", JIT_ONCE, ids=lambda p: getattr(p, "__name__", str(p)))
def test_reverse_over_reverse(f, jit):
    """grad of a function calling the generated gradient: the list tapes
    are reversed again (their adjoints on lists of adjoints)."""
    expected = hessian_by_differences(f, X) @ V   # (the Hessian is symmetric)
    got = s2sad.grad(OUTER[f], jit=jit)(X)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


# ---- a user's list used as a stack -----------------------------------------

def user_stack_for(x):
    out = []
    for i in range(x.shape[0]):
        out.append(x[i] * x[i])
    s = 0.0
    for i in range(x.shape[0]):
        s = s * 0.5 + np.sin(out.pop())
    return s


def user_stack_while(x):
    out = []
    i = 0
    while i < x.shape[0]:
        out.append(x[i] * x[i])
        i += 1
    return out.pop() * 2.0


@pytest.mark.parametrize("f", [user_stack_for, user_stack_while], ids=lambda f: f.__name__)
def test_user_stack(f):
    # a stack the user leaves unbalanced (pushed in a loop, popped once):
    # the elements left on it get a zero adjoint (more in test_more_python_forms.py)
    check_grad(f, [X.copy()], jit=False)
    np.testing.assert_allclose(s2sad.hessian(f, jit=False)(X.copy()),
                               hessian_by_differences(f, X), rtol=1e-5, atol=1e-6)


def user_stack_while_sum(x):
    out = []
    i = 0
    while i < x.shape[0]:
        out.append(x[i] * x[i])
        i += 1
    s = 0.0
    while len(out) > 0:
        s = s * 0.5 + np.sin(out.pop())
    return s


@pytest.mark.parametrize("f", [user_stack_while, user_stack_while_sum], ids=lambda f: f.__name__)
def test_user_stack_forward_mode(f):
    """Forward mode carries a list's tangents on a list of tangents, also
    for a value appended as an expression (`out.append(x[i] * x[i])`,
    which once lost its tangent)."""
    check_jvp(f, [X.copy()], jit=False)
