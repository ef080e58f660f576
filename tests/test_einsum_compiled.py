"""np.einsum compiled (s2sad/runtime/einsums.py): numba has no np.einsum,
so its forward and its cotangents are loop nests written from the
subscripts. Checked against differences, compiled with no fallback to
Python, and as plain numpy."""
import linecache
import warnings

import numpy as np
import pytest

import s2sad
from gradcheck import check_grad

rng = np.random.default_rng(7)


def _shapes(*shapes):
    return tuple(rng.uniform(-1.0, 1.0, s) for s in shapes)


# (subscripts, operand shapes): products, a diagonal, an implicit output, an
# ellipsis, a broadcast axis of size 1, three operands, an outer product
CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 2)]),
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("ij->", [(2, 3)]),
    ("...i,...i->...", [(2, 3, 4), (3, 4)]),
    ("ij,j->i", [(2, 3), (1,)]),
    ("i,i,i->", [(3,), (3,), (3,)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 2)]),
    ("ij->ji", [(2, 3)]),
    ("i,j->ij", [(3,), (2,)]),
    ("iij,j->ij", [(3, 3, 2), (2,)]),
    ("ij,ij,ij->i", [(2, 3), (2, 3), (1, 3)]),
]


def _objective(subscripts, n):
    """sum(sin(np.einsum(subscripts, a, ...))) with its source in linecache
    (s2sad reads a function's source)."""
    names = ", ".join("abc"[:n])
    text = (f"def contracted({names}):\n"
            f"    return np.sum(np.sin(np.einsum({subscripts!r}, {names})))\n")
    filename = f"<einsum {subscripts}>"
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    scope = {"np": np}
    exec(compile(text, filename, "exec"), scope)
    return scope["contracted"]


@pytest.mark.parametrize("subscripts, shapes", CASES, ids=[c[0] for c in CASES])
def test_gradient_of_each_operand(subscripts, shapes, jit):
    fn = _objective(subscripts, len(shapes))
    args = _shapes(*shapes)
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.NumbaFallbackWarning)
        for k in range(len(shapes)):
            check_grad(fn, args, wrt=k, jit=jit)


def quadratic_form(v, A):
    return np.einsum("i,ij,j->", v, A, v)


def test_hessian_of_a_quadratic_form(jit):
    v, A = _shapes((3,), (3, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("error", s2sad.NumbaFallbackWarning)
        h = s2sad.hessian(quadratic_form, jit=jit)(v, A)
    np.testing.assert_allclose(h, A + A.T, rtol=1e-10, atol=1e-12)


def test_compiled_forward_is_numpys():
    import numba
    a, b = _shapes((2, 3), (3, 4))

    @numba.njit
    def product(a, b):
        return np.einsum("ij,jk->ik", a, b)
    import s2sad.runtime  # noqa: F401  (registers the loop nests with numba)
    np.testing.assert_allclose(product(a, b), np.einsum("ij,jk->ik", a, b), rtol=1e-12)


def test_mismatched_axes_raise_as_numpy_does():
    import numba
    import s2sad.runtime  # noqa: F401

    @numba.njit
    def product(a, b):
        return np.einsum("ij,jk->ik", a, b)
    a, b = _shapes((2, 3), (4, 2))
    with pytest.raises(ValueError):
        np.einsum("ij,jk->ik", a, b)
    with pytest.raises(ValueError, match="broadcast"):
        product(a, b)
