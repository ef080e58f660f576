"""Derivatives pickle by reference to their function plus options, so
multiprocessing, concurrent.futures and cluster engines can ship them."""
import concurrent.futures
import functools
import multiprocessing
import pickle

import numpy as np
import pytest

import s2sad
from gradcheck import numerical_grad


def loss(w, x, y):
    s = 0.0
    for i in range(x.shape[0]):
        r = np.tanh(x[i] * w[0] + w[1]) - y[i]
        s += r * r
    return s


@s2sad.grad
def decorated(x):
    return np.sum(np.sin(x) * x)


def scaled(x, scale):
    return np.sum(x * x) * scale


def _data(n=50, seed=0):
    rng = np.random.default_rng(seed)
    return np.array([0.3, -0.2]), rng.normal(size=n), rng.normal(size=n)


def _shard_grad(args):
    g, w, x, y = args
    return g(w, x, y)


def test_round_trip_keeps_options_and_gradient(jit):
    w, x, y = _data()
    for make in (s2sad.grad, s2sad.value_and_grad):
        g = make(loss, wrt=(0, 1), jit=jit, stop_gradients=("r",), boundscheck=False)
        h = pickle.loads(pickle.dumps(g))
        assert (h.fn, h.wrt, h.single, h.jit, h.mode, h.with_value, h.stop_gradients,
                h.boundscheck) == (g.fn, g.wrt, g.single, g.jit, g.mode, g.with_value,
                                   g.stop_gradients, g.boundscheck)
    g = s2sad.grad(loss, jit=jit)
    got = pickle.loads(pickle.dumps(g))(w, x, y)
    np.testing.assert_allclose(got, numerical_grad(loss, (w, x, y), 0), rtol=1e-6)
    np.testing.assert_array_equal(got, g(w, x, y))


def test_vjp_jvp_decorated_partial_and_grad_of_grad(jit):
    x = np.array([0.5, -1.0, 2.0])
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(decorated))(x), decorated(x))
    v = pickle.loads(pickle.dumps(s2sad.vjp(scaled, jit=jit)))(x, 3.0, 2.0)
    np.testing.assert_allclose(v, 2.0 * 2 * x * 3.0)
    _, t = pickle.loads(pickle.dumps(s2sad.jvp(scaled, jit=jit)))(x, 3.0, np.ones(3))
    np.testing.assert_allclose(t, np.sum(2 * x * 3.0))
    p = pickle.loads(pickle.dumps(s2sad.grad(functools.partial(scaled, scale=4.0), jit=jit)))
    np.testing.assert_allclose(p(x), 8 * x)
    gg = pickle.loads(pickle.dumps(s2sad.grad(s2sad.grad(loss, wrt=1), wrt=1, jit=jit)))
    w, xs, y = _data(5)
    expected = numerical_grad(lambda w, xs, y: np.sum(s2sad.grad(loss, wrt=1)(w, xs, y)),
                              (w, xs, y), 1)
    np.testing.assert_allclose(gg(w, xs, y), expected, rtol=1e-5, atol=1e-7)


def test_functions_not_found_by_name_are_refused():
    with pytest.raises(pickle.PicklingError, match="lambda"):
        pickle.dumps(s2sad.grad(lambda x: x * x))

    def inner(x):
        return x * x
    with pytest.raises(pickle.PicklingError, match="inside another function"):
        pickle.dumps(s2sad.grad(inner))


def test_process_pool_sums_shard_gradients():
    """Fresh (spawned) processes regenerate the derivative (or load it from
    the cache) and the summed shard gradients equal the one-process one."""
    w, x, y = _data(400)
    g = s2sad.grad(loss, jit=True)
    shards = [(g, w, x[k::4], y[k::4]) for k in range(4)]
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(2, mp_context=context) as pool:
        parts = list(pool.map(_shard_grad, shards))
    np.testing.assert_allclose(sum(parts), g(w, x, y), rtol=1e-12)


def test_cloudpickle_ships_by_reference_too():
    cloudpickle = pytest.importorskip("cloudpickle")
    w, x, y = _data()
    g = s2sad.grad(loss)
    data = cloudpickle.dumps(g)
    assert b"tanh" not in data  # the reference, not the function's code
    np.testing.assert_array_equal(pickle.loads(data)(w, x, y), g(w, x, y))


def test_jacobians_and_hessians_pickle(jit):
    x = np.array([0.5, -1.0, 2.0])
    for make in (s2sad.jacobian, s2sad.hessian):
        t = make(scaled, jit=jit)
        u = pickle.loads(pickle.dumps(t))
        assert type(u) is type(t) and u.wrt == t.wrt and u.jit == t.jit
        np.testing.assert_allclose(u(x, 3.0), t(x, 3.0))
    np.testing.assert_allclose(pickle.loads(pickle.dumps(s2sad.hessian(scaled)))(x, 3.0),
                               6.0 * np.eye(3))
    assert pickle.loads(pickle.dumps(s2sad.jacobian(scaled, mode="fwd"))).mode == "fwd"


def test_function_of_a_main_script_is_found_by_its_file(tmp_path):
    """A worker that does not run the sender's script (a cluster's) imports
    it by path, under another name, so its `if __name__ == "__main__"` part
    does not run there."""
    import os
    import subprocess
    import sys
    script = tmp_path / "user_script.py"
    script.write_text(
        "import pickle, sys\nimport numpy as np\nimport s2sad\n\n\n"
        "def f(x):\n    return np.sum(x * x * x)\n\n\n"
        "if __name__ == '__main__':\n"
        "    with open(sys.argv[1], 'wb') as out:\n"
        "        pickle.dump(s2sad.grad(f), out)\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    pkl = tmp_path / "g.pkl"
    subprocess.run([sys.executable, str(script), str(pkl)], env=env, check=True, timeout=120)
    out = subprocess.run(
        [sys.executable, "-c", "import pickle, numpy as np; "
         f"g = pickle.load(open({str(pkl)!r}, 'rb')); print(g(np.array([1.0, 2.0])).tolist())"],
        env=env, capture_output=True, text=True, timeout=120, cwd=str(tmp_path.parent))
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[3.0, 12.0]"
