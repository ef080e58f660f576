"""Finite-difference checks shared by the tests."""
import numpy as np

import s2sad


def numerical_grad(f, args, wrt, eps=1e-6):
    """Central differences of sum(f(*args)) w.r.t. args[wrt]."""
    args = list(args)  # the other arguments keep their dtype (index arrays stay integers)
    if isinstance(args[wrt], np.ndarray):
        args[wrt] = np.array(args[wrt], dtype=float)
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


def check_jvp(f, args, wrt=0, jit=True, rtol=1e-5, atol=1e-6, seed=0):
    """s2sad's forward-mode derivative of f along a random tangent against
    a central difference along the same direction."""
    rng = np.random.default_rng(seed)
    positions = wrt if isinstance(wrt, tuple) else (wrt,)
    tangents = [rng.normal(size=np.shape(args[p])) if np.ndim(args[p]) else float(rng.normal())
                for p in positions]
    df = s2sad.jvp(f, wrt=wrt, jit=jit)
    value, got = df(*args, tangents[0] if not isinstance(wrt, tuple) else tuple(tangents))

    def shifted(eps):
        new = list(args)
        for p, t in zip(positions, tangents):
            new[p] = args[p] + eps * t
        out = f(*[a.copy() if isinstance(a, np.ndarray) else a for a in new])
        return out

    eps = 1e-6
    up, down = shifted(eps), shifted(-eps)
    if isinstance(up, tuple):
        expected = tuple((np.asarray(u) - np.asarray(d)) / (2 * eps) for u, d in zip(up, down))
        for g, e in zip(got, expected):
            np.testing.assert_allclose(g, e, rtol=rtol, atol=atol, err_msg=df.source)
    else:
        expected = (np.asarray(up) - np.asarray(down)) / (2 * eps)
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol,
                                   err_msg=df.source_for(*args))
    return df
