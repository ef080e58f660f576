"""`for ... else` and `while ... else` (frontend/statements/loop_else.py):
the else block runs when the loop ends without a break. Each program's
value is compared with Python running it, and its gradient with finite
differences, compiled and as Python, on inputs that take the break and
inputs that do not."""
import numpy as np
import pytest

import s2sad
from gradcheck import check_grad


def first_large(x):
    """The first element above 1 (doubled), else the last one squared."""
    for i in range(x.shape[0]):
        if x[i] > 1.0:
            y = 2.0 * x[i]
            break
    else:
        y = x[-1] * x[-1]
    return y


def newton_sqrt(a):
    """sqrt(a) by Newton's method, stopping when converged; a fallback
    after too many steps (never taken here)."""
    r = a
    k = 0
    while k < 50:
        r_new = 0.5 * (r + a / r)
        if abs(r_new - r) < 1e-12:
            r = r_new
            break
        r = r_new
        k += 1
    else:
        r = -1.0
    return r


def nested(x):
    """An inner loop's else that continues the outer one, an outer break
    after it, and an outer else."""
    total = 0.0
    for i in range(x.shape[0]):
        for j in range(i):
            if x[j] * x[i] > 2.0:
                total += x[j]
                break
        else:
            total += x[i] * x[i]
            continue
        total += 3.0 * x[i]
        break
    else:
        total = total * 2.0
    return total


def no_break(x):
    s = 0.0
    for v in range(x.shape[0]):
        s += x[v] * x[v]
    else:
        s = s * 3.0
    return s


INPUTS = [np.array([0.5, -0.3, 0.8, 0.2]), np.array([0.5, 1.7, 2.5, 0.2]),
          np.array([2.1, 1.3, -0.4, 0.6])]


@pytest.mark.parametrize("f", [first_large, nested, no_break])
@pytest.mark.parametrize("k", range(len(INPUTS)))
def test_against_python_and_differences(jit, f, k):
    x = INPUTS[k]
    value, _ = s2sad.value_and_grad(f, jit=jit)(x)
    assert value == pytest.approx(f(x), rel=1e-12)
    check_grad(f, (x,), jit=jit)


def test_while_else(jit):
    value, g = s2sad.value_and_grad(newton_sqrt, jit=jit)(2.0)
    assert value == pytest.approx(np.sqrt(2.0), rel=1e-12)
    assert g == pytest.approx(0.5 / np.sqrt(2.0), rel=1e-8)


def test_the_flag_is_in_the_derivative():
    src = s2sad.grad(first_large, jit=False).source_for(INPUTS[0])
    assert "broke = True" in src and "if not broke:" in src, src


def test_the_pass_alone():
    from frontend.passes import lowered, source
    from s2sad.transforms.frontend.statements import loop_else
    _, after = lowered(loop_else, first_large)
    assert after == source('''
        def first_large(x):
            """The first element above 1 (doubled), else the last one squared."""
            broke = False
            for i in range(x.shape[0]):
                if x[i] > 1.0:
                    y = 2.0 * x[i]
                    broke = True
                    break
            if not broke:
                y = x[-1] * x[-1]
            return y'''), after
    _, after = lowered(loop_else, no_break)
    assert "broke" not in after and after.rstrip().endswith("s = s * 3.0\n    return s"), after
