"""A helper's result that is the array it was given, or a view of it
(transforms/analysis/helper_results.py): `p += e; return p` and `return p` give the
caller a second name of its own array, as `r = u` would. A write through
one name while the other is read is refused (the derivative follows values
by name and would miss it); reads through both names, copies and new
arrays are differentiated. Gradients against finite differences, jit on
and off."""

import numpy as np
import pytest

import s2sad
from tests.gradcheck import numerical_grad
from s2sad.transforms.errors import UnsupportedSyntaxError
from tests.gradcheck import check_grad


def bumped(p):
    p += 1.0
    return p


def scaled_in_place(p, x):
    p *= x
    return p


def same(p):
    return p


def first_row(A):
    return A[0]


def flat(A):
    return A.reshape(-1)


def chosen(p, q, c):
    return p if c > 0 else q


def via_helper(p):
    return same(p)


def bumped_copy(p):
    p += 1.0
    return p.copy()


def bumped_product(p):
    p += 1.0
    return p * 2.0


def bumped_view(p):
    p += 1.0
    return p[1:]


def bumped_pair(p):
    p += 1.0
    return p, np.sum(p)


# ---- refused: a write through one name, the other read after it -------------

def write_result_read_argument(x):
    u = x * 1.0
    r = bumped(u)
    r[0] = 5.0
    return np.sum(u * x)


def write_argument_read_result(x):
    u = x * 2.0
    r = bumped(u)
    u[1] = 3.0
    return np.sum(r * x)


def in_place_through_result(x):
    u = x * 2.0
    r = scaled_in_place(u, x)
    r *= x
    return np.sum(u * x) + np.sum(r)


def identity_then_write(x):
    u = x * 1.0
    r = same(u)
    r[0] = 5.0
    return np.sum(u * x)


def row_then_write(x):
    A = np.outer(x, x)
    row = first_row(A)
    row[1] = 2.0
    return np.sum(A * A)


def reshape_then_write(x):
    A = np.outer(x, x)
    v = flat(A)
    v[0] = 1.0
    return np.sum(A * x)


def chosen_then_write(x):
    u = x * 1.0
    w = x * 3.0
    r = chosen(u, w, x[0])
    r[0] = 2.0
    return np.sum(u * w)


def nested_helper_then_write(x):
    u = x * 1.0
    r = via_helper(u)
    r[1] = 2.0
    return np.sum(u * x)


def in_a_loop(x):
    u = x * 1.0
    s = 0.0
    for i in range(3):
        r = bumped(u)
        r[i] = x[i] * 2.0
        s = s + np.sum(u * x)
    return s


REFUSED = [identity_then_write, row_then_write, reshape_then_write, chosen_then_write,
           nested_helper_then_write]
# a helper that writes into its argument and returns it: the call is
# rewritten `u[:] = ...; r = u` (written_args.py), and r is then u by name
# (frontend/effects/view_writes.py), so these are differentiated
RENAMED = [write_result_read_argument, write_argument_read_result, in_place_through_result,
           in_a_loop]


@pytest.mark.parametrize("f", RENAMED, ids=lambda f: f.__name__)
def test_a_written_argument_returned_and_written_again(f, jit):
    x = np.random.default_rng(0).uniform(0.2, 1.0, 4)
    check_grad(f, (x,), jit=jit)
    value, _ = s2sad.value_and_grad(f, jit=False)(x.copy())
    np.testing.assert_allclose(value, f(x.copy()), rtol=1e-12)


@pytest.mark.parametrize("f", REFUSED, ids=lambda f: f.__name__)
def test_write_through_a_returned_argument_is_refused(f):
    x = np.random.default_rng(0).uniform(0.2, 1.0, 4)
    with pytest.raises(UnsupportedSyntaxError, match=r"two names of its memory \('\w+' is "
                                                      r"what \w+\(\.\.\.\) returns"):
        s2sad.grad(f, jit=False)(x)


def test_the_message_names_the_lines():
    x = np.ones(3)
    with pytest.raises(UnsupportedSyntaxError) as e:
        s2sad.grad(identity_then_write, jit=False)(x)
    line = identity_then_write.__code__.co_firstlineno
    assert f"test_helper_results.py:{line + 2}" in str(e.value)  # r = same(u)
    assert f"line {line + 3} writes into 'r', and 'u' is read after that" in str(e.value)


def view_of_written_then_write(x):
    u = x * 1.0
    r = bumped_view(u)
    r[0] = 5.0
    return np.sum(u * x) + np.sum(r)


def test_a_view_a_writing_helper_returns_is_a_second_name():
    with pytest.raises(UnsupportedSyntaxError, match=r"'r' is what bumped_view\(\.\.\.\) "
                                                     r"returns, which may be \(a view of\) 'u'"):
        s2sad.grad(view_of_written_then_write, jit=False)(np.ones(4))


def pair_with_written(x):
    u = x * 1.0
    r, t = bumped_pair(u)
    return np.sum(u * x) + np.sum(r) * t


def test_writing_helper_returning_a_tuple_holding_its_array_is_refused():
    with pytest.raises(UnsupportedSyntaxError, match="writes into an array it is given and "
                                                     "returns a tuple holding that array"):
        s2sad.grad(pair_with_written, jit=False)(np.ones(4))


# ---- differentiated: as numpy computes them ----------------------------------

def both_names_read(x):
    u = x * 2.0
    r = bumped(u)
    return np.sum(u * x) + np.sum(r * r)


def write_after_last_read(x):
    u = x * 2.0
    r = bumped(u)
    t = np.sum(r * x)
    u[0] = 7.0
    return t + np.sum(u * u)


def result_rebound(x):
    u = x * 2.0
    r = scaled_in_place(u, x)
    r = r * 3.0
    r[0] = 1.0
    return np.sum(u * x) + np.sum(r * x)


def copy_then_write(x):
    u = x * 1.0
    r = bumped_copy(u)
    r[0] = 5.0
    return np.sum(u * x) + np.sum(r * x)


def product_then_write(x):
    u = x * 1.0
    r = bumped_product(u)
    r[0] = 5.0
    return np.sum(u * x) + np.sum(r * x)


def identity_read_only(x):
    u = np.sin(x)
    r = same(u)
    return np.sum(r * u * x)


def row_read_only(x):
    A = np.outer(x, x)
    row = first_row(A)
    return np.sum(row * A[1])


def view_of_written(x):
    u = x * 1.0
    r = bumped_view(u)
    return np.sum(u * x) + np.sum(r * r)


def doubled_first(p):
    p[0] = 2.0 * p[0]
    return p[1]


def element_of_written(x):
    # the result is an element (a number), not a view
    u = x * 1.0
    c = doubled_first(u)
    u[1] = 3.0
    return np.sum(u * x) * c


def bumped_in_loop(x):
    u = x * 1.0
    s = 0.0
    for i in range(3):
        r = bumped(u)
        s = s + np.sum(r * x) * x[i]
    return s + np.sum(u)


ALLOWED = [both_names_read, write_after_last_read, result_rebound, copy_then_write,
           product_then_write, identity_read_only, row_read_only, view_of_written,
           element_of_written, bumped_in_loop]


CASES = [(f, False) for f in ALLOWED] + [(f, True) for f in (both_names_read, result_rebound,
                                                            bumped_in_loop)]


@pytest.mark.parametrize("f, jit", CASES, ids=lambda v: getattr(v, "__name__", str(v)))
def test_returned_argument_read_through_both_names(f, jit):
    x = np.random.default_rng(1).uniform(0.2, 1.0, 4)
    check_grad(f, (x,), jit=jit)


def test_plain_derivative_of_an_alias_written_through_a_helper():
    """r = bumped(u) is u, which the next iteration's call writes into: the
    plain derivative taped r after that write (wrong, and the self-check
    said so) until r became a copy (frontend/effects/view_copies.py)."""
    x = np.random.default_rng(1).uniform(0.2, 1.0, 4)
    plain = s2sad.grad(bumped_in_loop, jit=False, optimise=False, check=False)(x)
    np.testing.assert_allclose(plain, numerical_grad(bumped_in_loop, (x,), 0), rtol=1e-6)


def scaled_and_note(v):
    # a pair whose second element is None (a value the caller ignores)
    return np.tanh(v) * 3.0, None


def uses_first_of_pair(v):
    w, _ = scaled_and_note(v)
    return np.sum(w * w)


def test_a_helper_returning_none_beside_a_value(jit):
    check_grad(uses_first_of_pair, [np.array([0.4, -1.1, 0.7])], jit=jit)
