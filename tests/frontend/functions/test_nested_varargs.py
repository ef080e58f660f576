"""A nested function taking *args or **kwargs takes what each call passes as
parameters of its own (transforms/frontend/functions/nested_varargs.py)."""
from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.functions import nested_varargs


def varargs(x, y):
    def total(*parts, **scales):
        return sum(parts) * scales["k"]
    return total(x, y, k=2.0) * total(x, y, x, k=0.5)


def test_a_copy_per_form_of_call():
    before, after = lowered(nested_varargs, varargs)
    assert after == source('''
        def varargs(x, y):

            def total(*, parts_0, parts_1, scales_k):
                parts = (parts_0, parts_1)
                scales = {'k': scales_k}
                return sum(parts) * scales['k']

            def total2(*, parts_02, parts_12, parts_2, scales_k2):
                parts = (parts_02, parts_12, parts_2)
                scales = {'k': scales_k2}
                return sum(parts) * scales['k']
            return total(parts_0=x, parts_1=y, scales_k=2.0) * total2(parts_02=x, parts_12=y, parts_2=x, scales_k2=0.5)''')


def test_gradient(jit):
    check_grad(varargs, [0.5, 1.5], wrt=(0, 1), jit=jit)
