"""Checkpointed loops: the binomial schedule itself, and gradients of
checkpointed loops (explicit s2sad.checkpointed and memory budgets) against
the recorded ones and finite differences."""
import math

import numpy as np
import pytest

import s2sad
from s2sad import checkpointing as C
from gradcheck import numerical_grad


# ---- the schedule -----------------------------------------------------------

def _simulate(steps, snapshots):
    """Run the schedule on a state that is the step index; check every action
    is possible; return (advances, advances per step, most snapshots held)."""
    schedule = C.revolve_start(steps, snapshots)
    position, slots, turned = 0, {}, []
    per_step = [0] * steps
    most = 0
    while True:
        action = C.revolve(schedule)
        if action == C.ADVANCE:
            a, b = C.revolve_from(schedule), C.revolve_to(schedule)
            assert position == a and a < b <= steps
            for i in range(a, b):
                per_step[i] += 1
            position = b
        elif action == C.TAKESHOT:
            slots[C.revolve_slot(schedule)] = position
            most = max(most, len(slots))
        elif action == C.RESTORE:
            position = slots[C.revolve_slot(schedule)]
        elif action in (C.FIRSTURN, C.YOUTURN):
            step = C.revolve_step(schedule)
            assert position == step  # the adjoint starts from the state before it
            assert (action == C.FIRSTURN) == (not turned)
            turned.append(step)
            # snapshots above the current one are no longer held
            slots = {k: v for k, v in slots.items() if v < step or k <= C.revolve_slot(schedule)}
        else:
            assert action == C.TERMINATE
            break
    assert turned == list(range(steps - 1, -1, -1)), "every step reversed once, last first"
    assert all(0 <= k < snapshots for k in slots)
    return sum(per_step), per_step, most


@pytest.mark.parametrize("snapshots", [1, 2, 3, 5])
def test_schedule_reverses_every_step_once_with_the_binomial_count(snapshots):
    for steps in range(1, 60):
        total, per_step, most = _simulate(steps, snapshots)
        r = C.repetitions(steps, min(snapshots, steps))
        s = min(snapshots, steps)
        assert math.comb(s + r, s) >= steps and (r == 0 or math.comb(s + r - 1, s) < steps)
        assert most <= snapshots
        assert max(per_step) <= r  # no step runs forward more than r times
        # Griewank and Walther's minimal number of forward steps
        assert total == r * steps - math.comb(s + r, s + 1), (steps, snapshots)


def test_schedule_at_the_binomial_limit():
    # C(3 + 4, 3) = 35 steps with 3 snapshots: 4 repetitions, 36 takes 5
    assert C.repetitions(35, 3) == 4 and C.repetitions(36, 3) == 5
    assert max(_simulate(35, 3)[1]) == 4
    assert C.binomial_steps(10**6, 3) > 10**17  # capped, no overflow


def test_schedule_with_one_step_and_none():
    assert C.schedule_actions(1, 3) == [(C.FIRSTURN, 0)]
    assert C.schedule_actions(0, 3) == []


def test_memory_budget_parsing(monkeypatch):
    assert C.memory_budget("64MB") == 64 * 10**6
    assert C.memory_budget("1 GiB") == 2**30
    assert C.memory_budget(4096) == 4096
    monkeypatch.delenv("S2SAD_MEMORY", raising=False)
    assert C.memory_budget(None) is None
    monkeypatch.setenv("S2SAD_MEMORY", "2kb")
    assert C.memory_budget(None) == 2000
    for bad in ("lots", -1, 0, "5 parsecs"):
        with pytest.raises(ValueError):
            C.memory_budget(bad)


# ---- gradients --------------------------------------------------------------

def ode_recorded(x, a, n):
    for t in range(n):
        x = x + 0.01 * (a * math.sin(x) - 0.5 * x * x * x + 1.0)
    return x


def ode_1(x, a, n):
    for t in s2sad.checkpointed(range(n), snapshots=1):
        x = x + 0.01 * (a * math.sin(x) - 0.5 * x * x * x + 1.0)
    return x


def ode_2(x, a, n):
    for t in s2sad.checkpointed(range(n), snapshots=2):
        x = x + 0.01 * (a * math.sin(x) - 0.5 * x * x * x + 1.0)
    return x


def ode_all(x, a, n):
    for t in s2sad.checkpointed(range(n), snapshots=n):
        x = x + 0.01 * (a * math.sin(x) - 0.5 * x * x * x + 1.0)
    return x


@pytest.mark.parametrize("fn, jit", [(ode_1, False), (ode_2, False), (ode_all, False),
                                     (ode_2, True)])
def test_scalar_state_explicit_snapshots(fn, jit):
    ref = s2sad.grad(ode_recorded, (0, 1), jit=jit)(0.3, 1.2, 23)
    got = s2sad.value_and_grad(fn, (0, 1), jit=jit)(0.3, 1.2, 23)
    assert got[0] == pytest.approx(ode_recorded(0.3, 1.2, 23), rel=1e-14)
    np.testing.assert_allclose(got[1], ref, rtol=1e-12)
    fd = numerical_grad(ode_recorded, (0.3, 1.2, 23), 1)
    assert got[1][1] == pytest.approx(fd, rel=1e-6)


def test_explicit_loop_with_no_steps_and_a_strided_range():
    def f(x, n):
        y = x * 1.0
        for t in s2sad.checkpointed(range(2, n, 3), snapshots=2):
            y = y * (1.0 + 0.1 * t) + 0.5 * math.sin(y)
        return y

    g = s2sad.grad(f, jit=False)
    assert g(0.7, 2) == pytest.approx(1.0)
    assert g(0.7, 17) == pytest.approx(numerical_grad(f, (0.7, 17), 0), rel=1e-6)


def _helper(v, c):
    return v * c


def heat(x, k, n):
    u = x.copy()
    m = x.shape[0]
    total = 0.0
    count = 0
    for t in range(n):
        w = np.zeros_like(u)
        for i in range(1, m - 1):
            w[i] = u[i] + k * (u[i + 1] - 2.0 * u[i] + u[i - 1])
        w[0] = u[0]
        w[m - 1] = u[m - 1]
        if t % 2 == 0:
            total = total + np.sum(_helper(w, k))
        else:
            total = total - 0.5 * w[1] * w[1]
        count = count + 1
        u = w
    return np.sum(u * u) + total * count


# what one state takes: u (8 floats), total, count; the estimate of one
# step's memory is its largest variable (u) per assignment or operation
# (24) and two states (adjoints, copies); a snapshot slot holds a state and
# the step it is of: budgets for 1, 2 and 8 snapshots
_STATE = 8 * 8 + 8 + 8
_TAPE, _SLOT = 24 * 64 + 2 * _STATE, _STATE + 8


@pytest.mark.parametrize("budget, jit", [(_TAPE + _SLOT, False), (_TAPE + 2 * _SLOT, False),
                                         (_TAPE + 8 * _SLOT, False), (_TAPE + 2 * _SLOT, True)])
def test_array_state_nested_loop_branch_and_helper_under_budgets(budget, jit):
    x = np.sin(np.linspace(0.0, 3.0, 8))
    ref = s2sad.grad(heat, (0, 1), jit=False)(x, 0.2, 9)
    g = s2sad.grad(heat, (0, 1), jit=jit, memory=budget)
    got = g(x, 0.2, 9)
    assert "revolve(schedule)" in g.source  # the checkpointed branch is there
    np.testing.assert_allclose(got[0], ref[0], rtol=1e-12)
    assert got[1] == pytest.approx(ref[1], rel=1e-12)
    np.testing.assert_allclose(got[0], numerical_grad(heat, (x, 0.2, 9), 0), rtol=1e-5)


def test_budget_that_fits_takes_the_recorded_loop():
    x = np.sin(np.linspace(0.0, 3.0, 8))
    g = s2sad.grad(heat, (0, 1), jit=False, memory="1GB")
    np.testing.assert_allclose(g(x, 0.2, 9)[0], s2sad.grad(heat, jit=False)(x, 0.2, 9),
                               rtol=1e-14)


def test_budget_below_one_snapshot_is_refused():
    x = np.ones(8)
    with pytest.raises(MemoryError, match="checkpointed loop at .*test_checkpointing.py"):
        s2sad.grad(heat, jit=False, memory=100)(x, 0.2, 9)


def test_vjp_with_a_budget(jit):
    def f(x, n):
        y = x * 1.0
        for t in range(n):
            y = np.tanh(y) + 0.1 * y
        return y

    x, seed = np.linspace(-1, 1, 4), np.arange(4.0)
    ref = s2sad.vjp(f, jit=False)(x, 12, seed)
    # y: 32 bytes; a step: 4 values and 2 states; 2 snapshots
    got = s2sad.vjp(f, jit=jit, memory=6 * 32 + 2 * 40)(x, 12, seed)
    np.testing.assert_allclose(got[1], ref[1], rtol=1e-12)
    np.testing.assert_allclose(got[0], ref[0], rtol=1e-14)
    if not jit:  # the budget goes to the checkpointed loop: one snapshot less does not fit
        with pytest.raises(MemoryError, match="checkpointed loop"):
            s2sad.vjp(f, jit=jit, memory=6 * 32 + 39)(x, 12, seed)


def test_early_exit_is_refused_when_marked_and_recorded_under_a_budget():
    def marked(x, n):
        for t in s2sad.checkpointed(range(n), snapshots=2):
            x = x * 0.9 + 0.1
            if x > 5.0:
                break
        return x

    def budget(x, n):
        for t in range(n):
            x = x * 1.1 + 0.1
            if x > 5.0:
                break
        return x

    with pytest.raises(s2sad.UnsupportedSyntaxError, match="early exit"):
        s2sad.grad(marked, jit=False)(1.0, 10)
    g = s2sad.grad(budget, jit=False, memory=8)
    assert g(1.0, 30) == pytest.approx(numerical_grad(budget, (1.0, 30), 0), rel=1e-6)
    assert "revolve" not in g.source


def test_refusals_name_the_variable():
    def changes_type(x, n):
        s = 0
        for t in s2sad.checkpointed(range(n), snapshots=2):
            s = s + x
        return s

    def first_assigned_inside(x, n):
        for t in s2sad.checkpointed(range(n), snapshots=2):
            y = x * 2.0
            x = y
        return x + y

    with pytest.raises(s2sad.UnsupportedSyntaxError, match="'s' changes from int to float"):
        s2sad.grad(changes_type, jit=False)(1.0, 3)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="'y' is first assigned in it"):
        s2sad.grad(first_assigned_inside, jit=False)(1.0, 3)


def test_forward_mode_and_the_function_itself_run_the_loop_as_it_is():
    assert ode_2(0.3, 1.2, 5) == ode_recorded(0.3, 1.2, 5)
    value, tangent = s2sad.jvp(ode_2, 0, jit=False)(0.3, 1.2, 5, 1.0)
    assert tangent == pytest.approx(s2sad.grad(ode_recorded, 0, jit=False)(0.3, 1.2, 5))


def _layer(h, w):
    return np.tanh(w * h + 0.1)


_checkpointed_layer = s2sad.checkpoint(_layer)


def test_checkpoint_of_a_helper_recomputes_it_in_the_reverse_sweep(jit):
    def net(x, w):
        h = x
        for k in range(3):
            h = _checkpointed_layer(h, w)
        return np.sum(h * h)

    x = np.linspace(-1.0, 1.0, 5)
    g = s2sad.grad(net, (0, 1), jit=jit)
    got = g(x, 0.7)
    np.testing.assert_allclose(got[0], numerical_grad(net, (x, 0.7), 0), rtol=1e-6)
    assert got[1] == pytest.approx(numerical_grad(net, (x, 0.7), 1), rel=1e-6)
    forward, reverse = g.source.split("def grad_net")[1].split("# return")
    assert "_layer(h, w)" in forward and "tanh" not in forward  # nothing inside recorded
    assert "vjp__layer(" in reverse  # its forward runs again there, then its reverse
    with pytest.raises(TypeError):
        s2sad.checkpoint(np.sin)


def _integrate(y, a, n):
    for t in range(n):
        y = y + 0.1 * np.sin(a * y)
    return y


def test_a_helpers_time_loop_is_checkpointed_under_a_budget():
    def last(y0, a, n):
        y = _integrate(y0, a, n)
        return y[y.shape[0] - 1] + np.sum(y)

    y0 = np.linspace(0.0, 1.0, 4)
    ref = s2sad.grad(last, (0, 1), jit=False)(y0, 0.8, 15)
    # y: 32 bytes; a step: 5 values and 2 states; 3 snapshots
    g = s2sad.grad(last, (0, 1), jit=False, memory=7 * 32 + 3 * 40)
    got = g(y0, 0.8, 15)
    assert "def vjp__integrate" in g.source and "revolve(schedule)" in g.source
    np.testing.assert_allclose(got[0], ref[0], rtol=1e-12)
    assert got[1] == pytest.approx(ref[1], rel=1e-12)
    with pytest.raises(MemoryError, match="checkpointed loop"):
        s2sad.grad(last, jit=False, memory=7 * 32 + 39)(y0, 0.8, 15)


def test_stop_gradients_and_reset_recording_in_the_loop_are_not_lifted():
    def f(x, n):
        y = x * 1.0
        for t in range(n):
            z = y * y
            y = y + 0.1 * z
        return y

    def marked(x, n):
        y = x * 1.0
        for t in s2sad.checkpointed(range(n), snapshots=2):
            z = y * y
            y = y + 0.1 * z
        return y

    def reset(x, n):
        y = x * 1.0
        for t in s2sad.checkpointed(range(n), snapshots=2):
            s2sad.reset_recording()
            y = y * 1.5
        return y

    ref = s2sad.grad(f, jit=False, stop_gradients="z")(0.5, 6)
    g = s2sad.grad(f, jit=False, stop_gradients="z", memory=8)  # recorded: no budget needed
    assert g(0.5, 6) == pytest.approx(ref, rel=1e-14) and "revolve" not in g.source
    assert ref == pytest.approx(1.0)  # z is a constant: y moves by constants
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="stop_gradients"):
        s2sad.grad(marked, jit=False, stop_gradients="z")(0.5, 6)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="reset_recording"):
        s2sad.grad(reset, jit=False)(0.5, 6)


def test_marked_loop_without_snapshots_and_a_nested_mark():
    def plain(x, n):
        for t in s2sad.checkpointed(range(n)):  # about sqrt(n) snapshots
            x = x + 0.01 * math.sin(x)
        return x

    def nested(x, n):
        if n > 0:
            for t in s2sad.checkpointed(range(n), snapshots=2):
                x = x * 1.1
        return x

    assert s2sad.grad(plain, jit=False)(0.4, 30) == pytest.approx(
        numerical_grad(plain, (0.4, 30), 0), rel=1e-6)
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="inside another statement"):
        s2sad.grad(nested, jit=False)(0.4, 3)


def test_two_marked_loops_matrix_and_bool_state_and_a_negative_stride():
    def f(A, n):
        B = A * 1.0
        flag = False
        for t in s2sad.checkpointed(range(n, 0, -2), snapshots=2):
            B = np.tanh(B) * (1.0 + 0.01 * t)
            flag = not flag
        s = 0.0
        for t in s2sad.checkpointed(range(n), snapshots=3):
            s = s + np.sum(B * B) * 0.1
            B = B * 0.9
        if flag:
            s = s * 2.0
        return s + np.sum(B)

    A = np.arange(6.0).reshape(2, 3) / 7
    np.testing.assert_allclose(s2sad.grad(f, jit=False)(A, 7),
                               numerical_grad(f, (A, 7), 0), rtol=1e-6)


def _stepped(x, w, n, k):
    y = x * 1.0
    acc = 0.0
    for t in s2sad.checkpointed(range(n), snapshots=k):
        z = np.sin(y) * w
        if t % 3 == 1:
            z = z * z
        y = y + 0.1 * z
        acc = acc + np.sum(y) * 0.01
    return np.sum(y * y) + acc


def _stepped_recorded(x, w, n, k):
    y = x * 1.0
    acc = 0.0
    for t in range(n):
        z = np.sin(y) * w
        if t % 3 == 1:
            z = z * z
        y = y + 0.1 * z
        acc = acc + np.sum(y) * 0.01
    return np.sum(y * y) + acc


def test_every_snapshot_count_gives_the_recorded_gradient():
    # snapshots from a variable: one derivative for every (steps, snapshots);
    # (compiled, the same code: see the jit cases above)
    x = np.linspace(-0.5, 0.5, 3)
    g = s2sad.grad(_stepped, (0, 1), jit=False)
    ref = s2sad.grad(_stepped_recorded, (0, 1), jit=False)
    for n in range(0, 13):
        want = ref(x, 0.8, n, 1)
        for k in range(1, n + 2):
            got = g(x, 0.8, n, k)
            np.testing.assert_allclose(got[0], want[0], rtol=1e-12, atol=1e-15)
            assert got[1] == pytest.approx(want[1], rel=1e-12, abs=1e-15)


def test_an_int_accumulator_that_becomes_a_float_under_a_budget():
    def f(x, n):
        s = 0  # an int, then floats are added
        for t in range(n):
            s = s + x * x
        return s

    # s: 8 bytes; a step: 3 values and 2 states; 2 snapshots of 16 bytes
    g = s2sad.grad(f, jit=False, memory=5 * 8 + 2 * 16)
    assert g(1.5, 4) == pytest.approx(12.0)
    assert "revolve" in g.source


def test_a_budget_with_a_dict_argument():
    def f(p, n):
        y = p["x"] * 1.0
        for t in range(n):
            y = np.tanh(y * p["w"]) + 0.1 * y
        return np.sum(y)

    p = {"x": np.linspace(0.0, 1.0, 3), "w": 0.7}
    ref = s2sad.grad(f, jit=False)(p, 9)
    g = s2sad.grad(f, jit=False, memory=200)  # 1 snapshot of y (24 bytes)
    got = g(p, 9)
    assert "revolve(schedule)" in g.source
    np.testing.assert_allclose(got["x"], ref["x"], rtol=1e-12)
    assert got["w"] == pytest.approx(ref["w"], rel=1e-12)
