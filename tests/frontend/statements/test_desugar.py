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


def taylor_sin(x):
    """autograd's sinusoid example: printing in the loop, differentiated twice."""
    currterm = x
    ans = currterm
    for i in range(1000):
        print(i, end=" ")
        currterm = -currterm * x**2 / ((2 * i + 3) * (2 * i + 2))
        ans = ans + currterm
        if np.abs(currterm) < 0.2:
            break
    return ans


def test_a_print_block_differentiated_again(jit, capsys):
    """The gradient runs print(i, end=" ") in an object-mode block, which
    assigns nothing: its gradient runs it again, as the user's line."""
    import s2sad
    d1 = s2sad.grad(taylor_sin, jit=jit)
    check_grad(d1, [1.3], jit=jit)
    check_grad(d1, [-2.1], jit=jit)
    assert "0 1 " in capsys.readouterr().out
