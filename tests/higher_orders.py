"""What the higher-order test files share (tests/test_higher_*.py): second
and third derivatives of a function `f` of one array, built every way s2sad
offers, against finite differences of its gradient written by hand
(`grad_f`, plain numpy, not s2sad's): the Hessian is the Jacobian of
grad_f, and the third derivatives are the Hessian of sum(grad_f)
(gradcheck.hessian_by_differences)."""
import warnings

import numpy as np

import s2sad
from gradcheck import hessian_by_differences

# forward over reverse; reverse over reverse; third derivatives (both ways)
MODES = ["fwd_over_rev", "rev_over_rev", "third"]


def jacobian_by_differences(fn, x, eps=1e-6):
    """d fn(x)[i] / d x[j] by central differences (fn: an array of x's size)."""
    cols = []
    for k in range(x.size):
        e = np.zeros_like(x)
        e.flat[k] = eps
        cols.append((np.ravel(fn(x + e)) - np.ravel(fn(x - e))) / (2 * eps))
    return np.array(cols).T


def check_orders(f, grad_f, x, mode, jit, rtol=1e-5, atol=1e-6, falls_back=False):
    """The derivatives of `mode` of f at x against differences of grad_f.
    `falls_back`: numba cannot compile f's derivatives (einsum, np.tile,
    ...): they run as Python with s2sad's warning, which jit=True expects."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", s2sad.NumbaFallbackWarning)
        _check(f, grad_f, np.asarray(x, dtype=float), mode, jit, rtol, atol)
    fell_back = [w for w in caught if issubclass(w.category, s2sad.NumbaFallbackWarning)]
    if jit and falls_back:
        assert fell_back, "the derivatives compiled: drop falls_back"
    else:
        assert not fell_back, str(fell_back[0].message)


def _close(got, want, rtol, atol, what):
    scale = max(1.0, float(np.max(np.abs(want))))
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol * scale, err_msg=what)


def _check(f, grad_f, x, mode, jit, rtol, atol):
    n = x.size
    g = s2sad.grad(f, jit=jit)
    v = np.linspace(-1.0, 1.0, n).reshape(x.shape) + 0.25
    if mode in ("fwd_over_rev", "rev_over_rev"):
        want = jacobian_by_differences(grad_f, x).reshape(x.shape + x.shape)
        flat = want.reshape(n, n)
        if mode == "fwd_over_rev":
            _close(s2sad.hessian(f, jit=jit)(x), want, rtol, atol, "s2sad.hessian")
            _close(s2sad.hvp(f, jit=jit)(x, v), (flat @ v.ravel()).reshape(x.shape), rtol,
                   atol, "s2sad.hvp")
            _close(s2sad.jvp(g, jit=jit)(x, v)[1], (flat @ v.ravel()).reshape(x.shape), rtol,
                   atol, "jvp of grad")
        else:
            _close(s2sad.jacobian(g, mode="rev", jit=jit)(x), want, rtol, atol,
                   "jacobian of grad, reverse mode")
            _close(s2sad.grad(g, jit=jit)(x), flat.sum(axis=0).reshape(x.shape), rtol, atol,
                   "grad of grad")
        return
    # d2 sum(grad_f) / dx dx: the Hessian of the gradient's sum, and its column sums
    want = hessian_by_differences(grad_f, x, eps=1e-4).reshape(x.shape + x.shape)
    _close(s2sad.hessian(g, jit=jit)(x), want, 1e-4, 1e-5, "hessian of grad")
    _close(s2sad.grad(s2sad.grad(g, jit=jit), jit=jit)(x),
           want.reshape(n, n).sum(axis=0).reshape(x.shape), 1e-4, 1e-5, "grad of grad of grad")
