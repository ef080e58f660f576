"""A Python list of arrays (or numbers) that a function grows and reads by
index, the tape of a time loop: `hs = [h0]`, then in the loop `hs[t]` read
and `hs.append(h)`; reads at a negative index, at an index another array
holds, np.stack / np.array of it, loops over it, pops among the reads.
Python's semantics decide: an index out of range raises IndexError,
compiled or not. Gradients against finite differences, and forward mode
(front end: transforms/frontend/containers/growing_lists.py and
list_reads.py; reverse sweep: transforms/reverse/user_stacks.py)."""
import numpy as np
import pytest

import s2sad
from gradcheck import check_grad, check_jvp

X = np.array([0.3, -0.5, 0.8, 1.2])
W = np.array([1.1, 0.7, -0.4, 0.9])
RNG = np.random.default_rng(7)
BLOCKS = RNG.normal(size=(5, 2, 2)) * 0.8
PARENTS = np.array([-1, 0, 1, 0, 3])


def time_loop(x, w):
    hs = [x]
    for t in range(3):
        hs.append(np.tanh(hs[t] * w) + 0.5 * hs[t])
    return np.sum(hs[-1] * hs[1])


def read_back(x):
    hs = [x]
    for t in range(4):
        hs.append(np.sin(hs[-1]) * hs[-2 if t > 0 else -1])
    return np.sum(hs[-3] * hs[2]) + np.sum(hs[0])


def parent_products(blocks, parents):
    out = []
    for i in range(blocks.shape[0]):
        if parents[i] == -1:
            out.append(blocks[i])
        else:
            out.append(out[parents[i]] @ blocks[i])
    return np.stack(out)


def stacked_as_array(x):
    hs = []
    for k in range(3):
        hs.append(x * (k + 1.0))
    hs.append(np.cos(hs[0]))
    return np.sum(np.array(hs) ** 2) + np.sum(np.asarray(hs)[1])


def looped_over(x):
    hs = [x]
    for k in range(3):
        hs.append(np.sin(hs[-1]) * x)
    s = 0.0
    for h in hs:
        s = s + np.sum(h * h)
    for k, h in enumerate(hs):
        s = s + k * np.sum(h)
    return s


def numbers(x):
    vals = [x[0]]
    for k in range(3):
        vals.append(vals[-1] * x[k + 1] + 1.0)
    return vals[2] + vals[-1] * vals[0]


def rebound_in_a_loop(x):
    s = 0.0
    for t in range(3):
        hs = [x * (t + 1.0)]
        for k in range(2):
            hs.append(np.sin(hs[-1]) + x)
        s = s + np.sum(hs[1] * hs[-1])
    return s


def popped_and_read(x):
    hs = [x]
    for k in range(3):
        hs.append(np.cos(hs[k]) * x)
    last = hs.pop()
    hs.append(last * 2.0)
    v = hs.pop()
    return np.sum(v * hs[-1]) + np.sum(hs[1])


def grown_in_a_while_loop(x):
    hs = [x]
    while len(hs) < 4:
        hs.append(hs[-1] * x + 0.1 * len(hs))
    return np.sum(np.stack(hs)[:, 1]) + np.sum(hs[2] ** 2)


@pytest.mark.parametrize("f, args", [
    (time_loop, (X, W)), (read_back, (X,)), (parent_products, (BLOCKS, PARENTS)),
    (stacked_as_array, (X,)), (looped_over, (X,)), (numbers, (X,)),
    (rebound_in_a_loop, (X,)), (popped_and_read, (X,)), (grown_in_a_while_loop, (X,))],
    ids=lambda v: getattr(v, "__name__", ""))
def test_gradient(f, args, jit):
    check_grad(f, args, jit=jit)


@pytest.mark.parametrize("f, args", [
    (time_loop, (X, W)), (parent_products, (BLOCKS, PARENTS)), (looped_over, (X,)),
    (popped_and_read, (X,))], ids=lambda v: getattr(v, "__name__", ""))
def test_forward_mode(f, args, jit):
    check_jvp(f, args, jit=jit)


def test_the_gradient_wrt_every_argument(jit):
    check_grad(time_loop, (X, W), wrt=(0, 1), jit=jit)


# ---- Python's semantics -----------------------------------------------------------

def read_at(x, n):
    hs = [x]
    for k in range(2):
        hs.append(hs[-1] * 2.0)
    return np.sum(hs[n])


@pytest.mark.parametrize("n", [3, -4, 7])
def test_an_index_out_of_range_raises_index_error(n, jit):
    with pytest.raises(IndexError):
        read_at(X, n)
    with pytest.raises(IndexError):
        s2sad.grad(read_at, jit=jit)(X, n)


@pytest.mark.parametrize("n", [0, 2, -1, -3])
def test_every_index_in_range(n, jit):
    check_grad(read_at, (X, n), jit=jit)


def unequal_shapes(x):
    hs = [x]
    hs.append(x[1:] * 2.0)
    for k in range(2):
        hs.append(hs[-1] * 2.0)
    return np.sum(np.stack(hs))


def test_stacking_elements_of_other_shapes_raises_as_numpy(jit):
    with pytest.raises(ValueError):
        unequal_shapes(X)
    with pytest.raises(ValueError):
        s2sad.grad(unequal_shapes, jit=jit)(X)


def filtered_sum(x):
    hs = []
    for i in range(x.shape[0]):
        if x[i] > 1.0:
            hs.append(x[i] * x[i])
    return sum(hs) + np.sum(x)


def filtered_array(x):
    hs = []
    for i in range(x.shape[0]):
        if x[i] > 1.0:
            hs.append(np.sin(x[i]))
    return np.sum(np.array(hs)) * 2.0 + np.sum(x * x)


@pytest.mark.parametrize("f", [filtered_sum, filtered_array])
@pytest.mark.parametrize("x", [np.array([0.5, -1.0, 0.2]), np.array([0.5, 2.0, 3.0])],
                         ids=["stays_empty", "filled"])
def test_a_list_of_numbers_that_may_stay_empty(f, x, jit):
    """sum([]) is 0 and np.array([]) an empty array: a filtered list that
    nothing was appended to is no error (the stack of an empty list raised
    numpy's "need at least one array to stack")."""
    value, _ = s2sad.value_and_grad(f, jit=jit)(x)
    assert value == pytest.approx(f(x))
    check_grad(f, (x,), jit=jit)


def test_a_length_read_before_the_loop_that_pops():
    # (the reverse sweep read len(st) as the function left it, empty: a zero
    # gradient with no error)
    def popped_in_a_counted_loop(x):
        st = []
        for i in range(3):
            st.append(x * (i + 1.0))
        s = 0.0
        for i in range(len(st)):
            v = st.pop()
            s = s * 0.5 + np.sum(np.sin(v))
        return s

    check_grad(popped_in_a_counted_loop, (X,), jit=False)


# ---- refused, with the line and what to do ------------------------------------------

def kinds_differ(x):
    hs = [x]
    for k in range(2):
        hs.append(hs[-1] * 2.0)
    hs.append(np.outer(x, x))
    return np.sum(hs[1])


def grown_while_iterated(x):
    hs = [x]
    for h in hs:
        if len(hs) < 3:
            hs.append(h * 2.0)
    return np.sum(hs[-1])


def stacked_on_another_axis(x):
    hs = [x]
    for k in range(3):
        hs.append(hs[-1] * k)
    return np.sum(np.stack(hs, axis=1) * X[:, None])


def written_after_appended(x):
    h = x * 2.0
    hs = [h]
    for k in range(2):
        hs.append(hs[-1] * x)
    h[0] = 5.0
    return np.sum(hs[0] * x)


def sliced(x):
    hs = [x]
    for k in range(2):
        hs.append(hs[-1] * x)
    return np.sum(np.stack(hs[1:]))


@pytest.mark.parametrize("f, says", [
    (kinds_differ, "another kind"), (grown_while_iterated, "also changes it"),
    (stacked_on_another_axis, "axis="), (written_after_appended, "holds 'h'"),
    (sliced, "used other than as a stack")], ids=lambda v: getattr(v, "__name__", ""))
def test_refused(f, says):
    with pytest.raises(s2sad.UnsupportedSyntaxError) as err:
        s2sad.grad(f, jit=False)(X.copy())
    assert "test_list_programs.py" in str(err.value) and says in str(err.value)
    if f is kinds_differ:  # (the line of the append that brings the other kind)
        line = int(str(err.value).split("test_list_programs.py:")[1].split(",")[0])
        assert "np.outer" in open(__file__).read().splitlines()[line - 1]


# ---- exported: the runtime helpers go with it ---------------------------------------

def tape_and_range(x, r=None):
    if r is None:
        r = range(1, x.shape[0])
    hs = [x]
    for t in r:
        hs.append(np.sin(hs[t - 1]) * x[r[0]])
    return np.sum(np.stack(hs) ** 2) + np.sum(hs[-1])


@pytest.mark.parametrize("jit", [True, False])
def test_exported_runs_without_s2sad(tmp_path, jit):
    from exporting import imports_no_s2sad, run_without_s2sad
    d = s2sad.grad(tape_and_range, jit=jit)
    d(X)
    path = str(tmp_path / "exported_tape.py")
    entry = s2sad.export(d, path)
    assert imports_no_s2sad(path)
    value, grad = run_without_s2sad(path, entry, (X, None), jit=jit)
    np.testing.assert_allclose(value, tape_and_range(X), rtol=1e-12)
    check_grad(tape_and_range, (X,), jit=jit)
    np.testing.assert_allclose(grad, d(X), rtol=1e-12)
