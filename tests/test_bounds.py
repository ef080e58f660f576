"""Index checks the generated code makes itself (transforms/checks/bounds.py).

An index proven in range gets no check, any other one check before its loop
nest or in place, and the reverse sweep's repetition of a forward access is
covered by the forward's check. A function that accounts for every index is
compiled without numba's check at every access; an index out of range still
raises IndexError naming the user's subscript and line, compiled or not,
and a loop that does not run raises nothing."""
import os

import numpy as np
import pytest

import s2sad
from gradcheck import check_grad, check_jvp, numerical_grad
from test_language import gather_squares

HERE = os.path.basename(__file__)


def own_checks(df):
    """The generated functions that check their own indices (compiled
    without numba's bounds checks)."""
    return df.specialisation().generated.checks_own_indices


def raises_in(source):
    return source.count("raise IndexError")


def line_of(fn, text):
    import inspect
    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, ln in enumerate(lines) if text in ln)


# ---- proven: no checks ------------------------------------------------------

def smooth(u, r):
    n = u.shape[0]
    v = np.zeros(n)
    for t in range(3):
        for i in range(1, n - 1):
            v[i] = u[i] + r * (u[i - 1] - 2.0 * u[i] + u[i + 1])
        for i in range(1, n - 1):
            u[i] = v[i]
    s = 0.0
    for i in range(n):
        s += u[i] * u[i]
    return s


def cyclic(x):
    n = x.shape[0]
    s = 0.0
    for i in range(n):
        s += x[i] * x[i - 1]  # x[-1] is the last element, as in numpy
    return s


@pytest.mark.parametrize("f,args", [(smooth, (np.linspace(0.1, 1.0, 7), 0.3)),
                                    (cyclic, (np.linspace(0.1, 1.0, 5),))])
def test_proven_indices_need_no_checks(f, args, jit):
    df = check_grad(f, args, wrt=0, jit=jit)
    assert raises_in(df.source) == 0, df.source
    assert own_checks(df), df.source


# ---- checked before the loop nest -------------------------------------------

def mixture(alpha, q, x):
    k = alpha.shape[0]
    d = x.shape[0]
    s = 0.0
    for c in range(k):
        for j in range(d):
            s += alpha[c] * q[c, j] * x[j]
    return s


MIX = (np.array([0.5, -1.0, 2.0]), np.arange(12.0).reshape(3, 4) / 7.0,
       np.array([0.3, 0.1, -0.2, 0.4]))


def test_a_nest_is_checked_once_before_it(jit):
    df = check_grad(mixture, MIX, wrt=(0, 1, 2), jit=jit)
    assert own_checks(df)
    src = df.source
    loop = src.index("for c in range(k)")
    assert raises_in(src[:loop]) == 1 and raises_in(src[loop:]) == 0, src  # both axes of q
    assert "if k > 0 and d > 0 and (k > q.shape[0] or d > q.shape[1]):" in src, src
    with pytest.raises(IndexError, match=rf"q\[c, j\].*{HERE}:{line_of(mixture, 's += alpha')}"):
        df(MIX[0], MIX[1][:2], MIX[2])  # q has a row too few
    with pytest.raises(IndexError, match=r"q\[c, j\]"):
        df(MIX[0], MIX[1][:, :3], MIX[2])  # and here a column


def test_a_loop_that_does_not_run_raises_nothing(jit):
    df = s2sad.grad(mixture, wrt=(0, 1, 2), jit=jit)
    df(*MIX)
    # d = 0: q is never read, so its shape does not matter, as in the primal
    ga, gq, gx = df(MIX[0], np.zeros((1, 5)), np.zeros(0))
    assert mixture(MIX[0], np.zeros((1, 5)), np.zeros(0)) == 0.0
    np.testing.assert_array_equal(ga, 0.0)
    assert gq.shape == (1, 5) and gx.shape == (0,)


def test_forward_mode_checks_too(jit):
    check_jvp(mixture, MIX, wrt=1, jit=jit)
    dj = s2sad.jvp(mixture, wrt=1, jit=jit)
    dj(*MIX, np.ones((3, 4)))
    assert own_checks(dj)
    with pytest.raises(IndexError, match=r"q\[c, j\]"):
        dj(MIX[0], MIX[1][:2], MIX[2], np.ones((2, 4)))


# ---- counters and triangular nests -------------------------------------------

def packed(l, x):
    d = x.shape[0]
    t = 0
    s = 0.0
    for col in range(d - 1):
        for row in range(col + 1, d):
            s += l[t] * x[row] * x[col]
            t += 1
    return s


def test_a_counter_is_checked_before_its_nest(jit):
    x = np.array([0.3, -0.7, 1.1, 0.4])
    l = np.linspace(-1.0, 1.0, 6)
    df = check_grad(packed, (l, x), wrt=(0, 1), jit=jit)
    assert own_checks(df)
    # t runs over 0 .. (d - 1) * d // 2 - 1; the reverse sweep's l[t] and
    # dl[t] repeat the forward's indices (t counted back down): one check
    src = df.source
    assert raises_in(src) == 1, src
    assert src.index("(d - 1) * d // 2 > l.shape[0]") < src.index("for col in range"), src
    with pytest.raises(IndexError, match=rf"l\[t\].*{HERE}:{line_of(packed, 's += l[t]')}"):
        df(l[:5], x)
    df(np.zeros(0), x[:1])  # the nest does not run: l is never read


def packed_blocks(w, l, x):
    """A triangular nest inside a rectangular one; the counter runs on
    across blocks."""
    k = w.shape[0]
    d = x.shape[0]
    t = 0
    s = 0.0
    for c in range(k):
        for col in range(d - 1):
            for row in range(col + 1, d):
                s += w[c] * l[t] * x[row] * x[col]
                t += 1
    return s


def test_a_triangular_nest_is_checked_before_it(jit):
    w = np.array([0.5, -1.5, 2.0])
    x = np.array([0.3, -0.7, 1.1, 0.4])
    l = np.linspace(-1.0, 1.0, 18)
    df = check_grad(packed_blocks, (w, l, x), wrt=(0, 1, 2), jit=jit)
    src = df.source
    assert own_checks(df) and raises_in(src) == 1, src
    assert "if k > 0 and d > 1 and k * (d - 1) * d // 2 > l.shape[0]:" in src, src
    with pytest.raises(IndexError, match=r"l\[t\]"):
        df(w, l[:17], x)
    df(w, np.zeros(0), x[:1])


def packed_rows(l, x):
    """A row of l per block, indexed by a counter (GMM's l[c, t]), read
    inside a product: the normaliser's operands keep the access's mark."""
    k = l.shape[0]
    d = x.shape[0]
    s = 0.0
    for c in range(k):
        t = 0
        for col in range(d - 1):
            for row in range(col + 1, d):
                s += l[c, t] * x[row] * x[col]
                t += 1
    return s


def test_a_two_axis_counter_index_is_checked_once_before_its_nest(jit):
    x = np.array([0.3, -0.7, 1.1, 0.4])
    l = np.linspace(-1.0, 1.0, 12).reshape(2, 6)
    df = check_grad(packed_rows, (l, x), wrt=(0, 1), jit=jit)
    src = df.source
    # the reverse sweep's dl[c, t] and l[c, t] are covered by the one check
    assert own_checks(df) and raises_in(src) == 1, src
    assert src.index("(d - 1) * d // 2 > l.shape[1]") < src.index("for c in range"), src
    with pytest.raises(IndexError, match=rf"l\[c, t\].*{HERE}:"
                                         rf"{line_of(packed_rows, 's += l[c, t]')}"):
        df(l[:, :5], x)
    df(np.zeros((2, 0)), x[:1])  # the nest does not run: l is never read


def picked(q, y):
    s = 0.0
    for c in range(q.shape[0]):
        s += q[c, np.argmax(y)] * y[c]
    return s


def test_an_index_made_a_temporary_is_checked_once(jit):
    """q[c, np.argmax(y)]: the call becomes a temporary (its kind known), the
    access the same one: checked in place in the forward sweep, and the
    reverse sweep's dq[c, argmax] covered by that check."""
    q = np.arange(6.0).reshape(3, 2) / 5.0
    y = np.array([0.1, 0.5, 0.2])
    df = check_grad(picked, (q, y), wrt=(0, 1), jit=jit)
    src = df.source
    assert own_checks(df) and raises_in(src) == 2, src  # y[c] before the loop, q[c, argmax]
    assert "dq.shape" not in src, src
    with pytest.raises(IndexError, match=r"q\[c, argmax\]"):
        df(q[:, :1], y)
    with pytest.raises(IndexError):
        picked(q[:, :1], y)


def counted_from_one(l, x):
    n = x.shape[0]
    t = -1
    s = 0.0
    for i in range(n):
        t += 1
        s += l[t] * x[i]
    return s


def test_a_counter_incremented_before_its_use(jit):
    x = np.array([0.3, -0.7, 1.1])
    df = check_grad(counted_from_one, (np.array([2.0, 3.0, 4.0]), x), wrt=(0, 1), jit=jit)
    assert own_checks(df)
    with pytest.raises(IndexError, match=r"l\[t\]"):
        df(np.ones(2), x)


def counted_when(l, x):
    t = 0
    s = 0.0
    for i in range(x.shape[0]):
        if x[i] > 0.0:
            s += l[t] * x[i]
            t += 1
    return s


def test_a_counter_that_skips_is_checked_in_place(jit):
    x = np.array([0.3, -0.7, 1.1, 0.5])
    df = check_grad(counted_when, (np.array([2.0, 3.0, 4.0]), x), wrt=(0, 1), jit=jit)
    assert own_checks(df)
    df(np.ones(3), x)  # three positive entries: l is long enough
    with pytest.raises(IndexError, match=r"l\[t\]"):
        df(np.ones(2), x)


def guarded(x, m):
    s = 0.0
    for i in range(x.shape[0]):
        if i < m:
            s += x[i] * x[i + 2]
    return s


def test_a_check_on_one_path_raises_only_there(jit):
    x = np.linspace(0.5, 1.5, 5)
    df = check_grad(guarded, (x, 3), wrt=0, jit=jit)
    assert own_checks(df)
    check_grad(guarded, (x, 0), wrt=0, jit=jit)
    with pytest.raises(IndexError, match=r"x\[i \+ 2\]"):
        df(x, 4)  # x[6]: the primal raises too
    with pytest.raises(IndexError):
        guarded(x, 4)


def test_an_index_read_from_an_array_is_checked(jit):
    x = np.array([0.5, 1.5, -2.0])
    idx = np.array([2, 0, 2, -1])
    df = s2sad.grad(gather_squares, jit=jit)
    np.testing.assert_allclose(df(x, idx), [1.0, 0.0, -12.0])  # 2 x[j] per use
    assert own_checks(df)
    with pytest.raises(IndexError, match=r"x\[idx\[i\]\]"):
        df(x, np.array([0, 3]))


def fancy(x, idx):
    return np.sum(x[idx] * x[idx])


def test_an_index_array_leaves_the_checks_to_numba(jit):
    x = np.array([0.5, 1.5, -2.0])
    df = s2sad.grad(fancy, jit=jit)
    np.testing.assert_allclose(df(x, np.array([2, 0, 2])), [1.0, 0.0, -8.0])
    assert not own_checks(df)
    with pytest.raises(IndexError):
        df(x, np.array([0, 3]))


def test_boundscheck_false_adds_no_checks(jit):
    df = s2sad.grad(mixture, wrt=(0, 1, 2), jit=jit, boundscheck=False)
    df(*MIX)
    assert raises_in(df.source) == 0 and not own_checks(df)


def test_second_derivatives_read_the_checks(jit):
    """hvp differentiates the generated gradient, checks included."""
    x = np.array([0.3, -0.7, 1.1, 0.4])
    l = np.linspace(-1.0, 1.0, 6)
    h = s2sad.hessian(packed, wrt=1, jit=jit)(l, x)
    eps = 1e-5
    g = s2sad.grad(packed, wrt=1, jit=jit)
    numeric = np.array([(g(l, x + eps * e) - g(l, x - eps * e)) / (2 * eps) for e in np.eye(4)])
    np.testing.assert_allclose(h, numeric, rtol=1e-6, atol=1e-8)


# ---- proved after every pass that changes loops or indices --------------------

def neighbours_inside(x, k):
    e = 0.0
    for i in range(x.shape[0] - 1):
        if i > 0:
            e += k * (x[i + 1] - x[i]) ** 2
    return e


def test_a_parallel_loops_chunks_are_proved_as_the_loop(jit):
    """Each chunk of `range(n - 1)` (parallel.py) runs inside it: the indices
    the loop's body reads are proved in the chunks the threads run."""
    x = np.linspace(0.1, 1.3, 9) ** 2
    df = s2sad.grad(neighbours_inside, wrt=(0, 1), jit=jit, parallel=True)
    got = df(x, 0.7)
    for p, g in enumerate(got):
        np.testing.assert_allclose(g, numerical_grad(neighbours_inside, [x, 0.7], p), rtol=1e-6,
                                   atol=1e-8)
    assert "prange" in df.source and raises_in(df.source) == 0, df.source
    assert own_checks(df), df.source


def test_chunks_that_run_past_the_array_raise(jit, monkeypatch):
    """Chunk bounds that lost their parentheses (`chunk * x.shape[0] - 1 //
    n_chunks`, as parallel.py once wrote them) are not proved: the check
    made after the pass catches the index past the end, compiled or not,
    where numba without its bounds checks read and wrote past the array."""
    from s2sad.transforms.optimise import parallel
    from s2sad.transforms.syntax import parse_expr
    from s2sad.transforms.emit.unparse import expr_source

    def lost_parentheses(chunk, start, stop, n, past):
        k = f"({chunk} + 1)" if past else chunk
        return parse_expr(f"{k} * {expr_source(stop)} // {n}")
    monkeypatch.setattr(parallel, "_chunk_end", lost_parentheses)
    x = np.linspace(0.1, 1.3, 9) ** 2
    df = s2sad.grad(neighbours_inside, wrt=(0, 1), jit=jit, parallel=True)
    assert "chunk * x.shape[0] - 1 // n_chunks" in df.source, df.source
    with pytest.raises(IndexError):
        df(x, 0.7)
