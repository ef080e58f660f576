"""`list(x)` of a variable (or an attribute or element of one) and
`x.tolist()`, written as the list comprehensions they compute (s2sad keeps
those as arrays, and refuses where a list and an array differ)."""
import builtins

import gast

from ..names import fresh_name
from ..expressions import generator
from ..syntax import call, name, walk


def spell_lists(tree, namespace):
    """`list(x)` of a variable (or an attribute or element of one) and
    `x.tolist()`: list comprehensions, which s2sad keeps as arrays and
    refuses where a list and an array differ (`+`, `*`, `.append`):

        list(x)       [v for v in x]          (the rows of a 2-d x, as Python's)
        x.tolist()    [float(v) for v in x]   (of a 1-d x: Python floats; of a
                                               2-d x, whose nested lists this
                                               is not, float() raises TypeError;
                                               of ints: floats, which do not index)

    Run after container arguments are flattened (a container's own `list(p)`
    is refused there); `list(range(n))` and other calls are left as written."""
    if namespace.get("list", builtins.list) is not builtins.list:
        return
    nodes = walk(tree)  # (a function with neither `list` nor `.tolist` is left at once)
    if not any((n.__class__ is gast.Name and n.id == "list")
               or (n.__class__ is gast.Attribute and n.attr == "tolist") for n in nodes):
        return
    local = {n.id for n in nodes if isinstance(n, gast.Name)
             and not isinstance(n.ctx, gast.Load)} | {a.id for a in tree.args.args}
    if "list" in local or "float" in local:
        return
    taken = set(namespace) | {n.id for n in nodes if isinstance(n, gast.Name)}

    class Lists(gast.NodeTransformer):
        def visit_Call(self, node):
            self.generic_visit(node)
            if isinstance(node.func, gast.Name) and node.func.id == "list" \
                    and len(node.args) == 1 and not node.keywords \
                    and isinstance(node.args[0], (gast.Name, gast.Attribute, gast.Subscript)):
                return self.listed(node, node.args[0], False)
            if isinstance(node.func, gast.Attribute) and node.func.attr == "tolist" \
                    and not node.args and not node.keywords and _local_value(node.func.value,
                                                                             local):
                return self.listed(node, node.func.value, True)
            return node

        def listed(self, node, seq, floats):
            v = fresh_name("item", taken, sep="_")
            elt = call("float", name(v)) if floats else name(v)
            comp = gast.ListComp(elt=elt, generators=[generator(v, seq)])
            for n in walk(comp):
                if n is not seq and isinstance(n, gast.expr):
                    gast.copy_location(n, node)
            return comp

    Lists().visit(tree)


def _local_value(node, local):
    """`node` is (an attribute or element of) a local variable or parameter."""
    while isinstance(node, (gast.Attribute, gast.Subscript)):
        node = node.value
    return isinstance(node, gast.Name) and node.id in local
