"""s2sad.export writes a module that runs without s2sad installed."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import scipy.special

import s2sad

KERNELS = textwrap.dedent('''
    import numba
    import numpy as np

    @numba.njit
    def scale_kernel(x):
        return 3.0 * x
''')

MODEL = textwrap.dedent('''
    import numpy as np
    from kernels import scale_kernel

    def helper(a):
        return np.sin(a) * a

    def model(x, w):
        s = 0.0
        for i in range(x.shape[0]):
            s += helper(x[i]) * w[i] + scale_kernel(x[i] * w[i])
        return s
''')

RUN = textwrap.dedent('''
    import json, sys
    sys.modules["s2sad"] = None  # s2sad is not importable here
    import numpy as np
    import exported
    value, (dx, dw) = exported.{entry}(np.array([0.1, 0.2, 0.3]), np.array([1.0, 2.0, 3.0]))
    print(json.dumps({{"value": value, "dx": dx.tolist(), "dw": dw.tolist()}}))
''')


def scale_kernel_grad(dy, y, x):
    return 3.0 * dy


def test_exported_module_runs_without_s2sad(tmp_path):
    (tmp_path / "kernels.py").write_text(KERNELS)
    (tmp_path / "model.py").write_text(MODEL)
    sys.path.insert(0, str(tmp_path))
    try:
        import kernels
        import model
        s2sad.register_gradient(kernels.scale_kernel, scale_kernel_grad)
        df = s2sad.value_and_grad(model.model, wrt=(0, 1))
        x, w = np.array([0.1, 0.2, 0.3]), np.array([1.0, 2.0, 3.0])
        value, (dx, dw) = df(x, w)
        entry = s2sad.export(df, str(tmp_path / "exported.py"))
    finally:
        sys.path.remove(str(tmp_path))
    for jit in ("1", "0"):
        env = dict(os.environ, S2SAD_EXPORT_JIT=jit)
        out = subprocess.run([sys.executable, "-c", RUN.format(entry=entry)], cwd=tmp_path,
                             env=env, capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr
        got = json.loads(out.stdout.strip().splitlines()[-1])
        assert got["value"] == value
        np.testing.assert_allclose(got["dx"], dx)
        np.testing.assert_allclose(got["dw"], dw)
    from exporting import imports_no_s2sad
    assert imports_no_s2sad(str(tmp_path / "exported.py"))
    assert "from kernels import scale_kernel" in (tmp_path / "exported.py").read_text()


# ---- only what the derivative calls; loadable anywhere -------------------------------

def readme_loop(x, w):
    y = 0.0
    for i in range(x.shape[0]):
        y += w[i] * np.tanh(x[i])
    return y


def dot_of_a_stack(a, b):
    # np.dot of a 3-d operand (numba's through s2sad's overload of np.dot),
    # b broadcast against a's rows (unbroadcast)
    return np.sum(np.sin(np.dot(a, b)) * b[0])


def reductions_and_stacks(a, b):
    # np.mean over an axis (runtime.reductions' helpers) and @ of stacks (runtime.stack_overloads'
    # overload): each module has its own private `_result_dtype`
    return np.sum(np.mean(a @ b, axis=0) ** 2)


def special_functions(x):
    return np.sum(scipy.special.gammaln(x)) + scipy.special.logsumexp(x) \
        + np.sum(scipy.special.softmax(x) * x)


def _is_array(v):
    # a helper named as one of the runtime's private helpers (its copy is a
    # global of the exported module, as the runtime's is)
    s = 0.0
    for i in range(v.shape[0]):
        s += v[i] * v[i]
    return s


def shares_a_private_name(x):
    return _is_array(np.sin(x)) + np.sum(np.cos(x))


def contracted(a, b):
    # np.einsum and its cotangents compile through runtime/einsums.py's loop nests
    return np.sum(np.tanh(np.einsum("ij,jk->ik", a, b))) + np.einsum("ii", a)


RNG = np.random.default_rng(3)
EXPORTED = {
    "loop": (readme_loop, (RNG.uniform(-1, 1, 5), RNG.uniform(0.5, 2, 5))),
    "stack dot": (dot_of_a_stack, (RNG.uniform(-1, 1, (2, 3, 4)), RNG.uniform(-1, 1, (4, 4)))),
    "reductions and stacks": (reductions_and_stacks, (RNG.uniform(-1, 1, (2, 3, 3)),
                                                      RNG.uniform(-1, 1, (3, 3)))),
    "scipy.special": (special_functions, (RNG.uniform(0.5, 2, 4),)),
    "a private name": (shares_a_private_name, (RNG.uniform(-1, 1, 4),)),
    "einsum": (contracted, (RNG.uniform(-1, 1, (3, 3)), RNG.uniform(-1, 1, (3, 2)))),
}


@pytest.mark.parametrize("case", list(EXPORTED))
def test_export_writes_what_the_derivative_calls_and_runs_anywhere(case, jit, tmp_path):
    from exporting import imports_no_s2sad, load, run_without_s2sad
    from gradcheck import numerical_grad
    fn, args = EXPORTED[case]
    d = s2sad.value_and_grad(fn, jit=jit)
    value, grad = d(*args)
    np.testing.assert_allclose(grad, numerical_grad(fn, args, 0), rtol=1e-6, atol=1e-8)
    name = f"exported_{fn.__name__}_{jit}"
    path = str(tmp_path / f"{name}.py")
    entry = s2sad.export(d, path)
    assert imports_no_s2sad(path)
    # as Python and compiled, by a Python that cannot import s2sad
    for compiled in (False, True):
        got_value, got_grad = run_without_s2sad(path, entry, args, jit=compiled)
        assert got_value == pytest.approx(value, rel=1e-12)
        np.testing.assert_allclose(got_grad, grad, rtol=1e-10, atol=1e-12)
    # and in this process, which compiled the derivative (numba's overloads of
    # numpy's functions are s2sad's here already)
    module = load(path, name)
    assert module.__all__ == [entry]
    got_value, got_grad = getattr(module, entry)(*args)
    assert got_value == pytest.approx(value, rel=1e-12)
    np.testing.assert_allclose(got_grad, grad, rtol=1e-10, atol=1e-12)


def test_export_of_a_small_function_is_small(tmp_path):
    # it copied the whole runtime: about 4,400 lines for these 5
    d = s2sad.grad(readme_loop)
    d(*EXPORTED["loop"][1])
    path = tmp_path / "small.py"
    s2sad.export(d, str(path))
    assert len(path.read_text().splitlines()) < 120
