"""Export a derivative as a standalone module that needs only numpy and
numba, then import and run it.

Run:  python examples/export_derivative.py [output.py]
"""
import importlib.util
import os
import sys
import tempfile

import numpy as np

import s2sad


def loss(x, w):
    s = 0.0
    for i in range(x.shape[0]):
        s += w[i] * np.tanh(x[i]) ** 2
    return s


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(tempfile.mkdtemp(), "loss_grad.py")
    df = s2sad.grad(loss, wrt=(0, 1))
    x, w = np.linspace(-1.0, 1.0, 4), np.arange(1.0, 5.0)
    expected = df(x, w)
    entry = s2sad.export(df, path)
    print(f"wrote {path}; its function {entry}(x, w) returns (value, (dx, dw))")

    spec = importlib.util.spec_from_file_location("loss_grad", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["loss_grad"] = module  # numba's cache finds the module by name
    spec.loader.exec_module(module)
    value, (dx, dw) = getattr(module, entry)(x, w)
    print("value:", value)
    print("dx:", dx)
    print("dw:", dw)
    assert np.allclose(dx, expected[0]) and np.allclose(dw, expected[1])


if __name__ == "__main__":
    main()
