"""A view read by the reverse sweep after a write into its memory through
another name is made a copy (transforms/frontend/effects/view_copies.py,
transforms/analysis/view_reads.py).

Each function here was differentiated wrongly, with no error, before the
pass: the reverse sweep restores what a statement overwrote by the name it
wrote, so `row`, a second name of `b[i]`, held the new values when the
adjoint of `b[i] = np.sin(row) * row` read it."""
import math

import numpy as np
import pytest

import s2sad
from frontend.passes import lowered
from gradcheck import check_grad, check_jvp, numerical_grad
from s2sad.transforms.frontend.effects import view_copies

A = np.array([[0.3, -0.7, 1.1, 0.45], [0.5, 0.2, -0.9, 1.3], [-0.4, 0.8, 0.6, -1.2]])


def row_rewritten(A):
    b = A.copy()
    row = b[0]
    b[0] = np.sin(row) * 0.72
    return np.sum(b * b)


def rows_rewritten_in_a_loop(A):
    b = A.copy()
    for i in range(b.shape[0]):
        row = b[i]
        b[i] = np.sin(row) * row
    return np.sum(b * b)


def written_through_the_view(A):
    b = A.copy()
    v = b[0]
    s = np.sum(np.sin(b))  # its adjoint reads b, after v[:] wrote into it
    v[:] = 2.0 * v
    return s + np.sum(v * v)


def transposed_twice(A):
    b = A.copy()
    b[:] = np.sin(b.T.T) * 0.72
    return np.sum(b * b)


def out_of_a_view(A):
    # np.multiply(..., out=b) of a view of b: the fuzzer's program
    b = A.copy()
    np.multiply(np.sin(np.transpose(b.mT)), 0.72, out=b)
    return np.sum(b * b)


def view_of_a_view(A):
    b = A.copy()
    v = b[0]
    w = v[1:]
    b[0, 1:] = np.sin(w) * 0.72
    return np.sum(b * b)


def in_a_while_loop(c, A):
    # the fuzzer's program, reduced: a fresh copy per round, rewritten once
    s = 0.3
    it = 0
    while it < 3:
        it += 1
        b = A.copy()
        if it == 1:
            np.multiply(np.sin(np.transpose(b.mT)), 0.72, out=b)
        for i in range(1, 3):
            s += math.cos(0.4 * (c * b[it % 3, 3]))
    return s


FUNCTIONS = [row_rewritten, rows_rewritten_in_a_loop, written_through_the_view,
             transposed_twice, out_of_a_view, view_of_a_view]


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_gradient(f, jit):
    check_grad(f, [A.copy()], jit=jit)


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_plain_derivative(f):
    """Without the optimisations too (the pass is in the front end)."""
    g = s2sad.grad(f, jit=False, optimise=False, check=False)(A.copy())
    np.testing.assert_allclose(g, numerical_grad(f, [A.copy()], 0), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f", FUNCTIONS, ids=lambda f: f.__name__)
def test_forward_mode(f, jit):
    check_jvp(f, [A.copy()], jit=jit)


def test_the_fuzzers_loop(jit):
    check_grad(in_a_while_loop, [-0.77, A.copy()], wrt=(0, 1), jit=jit)


def test_the_view_becomes_a_copy():
    _, after = lowered(view_copies, row_rewritten, A.copy())
    lines = [line.strip() for line in after.splitlines()]
    assert "row_view = b[0]" in lines and "row = np.copy(row_view)" in lines


def only_read(A):
    b = A.copy()
    row = b[0]
    s = np.sum(np.sin(row))
    return s + np.sum(b)


def written_before_the_view(A):
    b = A.copy()
    b[1] = np.cos(b[1])
    row = b[1]
    return np.sum(np.sin(row))


def rebound_before_the_write(A):
    b = A.copy()
    row = b[0]
    s = np.sum(np.sin(row))
    row = np.ones(4)
    b[0] = row
    return s + np.sum(b * b)


@pytest.mark.parametrize("f", [only_read, written_before_the_view, rebound_before_the_write],
                         ids=lambda f: f.__name__)
def test_views_no_write_can_reach_stay_views(f, jit):
    before, after = lowered(view_copies, f, A.copy())
    assert before == after and "np.copy(row" not in after
    check_grad(f, [A.copy()], jit=jit)
