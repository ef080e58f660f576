"""A local dict with constant string keys: a variable per key
(transforms/frontend/containers/dicts.py, dict_keys.py)."""
from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.containers import dicts


def dict_local(x, y):
    p = {"w": x, "b": y}
    p["w"] = p["w"] - 0.1
    return p["w"] * p["b"]


def test_a_variable_per_key():
    _, after = lowered(dicts, dict_local, 1.0, 2.0)
    assert after == source('''
        def dict_local(x, y):
            p_w, p_b = (x, y)
            p_w = p_w - 0.1
            return p_w * p_b''')


def test_gradient(jit):
    check_grad(dict_local, [0.5, 1.5], wrt=(0, 1), jit=jit)
