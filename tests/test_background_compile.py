"""jit="auto" (the default) compiles off the caller's path: the first calls
run the generated derivative as Python while a forked process compiles it
into the on-disk cache, and calls switch to the compiled code when it is
ready (s2sad/background.py). The other tests run with it off
(conftest.py); these switch it on."""
import os
import subprocess
import sys
import textwrap
import time
import warnings

import numpy as np
import pytest

import s2sad
from gradcheck import numerical_grad

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="background compiles need fork (Linux)")


@pytest.fixture
def background(monkeypatch, tmp_path):
    monkeypatch.setenv("S2SAD_BACKGROUND_COMPILE", "1")
    monkeypatch.setenv("S2SAD_CACHE_DIR", str(tmp_path))  # (nothing compiled yet)
    return tmp_path


def loop_energy(x, n):
    s = 0.0
    for i in range(n):
        s = s + np.sin(x[i % x.shape[0]]) * x[(i + 1) % x.shape[0]]
    return s


X = np.linspace(-1.0, 1.0, 7)


def compiled(entry):
    return hasattr(entry._call, "py_func")


def test_first_call_runs_as_python_then_switches(background):
    df = s2sad.grad(loop_energy)
    first = df(X, 40)
    assert not compiled(df._last)  # the compile runs elsewhere
    assert np.allclose(first, numerical_grad(loop_energy, (X, 40), 0), atol=1e-7)
    deadline = time.time() + 300
    while df._last._job is not None and time.time() < deadline:
        df(X, 40)  # calls keep working while it compiles, and pick the compiled code up
        time.sleep(0.02)
    assert compiled(df._last)
    assert np.allclose(df(X, 40), first, rtol=1e-12, atol=1e-15)


def test_wait_compiled(background):
    df = s2sad.value_and_grad(loop_energy)
    value, grad = df(X, 30)
    assert df.wait_compiled() is df
    assert compiled(df._last)
    value2, grad2 = df(X, 30)
    assert value2 == pytest.approx(loop_energy(X, 30), rel=1e-12)
    assert np.allclose(grad2, grad, rtol=1e-12, atol=1e-15)


def test_a_slow_python_call_waits_for_the_compile(background):
    df = s2sad.grad(loop_energy)
    df(X, 10)
    entry = df._last
    entry._slowest_python = 1e9  # (a Python call slower than any compile so far)
    df(X, 10)
    assert compiled(entry) and entry._job is None


def test_off_by_environment_and_for_jit_true(background, monkeypatch):
    df = s2sad.grad(loop_energy, jit=True)
    df(X, 20)
    assert compiled(df._last)  # jit=True compiles at the first call, as before
    monkeypatch.setenv("S2SAD_BACKGROUND_COMPILE", "0")
    df = s2sad.grad(lambda x, n: loop_energy(x, n) * 2.0)
    df(X, 20)
    assert compiled(df._last)


def sum_of_array_generator(M):
    return np.sum(sum(M[i] * M[i] for i in range(3)))


def test_a_refused_compile_warns_and_stays_python(background):
    # numba cannot type a total that starts as 0 and becomes an array
    M = np.arange(9.0).reshape(3, 3) / 7.0
    df = s2sad.grad(sum_of_array_generator)
    g = df(M)
    with pytest.warns(s2sad.NumbaFallbackWarning, match="numba cannot compile"):
        df.wait_compiled()
    assert not compiled(df._last)
    assert np.allclose(df(M), g) and np.allclose(g, 2 * M)


SCRIPT = textwrap.dedent("""
    import sys, time
    import numpy as np
    import s2sad

    def f(x):
        s = 0.0
        for i in range(x.shape[0] - 1):
            s = s + (x[i + 1] - x[i]) ** 2 * np.cos(x[i])
        return s

    df = s2sad.grad(f)
    g = df(np.linspace(0.0, 1.0, 9))
    first = type(df._last._call).__name__
    loading = type(df._last._job[0]).__name__ if df._last._job else "none"
    if "--wait" in sys.argv:
        df.wait_compiled()
        hits = sum(df._last._call.stats.cache_hits.values())
        print(first, loading, type(df._last._call).__name__, hits, float(g.sum()))
    else:
        print(first, float(g.sum()))
""")


def run_script(cache_dir, *options):
    script = cache_dir / "script.py"  # (s2sad reads the function's source from its file)
    script.write_text(SCRIPT)
    env = dict(os.environ, S2SAD_CACHE_DIR=str(cache_dir / "cache"),
               S2SAD_BACKGROUND_COMPILE="1", S2SAD_CHECK="0")
    out = subprocess.run([sys.executable, str(script), *options], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    *kinds, total = out.stdout.split()
    return kinds, float(total)


def test_a_script_that_exits_first_leaves_the_cache_filled(tmp_path):
    kinds, total = run_script(tmp_path)
    assert kinds == ["method"]  # it ran as Python and exited while the child compiled
    deadline = time.time() + 300
    while time.time() < deadline:  # the child outlives it and fills the cache
        kinds2, total2 = run_script(tmp_path, "--wait")
        if kinds2[1] == "Loading":
            break
        time.sleep(1.0)
    # a later run's first call runs as Python while a thread loads the cached
    # code (no compile: numba's cache hit), which the calls then take
    assert kinds2 == ["method", "Loading", "CPUDispatcher", "1"]
    assert total2 == pytest.approx(total, rel=1e-12)


def test_threads_share_one_background_compile(background):
    import threading
    df = s2sad.grad(loop_energy)
    results = []
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        threads = [threading.Thread(target=lambda: results.append(df(X, 25))) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert len(results) == 4 and all(np.allclose(r, results[0]) for r in results)
    df.wait_compiled()
    assert compiled(df._last)
    assert np.allclose(df(X, 25), results[0])


def test_jacobian_and_hessian_wait_for_their_parts(background):
    def f(x):
        out = np.zeros(3)
        for i in range(3):
            out[i] = np.sin(x[i]) * x[(i + 1) % 3]
        return out

    x = np.array([0.3, -0.4, 1.1])
    jac = s2sad.jacobian(f)
    J = jac(x)
    assert jac.wait_compiled() is jac
    assert np.allclose(jac(x), J)
    want = np.zeros((3, 3))
    for i in range(3):
        want[i, i] += np.cos(x[i]) * x[(i + 1) % 3]
        want[i, (i + 1) % 3] += np.sin(x[i])
    assert np.allclose(J, want)
    hess = s2sad.hessian(lambda x: np.sum(f(x)))
    H = hess(x)
    hess.wait_compiled()
    assert np.allclose(hess(x), H) and np.allclose(H, H.T)


def shared_energy(x, n):  # (compiled by no other test of this process)
    s = 0.0
    for i in range(n):
        s = s + np.cos(x[i % x.shape[0]]) * x[(i + 2) % x.shape[0]]
    return s


def test_two_derivatives_of_one_function_share_the_compile(background):
    from s2sad import backend
    started = []
    backend.COMPILE_HOOKS.append(lambda module, fname: started.append(fname))
    try:
        first, second = s2sad.grad(shared_energy), s2sad.grad(shared_energy)
        g1, g2 = first(X, 15), second(X, 15)
        assert first._last.module is second._last.module
        assert len(started) == 1  # one child compiles for both
        first.wait_compiled()
        second.wait_compiled()
    finally:
        backend.COMPILE_HOOKS.pop()
    assert compiled(first._last) and compiled(second._last)
    assert np.allclose(first(X, 15), g1) and np.allclose(second(X, 15), g2)
