"""A nested function changing its outer function's containers is inlined
where it is called (transforms/frontend/functions/inline_nested.py)."""
import numpy as np

from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.functions import inline_nested


def appends(x):
    out = []

    def add(v):
        out.append(v * 2.0)
    for i in range(3):
        add(x[i])
    return out[0] + out[1] * out[2]


def test_inlined_where_called():
    _, after = lowered(inline_nested, appends)
    assert after == source('''
        def appends(x):
            out = []
            for i in range(3):
                add_v = x[i]
                out.append(add_v * 2.0)
            return out[0] + out[1] * out[2]''')


def test_gradient(jit):
    check_grad(appends, [np.array([0.5, -1.0, 2.0])], jit=jit)
