"""A helper returning a list it grows is inlined where its value is
assigned, so the caller indexes and iterates a list of its own
(transforms/frontend/functions/returned_lists.py)."""
import numpy as np
import pytest

import s2sad
from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.functions import returned_lists


def states(W, xs):
    h = np.zeros(W.shape[0])
    out = [h]
    for x in xs:
        h = np.tanh(np.dot(W, h) + x)
        out.append(h)
    return out


def last_state(W, xs):
    hs = states(W, xs)
    return np.sum(hs[-1])


def paired_states(W, xs):
    hs = states(W, xs)
    total = 0.0
    for t in range(len(xs)):
        total += np.sum(hs[t] * hs[t + 1])
    return total


def every_state(W, xs):
    hs = states(W, xs)
    total = 0.0
    for h in hs:
        total = total + np.sum(np.sin(h))
    return total


def test_inlined_where_assigned():
    _, after = lowered(returned_lists, last_state)
    assert after == source('''
        def last_state(W, xs):
            states_W = W
            states_xs = xs
            states_h = np.zeros(states_W.shape[0])
            hs = [states_h]
            for states_x in states_xs:
                states_h = np.tanh(np.dot(states_W, states_h) + states_x)
                hs.append(states_h)
            return np.sum(hs[-1])''')


W = np.array([[0.3, -0.5, 0.1], [0.2, 0.4, -0.6], [-0.1, 0.7, 0.2]])
XS = np.array([[0.5, -1.0, 0.2], [0.1, 0.3, -0.4], [1.2, -0.2, 0.0], [0.3, 0.3, 0.3]])


@pytest.mark.parametrize("fn", [last_state, paired_states, every_state])
def test_gradient(jit, fn):
    check_grad(fn, [W, XS], wrt=(0, 1), jit=jit)


def summed_states(W, xs):
    return np.sum(np.stack(states(W, xs)))  # (its value in place: the list's own name)


def test_in_an_expression(jit):
    check_grad(summed_states, [W, XS], wrt=(0, 1), jit=jit)


def states_or_none(W, xs):
    out = [np.zeros(W.shape[0])]
    if xs.shape[0] == 0:
        return out  # (returning before its end: not inlined)
    for x in xs:
        out.append(np.tanh(np.dot(W, out[-1]) + x))
    return out


def last_of_early(W, xs):
    hs = states_or_none(W, xs)
    return np.sum(hs[-1])


def test_not_inlinable_stays_refused(jit):
    with pytest.raises(s2sad.UnsupportedSyntaxError) as info:
        s2sad.grad(last_of_early, jit=jit)(W, XS)
    assert "test_returned_lists.py" in str(info.value) and "'hs'" in str(info.value)
