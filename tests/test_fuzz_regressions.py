"""Bugs found by the fuzzer (tests/fuzz), each reduced to a small program.

Each test is marked xfail(strict=True) with a one-line diagnosis until the
compiler is fixed: a fix makes it pass, strict makes that an error, and the
marker (and the feature's entry in tests/fuzz/generator.py's KNOWN_BUGS,
which keeps the in-suite fuzz run away from the bug) should then go."""
import math

import numpy as np
import pytest

import s2sad
from gradcheck import check_grad, check_tree_grad, numerical_grad
from s2sad import stop_gradient

X = np.array([0.3, -0.7, 1.1, 0.45])
Y = np.array([0.5, 0.2, -0.9, 1.3])


def check_value(f, args, jit, wrt=0):
    """value_and_grad's value is the primal's."""
    copy = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    value, _ = s2sad.value_and_grad(f, wrt=wrt, jit=jit)(*args)
    np.testing.assert_allclose(value, f(*copy))


# ---- branch_local_array ------------------------------------------------------

def array_in_untaken_branch(x, c):
    s = 0.0
    if c > 0.0:
        v = x * c
        s = v[1]
    return s + x[0]


def temporary_after_early_return(x, c):
    if c > 0.0:
        return c
    return (x * c)[1]


def test_array_bound_in_untaken_branch():
    check_grad(array_in_untaken_branch, (X, -0.5), wrt=0, jit=False)
    # the same for a temporary array (x * c) after a return that was taken
    check_grad(temporary_after_early_return, (X, 0.5), wrt=0, jit=False)


# ---- tuple_early_return ----------------------------------------------------------

def tuple_early_return(x, c):
    if c > 0.0:
        return c, x * 2.0
    return c * c, x


def test_early_return_of_a_tuple(jit):
    check_grad(tuple_early_return, (X, 0.5), wrt=(0, 1), jit=jit)


# ---- slice_write ---------------------------------------------------------------------

def slice_write_reads_itself(x):
    y = x.copy()
    y[:] = y ** 2
    return y[1]


def slice_write_reads_other_slice(x):
    b = np.zeros(4)
    b[:] = x
    b[1:2] = b[3:4] - x[0]
    return np.sum(b * x)


def test_slice_write_adjoint_is_a_view(jit):
    check_grad(slice_write_reads_itself, (X,), jit=jit)
    check_grad(slice_write_reads_other_slice, (X,), jit=jit)


# ---- neg_const_pow -----------------------------------------------------------------------

def negative_constant_power(x):
    return (-1.5) ** 2 * x


def stopped_negative_constant_power(x):
    return stop_gradient(-0.6) ** 2 * x


def test_negative_constant_base_of_power(jit):
    check_grad(negative_constant_power, (0.7,), jit=jit)
    check_value(negative_constant_power, (0.7,), jit)
    check_grad(stopped_negative_constant_power, (0.7,), jit=jit)


# ---- stop_gradient_attr ------------------------------------------------------------------

def stop_gradient_attribute_on_constant(x):
    y = 0.0
    if s2sad.stop_gradient(0.5) > 0.1:
        y = x * x
    return y + x


def test_stop_gradient_attribute_on_a_constant():
    check_grad(stop_gradient_attribute_on_constant, (0.7,), jit=True)


# ---- copy_after_loop -------------------------------------------------------------------------

def copy_after_loop(x):
    s = x
    for i in range(3):
        s = math.sin(s)
    t = s
    return t


def plus_constant_after_loop(x):
    s = x
    for i in range(3):
        s = math.sin(s)
    return s + 0.5


def overwritten_in_loop(x):
    for i in range(2):
        s = math.cos(x)
        t = 1.0 * s
    return 0.5 + t


def test_copy_after_loop(jit):
    check_grad(copy_after_loop, (0.7,), jit=jit)
    check_grad(plus_constant_after_loop, (0.7,), jit=jit)
    check_grad(overwritten_in_loop, (0.7,), jit=jit)


# ---- tuple_output_subscript -----------------------------------------------------------------

def subscript_in_tuple_output(x, c):
    return x[1], c


def subscript_and_array_in_tuple_output(x, c):
    v = x * c
    return v[1], v


def test_tuple_output_element_is_a_subscript(jit):
    check_grad(subscript_in_tuple_output, (X, 0.5), wrt=(0, 1), jit=jit)
    check_grad(subscript_and_array_in_tuple_output, (X, 0.5), wrt=(0, 1), jit=jit)


# ---- array_output_restored ------------------------------------------------------------------

def returns_written_buffer(y):
    b = np.ones(3)
    b[0] = b[0] * y[-1]
    return b


def test_array_output_restored_by_reverse_sweep(jit):
    check_grad(returns_written_buffer, (Y,), jit=jit)
    check_value(returns_written_buffer, (Y,), jit)


# ---- element_self_copy ------------------------------------------------------------------------

def copy_element_onto_itself(x, k):
    b = x * x
    b[k] = b[1]
    return np.sum(np.sin(b))


def test_element_copied_onto_itself(jit):
    check_grad(copy_element_onto_itself, (X, 1), jit=jit)


# ---- chained_subscript ------------------------------------------------------------------------

def chained_subscript(x, c):
    b = np.ones((3, 2))
    b[:, 0] = x[0:3]
    for i in range(3):
        b[2, 1] = b[2, 1] * b[:, 1][2] * c
    return np.sum(b)


def test_chained_subscript_adjoint(jit):
    check_grad(chained_subscript, (X, 0.7), wrt=(0, 1), jit=jit)


# ---- constant_condition ------------------------------------------------------------------------

def constant_branch_in_loop(x):
    s = 0.0
    for i in range(3):
        if 0.5 > 1.0:
            s = np.tanh(s + x[i])
            break
        s = s + x[i]
    return s


def test_tape_only_appended_in_constant_branch():
    check_grad(constant_branch_in_loop, (X,), jit=True)


# ---- tuple_helper_array ------------------------------------------------------------------------

def pair(p):
    return p[0] * 2.0, p


def uses_first_of_pair(x):
    s, v = pair(np.tanh(x))
    return s


def test_unused_array_output_of_a_helper(jit):
    check_grad(uses_first_of_pair, (X,), jit=jit)


# ---- reset_in_helper ------------------------------------------------------------------------

def pair_with_reset(p):
    b = np.ones(3)
    for i in range(1):
        s2sad.reset_recording()
        b[0] += p
    return 0.5 - b, p + 0.0


def uses_pair_with_reset(c):
    s, t = pair_with_reset(c + 0.5)
    return s


def test_reset_in_loop_of_tuple_helper(jit):
    check_grad(uses_pair_with_reset, (0.7,), jit=jit)


# ---- recording_subscript_write ------------------------------------------------------------------

def increment_in_stop_recording(x, c):
    b = x * c
    with s2sad.stop_recording():
        b[0] += 1.0
    return np.sum(b)


def scalar_increment_in_stop_recording(x, c):
    s = x[0] * c
    with s2sad.stop_recording():
        s += 1.0
    return s + x[1] * c


def test_subscript_write_in_stop_recording(jit):
    # the block's results are constants: a scalar updated there is (the
    # second check passes), an element written there is not
    ds = s2sad.grad(scalar_increment_in_stop_recording, wrt=1, jit=jit)(X, 0.7)
    assert ds == pytest.approx(X[1])
    db = s2sad.grad(increment_in_stop_recording, wrt=1, jit=jit)(X, 0.7)
    assert db == pytest.approx(np.sum(X[1:]))


# ---- self_subscript_rebind ----------------------------------------------------------------------

def rebind_from_own_element(x, c):
    v = x * c
    v = v[3] * x
    return np.sum(v * x)


def rebind_from_own_slice(x, c):
    v = x * c
    v = v[1:3] * x[0:2]
    return np.sum(v)


def test_array_rebound_from_its_own_elements(jit):
    check_grad(rebind_from_own_element, (X, 0.7), wrt=(0, 1), jit=jit)
    check_grad(rebind_from_own_slice, (X, 0.7), wrt=(0, 1), jit=jit)


# ---- output aliasing through an early return ----------------------------------------------

def written_argument_returned_early(k, x):
    x[k - 1] = 0.69
    if k == 0:
        return np.sin(x)
    return x


def buffer_written_twice_returned_early(x):
    b = np.zeros_like(x)
    if x[0] >= 0.9:
        return x
    b[2] = np.prod(np.sin(x))
    b[2] = np.linalg.norm(np.cos(b))
    return b


def copy_written_after_early_return(x):
    b = x.copy()
    if x[2] < 0.5:
        return np.cos(b)
    i = 0
    b[i] = 0.48
    return b


def test_returned_array_not_restored_through_result_variable(jit):
    # an early return makes the output `result = b`: the reverse sweep's
    # in-place restores of b must not reach the returned value
    check_value(written_argument_returned_early, (3, X[:3].copy()), jit, wrt=1)
    check_grad(written_argument_returned_early, (3, X[:3].copy()), wrt=1, jit=jit)
    check_value(buffer_written_twice_returned_early, (X,), jit)
    check_grad(buffer_written_twice_returned_early, (X,), jit=jit)
    Z = np.array([1.378, 1.066, 1.427])
    check_value(copy_written_after_early_return, (Z,), jit)
    check_grad(copy_written_after_early_return, (Z,), jit=jit)


# ---- folded_branch_leaves_empty_loop -----------------------------------------------------------

def loop_of_a_dead_branch(x, k):
    s = x[0] * x[1]
    for i in range(k - 1, -1, -1):
        if 1.05 <= 0.5:
            break
    return s


def test_loop_whose_body_is_a_dead_branch(jit):
    check_grad(loop_of_a_dead_branch, (X, 3), jit=jit)


# ---- from the 10,000-program run -------------------------------------------------------------

def loop_that_never_runs(x):
    it = 0
    while -0.15 < -0.6 and it < 4:   # a constant operand decides the test
        it += 1
        if it == 1:
            return np.min(x * x)
    return 0.5 + x[0]


def branch_decided_by_a_constant(y, k, x):
    if -0.15 <= 0.1 or x[k] > 0.4:
        v, s = (x, 0.5)
    else:
        v = x * y
    return np.maximum(v[k - 1], 1.35) + np.sum(y * y)


def constant_conditional_expression(k, c, y, x):
    v = np.concatenate((x[0:2], x[2:3]))
    y[k % 3] *= c
    for i in range(1):
        w = (np.copy(y) if 0.3 >= 0.5 else v) * x
        v = w + y
        y[0] += v[k % 3]
    return -y[k % 3]


def row_of_a_written_argument(k, x, A):
    A[k % 2, k] = np.mean(A)
    A[k - 1, k] = x[k + 1]
    return (0.5, A[k % 2])


def conditional_rebinding_its_test(x, y, k):
    s = np.exp(np.sin(x[3]))
    s = (y[2] if 0.5 < 0.9 else 0.5) if s >= 0.4 else 0.5
    v = y + s
    return np.maximum(v[k - 1], 0.45) + x[0]


def conditional_in_stop_recording(y, x, k):
    with s2sad.stop_recording():
        v = y if k == 0 else np.minimum(y, 1.35)
    return x @ v + np.sum(y)


def test_constant_tests_are_folded(jit):
    # numba prunes branches with constant tests, leaving tapes appended only
    # there untyped: s2sad folds them first (and `and`/`or` a constant decides)
    check_grad(loop_that_never_runs, (X,), jit=jit)
    check_grad(branch_decided_by_a_constant, (X, 3, Y), wrt=0, jit=jit)
    y, x = np.array([0.161, 1.356, -0.029]), np.array([-0.359, -0.509, 1.03])
    dc = s2sad.grad(constant_conditional_expression, wrt=1, jit=jit)(4, -1.315, y, x)
    assert dc == pytest.approx(-y[1])   # -y[1] * c


def test_returned_row_of_a_written_argument(jit):
    A = np.array([[-0.361, 0.462, 0.737, 0.342], [-0.611, 0.047, 1.209, -0.112]])
    value, _ = s2sad.value_and_grad(row_of_a_written_argument, wrt=1, jit=jit)(2, X.copy(), A.copy())
    expected = row_of_a_written_argument(2, X.copy(), A.copy())
    assert value[0] == expected[0]
    np.testing.assert_allclose(value[1], expected[1])   # not restored by the reverse sweep


def test_conditional_expression_rebinding_its_test(jit):
    check_grad(conditional_rebinding_its_test, (X, Y, 2), wrt=(0, 1), jit=jit)


def test_conditional_expression_in_stop_recording(jit):
    g = s2sad.grad(conditional_in_stop_recording, jit=jit)(Y, X, 2)
    np.testing.assert_allclose(g, np.ones(4))   # v is a constant: only np.sum(y)


# ---- a restore moved to the top of the reverse iteration -----------------------

def tanh_of_a_loop_value(c):
    for i in range(1):
        s = np.tanh(c)
    return math.sin(s)


def tanh_of_its_own_update(a, c):
    s, v = (c + a, 0.5)
    for i in range(1):
        s = np.tanh(s * (s + 0.6))
    return s - a


def test_adjoint_reading_its_result_keeps_the_restore_after_it(jit):
    # tanh's adjoint reads the new value: the old one may only come back after
    # it (and a value recomputed from the old one must wait for it too)
    check_grad(tanh_of_a_loop_value, (0.426,), jit=jit)
    check_grad(tanh_of_its_own_update, (-1.465, 0.79), wrt=0, jit=jit)


# ---- an adjoint added into in place, and an element of it kept in a scalar ----

def mean_and_element(x, k):
    s = 0.0
    for i in range(3):
        s += np.mean(x) * x[k] * x[k]   # dx += (all of it) and dx[k] += ...
    return s


def test_whole_array_addition_keeps_the_element_in_the_array(jit):
    # the element may not be kept in a scalar for the loop: `dx += e` adds to
    # it too
    check_grad(mean_and_element, (X, 1), wrt=0, jit=jit)


# ---- a branch that an and/or's constant operand makes dead ----------------------

def loop_in_branch_decided_late(x):
    s = x[0]
    if math.sin(x[1]) > -2.0 and 0.9 > 1.0:   # never runs: Python compiles it away
        it = 0
        while True:
            if it >= 3:
                break
            it += 1
            s = s * x[1]
    if math.cos(x[2]) > 2.0 or 1.0 < 2.0:     # always runs: the else never
        s = s * x[3]
    else:
        for e in x:
            s = s * e
    return s


def test_branch_dead_by_a_constant_after_a_read(jit):
    # numba compiled the dead branch's tape list away with its appends and
    # could not type it (the derivative fell back to Python)
    check_grad(loop_in_branch_decided_late, (X,), jit=jit)
    x = X.copy()
    g = s2sad.grad(loop_in_branch_decided_late, jit="require")(x)
    np.testing.assert_allclose(g, [X[3], 0.0, 0.0, X[0]])


def branch_on_a_stopped_constant(A, k, x):
    for row in A:
        if s2sad.stop_gradient(0.5) <= 0.7:   # a constant test once the marker is gone
            pass
        else:
            x[k - 1] *= np.arctan(x[k])
            break
    return 0.5 + min(A[2 - k, k] ** 2, x[k])


def test_branch_dead_by_a_constant_behind_a_marker(jit):
    # the marker hid the constant from s2sad but not from numba, which
    # pruned the else and its tape's appends (seed 23)
    A = np.array([[-1.0, -0.2, -0.9, 0.05], [-0.5, -0.5, 0.3, -0.75], [1.3, 0.6, -1.1, -0.7]])
    check_grad(branch_on_a_stopped_constant, (A, 2, X), wrt=(0, 2), jit=jit)
    g = s2sad.grad(branch_on_a_stopped_constant, wrt=0, jit="require")(A, 2, X.copy())
    expected = np.zeros_like(A)
    expected[0, 2] = 2 * A[0, 2]  # min picks A[0, 2] ** 2 = 0.81 over x[2] = 1.1
    np.testing.assert_allclose(g, expected)


def _element_of_a_row_in_a_branch(A):
    s = 0.0
    for i in range(4):
        if i > 2:
            s = A[-1][i] * 2.0
    return s


def _element_of_a_row_returned(A):
    for i in range(4):
        if i > 2:
            return A[-1][i] * 2.0 - A[0][i]
    return 0.0


@pytest.mark.parametrize("f", [_element_of_a_row_in_a_branch, _element_of_a_row_returned])
def test_element_of_a_view_added_to_in_a_loop(f, jit):
    """dA[-1][i] += g in a loop was promoted to an accumulator of the view
    dA[-1] that dropped [i]: the gradient went to the whole row (seed 23)."""
    check_grad(f, (np.arange(8.0).reshape(2, 4) / 7.0,), jit=jit)


# ---- a container argument passed whole to a helper, with keywords (issue #33) --------

def _predict_defaults(params, u, a=1.0, b=2.0, *, c=3.0):
    return np.sum(params["w"] * u) * a + params["b"] * b * c


def _passes_one_default(p, x):
    return _predict_defaults(p, x, 5.0)   # b and c keep their defaults


def _predict(params, u, scale=1.0):
    return np.sum(np.tanh(params["w"] * u)) * scale + params["b"]


def _passes_by_keyword(p, x):
    return (_predict(u=x, params=p) + _predict(p, x * x, scale=0.5)
            + _predict(params=p, scale=2.0, u=np.sin(x)))


@pytest.mark.parametrize("f", [_passes_one_default, _passes_by_keyword])
def test_container_passed_whole_with_keywords_and_defaults(f, jit):
    """The copy of a helper taking a container's leaves had the helper's
    __defaults__, which do not line up once its keyword-only parameters are
    plain ones: `b` and `c` above got 1.0 and 2.0, a wrong gradient with no
    error. A container passed by keyword (`params=p`) or beside keywords was
    refused; it is bound by position first (the fuzzer's container_param)."""
    p = {"w": X.copy(), "b": 0.7}
    g = check_tree_grad(f, (p, Y.copy()), wrt=0, jit=jit)
    if f is _passes_one_default:
        assert g["b"] == pytest.approx(2.0 * 3.0)


# ---- index checks: a test nobody reads ---------------------------------------------

def _pair_loop(t):
    total = 0.0
    for v in t:
        total = total + v * v
    return total


def _continue_on_a_short_argument(c, A, y):
    n = len(y)
    s = c * 1.0
    it = 0
    while (np.square(y[0] + y[n - 1]) <= 0.5 or np.linalg.norm(np.cos(A[1])) > 0.4) and it < 2:
        it += 1
        if not _pair_loop((s, y[-2])) > -0.2:
            continue
    return s + np.sum(y)


def test_a_test_before_the_end_of_a_loop_body_still_raises(jit):
    """`if ...y[-2]...: continue` ends the loop body: the flag it sets is
    read by nobody, and dead-store elimination dropped the test with it, so
    a y of one element made the function raise IndexError and its derivative
    return (seed 0, with Python's sum/max/min forms)."""
    A = np.array([[1.375, -0.161, -0.414], [0.681, -1.326, -0.273]])
    args = (-0.857, A, np.array([-1.359, 1.303, -1.498]))
    check_grad(_continue_on_a_short_argument, args, wrt=(0, 2), jit=jit)
    df = s2sad.grad(_continue_on_a_short_argument, wrt=(0, 2), jit=jit)
    with pytest.raises(IndexError):
        _continue_on_a_short_argument(-0.857, A, np.array([0.3]))
    with pytest.raises(IndexError):
        df(-0.857, A, np.array([0.3]))


# ---- issue #44: everyday forms -----------------------------------------------------

def _slice_incremented_from_itself(x):
    y = x * 1.0
    y[1:5] += y[1:5] * y[0:4]
    return np.sum(np.sin(y))


def test_a_slice_incremented_from_its_own_overlapping_slices(jit):
    """`y[1:5] += y[1:5] * y[0:4]`: the increment's cotangent was the view
    `dy[1:5]`, which the adjoint of `y[1:5] * y[0:4]` updated (through
    `dy[1:5] +=`) before reading it again for `y[0:4]`: a wrong gradient
    with no error (seed a, found in `x[..., 1:5] += ...` on an argument)."""
    check_grad(_slice_incremented_from_itself, (np.array([-0.23, 1.049, 1.167, -0.24, -1.112]),),
               jit=jit)


def _pairs_in_a_local_list(x, c):
    acc = 0.0
    for i in range(2):
        params = [(np.negative(x), c * 2.0)]
        for w, b in params:
            acc = acc + np.sum(np.tanh(w * x)) * b
    return acc


def _pairs_enumerated(x, c):
    params = [(x * 2.0, c), (np.sin(x), c * c)]
    acc = 0.0
    for k, (w, b) in enumerate(params):
        acc = acc + np.sum(np.sin(w)) * (k + 1.0) + b
    return acc


@pytest.mark.parametrize("f", [_pairs_in_a_local_list, _pairs_enumerated])
def test_for_w_b_in_a_local_list_of_pairs(f, jit):
    """`for w, b in params` over a local list of (array, number) pairs read
    `np.array(params)[k]`, which numpy cannot build (ValueError from the
    generated code), or was refused with a message about `acc`; it is the
    loop over the list's elements, unrolled (literal_loops.py)."""
    check_grad(f, (X.copy(), 0.8), wrt=(0, 1), jit=jit)


def _stack_popped_in_a_loop(x, c):
    stack = []
    a = x[0] * c
    stack.append(a)
    stack.append(np.sin(x[1]))
    stack.append(x[2] * x[0])
    acc = 0.0
    for i in range(3):
        top = stack.pop()
        acc = acc + np.sin(top) * (i + 1.0)
    return acc


def _stack_pushed_in_a_loop(x, c):
    stack = []
    for i in range(2):
        a = x[i] * c
        stack.append(a)
        b = np.sin(x[i])
        stack.append(b)
    acc = 0.0
    for i in range(4):
        top = stack.pop()
        acc = acc + np.sin(top) * (i + 1.0)
    return acc


@pytest.mark.parametrize("f", [_stack_popped_in_a_loop, _stack_pushed_in_a_loop])
def test_a_stack_popped_in_a_loop_that_adds_to_a_total(f, jit):
    """A loop popping a user's stack and adding to a total had its sweeps
    fused (fusion.py): each iteration's adjoint ran right after it, pushing
    the pops' adjoints in forward order, so the appends' adjoints popped
    them reversed: a wrong gradient with no error."""
    check_grad(f, (X.copy(), 0.8), wrt=(0, 1), jit=jit)


def _times(a, e):
    return a * e


def _unread_list_element_in_a_loop(A, x, c):
    for e in x:
        parts = [A[0, -2], c * _times(A[1, 0], e)]
        s = parts[0] * parts[0] * 1.0 + len(parts)
    return np.sum(x * x)


def test_an_unread_list_element_still_raises_index_error(jit):
    """Found by the resize check on Python derivatives (seed 4401): with one
    row in A, the primal raises IndexError at `A[1, 0]`, in an element of a
    list literal that nothing reads (inside a loop, given to a helper); the
    derivative dropped the element and returned: the normaliser rebuilt the
    operand `A[1, 0]`, which lost its mark as the user's own read, so dead
    stores removed it. It keeps the subscript now."""
    A = np.ones((1, 2))
    with pytest.raises(IndexError):
        _unread_list_element_in_a_loop(A, X.copy(), 0.5)
    with pytest.raises(IndexError, match=r"A\[1, 0\]"):
        s2sad.grad(_unread_list_element_in_a_loop, wrt=1, jit=jit)(A, X.copy(), 0.5)
    check_grad(_unread_list_element_in_a_loop, (np.ones((2, 2)), X.copy(), 0.5), wrt=1, jit=jit)


def _unread_read_with_a_call_in_its_index(A, x, y):
    for e in x:
        parts = [A[0, 0], _times(A[np.argmax(y), 0], e)]
        s = parts[0] * 1.0
    return np.sum(x * x)


def test_an_unread_subscript_with_a_call_in_its_index_still_raises_index_error(jit):
    """The same with a subscript the normaliser rebuilds (its index's call
    made a temporary): it stays the user's own read."""
    f = _unread_read_with_a_call_in_its_index
    A, y = np.ones((1, 2)), np.array([0.0, 1.0])
    with pytest.raises(IndexError):
        f(A, X.copy(), y)
    with pytest.raises(IndexError):
        s2sad.grad(f, wrt=1, jit=jit)(A, X.copy(), y)
    check_grad(f, (np.ones((2, 2)), X.copy(), y), wrt=1, jit=jit)


def _fourth(p):
    return p[3]


def _unread_helper_call_in_a_tuple(y, x):
    t = (1, _fourth(x), 0.5)
    return y * y


def _unread_helper_call_in_a_list_marked_constant(y, x):
    with s2sad.stop_recording():
        t = [_fourth(x) * 2.0, 1.0]
    return y * y


@pytest.mark.parametrize("f", [_unread_helper_call_in_a_tuple,
                               _unread_helper_call_in_a_list_marked_constant])
def test_an_unread_helper_call_in_a_literal_still_raises_index_error(f, jit):
    """Found by the resize check (seed 231): `lst = (1, helper(x), min(x))`,
    read by nothing, with an x too short for the helper's `p[3]`. The
    normaliser made the call a temporary of its own, rebuilding the call
    without its mark as the user's own evaluation, and dead stores removed
    it: Python raised IndexError, the derivative returned. (check=False: the
    self-check runs the function itself, which raises.)"""
    short = np.array([0.5, 1.0])
    with pytest.raises(IndexError):
        f(X.copy(), short)
    with pytest.raises(IndexError):
        s2sad.grad(f, wrt=0, jit=jit, check=False)(X.copy(), short)
    check_grad(f, (X.copy(), X.copy()), wrt=0, jit=jit)


# ---- the loops family (tests/fuzz/loops.py) ----------------------------------------

def neighbour_energy(x, k):
    e = 0.0
    for i in range(x.shape[0] - 1):
        d = x[i + 1] - x[i]
        e += k * d * d + np.cos(x[i])
    return e


def neighbour_forces(x, k):
    f = np.zeros_like(x)
    for i in range(1, x.shape[0] - 1):
        lap = x[i - 1] - 2.0 * x[i] + x[i + 1]
        s = k * lap
        f[i - 1] += s
        f[i] -= 2.0 * s
        f[i + 1] += s
    return np.sum(f * f)


def central_difference_cubed(x):
    e = 0.0
    for i in range(1, x.shape[0] - 1):
        g = 0.5 * x[i + 1] - 0.5 * x[i - 1]
        e += g * g * g
    return e


def test_neighbour_loop_reusing_an_intermediate():
    """Found by the loops family (feature straight_neighbour_loop): an
    intermediate of neighbour reads used more than once in a loop whose body
    is straight-line code gets a wrong gradient (dx[0] half the right value
    here), and `g * g * g` raises UnboundLocalError in the derivative."""
    x = np.linspace(0.0, 1.0, 6) ** 2
    check_grad(neighbour_energy, (x, 0.7), wrt=(0, 1), jit=False)
    check_grad(neighbour_forces, (x, 0.7), wrt=(0, 1), jit=False)
    check_grad(central_difference_cubed, (x,), jit=False)


def _pair(b, w):
    return w, b * w


def unpack_into_an_argument_of_the_call(w):
    b = 3.0
    a, b = _pair(b, w)
    return b + a


def unpack_arrays_in_a_loop(x):
    sa = x * 0.5
    sb = np.cos(x)
    for i in range(2):
        sa, sb = _pair(sb, sa)
    return np.sum(sa * sb)


def test_unpacked_helper_result_read_by_the_call():
    """Found by the loops family (feature unpack_reads_target): a helper's
    results unpacked into names the call reads."""
    check_grad(unpack_into_an_argument_of_the_call, (0.5,), jit=False)
    check_grad(unpack_arrays_in_a_loop, (X.copy(),), jit=False)


def gather_computed_index(x, v):
    i = v.astype(int)   # [1, 0, 0, 2]: repeated
    return np.sum(x[i] * x[i])


def write_through_computed_index(y, v):
    idx = (np.abs(v) * 2.0).astype(int)   # [2, 0, 0, 3]: repeated
    h = np.zeros(4)
    h[idx] += y   # numpy writes each element once (the last of the repeats)
    return np.sum(h * h)


def test_computed_index_array_with_repeats():
    """Found by the loops family (feature computed_index_repeats); a literal
    or argument index array with the same entries is right."""
    v = np.array([1.2, 0.1, 0.3, 2.5])
    check_grad(gather_computed_index, (X.copy(), v), jit=False)
    check_grad(write_through_computed_index, (Y.copy(), np.array([1.2, 0.1, 0.3, 1.6])),
               jit=False)


def bounded_energy(x, k):
    e = 0.0
    for i in range(x.shape[0] - 1):
        if i > 0:
            e += k * (x[i + 1] - x[i]) ** 2
    return e


def test_parallel_loop_to_a_compound_stop():
    """Found by the loops family (feature parallel_compound_stop), as Python
    (compiled, the chunk reads and writes out of bounds)."""
    x = np.linspace(0.0, 1.0, 6) ** 2
    df = s2sad.grad(bounded_energy, wrt=(0, 1), jit=False, parallel=True)
    for got, p in zip(df(x, 0.7), (0, 1)):
        np.testing.assert_allclose(got, numerical_grad(bounded_energy, (x, 0.7), p),
                                   rtol=1e-6, atol=1e-8)


def heat_steps_and_a_gather(x, y, k):
    e = 0.0
    idx = np.arange(x.shape[0]) // 2
    for m in range(idx.shape[0]):   # (its adjoint: a loop parallel=True runs as prange)
        e += y[idx[m]] * 1.3
    u = x.copy()
    dt = 0.05 * k
    un = u.copy()
    for t in range(3):
        un[1:-1] = u[1:-1] + dt * (u[:-2] - 2.0 * u[1:-1] + u[2:])
        u[:] = un
    e += u @ u
    return e


@pytest.mark.xfail(strict=True, reason="numba's parallel array analysis takes the arrays a "
                   "tape holds for the np.empty(0) placeholder it starts with and asserts "
                   "'Sizes of ... do not match' (numba 0.68.1; with any prange in the function)")
def test_compiled_parallel_derivative_recording_arrays_in_a_loop():
    """Found by the loops family (feature parallel_array_tape): the compiled
    parallel derivative of a time loop computing arrays raises
    AssertionError; serial, and as Python, it is right."""
    x, y = np.linspace(0.0, 1.0, 9) ** 2, np.linspace(-1.0, 1.0, 9)
    df = s2sad.grad(heat_steps_and_a_gather, wrt=(0, 1, 2), jit=True, parallel=True)
    for got, p in zip(df(x, y, 0.7), (0, 1, 2)):
        np.testing.assert_allclose(got, numerical_grad(heat_steps_and_a_gather, (x, y, 0.7), p),
                                   rtol=1e-6, atol=1e-8)


# ---- a value of no known kind after an early return -------------------------------

def mixed_list_after_early_return(x, t):
    if any(e > 0.0 for e in t[0]):
        return 0.5 * x[0]
    for j, leaf in enumerate(t):  # leaf: an array, then a float
        last = np.sin(leaf) * x[j]
    return np.sum(last) + x[1]


@pytest.mark.parametrize("optimise", [None, False])
def test_value_of_no_known_kind_after_an_early_return(jit, optimise):
    """Every optimisation off (the self-check's plain twin), the adjoint of
    `leaf` was zeroed with the others before the reverse sweep, as
    `zeros_like(leaf)`: with the early return taken, `leaf` is unbound."""
    x = np.array([0.3, -0.7, 1.1])
    for first in (np.array([-0.2, -0.4]), np.array([-0.2, 0.4])):  # not taken, taken
        t = [first, 0.3]
        got = s2sad.grad(mixed_list_after_early_return, wrt=(0, 1), jit=jit,
                         optimise=optimise)(x, t)
        np.testing.assert_allclose(got[0], numerical_grad(
            lambda x: mixed_list_after_early_return(x, t), (x,), 0), atol=1e-7)
        for k in range(2):
            def of_leaf(v, k=k):
                return mixed_list_after_early_return(x, [v, t[1]] if k == 0 else [t[0], v])
            np.testing.assert_allclose(got[1][k], numerical_grad(of_leaf, (t[k],), 0),
                                       atol=1e-7)


# ---- a string option bound in a loop (fuzz seed 211) ----------------------------

def option_in_loop(x, k):
    acc = 0.0
    for i in range(x.shape[0]):
        if k == 3:
            continue
        how = 'square'
        if how == 'double':
            s = 2.0 * np.sum(x)
        else:
            s = np.sum(x) ** 2
        for j in range(k):
            acc += s * x[j] * x[i]
    return acc


def test_string_option_bound_in_a_loop(jit):
    """The tape's placeholder for a string variable of a loop crashed the
    reverse sweep (KeyError 'str')."""
    check_grad(option_in_loop, (X, 2), jit=jit)
    check_value(option_in_loop, (X, 2), jit)


# ---- a loop over a literal tuple, in a loop with an early return ---------------

def literal_tuple_before_a_return(a, x, k):
    for i in range(3):
        if i > k:
            acc = 0.0
            for c in (0.47, 1.1):
                acc = acc * 0.5 + c * math.tanh(a * c)
            return acc * x[0]
    return a


@pytest.mark.parametrize("k", [1, 5])
def test_literal_tuple_before_an_early_return(jit, k):
    """The tape's placeholder for the tuple a loop runs over (kept on every
    path of a loop with an early return) crashed the reverse sweep
    (KeyError 'tuple'); found once slices with bounds became views written
    back."""
    check_grad(literal_tuple_before_a_return, (0.3, X, k), wrt=(0, 1), jit=jit)
    check_value(literal_tuple_before_a_return, (0.3, X, k), jit, wrt=(0, 1))
