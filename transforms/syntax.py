"""Small builders and queries over gast trees, shared by every pass."""
import copy

import gast

__all__ = [
    "name", "store", "const", "assign", "call", "attr", "subscript", "binop",
    "names_loaded", "names_stored", "walk_stmts", "is_atom", "clone",
    "parse_expr", "parse_stmts", "base_name", "binding_counts",
]


def name(id_, ctx=None):
    return gast.Name(id=id_, ctx=ctx or gast.Load(), annotation=None,
                     type_comment=None)


def store(id_):
    return name(id_, gast.Store())


def const(value):
    return gast.Constant(value=value, kind=None)


def assign(target, value, src=None):
    """`target = value`; `target` may be a name string or a node."""
    if isinstance(target, str):
        target = store(target)
    node = gast.Assign(targets=[target], value=value, type_comment=None)
    if src is not None:
        gast.copy_location(node, src)
    return node


def attr(value, attribute):
    if isinstance(value, str):
        value = parse_expr(value)
    return gast.Attribute(value=value, attr=attribute, ctx=gast.Load())


def call(func, *args, keywords=()):
    if isinstance(func, str):
        func = parse_expr(func)
    return gast.Call(func=func, args=list(args),
                     keywords=[gast.keyword(arg=k, value=v) for k, v in keywords])


def subscript(value, index, ctx=None):
    if isinstance(value, str):
        value = name(value)
    return gast.Subscript(value=value, slice=index, ctx=ctx or gast.Load())


def binop(left, op, right):
    return gast.BinOp(left=left, op=op, right=right)


def clone(node):
    return copy.deepcopy(node)


def parse_expr(src):
    return gast.parse(src).body[0].value


def parse_stmts(src):
    return gast.parse(src).body


def is_atom(node):
    """A name, a constant, or a subscript of a name (indices are evaluated as
    plain integer expressions and never differentiated)."""
    if isinstance(node, (gast.Name, gast.Constant)):
        return True
    return isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name)


def base_name(node):
    """The variable an atom or assignment target refers to, or None."""
    while isinstance(node, (gast.Subscript, gast.Attribute)):
        node = node.value
    return node.id if isinstance(node, gast.Name) else None


def names_loaded(node):
    """Names read anywhere in `node` (a node or a list of nodes)."""
    nodes = node if isinstance(node, list) else [node]
    out = set()
    for root in nodes:
        for n in gast.walk(root):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load):
                out.add(n.id)
    return out


def names_stored(node):
    """Names (re)bound or written into anywhere in `node`."""
    nodes = node if isinstance(node, list) else [node]
    out = set()
    for root in nodes:
        for n in gast.walk(root):
            if isinstance(n, gast.Name) and isinstance(n.ctx, (gast.Store, gast.Param)):
                out.add(n.id)
            elif isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store):
                b = base_name(n)
                if b:
                    out.add(b)
            elif isinstance(n, gast.AugAssign):
                b = base_name(n.target)
                if b:
                    out.add(b)
    return out


def walk_stmts(stmts):
    """Every statement in `stmts`, nested blocks included, in source order."""
    for s in stmts:
        yield s
        for field in ("body", "orelse"):
            yield from walk_stmts(getattr(s, field, []) or [])


def binding_counts(stmts):
    """How many statements (assignments and for loops) bind each name;
    writes into an array's elements do not count."""
    counts = {}
    for s in walk_stmts(stmts):
        if isinstance(s, (gast.Assign, gast.For)):
            targets = s.targets if isinstance(s, gast.Assign) else [s.target]
            for t in targets:
                for n in gast.walk(t):
                    if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Store):
                        counts[n.id] = counts.get(n.id, 0) + 1
    return counts
