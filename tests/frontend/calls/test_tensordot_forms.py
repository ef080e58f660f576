"""np.tensordot of known ranks with constant axes is the einsum it computes
(transforms/frontend/calls/tensordot_forms.py): its rule and its compiled
form are np.einsum's."""
import numpy as np
import pytest

from frontend.passes import lowered, source
from gradcheck import check_grad
from s2sad.transforms.frontend.calls import tensordot_forms

rng = np.random.default_rng(11)


def _arrays(*shapes):
    return tuple(rng.uniform(-1.0, 1.0, s) for s in shapes)


def contracted_over_two_axes(a, b):
    return np.sum(np.cos(np.tensordot(a, b, axes=((0, 2), (1, 0)))))


def contracted_by_default(a, b):
    return np.sum(np.tensordot(a, b) ** 2)


def test_axes_become_subscripts():
    _, after = lowered(tensordot_forms, contracted_over_two_axes, *_arrays((2, 3, 4), (4, 2)))
    assert after == source('''
        def contracted_over_two_axes(a, b):
            tensordot = np.einsum('abc,ca->b', a, b)
            cos = np.cos(tensordot)
            sum2 = np.sum(cos)
            return sum2''')


# (ranks of a and b, axes): every form numpy's tensordot takes
TENSORDOTS = [((3, 4), (4, 2), 1), ((2, 3, 4), (3, 4, 2), 2), ((2, 3, 4), (4, 2), ((0, 2), (1, 0))),
              ((3,), (3,), 1), ((2, 3), (4,), 0), ((2, 3, 4), (3, 2), ([1, 0], [0, 1])),
              ((3, 2), (2, 3), (-1, 0))]


@pytest.mark.parametrize("sa, sb, axes", TENSORDOTS, ids=[str(t[2]) for t in TENSORDOTS])
def test_subscripts_compute_numpys_tensordot(sa, sb, axes):
    a, b = _arrays(sa, sb)
    subscripts = tensordot_forms._subscripts(a.ndim, b.ndim, axes)
    np.testing.assert_allclose(np.einsum(subscripts, a, b), np.tensordot(a, b, axes),
                               rtol=1e-12)


def test_axes_numpy_refuses_are_left_to_it():
    assert tensordot_forms._subscripts(2, 2, 3) is None
    assert tensordot_forms._subscripts(2, 2, ((0, 0), (1, 0))) is None


def test_gradients(jit):
    a, b = _arrays((2, 3, 4), (4, 2))
    check_grad(contracted_over_two_axes, (a, b), wrt=(0, 1), jit=jit)
    c, d = _arrays((2, 3, 4), (3, 4, 2))
    check_grad(contracted_by_default, (c, d), wrt=(0, 1), jit=jit)


def test_compiled_without_fallback():
    # (the tests make the fallback warning an error: conftest.py)
    a, b = _arrays((2, 3, 4), (4, 2))
    check_grad(contracted_over_two_axes, (a, b), wrt=(0, 1), jit=True)
