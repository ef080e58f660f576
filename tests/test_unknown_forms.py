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


def _expression_left_as_an_argument(tree, ctx):
    """`s = np.sin(t)` with `t = x * x` becomes `s = np.sin(x * x)`: an
    argument that is not an atom, as a pass breaking the normal form would
    leave it."""
    product = None
    for node in gast.walk(tree):
        if isinstance(node, gast.Assign) and isinstance(node.value, gast.BinOp) \
                and isinstance(node.value.op, gast.Mult) and product is None:
            product = (node.targets[0].id, node.value)
        elif product and isinstance(node, gast.Call) and node.args \
                and isinstance(node.args[0], gast.Name) and node.args[0].id == product[0]:
            node.args[0] = product[1]
            return tree
    return None


def sine_of_a_square_for_the_unknown_form_test(x):
    return np.sum(np.sin(x * x))


def test_an_expression_as_a_call_argument_is_refused_not_dropped(monkeypatch):
    # (its gradient was dropped: a wrong gradient with no error)
    injected = pipeline.Pass(_expression_left_as_an_argument, "an expression argument (test only)",
                             "expression_left_as_an_argument")
    position = [p.name for p in pipeline.SPECIALISE].index("infer_kinds")
    monkeypatch.setattr(pipeline, "SPECIALISE", pipeline.SPECIALISE[:position] + [injected]
                        + pipeline.SPECIALISE[position:])
    with pytest.raises(s2sad.UnsupportedSyntaxError, match="the argument `x \\* x` of sin"):
        s2sad.grad(sine_of_a_square_for_the_unknown_form_test, jit=False)(np.array([1.0, 2.0]))
