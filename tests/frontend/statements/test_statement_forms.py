""":=, del, global, try ... finally and their kin, written as plain
statements (transforms/frontend/statements/statement_forms.py)."""
from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.statements import statement_forms


def walrus(x):
    if (y := x * 2.0) > 1.0:
        y = y + 1.0
    return y


def test_the_walrus_is_an_assignment_first():
    _, after = lowered(statement_forms, walrus)
    assert after == source('''
        def walrus(x):
            y = x * 2.0
            if y > 1.0:
                y = y + 1.0
            return y''')


def test_gradient(jit):
    check_grad(walrus, [0.7], jit=jit)
    check_grad(walrus, [0.2], jit=jit)
