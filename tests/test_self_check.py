"""Self-checking derivatives (s2sad/self_check.py, s2sad/taylor.py) and the
plain derivative (optimise=False, S2SAD_OPTIMISE): each check must catch
the kind of wrong derivative it is for, and pass (or skip, saying why)
where the derivative is right by its conventions."""
import numba
import numpy as np
import pytest

import s2sad
from s2sad import self_check
from s2sad.extend import adjoint, float_scalar, tangent
from s2sad.transforms.optimise import pipeline

from gradcheck import numerical_grad


# ---- primitives with rules that are wrong on purpose -----------------------
@numba.njit
def bent(x):
    """sin, whose registered reverse rule is 1.5 times too large."""
    return np.sin(x)


@adjoint(bent, kind=float_scalar, pointwise=True)
def _bent_rule(g, ans, x):
    return g * np.cos(x) * 1.5


@numba.njit
def skewed(x):
    """sin, whose reverse rule is right and forward rule is wrong."""
    return np.sin(x)


@adjoint(skewed, kind=float_scalar)
def _skewed_rule(g, ans, x):
    return g * np.cos(x)


@tangent(skewed)
def _skewed_tangent(t, ans, x):
    return t * np.cos(x) * 2.0


def uses_bent(x, k):
    return bent(x) * k + x * x


def uses_skewed(x):
    return skewed(x) * x


def loop(x, k):
    e = 0.0
    for i in range(x.shape[0]):
        e += k * np.sin(x[i]) * x[i]
    return e


X = np.array([0.3, -0.7, 1.1, 0.4])


@pytest.fixture
def checking(monkeypatch):
    monkeypatch.setenv("S2SAD_CHECK", "1")


def test_taylor_catches_a_wrong_rule(jit):
    with pytest.raises(s2sad.GradientCheckError, match="Taylor test") as info:
        s2sad.grad(uses_bent, check=True, jit=jit)(0.4, 2.0)
    assert info.value.check == "taylor" and info.value.argument == "x"
    assert "uses_bent" in str(info.value) and "test_self_check.py" in str(info.value)
    # without the check the wrong number comes back silently: the check is what sees it
    wrong = s2sad.grad(uses_bent, check=False, jit=jit)(0.4, 2.0)
    assert abs(wrong - numerical_grad(uses_bent, [0.4, 2.0], 0)) > 0.1


def test_dot_product_test_catches_a_wrong_tangent(jit):
    with pytest.raises(s2sad.GradientCheckError, match="forward and reverse") as info:
        s2sad.grad(uses_skewed, check=True, jit=jit)(0.8)
    assert info.value.check == "forward vs reverse"
    # the jvp itself is caught by its own Taylor test
    with pytest.raises(s2sad.GradientCheckError):
        s2sad.jvp(uses_skewed, check=True, jit=jit)(0.8, 1.0)


def _corrupt_reciprocals(d):
    """A broken optimisation: doubles the first addition into an adjoint."""
    import gast
    for node in gast.walk(d.fdef):
        if isinstance(node, gast.AugAssign) and isinstance(node.op, gast.Add) \
                and isinstance(node.target, gast.Subscript):
            node.value = gast.BinOp(left=node.value, op=gast.Mult(),
                                    right=gast.Constant(value=2.0, kind=None))
            return


def test_plain_twin_names_the_broken_optimisation(jit, monkeypatch):
    passes = tuple(p._replace(run=_corrupt_reciprocals) if p.name == "reciprocals" else p
                   for p in pipeline.PASSES)
    monkeypatch.setattr(pipeline, "PASSES", passes)
    with pytest.raises(s2sad.GradientCheckError, match="plain twin") as info:
        s2sad.grad(loop, check=True, jit=jit)(X, 0.7)
    assert info.value.culprit == "reciprocals"
    assert "S2SAD_OPTIMISE=-reciprocals" in str(info.value)
    # switched off, the derivative is right again
    g = s2sad.grad(loop, check=True, jit=jit, optimise="-reciprocals")(X, 0.7)
    np.testing.assert_allclose(g, numerical_grad(loop, [X, 0.7], 0), rtol=1e-6)


def test_a_right_derivative_passes_every_check(jit):
    d = s2sad.grad(loop, wrt=(0, 1), check=True, jit=jit)
    gx, gk = d(X, 0.7)
    np.testing.assert_allclose(gx, numerical_grad(loop, [X, 0.7], 0), rtol=1e-6)
    outcomes = {c: o for c, o, _ in d.check_report}
    assert outcomes == {"value": "passed", "plain twin": "passed", "taylor": "passed",
                        "forward vs reverse": "passed"}, str(d.check_report)


def test_check_runs_once_per_specialisation(checking, monkeypatch):
    from s2sad import self_check
    calls = []
    real = self_check.verify
    monkeypatch.setattr(self_check, "verify",
                        lambda *a, **k: calls.append(1) or real(*a, **k))
    d = s2sad.grad(loop, jit=False)  # S2SAD_CHECK=1: on without check=
    d(X, 0.7)
    d(X + 1.0, 0.7)
    d(X[:2], 0.3)  # (same kinds)
    assert len(calls) == 1
    d(np.ones((2, 2)).ravel().astype(np.float32), np.float32(0.7))
    assert len(calls) == 2


def abs_sum(x):
    return np.sum(np.abs(x))


def tie(x):
    return np.maximum(x[0], x[1]) + x[2]


def steps(x):
    return np.sum(x * (x != 1.0))  # 0 at x = 1, near 1 on both sides


def noisy(x):
    return np.sum(x * np.random.random(x.shape))


def stopped(x):
    return np.sum(s2sad.stop_gradient(x * x) * x)


def test_kinks_pass_jumps_and_randomness_are_skipped(jit):
    # |x| at 0 and a tie of maximum: the gradient lies between the one-sided slopes
    d = s2sad.grad(abs_sum, check=True, jit=jit)
    d(np.array([0.0, 1.0, -2.0]))
    assert dict((c, o) for c, o, _ in d.check_report)["taylor"] == "passed"
    d = s2sad.grad(tie, check=True, jit=jit)
    np.testing.assert_allclose(d(np.array([1.0, 1.0, 3.0])), [0.5, 0.5, 1.0])
    # a jump: not testable there, said so
    d = s2sad.grad(steps, check=True, jit=jit)
    d(np.array([1.0, 2.5]))
    taylor = [r for r in d.check_report if r[0] == "taylor"][0]
    assert taylor[1] == "skipped" and "jumps" in taylor[2]
    d = s2sad.grad(noisy, check=True, jit=jit)
    d(np.ones(3))
    assert d.check_report[0][1] == "skipped" and "random" in d.check_report[0][2]


def test_a_stop_gradient_is_not_taken_for_the_derivative(jit):
    d = s2sad.grad(stopped, check=True, jit=jit)
    np.testing.assert_allclose(d(np.array([1.0, 2.0])), [1.0, 4.0])
    outcomes = {c: (o, w) for c, o, w in d.check_report}
    assert outcomes["taylor"][0] == "skipped" and "stop_gradient" in outcomes["taylor"][1]
    assert outcomes["plain twin"][0] == "passed"


def test_optimise_switches(monkeypatch):
    assert set(s2sad.OPTIMISATIONS) == {o.name for o in
                                        pipeline.FRONT_END + pipeline.SWEEP + pipeline.PASSES}
    plain = s2sad.grad(loop, optimise=False, jit=False)
    full = s2sad.grad(loop, jit=False)
    np.testing.assert_allclose(plain(X, 0.7), full(X, 0.7), rtol=1e-12)
    assert plain.source != full.source
    monkeypatch.setenv("S2SAD_OPTIMISE", "0")
    assert s2sad.grad(loop, jit=False).source_for(X, 0.7) == plain.source_for(X, 0.7)
    monkeypatch.setenv("S2SAD_OPTIMISE", "-recompute,-fusion")
    assert pipeline.enabled_optimisations() == frozenset(s2sad.OPTIMISATIONS) - {
        "recompute", "fusion"}
    assert pipeline.enabled_optimisations("gather,promote") == {"gather", "promote"}
    with pytest.raises(ValueError, match="unknown optimisation.*gahter"):
        s2sad.grad(loop, optimise="-gahter")
    monkeypatch.setenv("S2SAD_OPTIMISE", "-gahter")
    with pytest.raises(ValueError, match="gahter"):
        s2sad.grad(loop, jit=False)(X, 0.7)


def test_every_optimisation_off_alone_keeps_the_gradient(jit):
    """Each optimisation can be switched off by itself (bisecting needs it)."""
    want = numerical_grad(loop, [X, 0.7], 0)
    for opt in s2sad.OPTIMISATIONS[:: 1 if not jit else 5]:
        g = s2sad.grad(loop, optimise="-" + opt, jit=jit)(X, 0.7)
        np.testing.assert_allclose(g, want, rtol=1e-6, err_msg=opt)


def test_the_plain_derivative_compiles(jit):
    for f, args in ((loop, (X, 0.7)), (abs_sum, (X,)), (tie, (X,))):
        g = s2sad.grad(f, optimise=False, jit=jit, check=True)(*args)
        np.testing.assert_allclose(g, numerical_grad(f, list(args), 0), rtol=1e-5, atol=1e-8)


def countdown(x, y, z):
    rval = 0
    while x > -0.1:
        rval = rval + y
        x = x - z
    return rval


def test_plain_derivative_of_a_while_loop_differentiated_again(monkeypatch):
    """The plain derivative keeps no counter of a while loop it does not
    reverse (its increment, without a start, raised UnboundLocalError once
    dead stores no longer removed it)."""
    monkeypatch.setenv("S2SAD_OPTIMISE", "0")
    first = s2sad.grad(countdown, wrt=(0, 1, 2), jit=False)
    assert s2sad.grad(first, wrt=1, jit=False)(1.0, 2.0, 0.3) == 0.0
    g = s2sad.grad(lambda x, y, z: first(x, y, z)[1] * y, wrt=1, jit=False)(1.0, 2.0, 0.3)
    assert g == 4.0  # (4 iterations, the second gradient of 4 y^2 / 2)


def cancelling_forces(x, c, k):
    # the forces sum to zero for every x (each pair adds and subtracts), so the
    # gradient of the summed output is 0 in exact arithmetic and rounding
    # noise in floating point
    e = c * np.sum(np.cos(x))
    f = np.zeros(x.shape[0])
    for i in range(1, x.shape[0] - 1):
        g = k * (0.5 * x[i + 1] - 0.5 * x[i - 1])
        f[i + 1] += 0.5 * g
        f[i - 1] -= 0.5 * g
    return f * (e + c)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_outputs_that_cancel_are_rounding_not_a_wrong_gradient(jit, dtype):
    x = np.array([-1.243, -0.7896, 0.9038, 0.2465], dtype=dtype)
    d = s2sad.grad(cancelling_forces, wrt=(0, 1, 2), jit=jit, check=True)
    g = d(x, dtype(-1.2176), dtype(-0.2006))
    for part in g:
        np.testing.assert_allclose(part, 0.0, atol=1e-5 if dtype == np.float32 else 1e-14)
    assert "taylor: passed" in str(d.check_report)


def cyclic_differences(x, k, y):
    e = 0.0
    for i in range(0, x.shape[0]):
        j = (i + 3) % x.shape[0]
        e += k * (y[j] - y[i])  # (each y[i] in two terms of opposite signs: e is 0)
    return e


def test_a_sum_that_cancels_to_rounding_is_not_a_wrong_gradient(jit):
    # (fuzz seed 205: the gradient w.r.t. k is +-4.4e-16, by the order of the sum;
    # it is compared with the rounding of the arguments, not with its own size)
    x = np.array([0.236, -0.981, -1.221, 1.123, 1.414, 1.338, 0.492, -1.302])
    y = np.array([-0.043, -1.223, -0.349, 0.635, 0.3, -1.329, 1.132, 1.348])
    d = s2sad.grad(cyclic_differences, wrt=(0, 1, 2), jit=jit, check=True)
    g = d(x, 0.157, y)
    assert abs(g[1]) < 1e-14
    assert "plain twin: passed" in str(d.check_report)


def test_the_rounding_floor_reads_floating_point_values_only():
    # (an index array or a step count does not set the size of the terms)
    assert self_check._float_scale([np.arange(10 ** 6), 3, np.array([0.5, -2.0])]) == 2.0
    assert self_check._float_scale({"w": np.float32(4.0), "n": 7}) == 4.0


# ---- the value: the function itself, as the user wrote it -------------------

def doubled_square(x):
    return np.sum(2.0 * x * x)


def _front_end_changing_a_constant(monkeypatch):
    """The front end with a bug: normalize turns the constant 2.0 into 3.0.
    The derivative is then wrong and consistent with itself (its twin has
    the same front end, its Taylor test and forward mode agree): only the
    function itself tells."""
    import dataclasses

    import gast

    from s2sad.transforms.frontend import pipeline as front

    def corrupt(run):
        def corrupted(tree, ctx):
            out = run(tree, ctx)
            for n in gast.walk(out if out is not None else tree):
                if isinstance(n, gast.Constant) and n.value == 2.0:
                    n.value = 3.0
            return out
        return corrupted

    passes = [dataclasses.replace(p, run=corrupt(p.run)) if getattr(p, "name", "") == "normalize"
              else p for p in front.SPECIALISE]
    monkeypatch.setattr(front, "SPECIALISE", passes)


def test_a_derivative_computing_another_value_than_the_function_fails(monkeypatch):
    _front_end_changing_a_constant(monkeypatch)
    x = np.array([0.5, -1.0, 2.0])
    with pytest.raises(s2sad.GradientCheckError, match="the function itself gives") as info:
        s2sad.grad(doubled_square, check=True, jit=False)(x)
    assert info.value.check == "value"
    # (checks off, the wrong gradient comes back: what the check is for)
    np.testing.assert_allclose(s2sad.grad(doubled_square, check=False, jit=False)(x), 6.0 * x)


def test_a_float32_derivative_computing_another_value_fails(monkeypatch):
    """In float32 the value check allows what the function's own float32
    rounding explains (`_own_rounding`), and no more: 3 x^2 for 2 x^2 is
    far outside it."""
    _front_end_changing_a_constant(monkeypatch)
    x = np.array([0.5, -1.0, 2.0], dtype=np.float32)
    with pytest.raises(s2sad.GradientCheckError, match="the function itself gives"):
        s2sad.grad(doubled_square, check=True, jit=False)(x)


def wrapped_phase(x):
    return np.sum(np.cos(x * x * 1e3))


def test_the_float32_rounding_allowed_is_the_functions_own():
    """`_own_rounding`: how far the function's float32 output is from its
    output on the same arguments in float64 (cos of a large argument: far)."""
    import functools

    from s2sad import api, self_check
    x = np.linspace(1.0, 3.0, 7).astype(np.float32)
    primal = functools.partial(api._run_primal, wrapped_phase, (x,), {})
    own = self_check._own_rounding(primal, primal())
    wide = wrapped_phase(x.astype(np.float64))
    assert own == pytest.approx(abs(float(wrapped_phase(x)) - wide), rel=1e-6)
    assert own > 1e-4  # (cos(3e3 x^2) in float32: a few thousandths off)
    assert self_check._own_rounding(lambda: 1.0, 1.0) is None  # (not the user's function)


def test_the_value_check_skips_a_function_that_raises_as_python():
    def only_compiled(x):
        return np.sum(x * x)

    d = s2sad.grad(only_compiled, check=True, jit=False)
    from s2sad import self_check
    report = self_check.Report()
    call = type("Call", (), {})()  # (what _check_value reads of a call)
    call.entry, call.seconds, call.derivative = None, 0.0, d
    self_check._check_value(call, report, primal=lambda: 1 / 0)
    assert report == [("value", "skipped", "the function itself raises here (ZeroDivisionError)")]


def coarse_in_float32(x):
    # (1 + 2.5e-9 is 1 in float32: along any step the float32 function is flat)
    return np.log(1.0 + (x[0] * 1e-4) ** 2) + np.log(1.0 + (x[1] * 2e-4) ** 2)


def test_a_float32_function_too_coarse_for_the_taylor_test_is_not_blamed(jit):
    """A float32 function that rounds to a staircase along v (here flat: 1 +
    z with z below float32's resolution) fails the Taylor test with a right
    gradient; the float64 function's derivative along v settles it (fuzz seed
    253: a GradientCheckError on a correct derivative)."""
    x = np.array([0.5, -0.7], dtype=np.float32)
    d = s2sad.grad(coarse_in_float32, check=True, jit=jit)
    g = d(x)
    np.testing.assert_allclose(g, [2e-8 * 0.5, -2 * 4e-8 * 0.7], rtol=1e-5)
    assert "float32 rounding" in str(d.check_report)


def test_the_float64_reference_is_the_functions_derivative():
    """`_float64_slope`: the derivative of the user's function, run in
    float64, along the moves (a float32 slope is cleared only when it is
    that derivative, within 2e-3)."""
    import functools
    import types

    from s2sad import api, self_check
    x = np.array([0.5, -0.7], dtype=np.float32)
    primal = functools.partial(api._run_primal, coarse_in_float32, (x,), {})
    call = types.SimpleNamespace(dtype=np.dtype(np.float32), values=[x],
                                 output=lambda value: value)
    v = np.array([0.3, 0.8])
    slope = self_check._float64_slope(primal, call)(1.0, {0: v})
    exact = 2e-8 * 0.5 * 0.3 - 2 * 4e-8 * 0.7 * 0.8 / (1 + (0.7 * 2e-4) ** 2)
    assert slope == pytest.approx(exact, rel=1e-3)  # (float64 loses digits in 1 + z too)
    call.dtype = np.dtype(np.float64)  # (float64 calls keep their tight test alone)
    assert self_check._float64_slope(primal, call) is None
