"""A small helper with a loop, called in a loop, is inlined where it is
called (transforms/frontend/functions/small_helpers.py, the
"inline_helpers" optimisation); others stay calls with their vjps. Every
gradient here is checked against finite differences, and (self-checking
on in the tests) against the plain twin, generated without the inlining."""
import math

import numpy as np
import pytest

import s2sad
from gradcheck import check_grad, check_jvp


def logsumexp(v):
    mx = v[0]
    for c in range(1, v.shape[0]):
        if v[c] > mx:
            mx = v[c]
    se = 0.0
    for c in range(v.shape[0]):
        se += math.exp(v[c] - mx)
    return mx + math.log(se)


def mixture(alpha, x):
    """GMM's shape: per point, a vector filled, then its logsumexp."""
    beta = np.empty(alpha.shape[0])
    total = 0.0
    for i in range(x.shape[0]):
        for c in range(alpha.shape[0]):
            beta[c] = alpha[c] * x[i] - 0.5 * (x[i] - c) ** 2
        total += logsumexp(beta)
    return total - x.shape[0] * logsumexp(alpha)


ALPHA = np.array([0.3, -0.2, 0.5, 0.1])
X = np.array([0.2, 1.4, -0.7, 2.1, 0.9])


def _source(f, *args, **options):
    df = s2sad.grad(f, jit=False, **options)
    df(*args)
    return df.source


def test_the_call_in_the_loop_is_inlined_the_other_stays_a_call():
    src = _source(mixture, ALPHA, X)
    assert "slse" not in src and "logsumexp_mx = beta[0]" in src  # (beta itself: no copy)
    assert _calls(src, "vjp_logsumexp") == 1  # (outside)
    assert "np.copy(beta" not in src and "np.zeros_like(beta" in src


def _calls(src, name):
    return src.count(f"{name}(") - src.count(f"def {name}(")


def test_gradient(jit):
    check_grad(mixture, [ALPHA.copy(), X.copy()], wrt=(0, 1), jit=jit)


def test_tangent(jit):
    check_jvp(mixture, [ALPHA.copy(), X.copy()], wrt=0, jit=jit)


def test_switched_off_by_name():
    src = _source(mixture, ALPHA, X, optimise="-inline_helpers")
    assert _calls(src, "vjp_logsumexp") == 2
    plain = s2sad.grad(mixture, jit=False, optimise="-inline_helpers")(ALPHA, X)
    np.testing.assert_allclose(s2sad.grad(mixture, jit=False)(ALPHA, X), plain, rtol=1e-12)


def scale_into(p, s):
    for j in range(p.shape[0]):
        p[j] = p[j] * s


def writes_its_parameter(a, x):
    out = 0.0
    for i in range(x.shape[0]):
        b = a * x[i]
        scale_into(b, 2.0)
        out += np.sum(b * b)
    return out


def test_a_helper_writing_into_its_parameter_stays_a_call(jit):
    df = check_grad(writes_its_parameter, [ALPHA.copy(), X.copy()], wrt=(0, 1), jit=jit)
    assert "scale_into_p" not in df.source


def weighted_sum(v, w=2.0):
    s = 0.0
    for j in range(v.shape[0]):
        s += w * v[j] * v[j]
    return s


def expression_and_name_twice(a, x):
    out = 0.0
    for i in range(x.shape[0]):
        out += weighted_sum(a * x[i]) + weighted_sum(a, w=x[i]) + dot_self(a, a)
    return out


def dot_self(u, v):
    s = 0.0
    for j in range(u.shape[0]):
        s += u[j] * v[j]
    return s


def test_arguments_an_expression_a_keyword_and_one_name_twice(jit):
    df = check_grad(expression_and_name_twice, [ALPHA.copy(), X.copy()], wrt=(0, 1), jit=jit)
    assert "vjp_weighted_sum" not in df.source and "vjp_dot_self" not in df.source


def early_return(v):
    for j in range(v.shape[0]):
        if v[j] > 10.0:
            return v[j]
    return v[0] * v[-1]


def calls_early_return(a, x):
    out = 0.0
    for i in range(x.shape[0]):
        out += early_return(a * x[i])
    return out


def test_a_helper_returning_early_stays_a_call(jit):
    df = check_grad(calls_early_return, [ALPHA.copy(), X.copy()], wrt=(0, 1), jit=jit)
    assert "vjp_early_return" in df.source


def outside_a_loop(a):
    return logsumexp(a) * 2.0


def test_a_call_outside_loops_stays_a_call():
    assert "vjp_logsumexp(" in _source(outside_a_loop, ALPHA)


SHIFT = 0.25


def shifted(v):
    s = 0.0
    for j in range(v.shape[0]):
        s += (v[j] - SHIFT) ** 2
    return s


def caller_with_its_own_shift(a, x):
    out = 0.0
    for i in range(x.shape[0]):
        SHIFT = x[i]  # noqa: N806 - the caller's own name, not the helper's global
        out += shifted(a) * SHIFT
    return out


def test_the_helpers_globals_keep_their_values(jit):
    df = check_grad(caller_with_its_own_shift, [ALPHA.copy(), X.copy()], wrt=(0, 1), jit=jit)
    assert "vjp_shifted" not in df.source


def rebinds_its_parameter(v):
    v = v * 2.0
    s = 0.0
    for j in range(v.shape[0]):
        s += v[j]
    return s


def caller_of_rebinding(a, x):
    out = 0.0
    for i in range(x.shape[0]):
        out += rebinds_its_parameter(a) * x[i]
    return out + a[0]


def test_a_parameter_it_rebinds_is_a_name_of_its_own(jit):
    df = check_grad(caller_of_rebinding, [ALPHA.copy(), X.copy()], wrt=(0, 1), jit=jit)
    assert "rebinds_its_parameter_v = a" in df.source


def in_a_comprehension(a, x):
    out = 0.0
    for i in range(x.shape[0]):
        out += sum([logsumexp(a * s) for s in (x[i], 2.0 * x[i])])
    return out


def test_a_call_in_a_comprehension_stays_a_call(jit):
    df = check_grad(in_a_comprehension, [ALPHA.copy(), X.copy()], wrt=(0, 1), jit=jit)
    assert "vjp_logsumexp" in df.source


@pytest.mark.parametrize("n", [0, 1])
def test_loops_of_no_or_one_iteration(n, jit):
    check_grad(mixture, [ALPHA.copy(), X[:n].copy()], wrt=0, jit=jit)
