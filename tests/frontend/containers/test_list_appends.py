"""A list built by appends in straight-line code is the literal it ends up
as (transforms/frontend/containers/list_appends.py)."""
from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.containers import list_appends


def appended(x):
    terms = []
    terms.append(x * x)
    y = 3.0 * x
    terms.append(y)
    return terms[0] + terms[1]


def test_a_literal_of_the_appended_values():
    _, after = lowered(list_appends, appended, 1.0)
    assert after == source('''
        def appended(x):
            terms_0 = x * x
            y = 3.0 * x
            terms_1 = y
            terms = [terms_0, terms_1]
            return terms[0] + terms[1]''')


def test_gradient(jit):
    check_grad(appended, [0.7], jit=jit)
