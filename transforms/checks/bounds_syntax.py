"""Syntax queries of the index-check pass (bounds.py): the subscripts of a
statement, and which rebindings keep an array's shape."""
import gast

from ..syntax import callee_name, children


class Span:
    """The values an index takes at an access: greatest and least, in proof
    and in shown forms (None: unknown); the variables the shown forms name;
    and the loop a check before which they hold (a counter's) must be in
    the nest it is hoisted over (None: any)."""

    def __init__(self, high, low, shown_high, shown_low, names, within=None):
        self.high, self.low = high, low
        self.shown_high, self.shown_low = shown_high, shown_low
        self.names, self.within = names, within


def subscripts(node):
    """(subscript, whether it runs only on some paths of its statement)
    for every subscript in `node`, outermost first."""
    out = []
    todo = [(node, False)]
    while todo:
        n, conditional = todo.pop()
        cls = n.__class__
        if cls is gast.Name or cls is gast.Constant:
            continue
        if cls is gast.Subscript:
            out.append((n, conditional))
        if cls is gast.IfExp:
            parts = [(n.test, conditional), (n.body, True), (n.orelse, True)]
        elif cls is gast.BoolOp:
            parts = [(n.values[0], conditional)] + [(v, True) for v in n.values[1:]]
        elif cls in (gast.For, gast.If, gast.While):
            continue  # their blocks are statements of their own
        else:
            parts = [(c, conditional) for c in children(n)]
        todo.extend(reversed(parts))
    return out


def copies(s, var):
    """`var = var.copy()` or `var = np.copy(var)`, or a swap of arrays of one
    shape (`dun, du = du, dun`, marked so by copy_fold.py): the same shape
    again."""
    if getattr(s, "s2sad_same_shapes", False):
        return True
    if not isinstance(s, gast.Assign) or not isinstance(s.value, gast.Call):
        return False
    v = s.value
    if isinstance(v.func, gast.Attribute) and v.func.attr == "copy" and not v.args:
        return isinstance(v.func.value, gast.Name) and v.func.value.id == var
    return callee_name(v) == "np.copy" and len(v.args) == 1 and \
        isinstance(v.args[0], gast.Name) and v.args[0].id == var


def is_zero(node):
    return isinstance(node, gast.Constant) and node.value == 0


def root(symbol):
    """The variable a symbol depends on: `x` for `x.shape[0]`."""
    return symbol.split(".", 1)[0]
