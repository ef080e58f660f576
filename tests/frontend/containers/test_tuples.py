"""A variable holding a tuple that carries a gradient: a variable per
element (transforms/frontend/containers/tuples.py)."""
from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.containers import tuples


def pair(x):
    return x, x * 2.0


def tuple_var(x):
    r = pair(x)
    return r[0] * r[1]


def test_split():
    before, after = lowered(tuples, tuple_var, 1.0)
    assert "r = pair(x)" in before
    assert after == source('''
        def tuple_var(x):
            r_0, r_1 = pair(x)
            result = r_0 * r_1
            return result''')


def test_gradient(jit):
    check_grad(tuple_var, [0.7], jit=jit)
