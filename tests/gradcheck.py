"""Finite-difference checks shared by the tests."""
import numpy as np

import s2sad


def numerical_grad(f, args, wrt, eps=1e-6):
    """Central differences of sum(f(*args)) w.r.t. args[wrt]."""
    args = [np.array(a, dtype=float) if isinstance(a, np.ndarray) else a for a in args]
    x = args[wrt]

    def value(xv):
        new = list(args)
        new[wrt] = xv
        out = f(*new)
        if isinstance(out, tuple):
            return sum(float(np.sum(o)) for o in out)
        return float(np.sum(out))

    if np.ndim(x) == 0:
        return (value(x + eps) - value(x - eps)) / (2 * eps)
    g = np.zeros_like(x, dtype=float)
    for idx in np.ndindex(*x.shape):
        xp, xm = x.copy(), x.copy()
        xp[idx] += eps
        xm[idx] -= eps
        g[idx] = (value(xp) - value(xm)) / (2 * eps)
    return g


def check_grad(f, args, wrt=0, jit=True, rtol=1e-5, atol=1e-6):
    """s2sad's gradient of f against finite differences, for every
    position in `wrt` (an int or a tuple); returns the derivative object."""
    positions = wrt if isinstance(wrt, tuple) else (wrt,)
    df = s2sad.grad(f, wrt=positions, jit=jit)
    originals = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    got = df(*args)
    for a, o in zip(args, originals):  # the caller's arrays are never modified
        if isinstance(a, np.ndarray):
            np.testing.assert_array_equal(a, o)
    assert isinstance(got, tuple) and len(got) == len(positions)
    for p, g in zip(positions, got):
        expected = numerical_grad(f, args, p)
        assert np.shape(g) == np.shape(args[p]), (np.shape(g), np.shape(args[p]))
        np.testing.assert_allclose(g, expected, rtol=rtol, atol=atol,
                                   err_msg=f"gradient w.r.t. argument {p}\n{df.source}")
    return df
