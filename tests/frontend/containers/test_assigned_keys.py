"""`d = {}; d["y"] = ...`: the key made with the dict
(transforms/frontend/containers/assigned_keys.py)."""
from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.containers import assigned_keys


def keyed(x):
    d = {}
    d["y"] = x * 2.0
    return d["y"] + 1.0


def test_the_key_is_made_with_the_dict():
    _, after = lowered(assigned_keys, keyed)
    assert after == source('''
        def keyed(x):
            d = {'y': 0.0}
            d['y'] = x * 2.0
            return d['y'] + 1.0''')


def test_gradient(jit):
    check_grad(keyed, [0.7], jit=jit)
