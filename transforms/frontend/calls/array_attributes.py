"""numpy's array attributes that stand for a function of the array, respelt
as that function so the rules see it: `x.flat` reads as `np.ravel(x)` (its
elements in C order, which is what iterating or indexing `x.flat` gives)
and `x.mT` as `np.swapaxes(x, -1, -2)`.

Writing through `x.flat` (`x.flat[k] = v`) changes x itself, which a
ravelled copy would not: it is refused before this pass, as every write
through an attribute is (read/fence.py). Any other attribute of a value that
needs a gradient is refused where the adjoint is built (ops.py,
contributions.py), never taken as a constant.

An attribute numpy's arrays do not have (`x.ptp()`, removed in numpy 2)
raises the AttributeError the function itself raises when it runs
(missing_attributes.py), not a missing gradient."""
import gast

from ...syntax import Transformer, call, const, walk

_RESPELT = {"flat", "mT"}


def run(tree, ctx):
    if not any(n.__class__ is gast.Attribute and n.attr in _RESPELT for n in walk(tree)):
        return None  # (most functions: no pass over the tree)
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

