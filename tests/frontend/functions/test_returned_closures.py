"""A helper returning its nested function, called at once (`make(a)(g)`,
autograd's gradient makers), is one function doing both
(transforms/frontend/functions/returned_closures.py)."""
import numpy as np

import s2sad
from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.functions import returned_closures


def make_scaled(ans, w, power=2.0):
    scale = np.sum(w ** power)

    def scaled(g):
        return g * scale * w
    return scaled


def applied(x, w):
    return np.sum(make_scaled(None, w)(np.sin(x)))


def test_one_function_doing_both():
    _, after = lowered(returned_closures, applied)
    assert after == source('''
        def applied(x, w):
            return np.sum(make_scaled_called(None, w, 2.0, np.sin(x)))''')
    maker = lowered(returned_closures, applied)  # (the same function every read)
    assert maker == lowered(returned_closures, applied)


def test_gradient(jit):
    check_grad(applied, [np.array([0.3, -1.2, 2.0]), np.array([0.5, 1.5, -0.7])], wrt=(0, 1),
               jit=jit)


# ---- as autograd's rules are written: a custom vjp whose bwd calls the makers ----------

@s2sad.custom_vjp
def product(a, b):
    return a * b


def make_grad_product_0(ans, a, b):
    def gradient_product(g):
        return g * b
    return gradient_product


def make_grad_product_1(ans, a, b):
    def gradient_product(g):
        return g * a
    return gradient_product


def product_fwd(a, b):
    return product(a, b), (a, b)  # (JAX's form: the fwd calls the function itself)


def product_bwd(residuals, g):
    a, b = residuals
    return make_grad_product_0(None, a, b)(g), make_grad_product_1(None, a, b)(g)


product.defvjp(product_fwd, product_bwd)


def uses_product(a, b):
    return np.sum(np.cos(product(a, b)) * product(b, b))


def test_custom_vjp_with_gradient_makers(jit):
    check_grad(uses_product, [np.array([0.3, -1.2]), np.array([0.5, 1.5])], wrt=(0, 1), jit=jit)
