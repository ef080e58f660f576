"""A lambda written as an argument of a call of a Python helper
(`apply(lambda u: u * u, x)`) is bound to a name of its own first, in a
statement just before the one holding the call:

    y = apply(lambda u: u * w, x)     ->    lambda_12 = lambda u: u * w
                                            y = apply(lambda_12, x)

Making a lambda has no effect, and what it captures is read when it is
called, so the order is Python's. closures.py then lifts it like any nested
function, and passed_functions.py specialises the helper for it."""
import gast

from .passed_functions import bound_names, helper_of
from ...names import fresh_name
from ...syntax import name


def run(tree, ctx):
    """Bind each lambda written as an argument of a helper call to a name,
    in a statement just before the one holding the call (closures.py then
    lifts it as any nested function)."""
    namespace = ctx.namespace
    local = bound_names(tree)
    taken = set(namespace) | {n.id for n in gast.walk(tree) if isinstance(n, gast.Name)}

    def visit(stmts):
        k = 0
        while k < len(stmts):
            s = stmts[k]
            before = []
            for node in _own_nodes(s):
                if not isinstance(node, gast.Call) or helper_of(node, namespace, local) is None:
                    continue
                slots = [(node.args, j) for j in range(len(node.args))]
                slots += [(node.keywords, j) for j in range(len(node.keywords))]
                for holder, j in slots:
                    value = holder[j].value if holder is node.keywords else holder[j]
                    if not isinstance(value, gast.Lambda):
                        continue
                    n = fresh_name(f"lambda_{value.lineno}", taken, sep="_")
                    target = gast.Name(id=n, ctx=gast.Store(), annotation=None,
                                       type_comment=None)
                    stmt = gast.copy_location(gast.Assign(targets=[target], value=value,
                                                          type_comment=None), value)
                    before.append(stmt)
                    ref = gast.copy_location(name(n), value)
                    if holder is node.keywords:
                        holder[j].value = ref
                    else:
                        holder[j] = ref
            for field in ("body", "orelse"):
                block = getattr(s, field, None)
                if isinstance(block, list) and not isinstance(s, gast.FunctionDef):
                    visit(block)
            stmts[k:k] = before
            k += len(before) + 1

    visit(tree.body)
    return tree


def _own_nodes(stmt):
    """Nodes of a statement, not of its blocks nor of nested functions."""
    todo = [getattr(stmt, f) for f in stmt._fields if f not in ("body", "orelse")]
    out = []
    while todo:
        v = todo.pop()
        if isinstance(v, list):
            todo.extend(v)
            continue
        if not isinstance(v, gast.AST):
            continue
        out.append(v)
        if isinstance(v, (gast.Lambda, gast.FunctionDef)):
            continue
        todo.extend(getattr(v, f) for f in v._fields)
    return out
