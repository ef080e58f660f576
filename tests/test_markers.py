"""Gradient control: stop_gradient, stop_recording, reset_recording,
stop_gradients and derivatives w.r.t. local variables. Markers change what
finite differences see, so these tests check analytic values."""
import numpy as np
import pytest

import s2sad
from s2sad import reset_recording, stop_gradient, stop_recording


# ---- stop_recording -------------------------------------------------------------

def recording_seed(x, y):
    x_sq = x * x
    with s2sad.stop_recording():
        y_sq = y * y
    z = x_sq + y_sq
    return z


def recording_in_loop(x, y):
    z = 0.0
    for i in range(3):
        with stop_recording():
            z = z * y  # a constant from here: the earlier terms drop out
        z += x * y
    return z


def test_stop_recording(jit):
    dx, dy = s2sad.grad(recording_seed, wrt=(0, 1), jit=jit)(3.0, 4.0)
    assert (dx, dy) == (6.0, 0.0)
    # the value is untouched; in the loop the gradient only sees z += x * y
    x, y = 1.5, 2.0
    v, (dx, dy) = s2sad.value_and_grad(recording_in_loop, wrt=(0, 1), jit=jit)(x, y)
    assert v == pytest.approx(recording_in_loop(x, y))
    assert dx == pytest.approx(y) and dy == pytest.approx(x)


# ---- reset_recording -----------------------------------------------------------

def reset_seed(x, y):
    y_sq = y * y
    s2sad.reset_recording()
    x_sq = x * x
    return x_sq + y_sq


def reset_in_branch(x, y, reset):
    z = x * y
    if reset > 0:
        reset_recording()
    return z + x * x


def reset_in_loop(x, n):
    z = x
    for i in range(n):
        if i == 2:
            reset_recording()
        z = z * x
    return z


def test_reset_recording(jit):
    dx, dy = s2sad.grad(reset_seed, wrt=(0, 1), jit=jit)(3.0, 4.0)
    assert (dx, dy) == (6.0, 0.0)
    g = s2sad.grad(reset_in_branch, wrt=(0, 1), jit=jit)
    assert g(2.0, 5.0, 1) == (pytest.approx(4.0), 0.0)
    assert g(2.0, 5.0, 0) == (pytest.approx(4.0 + 5.0), pytest.approx(2.0))
    # z = x**(n+1); after the reset at i == 2 the z computed so far (x**3) is a
    # constant: the gradient is x**3 * d(x**(n-2))/dx
    x, n = 1.3, 5
    assert s2sad.grad(reset_in_loop, jit=jit)(x, n) == pytest.approx(x ** 3 * 3 * x ** 2)
    value, _ = s2sad.value_and_grad(reset_in_loop, jit=jit)(x, n)
    assert value == pytest.approx(x ** 6)


# ---- stop_gradient -----------------------------------------------------------------

def em_update(mu, x):
    """EM-style: the responsibilities are held fixed while mu moves."""
    d2 = (x - mu) ** 2
    resp = stop_gradient(np.exp(-d2) / np.sum(np.exp(-d2)))
    return np.sum(resp * d2)


def contrastive(w, v):
    """The model's sample is a target: no gradient through it."""
    h = np.tanh(w * v)
    target = stop_gradient(np.tanh(w * h))
    return np.sum((h - target) ** 2)


def loss_of(x, w):
    return np.sum(np.tanh(x * w) ** 2)


def adversarial(x, w, eps):
    """Adversarial training: the perturbed input is data, not a variable."""
    x_adv = stop_gradient(x + eps * np.sign(x))
    return loss_of(x_adv, w) + loss_of(x, w)


def stopped_helper(a, b):
    return stop_gradient(a * b) + a


def marker_in_helper_and_branch(x, y):
    s = 0.0
    for i in range(2):
        if x > 0.0:
            s += stopped_helper(x, y)
        else:
            s += stop_gradient(x) * y
    return s


def test_stop_gradient(jit):
    mu, x = 0.3, np.array([0.1, 0.5, 1.2])
    d2 = (x - mu) ** 2
    resp = np.exp(-d2) / np.sum(np.exp(-d2))
    assert s2sad.grad(em_update, jit=jit)(mu, x) == pytest.approx(np.sum(resp * -2 * (x - mu)))

    w, v = 0.7, np.array([0.2, -0.4, 0.9])
    h = np.tanh(w * v)
    target = np.tanh(w * h)
    expected = np.sum(2 * (h - target) * (1 - h ** 2) * v)
    assert s2sad.grad(contrastive, jit=jit)(w, v) == pytest.approx(expected)

    xs, ws = np.array([0.5, -0.2]), np.array([1.5, 0.3])
    eps = 0.1
    x_adv = xs + eps * np.sign(xs)
    t_adv, t = np.tanh(x_adv * ws), np.tanh(xs * ws)
    expected_w = 2 * t_adv * (1 - t_adv ** 2) * x_adv + 2 * t * (1 - t ** 2) * xs
    np.testing.assert_allclose(s2sad.grad(adversarial, wrt=1, jit=jit)(xs, ws, eps), expected_w)
    expected_x = 2 * t * (1 - t ** 2) * ws  # x_adv is a constant
    np.testing.assert_allclose(s2sad.grad(adversarial, wrt=0, jit=jit)(xs, ws, eps), expected_x)

    dx, dy = s2sad.grad(marker_in_helper_and_branch, wrt=(0, 1), jit=jit)(1.5, 2.0)
    assert (dx, dy) == (pytest.approx(2.0), 0.0)
    dx, dy = s2sad.grad(marker_in_helper_and_branch, wrt=(0, 1), jit=jit)(-1.5, 2.0)
    assert (dx, dy) == (0.0, pytest.approx(-3.0))


def test_markers_outside_differentiation_are_identities():
    assert stop_gradient(3.0) == 3.0
    with stop_recording():
        pass
    assert reset_recording() is None
    assert em_update(0.3, np.array([0.1, 0.5])) > 0


# ---- stop_gradients and derivatives w.r.t. variables ------------------------------

def partials_seed(x):
    a = x
    b = 2.0 * a
    return a + b


def test_stop_gradients(jit):
    total = s2sad.grad(partials_seed, wrt=("a", "b"), jit=jit)(1.0)
    assert total == (3.0, 1.0)
    partial = s2sad.grad(partials_seed, wrt=("a", "b"), stop_gradients=("a", "b"), jit=jit)(1.0)
    assert partial == (1.0, 1.0)
    assert s2sad.grad(partials_seed, wrt="x", jit=jit)(1.0) == 3.0
    assert s2sad.grad(partials_seed, wrt="x", stop_gradients="b", jit=jit)(1.0) == 1.0


def assigned_in_loop(x):
    s = 0.0
    for i in range(3):
        t = x * i
        s += t
    return s


def test_wrt_variable_must_have_one_value():
    with pytest.raises(ValueError, match="'t', which is assigned inside a loop"):
        s2sad.grad(assigned_in_loop, wrt="t")(1.0)
    with pytest.raises(ValueError, match="'s', which is assigned more than once"):
        s2sad.grad(assigned_in_loop, wrt="s")(1.0)


def test_markers_show_in_source():
    src = s2sad.grad(recording_seed, wrt=(0, 1)).source_for(3.0, 4.0)
    assert "# x_sq = x * x" in src and "y_sq" not in src.split("dz = 1.0")[1]
    assert src.rstrip().endswith("return (z, (dx, 0.0))")


# ---- every marker inside a helper, a branch and a loop --------------------------

def recording_helper(a, b):
    p = a * b
    with stop_recording():
        q = p * b
    return p + q


def reset_helper(a, b):
    q = a * b
    reset_recording()
    return q + a * a


def markers_everywhere(x, y):
    s = 0.0
    for i in range(2):
        if x > 0.0:
            with stop_recording():
                s = s + x * y
        else:
            s = s + stop_gradient(x * y)
        s += recording_helper(x, y)
    return s


def test_stop_recording_in_helper_branch_loop(jit):
    # each helper call contributes (y, x) through p = x y (q is a constant);
    # for x > 0 the recorded block makes s a constant, so only the last
    # iteration's helper call counts; for x < 0 both do
    x, y = 1.5, 2.0
    dx, dy = s2sad.grad(markers_everywhere, wrt=(0, 1), jit=jit)(x, y)
    assert (dx, dy) == (pytest.approx(y), pytest.approx(x))
    dx, dy = s2sad.grad(markers_everywhere, wrt=(0, 1), jit=jit)(-x, y)
    assert (dx, dy) == (pytest.approx(2 * y), pytest.approx(-2 * x))


def uses_reset_helper(x, y):
    return reset_helper(x, y) * 2.0


def test_reset_recording_in_helper(jit):
    # inside the helper, a * b is a constant: only a * a is differentiated
    dx, dy = s2sad.grad(uses_reset_helper, wrt=(0, 1), jit=jit)(1.5, 2.0)
    assert (dx, dy) == (pytest.approx(2 * 2 * 1.5), 0.0)
