"""`a, (b, c) = h(x)`: a copy of h returning its tuple flat
(transforms/frontend/statements/nested_unpacking.py)."""
from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.statements import nested_unpacking


def pair(x):
    return x, (x * 2.0, x * 3.0)


def nested_unpack(x):
    a, (b, c) = pair(x)
    return a + b * c


def test_flat():
    _, after = lowered(nested_unpacking, nested_unpack)
    assert after == source('''
        def nested_unpack(x):
            a, b, c = pair_flat(x)
            return a + b * c''')


def test_gradient(jit):
    check_grad(nested_unpack, [0.7], jit=jit)
