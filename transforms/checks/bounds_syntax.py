"""Syntax queries of the index-check pass (bounds.py): the subscripts of a
statement, which rebindings keep an array's shape, and the marks that tell
the user's accesses from their copies."""
import itertools
import weakref

import gast

from ..syntax import callee_name, children, walk

_ACCESS_IDS = itertools.count(1)


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
    """`var = var.copy()` or `var = np.copy(var)`, a swap of arrays of one
    shape (`dun, du = du, dun`, marked so by copy_fold.py), or `var += e`
    of an array (in place): the same shape again."""
    if getattr(s, "s2sad_same_shapes", False) or in_place(s, var):
        return True
    if not isinstance(s, gast.Assign) or not isinstance(s.value, gast.Call):
        return False
    v = s.value
    if isinstance(v.func, gast.Attribute) and v.func.attr == "copy" and not v.args:
        return isinstance(v.func.value, gast.Name) and v.func.value.id == var
    return callee_name(v) == "np.copy" and len(v.args) == 1 and \
        isinstance(v.args[0], gast.Name) and v.args[0].id == var


def in_place(s, var):
    """`var += e` (of an array var: numpy adds into it, its shape stays)."""
    return isinstance(s, gast.AugAssign) and isinstance(s.target, gast.Name) \
        and s.target.id == var


def is_zero(node):
    return isinstance(node, gast.Constant) and node.value == 0


def root(symbol):
    """The variable a symbol depends on: `x` for `x.shape[0]`."""
    return symbol.split(".", 1)[0]


def mark_accesses(tree):
    """Give every subscript's index a mark that its copies keep (see
    `covered` in bounds.py); every subscript and every call of a function by name
    (a helper may index) also learns that it is the user's own evaluation
    and not a copy (`users_own`)."""
    for node in walk(tree):
        if isinstance(node, gast.Subscript):
            node.slice.s2sad_access = next(_ACCESS_IDS)
            node.s2sad_own = _Own(node)
        elif isinstance(node, gast.Call) and isinstance(node.func, gast.Name):
            node.s2sad_own = _Own(node)


def same_index(old, new):
    """`new` is the subscript `old` rebuilt with the same index values (its
    index's calls made temporaries): its index keeps the mark, so the
    reverse sweep's copies of it are covered by its check. Returns `new`."""
    mark = getattr(old.slice, "s2sad_access", None)
    if mark is not None and new.slice is not old.slice:
        new.slice.s2sad_access = mark
    return new


def same_access(old, new):
    """`new` (a subscript or call rebuilt from `old`) is the user's own
    evaluation if `old` was, so dead-store elimination keeps it where it may
    raise; a subscript's index also keeps its mark (`same_index`)."""
    if users_own(old):
        new.s2sad_own = _Own(new)
    return same_index(old, new) if isinstance(old, gast.Subscript) else new


class _Own:
    """The node of the user's code a node is or was copied from (syntax.clone
    copies marks, and this one by reference). Weakly: a node marked with a
    strong reference to itself is a reference cycle, which would leave it
    and its subtree to the cyclic collector."""
    __slots__ = ("node",)

    def __init__(self, node):
        self.node = weakref.ref(node)


def users_own(node):
    """Whether `node` is a subscript or call of the user's code itself, not a
    copy the reverse sweep or a tape made of it."""
    own = getattr(node, "s2sad_own", None)
    return own is not None and own.node() is node


def same_shape(like):
    """`np.zeros_like(x)` and the like without a `shape` of their own."""
    at = 5 if callee_name(like) == "np.full_like" else 4
    given = like.args[at:at + 1] + [k.value for k in like.keywords if k.arg == "shape"]
    return all(isinstance(v, gast.Constant) and v.value is None for v in given)
