"""A lambda passed to a helper is bound to a name first
(transforms/frontend/functions/passed_lambdas.py)."""
from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.functions import passed_lambdas


def apply(g, u):
    return g(u) * 2.0


def passes_lambda(x, w):
    return apply(lambda u: u * w, x)


def test_bound_before_the_statement():
    _, after = lowered(passed_lambdas, passes_lambda)
    assert after == source('''
        def passes_lambda(x, w):
            lambda_2 = lambda u: u * w
            return apply(lambda_2, x)''')  # (named by its line in the function)


def test_gradient(jit):
    check_grad(passes_lambda, [0.5, 3.0], wrt=(0, 1), jit=jit)
