"""s2sad.export writes a module that runs without s2sad installed."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np

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
    text = (tmp_path / "exported.py").read_text()
    assert "s2sad.runtime" not in text.split("# ---- runtime helpers")[0].split('"""')[-1]
    assert "from kernels import scale_kernel" in text
