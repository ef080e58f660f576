"""Builders of expression and statement trees beside syntax.py's: an
operator or comparison by its symbol, a number as its source reads, a
dotted name, a copy of an expression as parsing its source gives it, and
the few statements the passes write for a form (`raise E(message)`, a
`for` over a range, a comprehension's `for`). The compiler builds code
from these, never from text (tests/test_code_as_trees.py)."""
import gast

_OPERATORS = {"+": gast.Add, "-": gast.Sub, "*": gast.Mult, "/": gast.Div,
              "//": gast.FloorDiv, "%": gast.Mod, "**": gast.Pow, "@": gast.MatMult}
_COMPARISONS = {"<": gast.Lt, "<=": gast.LtE, ">": gast.Gt, ">=": gast.GtE, "==": gast.Eq,
                "!=": gast.NotEq}
_LEAVES = (gast.expr_context, gast.operator, gast.unaryop, gast.cmpop, gast.boolop)


def _name(id_, ctx=None):
    return gast.Name(id=id_, ctx=ctx or gast.Load(), annotation=None, type_comment=None)


def _const(value):
    return gast.Constant(value=value, kind=None)


def binop(left, op, right):
    """`left op right`; `op` an operator node or its symbol ("+", "//", ...)."""
    if isinstance(op, str):
        op = _OPERATORS[op]()
    return gast.BinOp(left=left, op=op, right=right)


def compare(left, op, right):
    """`left op right` of one comparison; `op` its symbol ("<", ">=", ...)."""
    return gast.Compare(left=left, ops=[_COMPARISONS[op]()], comparators=[right])


def number(value):
    """An int or float constant as its source reads: a negative one is a
    unary minus of its magnitude."""
    negative = value < 0 or (value == 0 and str(value)[0] == "-")  # (-0.0 too)
    return gast.UnaryOp(op=gast.USub(), operand=_const(-value)) if negative else _const(value)


def dotted(path):
    """The expression `a.b.c` of the dotted name `path` ("np.int64")."""
    first, *rest = path.split(".")
    node = _name(first)
    for part in rest:
        node = gast.Attribute(value=node, attr=part, ctx=gast.Load())
    return node


def plain_copy(node):
    """A copy of the expression `node` as parsing its source gives it: no
    marks (a mark tells where a node came from, which a copy placed
    elsewhere is not), no location, a negative number a unary minus of its
    magnitude."""
    if isinstance(node, list):
        return [plain_copy(n) for n in node]
    if not isinstance(node, gast.AST) or isinstance(node, _LEAVES):
        return node
    if node.__class__ is gast.Constant:
        return number(node.value) if type(node.value) in (int, float) else _const(node.value)
    new = node.__class__.__new__(node.__class__)
    for f in node._fields:
        setattr(new, f, plain_copy(getattr(node, f, None)))
    return new


def raising(exception, message):
    """`raise exception(message)` (`exception` a builtin's name)."""
    return gast.Raise(exc=gast.Call(func=_name(exception), args=[_const(message)], keywords=[]),
                      cause=None)


def for_range(var, args, body):
    """`for var in range(*args): body`."""
    return gast.For(target=_name(var, gast.Store()), iter=gast.Call(
        func=_name("range"), args=list(args), keywords=[]), body=body, orelse=[],
        type_comment=None)


def generator(var, iterable):
    """`for var in iterable` of a comprehension."""
    return gast.comprehension(target=_name(var, gast.Store()), iter=iterable, ifs=[],
                              is_async=0)
