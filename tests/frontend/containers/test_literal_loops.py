"""A loop over a tuple or list literal: the body once per element
(transforms/frontend/containers/literal_loops.py)."""
from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.containers import literal_loops


def literal_loop(a, b):
    s = 0.0
    for w in (a, b):
        s = s + w * w
    return s


def test_unrolled():
    _, after = lowered(literal_loops, literal_loop, 1.0, 2.0)
    assert after == source('''
        def literal_loop(a, b):
            s = 0.0
            w = a
            s = s + w * w
            w = b
            s = s + w * w
            return s''')


def test_gradient(jit):
    check_grad(literal_loop, [0.5, 1.5], wrt=(0, 1), jit=jit)
