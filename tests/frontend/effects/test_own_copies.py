"""A helper's writing copy differentiated without its `w = w.copy()` lines
(transforms/frontend/effects/own_copies.py, writing_copies.py)."""
import numpy as np

from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.emit.unparse import stmt_source
from s2sad.transforms.frontend import pipeline
from s2sad.transforms.frontend.context import Context
from s2sad.transforms.frontend.effects import own_copies, writing_copies


def step(u, out, k):
    out[1] = u[0] * k


def writes(u, k):
    un = np.zeros(3)
    step(u, un, k)
    return np.sum(un * u)


def test_the_copy_lines_leave_its_derivative():
    lowered(own_copies, writes, np.ones(3), 2.0)  # (makes the writing copy of step)
    copy = writing_copies.writing_copy(step, (1,), None, None, pipeline.parse)
    parsed = pipeline.parse(copy)  # (read as its tree, at the lines of step's source)
    assert "out = out.copy()" in stmt_source(parsed.tree)
    assert parsed.location.describe(parsed.tree.body[-2]) == \
        f"{__file__}:{step.__code__.co_firstlineno + 1}, in step (writing into copies of out)"
    tree = own_copies.run(parsed.tree, Context(parsed, pipeline.parse))
    assert stmt_source(tree) == source('''
        def step_writing(u, out, k):
            out[1] = u[0] * k
            return out''')


def test_gradient(jit):
    check_grad(writes, [np.array([0.5, 1.0, -2.0]), 1.5], wrt=(0, 1), jit=jit)
