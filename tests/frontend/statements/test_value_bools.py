"""`x or y` and `x and y` of values are the value Python gives
(transforms/frontend/statements/value_bools.py)."""
from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.statements import value_bools


def bools(x, y):
    z = x or y
    if x and y:
        return z * 2.0
    return z


def test_a_value_or():
    _, after = lowered(value_bools, bools, 1.0, 2.0)
    assert after == source('''
        def bools(x, y):
            z = x if x else y
            if x and y:
                return z * 2.0
            return z''')


def test_gradient(jit):
    check_grad(bools, [0.5, 1.5], wrt=(0, 1), jit=jit)
    check_grad(bools, [0.0, 1.5], wrt=(1,), jit=jit)
