"""A function's file edited after the function was defined (a module edited
in a running notebook kernel): s2sad reads source from the file, so it
would differentiate the new text while the old code runs. It refuses,
naming the file and line, and the reloaded function works."""
import importlib
import os
import sys
import time

import numpy as np
import pytest

import s2sad
from s2sad.transforms.errors import SourceUnavailableError


def _write(path, text):
    path.write_text(text)
    later = time.time() + 5  # (a new mtime even within the file system's resolution)
    os.utime(path, (later, later))


@pytest.fixture
def module(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    path = tmp_path / "edited_model.py"
    _write(path, "import numpy as np\n\n\ndef f(x):\n    return np.sum(x * x)\n")
    sys.modules.pop("edited_model", None)
    mod = importlib.import_module("edited_model")
    yield path, mod
    sys.modules.pop("edited_model", None)


X = np.array([1.0, 2.0])


@pytest.mark.parametrize("edit", [
    "import numpy as np\n\n\ndef f(x):\n    return np.sum(x * x * x)\n",  # same lines, new body
    "import numpy as np\n\n\n\ndef f(x):\n    return np.sum(x * x)\n",  # the def moved down
    "import numpy as np\n\n\ndef f(x):\n    return np.sum(x * x\n",  # no longer compiles
], ids=["body", "moved", "broken"])
def test_an_edited_file_is_refused(module, edit, jit):
    path, mod = module
    np.testing.assert_allclose(s2sad.grad(mod.f, jit=jit)(X), 2 * X)
    _write(path, edit)
    with pytest.raises(SourceUnavailableError, match=r"edited_model\.py:\d+: the source of f"):
        s2sad.grad(mod.f, jit=jit)(X)


def test_the_reloaded_function_is_differentiated(module, jit):
    path, mod = module
    _write(path, "import numpy as np\n\n\ndef f(x):\n    return np.sum(x * x * x)\n")
    mod = importlib.reload(mod)
    np.testing.assert_allclose(s2sad.grad(mod.f, jit=jit)(X), 3 * X * X)


def test_an_unrelated_edit_elsewhere_in_the_file_is_fine(module, jit):
    path, mod = module
    _write(path, "import numpy as np\n\n\ndef f(x):\n    return np.sum(x * x)\n\n\n"
                 "def g(x):\n    return x\n")
    np.testing.assert_allclose(s2sad.grad(mod.f, jit=jit)(X), 2 * X)


# ---- code Python compiled differently from plain source: no false refusals ----------

def with_assert(x):
    assert x.shape[0] == 2, "two values"  # (pytest rewrites asserts in test modules)
    return np.sum(np.sin(x))


def make_scaled(c):
    def scaled(x):
        return np.sum(c * x * x)
    return scaled


def test_functions_pytest_rewrote_and_closures_are_not_refused(jit):
    np.testing.assert_allclose(s2sad.grad(with_assert, jit=jit)(X), np.cos(X))
    np.testing.assert_allclose(s2sad.grad(make_scaled(3.0), jit=jit)(X), 6 * X)


class _InstrumentingLoader(__import__("importlib").machinery.SourceFileLoader):
    """An import hook that rewrites the code it compiles (as typeguard's or
    jaxtyping's do): an assignment more at the top of every function."""

    def source_to_code(self, data, path, *, _optimize=-1):
        import ast
        tree = ast.parse(data)
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                node.body.insert(0, ast.Assign(targets=[ast.Name("_hooked", ast.Store())],
                                               value=ast.Constant(1)))
        return compile(ast.fix_missing_locations(tree), path, "exec", dont_inherit=True)


def test_code_an_import_hook_rewrote_is_not_refused(tmp_path, jit):
    # its bytecode cannot match the file's text compiled as Python compiles it
    import importlib.util
    path = tmp_path / "hooked_model.py"
    path.write_text("import numpy as np\n\n\ndef f(x):\n    return np.sum(x * x)\n")
    loader = _InstrumentingLoader("hooked_model", str(path))
    spec = importlib.util.spec_from_file_location("hooked_model", str(path), loader=loader)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["hooked_model"] = mod
    try:
        loader.exec_module(mod)
        np.testing.assert_allclose(s2sad.grad(mod.f, jit=jit)(X), 2 * X)
    finally:
        sys.modules.pop("hooked_model", None)
