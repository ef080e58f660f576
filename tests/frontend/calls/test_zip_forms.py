"""zip of sequences whose length the source says (a tuple argument, a tuple
written out, a name bound once to one) is the tuples it makes
(transforms/frontend/calls/zip_forms.py); a star of a tuple argument is its
entries (star_forms.py leaves it for the specialisation, flatten.py
splices it)."""
import numpy as np
import pytest

import s2sad
from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.pytrees import structure_of
from s2sad.transforms.frontend.calls import zip_forms


def zip_star(t):
    a, b = zip(*t)
    return a[0] * b[1]


def test_the_tuples_zip_makes():
    t = ((1.0, 2.0), (3.0, 4.0))
    _, after = lowered(zip_forms, zip_star, 1.0, 2.0, 3.0, 4.0,
                       structures={"t": structure_of(t, "test", ("t",))})
    assert after == source('''
        def zip_star(t_0_0, t_0_1, t_1_0, t_1_1):
            a, b = ((t_0_0, t_1_0), (t_0_1, t_1_1))
            return a[0] * b[1]''')


def test_zip_of_a_tuple_argument(jit):
    t = ((1.0, 2.0), (3.0, 4.0))
    grads = s2sad.grad(zip_star, jit=jit)(t)
    # a[0] * b[1] is t[0][0] * t[1][1]
    assert grads == ((4.0, 0.0), (0.0, 1.0))


def triples(t, w):
    s = 0.0
    for p, q, r in zip(*t):
        s = s + p * q * r * w
    return s


def written_out(x):
    pairs = ((x, 2.0), (3.0, x * x))
    a, b = zip(*pairs)
    c, d = zip(*((x, 2.0), (3.0, np.sin(x) * x)))
    e = list(zip(pairs[0], (x, x + 1.0, 5.0)))  # (as long as the shortest)
    return a[0] * b[1] + a[1] * c[0] * d[1] + e[1][0] * e[1][1] * len(e)


def test_zip_in_loops_and_of_tuples_written_out(jit):
    check_grad(triples, [((1.0, 2.0), (3.0, 4.0), (0.5, -1.0)), 0.7], wrt=1, jit=jit)
    check_grad(written_out, [1.3], jit=jit)


def star_of_an_array(x):
    a, b = zip(*x)
    return a[0] * b[1]


def test_a_star_of_an_array_is_refused_with_the_line():
    with pytest.raises(s2sad.UnsupportedSyntaxError,
                       match=r"test_zip_forms.py:\d+, in star_of_an_array: star-unpacking in a "
                             r"call's argument of a value whose length is known only when the "
                             r"function runs.*Pass a tuple"):
        s2sad.grad(star_of_an_array, jit=False)(np.array([[1.0, 2.0], [3.0, 4.0]]))
