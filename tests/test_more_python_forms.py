"""Everyday Python forms s2sad once refused (issue 45), each checked
against finite differences of the function as Python runs it, compiled and
not, and in forward mode and as a Hessian where those apply; and the forms
that stay refused, each naming the user's file, line and construct."""
import os

import numpy as np
import pytest

import s2sad
from gradcheck import check_grad, check_jvp, numerical_grad

X = np.array([0.35, -0.6, 0.2, 0.45])
FULL = os.environ.get("S2SAD_FULL") == "1"


def hessian_by_differences(f, x, eps=1e-5):
    """Central differences of the gradient, itself checked against
    differences of the function."""
    cols = []
    for k in range(x.size):
        e = np.zeros_like(x)
        e[k] = eps
        cols.append((numerical_grad(f, [x + e], 0, eps) - numerical_grad(f, [x - e], 0, eps))
                    / (2 * eps))
    return np.array(cols).T


def check_hessian(f, x, jit=False):
    np.testing.assert_allclose(s2sad.hessian(f, jit=jit)(x.copy()),
                               hessian_by_differences(f, x), rtol=1e-3, atol=1e-4)


# ---- a user's list used as an unbalanced stack ------------------------------
# (an element never popped lies below every popped one: its adjoint is zero)

def stack_for(x):
    out = []
    for i in range(x.shape[0]):
        out.append(x[i] * x[i])
    s = out.pop() * 2.0
    return s + np.sin(out.pop())


def stack_while(x):
    out = []
    i = 0
    while i < x.shape[0]:
        out.append(x[i] * x[i])
        i += 1
    return out.pop() * 2.0


def stack_interleaved(x):
    # pushes and pops interleaved, two elements left on the stack
    st = []
    s = 0.0
    for i in range(x.shape[0]):
        st.append(np.sin(x[i]))
        if i % 2 == 1:
            s = s + st.pop() * x[i]
    return s


def stack_of_arrays(x):
    st = []
    k = 0
    while k < 3:
        st.append(x[1:] * x[k])
        k += 1
    a = st.pop()
    return np.sum(a * a)


def stack_for_else_unbalanced(x):
    # popped in a while loop, fewer times than pushed
    st = []
    for i in range(x.shape[0]):
        st.append(x[i] * 3.0)
    s = 0.0
    while len(st) > 2:
        s = s + np.cos(st.pop())
    return s


STACKS = [stack_for, stack_while, stack_interleaved, stack_of_arrays,
          stack_for_else_unbalanced]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("f", STACKS, ids=lambda f: f.__name__)
def test_unbalanced_stack(f, jit):
    check_grad(f, [X.copy()], jit=jit)


@pytest.mark.parametrize("f", STACKS, ids=lambda f: f.__name__)
def test_unbalanced_stack_forward_and_hessian(f):
    check_jvp(f, [X.copy()], jit=False)
    check_hessian(f, X)
