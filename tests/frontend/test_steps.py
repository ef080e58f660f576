"""The steps of the front end's lists that call the compiler's other stages
(transforms/frontend/steps.py)."""
import numpy as np
import pytest

import s2sad
from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.errors import UnsupportedSyntaxError
from s2sad.transforms.frontend import steps


def looped(x):
    for t in s2sad.checkpointed(range(4)):
        x = np.sin(x)
    return np.sum(x)


def plain(x):
    y = x * 2.0
    return np.sum(y * x)


def aliased(x):
    y = x * 1.0
    z = y.reshape(-1)  # (z = y would be renamed y: frontend/effects/view_writes.py)
    z[0] = 5.0
    return np.sum(y * x)


def test_a_marked_loop_is_a_step_function():
    _, after = lowered(steps.lift_loops, looped, np.ones(3), loops="marked")
    assert after.splitlines()[1].strip().startswith("x = s2sad_looped_loop_")


def test_the_passes_after_the_copy_change_a_copy():
    before, after = lowered(steps.copy_tree, plain, np.ones(3))
    assert before == after


def test_kinds_and_temporaries():
    from frontend.passes import _run_until, program
    from s2sad.transforms.analysis import kinds as K
    from s2sad.transforms.frontend import pipeline
    from s2sad.transforms.frontend.context import Context
    p = program(plain)
    ctx = Context(pipeline.parse(plain), pipeline.parse, p, arg_kinds=[K.of_value(np.ones(3))],
                  reserved=p.module_names)
    _run_until(pipeline.SPECIALISE, steps.infer_kinds, ctx)
    steps.infer_kinds(ctx.tree, ctx)
    assert ctx.kinds["y"].is_array and ctx.temporaries == {"prod", "sum2"}


def test_a_write_through_a_second_name_is_refused():
    with pytest.raises(UnsupportedSyntaxError, match="another name of the same memory|z"):
        lowered(steps.aliased_writes, aliased, np.ones(3))


def test_a_helper_copy_without_checkpoint_marks():
    _, after = lowered(steps.strip_checkpoint_marks, looped, copy=True)
    assert "    for t in range(4):" in after.splitlines()


def test_gradient(jit):
    check_grad(looped, [np.array([0.5, 1.0, -2.0])], jit=jit)
    check_grad(plain, [np.array([0.5, 1.0, -2.0])], jit=jit)
