"""Importing s2sad is quick: numba, scipy and the gradient rules are
imported when a derivative is first built, not by `import s2sad`."""
import os
import subprocess
import sys
import textwrap

import numpy as np

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
    print('scipy.stats' in sys.modules)
""")


def _run(jit, tmp_path):
    script = tmp_path / "program.py"  # (s2sad reads the function's source from a file)
    script.write_text(_PROGRAM.format(jit=jit))
    env = dict(os.environ, S2SAD_CACHE_DIR=str(tmp_path / "cache"),
               NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         env=env, timeout=600)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_import_loads_neither_numba_nor_scipy_nor_the_rules(jit, tmp_path):
    lines = _run(jit, tmp_path)
    assert lines[:3] == ["False", "False", "False"]
    assert lines[3:5] == ["False", "False"], "catching an s2sad error imported numba or scipy"
    assert lines[5] == "True", "the gradient after a light import is wrong"
    # (its definitions are registered at the first lookup of a scipy.stats object)
    assert lines[6] == "False", "a derivative of code without scipy.stats imported scipy.stats"


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
