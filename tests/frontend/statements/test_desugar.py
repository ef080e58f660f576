"""break, continue, early returns and loops over arrays: guard flags and
counted loops (transforms/frontend/statements/desugar.py)."""
import numpy as np

from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.statements import desugar


def flow(x):
    s = 0.0
    for i in range(5):
        if x[i] < 0.0:
            break
        s = s + x[i]
    return s


def test_break_is_a_flag():
    _, after = lowered(desugar, flow, np.ones(5))
    assert after == source('''
        def flow(x):
            s = 0.0
            stop_loop = False
            i_count = len(range(5))
            i_iter = 0
            while not stop_loop and i_iter < i_count:
                i = i_iter
                i_iter = i_iter + 1
                if x[i] < 0.0:
                    stop_loop = True
                if not stop_loop:
                    s = s + x[i]
            return s''')


def test_gradient(jit):
    check_grad(flow, [np.array([0.5, 1.0, -2.0, 3.0, 1.0])], jit=jit)
