"""numpy's array attributes that stand for a function of the array, respelt
as that function so the rules see it: `x.flat` reads as `np.ravel(x)` (its
elements in C order, which is what iterating or indexing `x.flat` gives)
and `x.mT` as `np.swapaxes(x, -1, -2)`.

Writing through `x.flat` (`x.flat[k] = v`) changes x itself, which a
ravelled copy would not: it is refused before this pass, as every write
through an attribute is (source.py). Any other attribute of a value that
needs a gradient is refused where the adjoint is built (ops.py,
contributions.py), never taken as a constant.

An attribute numpy's arrays do not have (`x.ptp()`, removed in numpy 2)
raises the AttributeError the function itself raises when it runs
(`missing_array_attributes`), not a missing gradient."""
import gast
import numpy as np

from ...syntax import Transformer, call, const, walk

_RESPELT = {"flat", "mT"}


def respell_array_attributes(tree):
    if not any(n.__class__ is gast.Attribute and n.attr in _RESPELT for n in walk(tree)):
        return tree  # (most functions: no pass over the tree)
    _Respell().visit(tree)
    return tree


class _Respell(Transformer):
    def visit_Attribute(self, node):
        self.generic_visit(node)
        if not isinstance(node.ctx, gast.Load):
            return node
        if node.attr == "flat":
            ravelled = gast.copy_location(call("np.ravel", node.value), node)
            ravelled.s2sad_array = True  # (desugar.py: `for v in x.flat` loops over it)
            return ravelled
        if node.attr == "mT":
            return gast.copy_location(
                call("np.swapaxes", node.value, const(-1), const(-2)), node)
        return node


def missing_array_attributes(tree, kinds, location, nodes=None):
    """Raise numpy's AttributeError for `x.name` of an array `x` (a kind
    known to be an ndarray) that ndarrays do not have (`x.ptp()` in numpy
    2). `nodes`: walk(tree), if the caller has it."""
    for node in walk(tree) if nodes is None else nodes:
        if node.__class__ is gast.Attribute and node.value.__class__ is gast.Name:
            kind = kinds.get(node.value.id)
            if kind is not None and kind.is_array and not hasattr(np.ndarray, node.attr):
                raise AttributeError(f"{location.describe(node)}: 'numpy.ndarray' object has "
                                     f"no attribute '{node.attr}' (numpy {np.__version__})")
