"""The reverse sweep refuses a form it has no derivative for rather than
taking it as a constant (transforms/reverse/contributions.py). The front
end lowers every form that computes a number before the reverse sweep sees
it, so the test puts one there itself: a conditional expression left in
the normalised function by a pass added after normalize."""
import gast
import numpy as np
import pytest

import s2sad
from s2sad.transforms.frontend import pipeline


def _conditional_left_in(tree, ctx):
    """`prod = a * b` becomes `prod = a if True else b` (reads both, as the
    product does)."""
    for node in gast.walk(tree):
        if isinstance(node, gast.Assign) and isinstance(node.value, gast.BinOp) \
                and isinstance(node.value.op, gast.Mult):
            node.value = gast.IfExp(test=gast.Constant(value=True, kind=None),
                                    body=node.value.left, orelse=node.value.right)
            return tree
    return None


def squared_for_the_unknown_form_test(x):
    return np.sum(x * x)


def test_a_form_the_reverse_sweep_does_not_know_is_refused(monkeypatch):
    injected = pipeline.Pass(_conditional_left_in, "a conditional expression (test only)",
                             "conditional_left_in")
    position = [p.name for p in pipeline.SPECIALISE].index("infer_kinds")
    monkeypatch.setattr(pipeline, "SPECIALISE", pipeline.SPECIALISE[:position] + [injected]
                        + pipeline.SPECIALISE[position:])
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="IfExp"):
        s2sad.grad(squared_for_the_unknown_form_test, jit=False)(np.array([1.0, 2.0]))
