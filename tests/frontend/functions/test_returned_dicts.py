"""A helper returning a dict literal is inlined where it is called
(transforms/frontend/functions/returned_dicts.py); the dict is then the
caller's, one variable per key (containers/dicts.py)."""
import numpy as np

from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.functions import returned_dicts


def terms(u):
    kin = 0.5 * np.sum(np.diff(u) ** 2)
    return {"kin": kin, "pot": np.sum(np.cos(u))}


def energy(u):
    r = terms(u)
    return r["kin"] - r["pot"]


def read_at_the_call(u):
    return terms(u)["kin"] * 2.0 - terms(u * 0.5)["pot"]


def named(u):
    out = {"a": u[0] * u[1]}
    out["b"] = np.sum(u ** 2)
    return out


def returns_its_dict(u):
    r = named(u)
    return r["a"] + r["b"]


def in_a_loop(u):
    s = 0.0
    for k in range(3):
        r = terms(u * (k + 1.0))
        s = s + r["kin"] * r["pot"]
    return s


def test_inlined_where_called():
    _, after = lowered(returned_dicts, energy)
    assert after == source('''
        def energy(u):
            terms_u = u
            terms_kin = 0.5 * np.sum(np.diff(terms_u) ** 2)
            r = {'kin': terms_kin, 'pot': np.sum(np.cos(terms_u))}
            return r['kin'] - r['pot']''')


def test_gradients(jit):
    u = np.array([0.3, -0.5, 1.2, 0.7])
    for fn in (energy, read_at_the_call, returns_its_dict, in_a_loop):
        check_grad(fn, [u], jit=jit)
