"""A nested def or lambda becomes a helper taking what it captures
(transforms/frontend/functions/closures.py, lifted.py)."""
import numpy as np

from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.functions import closures
from s2sad.transforms.frontend.functions.lifted import LIFTED


def closure(x, w):
    def sq(u):
        return (u * w) ** 2
    cube = lambda u: u ** 3  # noqa: E731
    s = 0.0
    for i in range(3):
        s = s + sq(x[i]) + cube(x[i])
    return s


def test_lifted_with_its_captures():
    before, after = lowered(closures, closure)
    assert "def sq(u):" in before
    # (a lifted function takes a fresh name of the module: `sq`, or
    # `closure_sq` where an earlier run of the pass in this process bound `sq`)
    sq, cube = ("closure_sq", "closure_cube") if "closure_sq(" in after else ("sq", "cube")
    assert after == source(f'''
        def closure(x, w):
            s = 0.0
            for i in range(3):
                s = s + {sq}(x[i], w) + {cube}(x[i])
            return s''')
    lifted = {f.__name__: l.tree for f, l in LIFTED.items()}
    assert [a.id for a in lifted[sq].args.args] == ["u", "w"]


def test_gradient(jit):
    check_grad(closure, [np.array([0.5, -1.0, 2.0]), 1.5], wrt=(0, 1), jit=jit)
