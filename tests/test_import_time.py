"""Importing s2sad is quick: numba, scipy and the gradient rules are
imported when a derivative is first built, not by `import s2sad`."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import s2sad

_PROGRAM = textwrap.dedent("""
    import sys
    import s2sad
    print('numba' in sys.modules, 'scipy' in sys.modules, 's2sad.rules' in sys.modules)
    try:
        raise s2sad.NoGradientError("no gradient")
    except s2sad.S2sadError:
        pass
    print('numba' in sys.modules, 'scipy' in sys.modules)
    import numpy as np

    def f(x):
        return np.sum(np.sin(x) * x)

    x = np.array([0.5, 1.0, 2.0])
    print(np.allclose(s2sad.grad(f, jit={jit})(x), np.cos(x) * x + np.sin(x)))
    print('scipy.stats' in sys.modules, 'scipy.linalg' in sys.modules,
          'scipy.special' in sys.modules)
""")


def _run(jit, tmp_path, program=_PROGRAM, **environment):
    script = tmp_path / "program.py"  # (s2sad reads the function's source from a file)
    script.write_text(program.format(jit=jit))
    env = dict(os.environ, S2SAD_CACHE_DIR=str(tmp_path / "cache"),
               NUMBA_CACHE_DIR=str(tmp_path / "numba"), **environment)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         env=env, timeout=600)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_import_loads_neither_numba_nor_scipy_nor_the_rules(jit, tmp_path):
    lines = _run(jit, tmp_path)
    assert lines[:3] == ["False", "False", "False"]
    assert lines[3:5] == ["False", "False"], "catching an s2sad error imported numba or scipy"
    assert lines[5] == "True", "the gradient after a light import is wrong"
    # (scipy's rules and definitions load once the user's code imported it: s2sad/libraries.py)
    assert lines[6:9] == ["False"] * 3, "a derivative of code without scipy imported scipy"


_SCIPY_LATER = textwrap.dedent("""
    import math
    import sys
    import numpy as np
    import s2sad

    def f(x):
        return np.sum(np.sin(x) * x)

    def uses_scipy(x):
        return np.sum(scipy.special.erf(x) * scipy.linalg.expm(np.outer(x, x)))

    def lgamma_twice(x):
        return math.lgamma(x) * x

    x = np.array([0.5, 1.0, 2.0])
    s2sad.grad(f, jit={jit})(x)
    # math.lgamma's second derivative calls a helper whose rule is scipy.special.digamma's
    print(s2sad.grad(s2sad.grad(lgamma_twice, jit={jit}), jit={jit})(2.5))
    import scipy.linalg, scipy.special  # after a first derivative: their rules load now
    print(s2sad.grad(uses_scipy, jit={jit})(x).tolist())
""")


def test_scipy_rules_load_when_the_program_imports_scipy_after_a_first_derivative(jit, tmp_path):
    import scipy.linalg
    import scipy.special
    from scipy.special import polygamma
    out = _run(jit, tmp_path, _SCIPY_LATER)
    second, gradient = out[0], "".join(out[1:])
    # d2/dx2 (x lgamma(x)) = 2 digamma(x) + x polygamma(1, x)
    assert float(second) == pytest.approx(2 * polygamma(0, 2.5) + 2.5 * polygamma(1, 2.5),
                                          rel=1e-10)
    x = np.array([0.5, 1.0, 2.0])

    def uses_scipy(x):
        return np.sum(scipy.special.erf(x) * scipy.linalg.expm(np.outer(x, x)))
    h = 1e-6
    numeric = [(uses_scipy(x + h * e) - uses_scipy(x - h * e)) / (2 * h) for e in np.eye(3)]
    np.testing.assert_allclose(json.loads(gradient), numeric, rtol=1e-6)


def test_public_names_resolve_as_before():
    for name in s2sad.__all__:
        assert name in dir(s2sad)
        assert getattr(s2sad, name) is not None
    assert s2sad.export.__module__ == "s2sad.export"  # the function, not its module
    assert s2sad.runtime.__name__ == "s2sad.runtime"
    assert not hasattr(s2sad, "no_such_name")
    assert issubclass(s2sad.GuessedKindsError, s2sad.S2sadError)


def test_a_registered_gradient_survives_the_rules_loading_later(tmp_path):
    # a registration made before any derivative is built is not overwritten
    # by the built-in rules loading afterwards
    script = tmp_path / "program.py"
    script.write_text(textwrap.dedent("""
        import numpy as np
        import s2sad

        @s2sad.register_gradient(np.tanh)
        def tanh_grad(g, ans, x):
            return g * 2.0

        def f(x):
            return np.tanh(x)

        print(s2sad.grad(f, jit=False)(0.3))
    """))
    env = dict(os.environ, S2SAD_CACHE_DIR=str(tmp_path / "cache"),
               NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         env=env, timeout=600)
    assert out.returncode == 0, out.stderr
    assert np.isclose(float(out.stdout.split()[-1]), 2.0)


_PYTHON_FIRST = textwrap.dedent("""
    import sys
    import threading
    importers = []  # (module, thread) of each import of numba or scipy

    class Spy:  # (an import, not a look-up: importlib.util.find_spec asks too)
        def find_spec(self, name, path=None, target=None):
            frame = sys._getframe(1)
            while frame is not None and not (frame.f_code.co_name == "_find_and_load"
                                             and frame.f_locals.get("name") == name):
                frame = frame.f_back
            if name in ("numba", "scipy") and frame is not None:
                importers.append((name, threading.current_thread().name))
            return None

    sys.meta_path.insert(0, Spy())
    import numpy as np
    import s2sad

    def f(x):
        s = 0.0
        for i in range(x.shape[0] - 1):
            s += np.sin(x[i]) * x[i + 1]
        return s

    df = s2sad.grad(f, jit={jit})
    g = df(np.linspace(0.0, 1.0, 5))
    print('numba' in sys.modules, ('numba', 'MainThread') in importers,
          ('scipy', 'MainThread') in importers)
    df.wait_compiled()
    print(type(df._last._call).__name__, float(np.sum(np.abs(g - df(np.linspace(0.0, 1.0, 5))))))
""")


def test_a_derivative_run_as_python_imports_neither_numba_nor_scipy(tmp_path):
    # jit=False imports neither; the first calls of jit="auto" (the default)
    # run as Python while numba compiles (in a child process) or loads (in a
    # thread): a thread may import numba meanwhile, the caller never does
    assert _run(False, tmp_path, _PYTHON_FIRST)[:3] == ["False", "False", "False"]
    for run in ("cold", "warm"):  # (the same cache directories: the second run loads)
        _, caller, scipy, kind, difference = _run('"auto"', tmp_path, _PYTHON_FIRST,
                                                  S2SAD_BACKGROUND_COMPILE="1", S2SAD_CHECK="0")
        assert (caller, scipy) == ("False", "False"), run
        assert kind == "CPUDispatcher" and float(difference) == 0.0, run


def test_a_function_the_user_compiles_calls_the_markers(tmp_path):
    # s2sad's numba implementations are registered when numba first compiles
    # (its numba_extensions entry point), not only once s2sad compiles
    program = textwrap.dedent("""
        import numba
        import numpy as np
        import s2sad

        @numba.njit
        def f(x):
            return s2sad.stop_gradient(x) * 2.0 + np.sum(np.ones(2))

        print(f(3.0), 's2sad.backend' in __import__('sys').modules)
    """)
    assert _run(None, tmp_path, program) == ["8.0", "False"]
