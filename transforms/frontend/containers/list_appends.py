"""A list built by appends in straight-line code,

    terms = []
    terms.append(x * x)
    y = 3.0 * x
    terms.append(y)
    return terms[0] + terms[1]

is the list literal it ends up as, bound where the last append runs:

    terms_1 = x * x
    y = 3.0 * x
    terms_2 = y
    terms = [terms_1, terms_2]

Each appended value (and each element of the starting literal that is not a
constant) is taken into a variable where Python evaluates it, so a name
rebound between the appends keeps the value it had. The list literal is then
one variable per element (literals.py), with its gradient.

Only appends in the same block as the binding are folded, with no other
mention of the list between the binding and the last append (an append
inside a loop or a branch, a read), and never for a list that is popped
anywhere (a stack): those lists are left as written, for the loop forms
(comprehensions.py) or a refusal."""
import gast

from ...syntax import assign, name, walk


def run(fn_tree, ctx):
    namer = ctx.namer
    nodes = walk(fn_tree)
    if not any(n.__class__ is gast.List for n in nodes):
        return None  # (no list literal to start from: most functions)
    # a list popped anywhere is a stack (a derivative's tape, when s2sad
    # differentiates its own code): left as it is
    stacks = {c.func.value.id for c in nodes if isinstance(c, gast.Call)
              and isinstance(c.func, gast.Attribute) and c.func.attr == "pop"
              and isinstance(c.func.value, gast.Name)}
    _fold_block(fn_tree.body, namer, stacks)
    for node in walk(fn_tree):
        for field in ("body", "orelse"):
            stmts = getattr(node, field, None)
            if node is not fn_tree and isinstance(stmts, list):
                _fold_block(stmts, namer, stacks)
    return fn_tree


def _fold_block(stmts, namer, stacks):
    i = 0
    while i < len(stmts):
        var = _new_list(stmts[i])
        if var is not None and var not in stacks:
            folded = _fold_from(stmts, i, var, namer)
            if folded is not None:
                stmts[i:folded[0]] = folded[1]
                i += len(folded[1])
                continue
        i += 1


def _new_list(s):
    """The name `s` binds to a list literal (`xs = []`, `xs = [a, 1.0]`)."""
    if isinstance(s, gast.Assign) and len(s.targets) == 1 \
            and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.List) \
            and not any(isinstance(e, gast.Starred) for e in s.value.elts):
        return s.targets[0].id
    return None


def _appended(s, var):
    """The value of `var.append(value)` written as a statement, or None."""
    if isinstance(s, gast.Expr) and isinstance(s.value, gast.Call):
        c = s.value
        if isinstance(c.func, gast.Attribute) and c.func.attr == "append" \
                and isinstance(c.func.value, gast.Name) and c.func.value.id == var \
                and len(c.args) == 1 and not c.keywords \
                and not _mentions(c.args[0], var):
            return c.args[0]
    return None


def _mentions(node, var):
    return any(isinstance(n, gast.Name) and n.id == var for n in walk(node))


def _fold_from(stmts, start, var, namer):
    """(end, replacement of stmts[start:end]), or None when the appends after
    stmts[start] cannot be folded."""
    last = None
    for k in range(start + 1, len(stmts)):
        if _appended(stmts[k], var) is not None:
            last = k
        elif _mentions(stmts[k], var):
            break
    if last is None:
        return None
    if any(_mentions(s, var) and _appended(s, var) is None for s in stmts[start + 1:last]):
        return None
    binding = stmts[start]
    out, elts = [], []
    for e in binding.value.elts:
        if isinstance(e, gast.Constant):
            elts.append(e)
            continue
        t = namer.fresh(f"{var}_{len(elts)}")
        out.append(assign(t, e, src=binding))
        elts.append(name(t))
    for s in stmts[start + 1:last + 1]:
        value = _appended(s, var)
        if value is None:
            out.append(s)
            continue
        t = namer.fresh(f"{var}_{len(elts)}")
        out.append(assign(t, value, src=s))
        elts.append(name(t))
    literal = gast.copy_location(gast.List(elts=elts, ctx=gast.Load()), binding.value)
    out.append(assign(var, literal, src=stmts[last]))
    return last + 1, out
