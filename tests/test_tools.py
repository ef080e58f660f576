"""The tools around the derivatives: s2sad.check_grads, the command line
(python -m s2sad show|export) and the notebook display."""
import os
import subprocess
import sys

import numba
import numpy as np
import pytest

import s2sad

X = np.array([0.3, -1.2, 0.8])


# ---- check_grads ------------------------------------------------------------------

def model(x, a):
    return np.sum(np.sin(x) * a) + a * a


def two_outputs(x):
    return np.tanh(x) * x[0], np.sum(x ** 3)


def loop(x, n):
    s = 0.0
    for i in range(n):
        s += x[i % 3] * np.cos(s)
    return s


@pytest.mark.parametrize("f, args, wrt", [(model, (X, 1.5), (0, 1)), (two_outputs, (X,), 0),
                                          (loop, (X, 5), "x")])
def test_check_grads_passes_on_correct_derivatives(f, args, wrt, jit):
    s2sad.check_grads(f, args, order=2, wrt=wrt, jit=jit)


def test_check_grads_float32():
    s2sad.check_grads(model, (X.astype(np.float32), 1.5), order=1, wrt=0)


# deliberately wrong rules, of each kind a user can write

@s2sad.custom_gradient
def wrong_custom_gradient(x):
    def backward(dy):
        return dy * np.sin(x)   # should be cos
    return np.sin(x), backward


def _sin_fwd(x):
    return np.sin(x), (x,)


def _sin_bwd_wrong(res, dy):
    return (dy * 2.0 * np.cos(res[0]),)


def _sin_bwd_right(res, dy):
    return (dy * np.cos(res[0]),)


def wrong_vjp_sin(x):
    return np.sin(x)


def right_vjp_sin(x):
    return np.sin(x)


wrong_vjp_sin = s2sad.custom_vjp(wrong_vjp_sin)
wrong_vjp_sin.defvjp(_sin_fwd, _sin_bwd_wrong)
right_vjp_sin = s2sad.custom_vjp(right_vjp_sin)
right_vjp_sin.defvjp(_sin_fwd, _sin_bwd_right)


@numba.njit
def cube_kernel(x):
    return x * x * x


@s2sad.register_gradient(cube_kernel)
def cube_kernel_grad(dy, y, x):
    return dy * 3.0 * x          # should be 3 x^2


def uses_custom_gradient(x):
    return np.sum(wrong_custom_gradient(x) * x)


def uses_wrong_vjp(x):
    return np.sum(wrong_vjp_sin(x) * x)


def uses_right_vjp(x):
    return np.sum(right_vjp_sin(x) * x)


def uses_kernel(x):
    return np.sum(cube_kernel(x))


@pytest.mark.parametrize("f", [uses_custom_gradient, uses_wrong_vjp, uses_kernel])
def test_check_grads_catches_a_wrong_rule(f):
    with pytest.raises(AssertionError) as info:
        s2sad.check_grads(f, (X,), modes="rev")
    message = str(info.value)
    assert f.__name__ in message and "argument 0 ('x')" in message
    assert "order 1" in message and "mode rev" in message and "largest error" in message


def test_check_grads_passes_a_right_custom_vjp():
    s2sad.check_grads(uses_right_vjp, (X,), modes="rev")


def test_check_grads_catches_a_wrong_second_derivative():
    # the first derivative is right; its own derivative (forward mode through
    # the backward function, which stops x) is not: only order 2 sees it
    s2sad.check_grads(_square_user, (np.array([0.5, 1.5]),), modes="rev")
    with pytest.raises(AssertionError, match="order 2"):
        s2sad.check_grads(_square_user, (np.array([0.5, 1.5]),), order=2, modes="rev")


@s2sad.custom_gradient
def _square_stopped(x):
    def backward(dy):
        return dy * 2.0 * s2sad.stop_gradient(x)
    return x * x, backward


def _square_user(x):
    return np.sum(_square_stopped(x))


def scaled_power(x, scale=2.0, p=3):
    return np.sum(scale * np.sin(x) ** p)


def keyword_scale(x, *, scale=0.5):
    return np.sum(np.exp(scale * x))


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("modes", ["rev", "fwd"])
@pytest.mark.parametrize("f, args", [(scaled_power, (X,)), (scaled_power, (X, 1.5)),
                                     (scaled_power, (X, 1.5, 2)), (keyword_scale, (X,))],
                         ids=["default", "one given", "all given", "keyword-only"])
def test_check_grads_with_parameter_defaults(f, args, order, modes, jit):
    # order 2 in forward mode raised TypeError: missing a required argument
    s2sad.check_grads(f, args, order=order, modes=modes, jit=jit)


def test_check_grads_with_a_default_still_catches_a_wrong_second_derivative():
    def user(x, c=2.0):
        return c * np.sum(_square_stopped(x))
    with pytest.raises(AssertionError, match="order 2"):
        s2sad.check_grads(user, (np.array([0.5, 1.5]),), order=2, modes="rev")


def test_check_grads_arguments():
    with pytest.raises(ValueError, match="order 1 or 2"):
        s2sad.check_grads(model, (X, 1.5), order=3)
    with pytest.raises(ValueError, match="modes"):
        s2sad.check_grads(model, (X, 1.5), modes=("reverse",))
    with pytest.raises(TypeError, match="float"):
        s2sad.check_grads(loop, (X, 5), wrt=1)


# ---- the command line ----------------------------------------------------------------

EXAMPLE = os.path.join(os.path.dirname(__file__), os.pardir, "examples", "quickstart.py")

MODEL_SOURCE = '''import numpy as np


def loss(w, x, b):
    s = 0.0
    for i in range(x.shape[0]):
        s += np.tanh(np.dot(w, x[i]) + b) ** 2
    return s
'''


def _run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "s2sad", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=300)


def test_command_line_show_and_export(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(MODEL_SOURCE)
    shown = _run("show", f"{path}:loss", "--wrt", "w,b", "--args", "array1,array2,float")
    assert shown.returncode == 0, shown.stderr
    assert "def grad_loss(w, x, b):" in shown.stdout and "db += " in shown.stdout
    hessian = _run("show", f"{path}:loss", "--mode", "hessian")
    assert hessian.returncode == 0, hessian.stderr
    assert "Hessian-vector" in hessian.stdout
    out = tmp_path / "loss_grad.py"
    written = _run("export", f"{path}:loss", "-o", str(out), "--args", "array1,array2,float",
                   "--wrt", "w,b")
    assert written.returncode == 0, written.stderr
    run = subprocess.run([sys.executable, "-c", "import loss_grad, numpy as np; "
                          "print(loss_grad.grad_loss(np.ones(2), np.ones((3, 2)), 0.5)[1][1])"],
                         capture_output=True, text=True, cwd=tmp_path,
                         env=dict(os.environ, S2SAD_EXPORT_JIT="0"), timeout=300)
    assert run.returncode == 0, run.stderr
    w, x, b = np.ones(2), np.ones((3, 2)), 0.5
    want = s2sad.grad(_loss_here, wrt="b")(w, x, b)
    assert abs(float(run.stdout) - want) < 1e-12


def _loss_here(w, x, b):
    s = 0.0
    for i in range(x.shape[0]):
        s += np.tanh(np.dot(w, x[i]) + b) ** 2
    return s


def test_command_line_errors(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(MODEL_SOURCE)
    for args, text in [(("show", f"{path}:nope"), "has no nope"),
                       (("show", f"{tmp_path}/missing.py:f"), "no file"),
                       (("show", f"{path}:loss", "--args", "matrix"), "not a kind"),
                       (("show", "model.py"), "is not path/to/file.py:function")]:
        result = _run(*args)
        assert result.returncode == 1 and text in result.stderr, (args, result.stderr)
    assert "show" in _run("--help").stdout


# ---- notebooks -----------------------------------------------------------------------

def test_notebook_display_shows_the_source():
    d = s2sad.grad(model, wrt=("x", "a"))
    before = d._repr_markdown_()
    assert "guessed" in before and "```python" in before and "def grad_model" in before
    d(X, 1.5)
    after = d._repr_markdown_()
    assert "**s2sad grad** of `model" in after and "w.r.t. `x, a`" in after
    assert "last call" in after and "def grad_model(x, a):" in after


def test_command_line_on_an_example_file():
    path = os.path.join(os.path.dirname(__file__), os.pardir, "examples", "quickstart.py")
    shown = _run("show", f"{path}:simulate", "--wrt", "a,b,c")
    assert shown.returncode == 0, shown.stderr
    assert "def grad_simulate(a, b, c, x0, dt, steps):" in shown.stdout


def test_guessed_kinds_follow_defaults_and_range_counts():
    from s2sad.api import _guess_kinds
    from s2sad.transforms.analysis import kinds as K

    def simulate(a, x, n, dt=0.01, steps=10):
        s = a
        for i in range(n):
            s += dt * x[i, 0] * steps
        return s
    assert _guess_kinds(simulate) == [K.FLOAT, K.array(2), K.INT, K.FLOAT, K.INT]
