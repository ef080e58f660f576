"""A NamedTuple or dataclass made inside the function: a variable per field
(transforms/frontend/containers/records.py)."""
from collections import namedtuple

from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.containers import records

P = namedtuple("P", "a b")


def record(x, y):
    p = P(a=x, b=y)
    return p.a * p.b + p[0]


def test_a_variable_per_field():
    _, after = lowered(records, record)
    assert after == source('''
        def record(x, y):
            p_a = x
            p_b = y
            return p_a * p_b + p_a''')


def test_gradient(jit):
    check_grad(record, [0.5, 1.5], wrt=(0, 1), jit=jit)
