"""Every read of a grown list is a statement of its own, so the reverse
sweep reads the value it gave, never the list as the function left it
(transforms/frontend/containers/list_reads.py)."""
import numpy as np

from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.containers import list_reads


def reads(x):
    hs = [x]
    for t in range(2):
        hs.append(np.sin(hs[t]) * hs[-1])
    s = 0.0
    for k in range(len(hs)):
        if np.sum(hs[k]) > 0.0:
            s = s + np.sum(hs[k] * hs[0])
    return s


def test_each_read_its_own_statement():
    before, after = lowered(list_reads, reads, np.ones(3))
    assert "sin = np.sin(hs[t])" in before
    assert after == source('''
        def reads(x):
            hs = []
            hs.append(x)
            for t in range(2):
                hs_t = hs[t]
                sin = np.sin(hs_t)
                hs_last = hs[-1]
                hs_item = sin * hs_last
                hs.append(hs_item)
            s = 0.0
            n_hs = len(hs)
            for k in range(n_hs):
                hs_k = hs[k]
                if np.sum(hs_k) > 0.0:
                    hs_k2 = hs[k]
                    hs_0 = hs[0]
                    prod = hs_k2 * hs_0
                    sum2 = np.sum(prod)
                    s = s + sum2
            return s''')


def test_gradient(jit):
    check_grad(reads, (np.array([0.3, -0.2, 0.5]),), jit=jit)
    check_grad(reads, (np.array([-0.3, -0.2, -0.5]),), jit=jit)
