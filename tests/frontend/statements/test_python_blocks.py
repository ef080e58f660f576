"""try ... except around code that computes nothing needing a gradient: a
function kept as Python, called in numba's object mode when compiled
(transforms/frontend/statements/python_blocks.py)."""
import numpy as np
import pytest

import s2sad
from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.statements import python_blocks


def halved_length(x):
    n = 1
    try:
        n = int(x.shape[0] // 2)
    except (ValueError, TypeError):
        pass
    return np.sum(x[:n] ** 2)


def test_a_function_kept_as_python():
    _, after = lowered(python_blocks, halved_length)
    assert after == source('''
        def halved_length(x):
            n = 1
            n = try_block(n, x)
            return np.sum(x[:n] ** 2)''')


def test_gradient_of_halved_length(jit):
    df = check_grad(halved_length, [np.array([0.5, -1.5, 2.0, 0.3])], jit=jit)
    assert "def try_block(n, x):" in df.source  # (in the module, as Python)


def parsed_or_default(x, text):
    total = 0.0
    for i in range(x.shape[0]):
        try:
            scale = float(text)
        except ValueError:  # (numba's own except takes Exception only)
            scale = 2.0
        total = total + scale * x[i] ** 2
    return total


@pytest.mark.parametrize("text", ["3.5", "three"])
def test_gradient(text, jit):
    df = check_grad(parsed_or_default, [np.array([0.5, -1.5, 2.0]), text], jit=jit)
    if jit:
        assert "with numba.objmode(scale='float64'):" in df.source


def inverse_or_zero(x):
    try:
        y = 1.0 / x
    except ZeroDivisionError:
        y = 0.0
    return y * 2.0


def writes_into(x):
    y = np.zeros(3)
    try:
        y[0] = x[0]
    except IndexError:
        pass
    return np.sum(y)


def returns_inside(x):
    try:
        return float(x[0])
    except IndexError:
        return 0.0


@pytest.mark.parametrize("f, args, match", [
    (inverse_or_zero, (2.0,), r"a value that needs a gradient computed inside try \.\.\. except"),
    (writes_into, (np.ones(3),), r"try \.\.\. except that assigns through an index"),
    (returns_inside, (np.ones(3),), r"try \.\.\. except that returns out of the function"),
], ids=lambda v: getattr(v, "__name__", ""))
def test_refused_with_the_line(f, args, match, jit):
    with pytest.raises(s2sad.UnsupportedSyntaxError,
                       match=r"test_python_blocks\.py:\d+, in " + f.__name__ + ": " + match):
        s2sad.grad(f, jit=jit)(*args)
