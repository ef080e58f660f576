"""A dict comprehension over keys known where it is written: the dict
literal (transforms/frontend/containers/dict_comprehensions.py)."""
from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.containers import dict_comprehensions


def doubled(x, y):
    d = {"a": x, "b": y}
    e = {k: v * 2.0 for k, v in d.items()}
    return e["a"] * e["b"]


def test_a_literal():
    _, after = lowered(dict_comprehensions, doubled)
    assert after == source('''
        def doubled(x, y):
            d = {'a': x, 'b': y}
            e = {'a': d['a'] * 2.0, 'b': d['b'] * 2.0}
            return e['a'] * e['b']''')


def test_gradient(jit):
    check_grad(doubled, [0.5, 1.5], wrt=(0, 1), jit=jit)
