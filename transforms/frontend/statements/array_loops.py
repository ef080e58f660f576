"""Loops over an array computed in the loop's header: `for t in
np.linspace(0.0, 1.0, n)`, `for v in x.ravel()`, `for row in list(x)`.

desugar.py turns `for v in seq:` into a loop over `range(len(seq))` that
reads `v = seq[k]`, which is iteration for arrays, lists and tuples but
not for a dict (its keys) or an iterator. So a call in a loop's header is
taken only when what it returns is known to be a sequence: a numpy
function's result (not an iterator class's, np.nditer's), an array
method's that returns an array, or list(), tuple() and sorted()'s;
desugar refuses any other call (a helper's result may be a dict)."""
import builtins

import gast
import numpy as np

from ...libraries import of_package
from ...ops import METHODS
from ...syntax import walk_stmts

# array methods whose result is an array (not `copy`, which a dict has too)
_ARRAY_METHODS = (METHODS - {"copy", "any", "all"}) | {"cumprod", "round", "conj", "conjugate",
                                                        "take", "compress", "nonzero"}
_SEQUENCE_BUILTINS = (builtins.list, builtins.tuple, builtins.sorted)


def run(tree, ctx):
    """Mark (`s2sad_array`) the header calls of `tree`'s for loops that
    return a sequence."""
    for s in walk_stmts(tree.body):
        if isinstance(s, gast.For) and isinstance(s.iter, gast.Call) \
                and _returns_sequence(s.iter, ctx.resolve):
            s.iter.s2sad_array = True
    return None  # (marks only)


def _returns_sequence(node, resolve):
    obj = resolve(node.func)
    if any(obj is b for b in _SEQUENCE_BUILTINS):
        return True
    if isinstance(obj, np.ufunc):
        return True
    # a numpy function (not a class: np.nditer, np.ndenumerate and np.ndindex
    # make iterators, whose items are not what indexing them gives)
    if callable(obj) and not isinstance(obj, type) \
            and of_package(obj, "numpy"):
        return True
    # a method of a local value: an array's, by its name
    return obj is None and isinstance(node.func, gast.Attribute) \
        and node.func.attr in _ARRAY_METHODS
