"""Finite-difference checks shared by the tests."""
import os

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


def hessian_by_differences(f, x, eps=1e-5):
    """The Hessian of sum(f(x)) by central differences of finite-difference
    gradients (for a few entries: len(x) ** 2 evaluations of f each)."""
    cols = []
    for k in range(x.size):
        e = np.zeros_like(x)
        e[k] = eps
        cols.append((numerical_grad(f, [x + e], 0, eps) - numerical_grad(f, [x - e], 0, eps))
                    / (2 * eps))
    return np.array(cols).T


# S2SAD_FULL=1 runs every compiled case (tests/conftest.py samples them otherwise)
FULL = os.environ.get("S2SAD_FULL", "") not in ("", "0")


def wrt_cases(wrts, jit):
    """The `wrt` arguments a test checks for the positions `wrts`: each
    alone as Python; compiled, all of them in one derivative (the same
    rules w.r.t. every argument, for one numba compile instead of one per
    position) unless S2SAD_FULL=1."""
    wrts = tuple(wrts)
    if jit and not FULL and len(wrts) > 1:
        return [wrts]
    return list(wrts)


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


# ---- containers (pytrees): dicts, NamedTuples, lists and tuples ------------------

def tree_leaves(tree):
    """The leaves of a container, in s2sad's (and JAX's) order."""
    if isinstance(tree, dict):
        return [x for k in tree for x in tree_leaves(tree[k])]
    if isinstance(tree, (list, tuple)):
        return [x for e in tree for x in tree_leaves(e)]
    return [tree]


def tree_replace(tree, values):
    """`tree` with its leaves replaced by `values` (an iterator)."""
    if isinstance(tree, dict):
        return {k: tree_replace(v, values) for k, v in tree.items()}
    if isinstance(tree, tuple) and hasattr(tree, "_fields"):
        return type(tree)(*[tree_replace(e, values) for e in tree])
    if isinstance(tree, (list, tuple)):
        return type(tree)(tree_replace(e, values) for e in tree)
    return next(values)


def assert_same_structure(got, like):
    """Same container types, keys and lengths; leaves of the same shape."""
    assert type(got) is type(like), (type(got), type(like))
    if isinstance(like, dict):
        assert list(got) == list(like)
        for k in like:
            assert_same_structure(got[k], like[k])
    elif isinstance(like, (list, tuple)):
        assert len(got) == len(like)
        for g, e in zip(got, like):
            assert_same_structure(g, e)
    else:
        assert np.shape(got) == np.shape(like)


def numerical_tree_grad(f, args, wrt, eps=1e-6):
    """Central differences of sum(f(*args)) w.r.t. every float leaf of
    args[wrt] (a container); the gradient has its structure."""
    tree = args[wrt]
    leaves = [np.array(x, dtype=float) if np.ndim(x) else x for x in tree_leaves(tree)]

    def value(new_leaves):
        new = list(args)
        new[wrt] = tree_replace(tree, iter(new_leaves))
        out = f(*new)
        if isinstance(out, tuple):
            return sum(float(np.sum(o)) for o in out)
        return float(np.sum(out))

    grads = []
    for j, x in enumerate(leaves):
        if not isinstance(x, (float, np.ndarray)):  # an int leaf: a constant
            grads.append(0.0)
            continue
        g = np.zeros(np.shape(x))
        for idx in np.ndindex(*np.shape(x)):
            up, down = list(leaves), list(leaves)
            if np.ndim(x):
                up[j], down[j] = x.copy(), x.copy()
                up[j][idx] += eps
                down[j][idx] -= eps
            else:
                up[j], down[j] = x + eps, x - eps
            g[idx] = (value(up) - value(down)) / (2 * eps)
        grads.append(g if np.ndim(x) else float(g))
    return tree_replace(tree, iter(grads))


def check_tree_grad(f, args, wrt=0, jit=True, rtol=1e-5, atol=1e-6):
    """check_grad for a container argument: the gradient has the
    argument's structure and matches finite differences leaf by leaf."""
    df = s2sad.grad(f, wrt=wrt, jit=jit)
    got = df(*args)
    expected = numerical_tree_grad(f, args, wrt)
    assert_same_structure(got, args[wrt])
    for g, e in zip(tree_leaves(got), tree_leaves(expected)):
        np.testing.assert_allclose(g, e, rtol=rtol, atol=atol, err_msg=df.source)
    return got


def check_tree_jvp(f, args, wrt=0, jit=True, rtol=1e-5, atol=1e-6, seed=0):
    """jvp along a random tangent of the container args[wrt] (same
    structure) against a central difference along it."""
    rng = np.random.default_rng(seed)
    tree = args[wrt]
    tangent = tree_replace(tree, iter(
        [rng.normal(size=np.shape(x)) if np.ndim(x) else float(rng.normal())
         for x in tree_leaves(tree)]))
    value, got = s2sad.jvp(f, wrt=wrt, jit=jit)(*args, tangent)

    def shifted(eps):
        new = list(args)
        new[wrt] = tree_replace(tree, iter([x + eps * t for x, t in zip(
            tree_leaves(tree), tree_leaves(tangent))]))
        return np.asarray(f(*new))

    eps = 1e-6
    np.testing.assert_allclose(got, (shifted(eps) - shifted(-eps)) / (2 * eps),
                               rtol=rtol, atol=atol)
    return tangent, got
