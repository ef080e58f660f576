"""A list or tuple literal bound once: a variable per element; sum() of one:
additions (transforms/frontend/containers/literals.py)."""
from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.containers import literals


def literal(a, b):
    v = [1.0, a, 3.0]
    return v[1] * v[-1] + sum([a, b]) + min(a, b, 2.0)


def test_variables_and_additions():
    _, after = lowered(literals, literal, 1.0, 2.0)
    assert after == source('''
        def literal(a, b):
            v_0, v_1, v_2 = (1.0, a, 3.0)
            return v_1 * v_2 + (0 + a + b) + min(min(a, b), 2.0)''')


def test_gradient(jit):
    check_grad(literal, [0.5, 1.5], wrt=(0, 1), jit=jit)
