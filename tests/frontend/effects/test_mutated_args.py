"""A helper changing a container it is given through a method: refused at
the call (transforms/frontend/effects/mutated_args.py, helper_effects.py)."""
import numpy as np
import pytest

from frontend.passes import lowered
from gradcheck import check_grad
from s2sad.transforms.errors import UnsupportedSyntaxError
from s2sad.transforms.frontend.effects import mutated_args


def add(out, v):
    out.append(v)


def mutates(x):
    out = [1.0]
    add(out, x)
    return out[0]


def reads(xs, y):
    return xs[0] * y


def reads_only(x):
    return reads(x, x[1] * 2.0)


def test_refused_naming_the_helper_line():
    line = add.__code__.co_firstlineno + 1
    with pytest.raises(UnsupportedSyntaxError, match=rf"out.append\(...\) at .*:{line}, in add"):
        lowered(mutated_args, mutates, 1.0)


def test_a_helper_that_only_reads_passes():
    before, after = lowered(mutated_args, reads_only, np.ones(2))
    assert before == after


def test_gradient(jit):
    check_grad(reads_only, [np.array([0.7, -1.5])], jit=jit)
