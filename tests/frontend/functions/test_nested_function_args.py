"""A nested function passed to another nested function: a copy of the
callee per function passed (transforms/frontend/functions/nested_function_args.py)."""
from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.functions import nested_function_args


def higher(a, b):
    def apply_twice(g, x):
        return g(x) * g(x + 10.0)

    def scaled(x):
        return x * b
    return apply_twice(scaled, a)


def test_copied_for_the_function_passed():
    _, after = lowered(nested_function_args, higher)
    assert after == source('''
        def higher(a, b):

            def scaled(x):
                return x * b

            def apply_twice_scaled(x):
                return scaled(x) * scaled(x + 10.0)
            return apply_twice_scaled(a)''')


def test_gradient(jit):
    check_grad(higher, [0.5, 1.5], wrt=(0, 1), jit=jit)
