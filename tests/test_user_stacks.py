"""A user's list used as a stack of values that need a gradient: each value
pushed gets the adjoint of the value popped in its place, also when the
pushed value is a constant or does not need a gradient, and when the popped
value is not used (each once gave a neighbour's adjoint to the wrong value,
with no error: found by the fuzzer). Any use other than a stack's (extend,
reverse, insert, s[i] = v, pop(0), an alias) is refused with its line."""
import numpy as np
import pytest

import s2sad
from gradcheck import check_grad, check_jvp, hessian_by_differences

X = np.array([0.3, 0.5, 0.7, 1.1])


def constant_pushed(x):
    st = []
    st.append(x[0])
    st.append(-0.15)
    acc = 0.0
    for i in range(2):
        acc = acc * 0.5 + np.sin(st.pop()) * (i + 1.0)
    return acc


def constants_pushed_in_a_loop(x):
    st = []
    for i in range(3):
        st.append(x[i])
        st.append(2.0)
    s = 0.0
    for i in range(6):
        s = s * 0.5 + np.sin(st.pop())
    return s


def inactive_value_pushed(x, c):
    st = []
    st.append(x[0])
    st.append(c)  # c is not differentiated
    s = 0.0
    for i in range(2):
        s = s * 2.0 + np.sin(st.pop())
    return s


def popped_value_unused(x):
    st = []
    st.append(x[0])
    st.append(x[1])
    unused = st.pop()
    b = st.pop()
    return b * 3.0


def popped_for_its_effect(x):
    st = []
    st.append(x[0])
    st.append(x[1] * x[2])
    st.pop()
    return st.pop() * 3.0


def popped_unused_in_a_loop(x):
    st = []
    for i in range(4):
        st.append(x[i] * x[i])
    s = 0.0
    for i in range(4):
        v = st.pop()
        if i % 2 == 0:
            s += v * (i + 1)
    return s


def stack_of_arrays_with_a_constant(x):
    st = []
    st.append(x[1:] * 2.0)
    st.append(np.ones(3))
    st.append(x[:3] * x[0])
    a = st.pop()
    b = st.pop()
    c = st.pop()
    return np.sum(a * b + c * c)


FORMS = [constant_pushed, constants_pushed_in_a_loop, popped_value_unused,
         popped_for_its_effect, popped_unused_in_a_loop, stack_of_arrays_with_a_constant]


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("f", FORMS, ids=lambda f: f.__name__)
def test_gradient(f, jit):
    check_grad(f, [X.copy()], jit=jit)


@pytest.mark.parametrize("jit", [False, True])
def test_value_that_needs_no_gradient_pushed(jit):
    check_grad(inactive_value_pushed, [X.copy(), 0.4], jit=jit)


@pytest.mark.parametrize("f", FORMS, ids=lambda f: f.__name__)
def test_forward_mode(f):
    check_jvp(f, [X.copy()], jit=False)


@pytest.mark.parametrize("f", [constant_pushed, popped_value_unused], ids=lambda f: f.__name__)
def test_hessian(f):
    # (constant_pushed: the hessian's reverse sweep once tested `len(dst) > 0`
    # of the list of adjoints as the function left it, where the forward and
    # reverse modes of the hessian disagreed; each len() of a list is now read
    # where the function reads it: list_reads.py)
    np.testing.assert_allclose(s2sad.hessian(f, jit=False)(X.copy()),
                               hessian_by_differences(f, X), rtol=1e-3, atol=1e-4)


# ---- uses other than a stack's: refused ----------------------------------------

def extended(x):
    st = []
    st.append(x[0])
    st.extend([x[1], x[2]])
    return st.pop() * 3.0 + st.pop()


def reversed_in_place(x):
    st = []
    st.append(x[0])
    st.append(x[1])
    st.reverse()
    return st.pop() * 3.0


def inserted(x):
    st = []
    st.append(x[0])
    st.insert(0, x[1])
    return st.pop() * 3.0


def item_assigned(x):
    st = []
    st.append(x[0])
    st.append(x[1])
    st[0] = x[2]
    st.pop()
    return st.pop() * 3.0


def aliased(x):
    st = []
    st.append(x[0])
    other = st
    other.append(x[1])
    return st.pop() * 3.0


def popped_from_the_front(x):
    st = []
    st.append(x[0])
    st.append(x[1])
    return st.pop(0) * 3.0


def front_dropped(x):
    st = []
    st.append(x[0])
    st.append(x[1])
    st.pop(0)
    return st.pop() * 3.0


def cleared(x):
    st = []
    st.append(x[0])
    st.clear()
    st.append(x[1])
    return st.pop() * 3.0


@pytest.mark.parametrize("mode", ["grad", "jvp"])
@pytest.mark.parametrize("f", [extended, reversed_in_place, inserted, item_assigned, aliased,
                               popped_from_the_front, front_dropped, cleared],
                         ids=lambda f: f.__name__)
def test_other_uses_are_refused(f, mode):
    transform = s2sad.grad if mode == "grad" else s2sad.jvp
    args = (X.copy(),) if mode == "grad" else (X.copy(), np.ones_like(X))
    with pytest.raises(s2sad.UnsupportedSyntaxError) as err:
        transform(f, jit=False)(*args)
    assert "test_user_stacks.py" in str(err.value) and "stack" in str(err.value)
