"""Forward mode (jvp) on every construct and rule, against central
differences along a random direction."""
import numpy as np
import pytest

import test_language as lang
import test_rules as rules
from gradcheck import check_jvp

LANGUAGE = [
    (lang.arithmetic, (0.7, 1.3), (0, 1)),
    (lang.augmented, (0.7, 1.3), (0, 1)),
    (lang.tuples, (0.7, 1.3), (0, 1)),
    (lang.conditional_expression, (1.6, 0.4), (0, 1)),
    (lang.branches, (0.7, 3.0), (0, 1)),
    (lang.branch_on_active, (lang.X,), 0),
    (lang.counted_loops, (lang.X, lang.W), (0, 1)),
    (lang.nested_loops, (lang.A,), 0),
    (lang.loop_over_rows, (lang.A,), 0),
    (lang.euler, (1.0, 0.5, 0.2), (0, 1, 2)),
    (lang.while_loop, (0.7,), 0),
    (lang.data_dependent_while, (0.7,), 0),
    (lang.break_continue, (lang.X,), 0),
    (lang.early_return, (0.6, 0.5), (0, 1)),
    (lang.local_buffers, (lang.X, lang.W), (0, 1)),
    (lang.reused_buffer, (lang.X,), 0),
    (lang.slices, (lang.X,), 0),
    (lang.matrix_entries, (lang.A,), 0),
    (lang.writes_argument, (lang.X,), 0),
    (lang.uses_helpers, (lang.X, lang.W), (0, 1)),
    (lang.nondifferentiable, (lang.X,), 0),
    (lang.array_output, (lang.X,), 0),
    (lang.tuple_output, (lang.X, 0.3), (0, 1)),
]


@pytest.mark.parametrize("f,args,wrt", LANGUAGE, ids=[c[0].__name__ for c in LANGUAGE])
def test_language_jvp(f, args, wrt, jit):
    check_jvp(f, args, wrt=wrt, jit=jit)


# numba cannot compile these primal calls (see test_rules); forward mode of
# digamma-based rules (lgamma, gamma) needs trigamma, which s2sad lacks
SKIP_JIT = rules.NUMBA_CANNOT


@pytest.mark.parametrize("case", [c for c in rules.CASES if c not in ("math_lgamma", "math_gamma")])
def test_rule_jvp(case, jit, functions):
    expr, args = rules.CASES[case]
    f = getattr(functions, case)
    wrt = tuple(range(len(args)))
    if jit and case in SKIP_JIT:
        jit = False  # covered by the fallback test in test_rules
    check_jvp(f, args, wrt=wrt, jit=jit, rtol=1e-4, atol=1e-6)


functions = rules.functions  # the module of one-line rule functions


def product_and_square(x, y, j):
    return x[j] * y[j], y[j] * y[j]


def second_of_helper_pair(x, y):
    a, b = product_and_square(x, y, 0)
    return b + a


def test_tuple_from_a_helper(jit):
    # the helper's jvp binds both values and both tangents
    check_jvp(second_of_helper_pair, (np.array([1.0, 2.0]), np.array([3.0, 4.0])), wrt=(0, 1), jit=jit)


# ---- a helper called with a constant: no tangent for it ---------------------------

def power_of(b, p):
    return b ** p


def powers_at_negative_base(x):
    return power_of(x, 2.0) + np.sum(power_of(x * x - 3.0, 3.0))


def test_helper_constant_argument_has_no_tangent(jit):
    # the exponent's tangent is 0 * log(b) * b ** p: nan at a negative base
    # unless the helper's jvp is specialised to the arguments active at the call
    check_jvp(powers_at_negative_base, (np.array([-1.5, 0.5, 2.0]),), jit=jit)


# ---- an argument not differentiated, then overwritten with an active value ---------

def power_overwrites_base(a, b):
    a = a ** b
    return a * b


def buffer_argument_written(x, buf):
    buf[0] = x[0] * x[1]
    buf[1] = np.sin(buf[0]) + x[2]
    return np.sum(buf * buf)


def test_overwritten_argument_starts_with_zero_tangent(jit):
    check_jvp(power_overwrites_base, (1.3, 0.7), wrt=1, jit=jit)
    check_jvp(buffer_argument_written, (np.array([0.5, -1.2, 2.0]), np.ones(3)), wrt=0,
              jit=jit)


def test_hessian_wrt_a_parameter_when_another_is_overwritten(jit):
    import s2sad
    a, b = 1.3, 0.7
    # d2/db2 of a**b * b = log(a)^2 a^b b + 2 log(a) a^b
    expected = np.log(a) ** 2 * a ** b * b + 2 * np.log(a) * a ** b
    got = s2sad.hessian(power_overwrites_base, wrt=1, jit=jit)(a, b)
    np.testing.assert_allclose(got, expected, rtol=1e-12)


# ---- chains of subscripts and .T: the tangent takes the same chain ----------------

def chained_subscripts(A):
    r = A[1][:2]
    c = A.T[0]  # a column: dA.T[0], not the row dA[0]
    return np.sum(np.kron(A[0], r)) + np.sum(c * A[2][::-1]) + \
        np.sum(A[:, 1][::-1] * np.arange(3.0))


def test_chained_subscript_tangent(jit):
    check_jvp(chained_subscripts, (np.arange(9.0).reshape(3, 3) / 4 - 1.0,), jit=jit)


# ---- a tangent broadcast by a constant operand ---------------------------------------

def broadcast_by_constants(x, m):
    d = x - m  # only m varies: its tangent must still have d's shape
    e = np.add(x[1:], m)
    return (np.sum(np.sum(d, axis=0) ** 2) + np.sum(d.T @ np.arange(3.0))
            + np.sum(np.sum(e, axis=1) ** 3) + np.sum(np.maximum(x, m) ** 2))


def test_tangent_has_the_result_shape(jit):
    x = np.arange(6.0).reshape(3, 2) / 3 - 0.4
    check_jvp(broadcast_by_constants, (x, np.array([0.5, -1.0])), wrt=1, jit=jit)
