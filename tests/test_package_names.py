"""A user's module whose name begins like a library's (numpy_utils,
mathtools, s2sad_models) is the user's code: its helpers are read and
differentiated, as any other module's (transforms/libraries.py of_package)."""
import importlib
import inspect
import sys

import numpy as np
import pytest

import s2sad
from frontend.functions.test_small_helpers import logsumexp
from gradcheck import numerical_grad
from s2sad.transforms.libraries import of_package

# the helper of test_small_helpers.py, in a module of its own
HELPER = "import math\n\n\n" + inspect.getsource(logsumexp) + '''

def total(a, x):
    out = 0.0
    for i in range(x.shape[0]):
        out += logsumexp(a * x[i])
    return out
'''


@pytest.mark.parametrize("module_name", ["numpy_utils_t", "mathtools_t", "s2sad_models_t"])
def test_a_module_named_like_a_library_is_read(module_name, tmp_path, monkeypatch, jit):
    (tmp_path / f"{module_name}.py").write_text(HELPER)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module(module_name)
    try:
        assert not of_package(module.logsumexp, "numpy", "math", "s2sad")
        a, x = np.array([0.3, -0.2, 0.5]), np.array([0.2, 1.4, -0.7])
        df = s2sad.grad(module.total, wrt=0, jit=jit)
        np.testing.assert_allclose(df(a, x), numerical_grad(module.total, [a, x], 0),
                                   rtol=1e-6)
        assert "vjp_logsumexp" not in df.source  # (inlined: a small loop helper in a loop)
    finally:
        sys.modules.pop(module_name, None)


def test_of_package():
    import math
    assert of_package(np.linalg.norm, "numpy") and of_package(np.sum, "numpy")
    assert of_package(math.exp, "math") and of_package(s2sad.stop_gradient, "s2sad")
    assert of_package(len, "builtins") and not of_package(len, "numpy")
    assert not of_package(test_of_package, "numpy", "math", "s2sad")

    for name in ("s2sad_0123456789abcdef0123", "s2sad_primitive_0123456789abcdef0123",
                 "s2sad_custom_0123456789abcdef0123"):
        generated = type("Generated", (), {"__module__": name})
        assert of_package(generated, "s2sad") and not of_package(generated, "numpy")
