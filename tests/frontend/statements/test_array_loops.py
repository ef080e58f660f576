"""`for t in np.linspace(...)`: a loop over the elements of the array a call
returns, marked for desugar.py (transforms/frontend/statements/array_loops.py)."""
import gast

from frontend.passes import lowered
from gradcheck import check_grad
from s2sad.transforms.frontend import pipeline
from s2sad.transforms.frontend.context import Context
from s2sad.transforms.frontend.statements import array_loops
import numpy as np


def array_loop(x):
    s = 0.0
    for t in np.linspace(0.0, 1.0, 3):
        s = s + t * x
    return s


def test_the_loop_is_marked():
    before, after = lowered(array_loops, array_loop, 1.0)
    assert before == after  # (a mark only)
    parsed = pipeline.parse(array_loop)
    array_loops.run(parsed.tree, Context(parsed, pipeline.parse))
    loop = next(n for n in gast.walk(parsed.tree) if isinstance(n, gast.For))
    assert loop.iter.s2sad_array


def test_gradient(jit):
    check_grad(array_loop, [0.7], jit=jit)
