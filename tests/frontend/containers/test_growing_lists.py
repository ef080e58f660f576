"""A list grown somewhere (appended to, or popped) is a stack whatever it
starts with: its literal's elements are its first appends, np.stack of it
is stack_list, a loop over it may not grow it
(transforms/frontend/containers/growing_lists.py)."""
import numpy as np
import pytest

import s2sad
from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.containers import growing_lists


def states(x, w):
    hs = [x, x * w]
    for t in range(2):
        hs.append(np.tanh(hs[t] * w))
    return np.sum(np.stack(hs))


def restarted(x):
    hs = [x]
    for t in range(2):
        hs.append(hs[-1] * x)
    hs = [hs[-1] * x]
    for t in range(2):
        hs.append(hs[-1] * x)
    return np.sum(hs[0] + hs[2])


def test_a_literal_is_its_first_appends():
    _, after = lowered(growing_lists, states, np.ones(3), np.ones(3))
    assert after == source('''
        def states(x, w):
            hs = []
            hs.append(x)
            hs.append(x * w)
            for t in range(2):
                hs.append(np.tanh(hs[t] * w))
            return np.sum(stack_list(hs))''')


def test_an_element_reading_the_list_is_taken_first():
    _, after = lowered(growing_lists, restarted, np.ones(3))
    assert after == source('''
        def restarted(x):
            hs = []
            hs.append(x)
            for t in range(2):
                hs.append(hs[-1] * x)
            hs_0 = hs[-1] * x
            hs = []
            hs.append(hs_0)
            for t in range(2):
                hs.append(hs[-1] * x)
            return np.sum(hs[0] + hs[2])''')


def test_gradient(jit):
    x, w = np.array([0.3, -0.2, 0.5]), np.array([1.2, 0.4, -0.7])
    check_grad(states, (x, w), wrt=(0, 1), jit=jit)
    check_grad(restarted, (x,), jit=jit)


def grown_while_iterated(x):
    hs = [x]
    for k, h in enumerate(hs):
        if k < 2:
            hs.append(h * 2.0)
    return np.sum(hs[-1])


def stacked_with_a_dtype(x):
    hs = [x]
    for k in range(2):
        hs.append(hs[-1] * 2.0)
    return np.sum(np.array(hs, dtype=np.float32))


@pytest.mark.parametrize("f, says", [(grown_while_iterated, "also changes it (hs.append)"),
                                     (stacked_with_a_dtype, "np.array of the list 'hs' with "
                                      "dtype=")])
def test_refused(f, says):
    with pytest.raises(s2sad.UnsupportedSyntaxError) as err:
        s2sad.grad(f, jit=False)(np.ones(3))
    assert "test_growing_lists.py" in str(err.value) and says in str(err.value)


# ---- numpy's reductions of a list: of the array numpy makes of it -----------
def mean_of_kept(x):
    losses = []
    for i in range(x.shape[0]):
        if x[i] > 0:
            losses.append(x[i] ** 2)
    return np.mean(losses) + np.sum(losses) * np.max(losses) + np.std(losses) \
        + np.linalg.norm(losses)


def sum_of_kept(x):
    losses = []
    for i in range(x.shape[0]):
        if x[i] > 0:
            losses.append(x[i] ** 2)
    rows = []
    for i in range(x.shape[0]):
        if x[i] < 1.0:
            rows.append(x * x[i])
    return sum(losses) + np.sum(sum(rows) ** 2)


def mean_of_rows(x):
    rows = []
    for i in range(x.shape[0]):
        if x[i] > -0.5:
            rows.append(x * x[i])
    return np.sum(np.mean(rows, axis=0) ** 2)


@pytest.mark.parametrize("f", [mean_of_kept, mean_of_rows, sum_of_kept])
def test_reductions_of_a_grown_list(jit, f):
    x = np.array([0.5, -1.0, 2.0, 0.3])
    value, _ = s2sad.value_and_grad(f, jit=jit)(x)
    assert value == pytest.approx(f(x), rel=1e-12)
    check_grad(f, [x], jit=jit)


def test_a_reduction_of_an_empty_grown_list_is_numpys(jit):
    """An empty list of numbers is numpy's empty array: np.max of it raises
    numpy's ValueError, as the function does, naming the line (stacking no
    element raised "need at least one array to stack" before); np.mean and
    sum of it are nan and 0.0 (tests/test_list_programs.py)."""
    with pytest.raises(ValueError, match="zero-size array"):
        mean_of_kept(-np.ones(3))
    with pytest.raises(ValueError, match="zero-size array.*test_growing_lists.py:95"):
        s2sad.grad(mean_of_kept, jit=jit)(-np.ones(3))
