"""has_aux: the aux a function returns as a tuple the compiled code can
return (transforms/frontend/containers/aux_output.py, aux.py)."""
import numpy as np

import s2sad
from frontend.passes import lowered, source
from gradcheck import numerical_grad
from s2sad.transforms.frontend.containers import aux_output


def with_aux(x):
    loss = np.sum(x ** 2)
    return loss, {"norm": np.sqrt(loss), "first": x[0]}


def test_the_aux_is_a_tuple():
    _, after = lowered(aux_output, with_aux, np.ones(3), has_aux=True)
    assert after == source('''
        def with_aux(x):
            loss = np.sum(x ** 2)
            return (loss, (np.sqrt(loss), x[0]))''')


def test_without_has_aux_nothing_changes():
    before, after = lowered(aux_output, with_aux, np.ones(3))
    assert before == after


def test_gradient(jit):
    x = np.array([1.0, -2.0, 0.5])
    g, aux = s2sad.grad(with_aux, has_aux=True, jit=jit)(x)
    np.testing.assert_allclose(g, numerical_grad(lambda u: with_aux(u)[0], [x], 0), rtol=1e-6)
    assert aux == {"norm": np.sqrt(5.25), "first": 1.0}
