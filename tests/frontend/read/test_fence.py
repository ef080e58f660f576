"""What no READ pass lowered is refused, with its line and what to write
instead (transforms/frontend/read/fence.py)."""
import pytest

import s2sad
from frontend.passes import lowered
from gradcheck import check_grad
from s2sad.transforms.errors import UnsupportedSyntaxError
from s2sad.transforms.frontend.read import fence


def plain(x):
    y = x * x
    return y + 1.0


def with_set(x):
    s = {x, 2.0}
    return x * len(s)


def with_class(x):
    class Box:
        pass
    return x


def writes_an_attribute(x):
    x.real = 2.0
    return x


def test_what_it_accepts_passes_unchanged():
    before, after = lowered(fence, plain)
    assert before == after


@pytest.mark.parametrize("fn, construct, hint", [
    (with_set, "a set display", "Use an array or a tuple"),
    (with_class, "a class definition", "Define the class at module level"),
    (writes_an_attribute, "assignment through an attribute", "Write into the array itself"),
])
def test_refused_with_the_line_and_a_hint(fn, construct, hint):
    with pytest.raises(UnsupportedSyntaxError, match=construct) as info:
        s2sad.grad(fn, jit=False)(1.0)
    assert hint in str(info.value)
    assert f"{__file__}:" in str(info.value)


def test_gradient(jit):
    check_grad(plain, [0.3], jit=jit)
