"""Argument values that are containers (a dict, tuple or list of floats and
arrays, model.Tree) seen by the checker as their leaves: copied, flattened,
compared by structure, and perturbed one leaf at a time for finite
differences. A plain float or array is a container of one leaf."""
import numpy as np


def is_tree(v):
    return isinstance(v, (dict, tuple, list))


def leaves(v):
    if isinstance(v, dict):
        return list(v.values())
    if isinstance(v, (tuple, list)):
        return list(v)
    return [v]


def rebuild(like, values):
    """A value of the structure of `like` with these leaves."""
    if isinstance(like, dict):
        return dict(zip(like.keys(), values))
    if isinstance(like, tuple):
        return tuple(values)
    if isinstance(like, list):
        return list(values)
    (v,) = values
    return v


def copy_value(v):
    return rebuild(v, [e.copy() if isinstance(e, np.ndarray) else e for e in leaves(v)])


def flat(v):
    """Every leaf's numbers, in order, as one float vector."""
    return np.concatenate([np.ravel(np.asarray(e, dtype=float)) for e in leaves(v)] or [[]])


def structure_mismatch(g, a):
    """None if the gradient `g` has the structure of the argument `a` (the
    container's type and keys, each leaf's shape), or what differs."""
    if is_tree(a):
        if type(g) is not type(a):
            return f"{type(g).__name__} for a {type(a).__name__}"
        if (list(g.keys()) != list(a.keys())) if isinstance(a, dict) else len(g) != len(a):
            return f"{g!r} for {a!r}"
    for ge, ae in zip(leaves(g), leaves(a)):
        if np.shape(ge) != np.shape(ae):
            return f"{np.shape(ge)} for {np.shape(ae)}"
    return None


def same_values(a, b):
    return all(np.array_equal(x, y) for x, y in zip(leaves(a), leaves(b)))
