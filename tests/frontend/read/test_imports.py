"""An import among the function's first statements binds a name of the
function (transforms/frontend/read/imports.py)."""
import pytest

from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.errors import UnsupportedSyntaxError
from s2sad.transforms.frontend.read import imports


def imported(x):
    from math import sin
    import numpy as anp
    return sin(x) * anp.cos(x)


def imported_in_a_branch(x):
    if x > 0.0:
        from math import sin
        return sin(x)
    return x


def test_imports_leave_the_tree():
    before, after = lowered(imports, imported)
    assert "from math import sin" in before
    assert after == source('''
        def imported(x):
            return sin(x) * anp.cos(x)''')


def test_an_import_in_a_branch_stays_and_is_refused():
    _, after = lowered(imports, imported_in_a_branch)
    assert "from math import sin" in after
    with pytest.raises(UnsupportedSyntaxError, match="import"):
        check_grad(imported_in_a_branch, [0.5])


def test_gradient(jit):
    check_grad(imported, [0.7], jit=jit)
