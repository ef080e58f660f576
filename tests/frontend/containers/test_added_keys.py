"""A helper adding a key to a local dict: the key made with the dict
(transforms/frontend/containers/added_keys.py)."""
import numpy as np

from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.containers import added_keys


def fill(d, x):
    d["y"] = x * 2.0


def adds_key(x):
    d = {}
    fill(d, x)
    return np.sum(d["y"] * x)


def test_the_key_is_made_with_the_dict():
    _, after = lowered(added_keys, adds_key, np.ones(3))
    assert after == source('''
        def adds_key(x):
            d = {'y': 0.0}
            fill(d, x)
            return np.sum(d['y'] * x)''')


def test_gradient(jit):
    check_grad(adds_key, [np.array([0.5, -1.0, 2.0])], jit=jit)
