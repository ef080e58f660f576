"""A nested function passed to another nested function, as myia's and
JAX's tests write higher-order code:

    def f(a, b):                                def f(a, b):
        def apply_twice(g, x):                      def scale(x):
            return g(x) * g(x + 10.0)                   return x * b
        def scale(x):                 ->            def apply_twice_scale(x):
            return x * b                                return scale(x) * scale(x + 10.0)
        return apply_twice(scale, a)                return apply_twice_scale(a)

The callee is copied for the functions it is given (its function
parameters replaced by their names), just before the statement making the
call, so each copy is an ordinary nested function that calls nested
functions (closures.py lifts them). A callee no call uses any more is
dropped, so its parameter may share a name with a nested function
(`def fn(f, x): return f(x)` beside `def f(x): ...`).

Left as it is (closures.py then refuses it with the line): a callee that does
anything with a function parameter but call it, binds the passed name
itself, has a default that is not a constant (the copy's def runs later), or
takes *args, **kwargs or keyword-only parameters."""
import copy

import gast

from ...names import fresh_name


def run(tree, ctx):
    """Rewrite, in place, the calls in `tree`'s own statements that pass a
    nested function (by name) to another nested function."""
    defs = _nested_defs(tree.body)
    functions = set(defs) | _lambda_names(tree.body)
    if not defs or len(functions) < 2:
        return None
    taken = {n.id for n in gast.walk(tree) if isinstance(n, gast.Name)} | set(defs)
    changed = False
    for block in _blocks(tree.body):
        k = 0
        while k < len(block):
            made = {}  # (callee, ((parameter, function), ...)) -> copy's name
            for call in _own_calls(block[k]):
                spec = _passed_functions(call, defs, functions)
                if spec is None:
                    continue
                callee, passed = spec
                key = (callee, tuple(sorted(passed.items())))
                if key not in made:
                    new = fresh_name("_".join([callee] + [passed[p] for p in sorted(passed)]),
                                     taken)
                    taken.add(new)
                    made[key] = new
                    block.insert(k, _copy(defs[callee], new, passed, block[k]))
                    k += 1
                _rewrite_call(call, defs[callee], made[key], passed)
                changed = True
            k += 1
    if not changed:
        return None
    _drop_unused(tree, defs)
    return tree


def _nested_defs(stmts):
    return {s.name: s for block in _blocks(stmts) for s in block
            if isinstance(s, gast.FunctionDef)}


def _lambda_names(stmts):
    return {s.targets[0].id for block in _blocks(stmts) for s in block
            if isinstance(s, gast.Assign) and isinstance(s.value, gast.Lambda)
            and len(s.targets) == 1 and isinstance(s.targets[0], gast.Name)}


def _blocks(stmts):
    """`stmts` and the statement lists inside them, not inside nested functions."""
    out = [stmts]
    for s in stmts:
        if isinstance(s, gast.FunctionDef):
            continue
        for field in ("body", "orelse", "finalbody"):
            block = getattr(s, field, None)
            if isinstance(block, list) and block and isinstance(block[0], gast.stmt):
                out += _blocks(block)
        for handler in getattr(s, "handlers", None) or ():
            out += _blocks(handler.body)
    return out


def _own_calls(stmt):
    """The calls of a statement itself: not in its blocks nor in nested functions."""
    if isinstance(stmt, gast.FunctionDef):
        return []
    todo = [getattr(stmt, f) for f in stmt._fields
            if f not in ("body", "orelse", "finalbody", "handlers")]
    out = []
    while todo:
        v = todo.pop()
        if isinstance(v, list):
            todo.extend(v)
        elif isinstance(v, gast.AST) and not isinstance(v, gast.Lambda):
            if isinstance(v, gast.Call):
                out.append(v)
            todo.extend(getattr(v, f) for f in v._fields)
    return out


def _passed_functions(call, defs, functions):
    """(callee, {parameter: passed function}) for a call of a nested function
    given nested functions by name, when the callee only calls them."""
    if not isinstance(call.func, gast.Name) or call.func.id not in defs:
        return None
    callee = defs[call.func.id]
    a = callee.args
    if a.vararg or a.kwarg or a.kwonlyargs or getattr(a, "posonlyargs", None):
        return None
    if not all(_constant(d) for d in a.defaults):
        return None  # the copy's def runs later: a default must not depend on when
    params = [p.id for p in a.args]
    bound = dict(zip(params, call.args))
    for kw in call.keywords:
        if kw.arg is None or kw.arg not in params or kw.arg in bound:
            return None
        bound[kw.arg] = kw.value
    passed = {p: v.id for p, v in bound.items()
              if isinstance(v, gast.Name) and v.id in functions and v.id != callee.name}
    if not passed or len(call.args) > len(params):
        return None
    # the callee's own names (its other parameters too) must not hide the passed ones
    inside = {n.id for n in gast.walk(callee) if isinstance(n, gast.Name)
              and not isinstance(n.ctx, gast.Load)} - set(passed)
    inner_defs = {n.name for n in gast.walk(callee) if isinstance(n, gast.FunctionDef)}
    if (inside | inner_defs) & set(passed.values()) or not _only_called(callee, set(passed)):
        return None
    return callee.name, passed


def _constant(node):
    return isinstance(node, gast.Constant) or (isinstance(node, gast.UnaryOp)
                                               and isinstance(node.operand, gast.Constant))


def _only_called(callee, params):
    parents = {}
    for n in gast.walk(callee):
        for c in gast.iter_child_nodes(n):
            parents[id(c)] = n
    for n in gast.walk(callee):
        if isinstance(n, gast.Name) and n.id in params and not isinstance(n.ctx, gast.Param):
            parent = parents.get(id(n))
            if not (isinstance(n.ctx, gast.Load) and isinstance(parent, gast.Call)
                    and parent.func is n):
                return False
    return True


def _copy(callee, new_name, passed, where):
    """The callee without the parameters in `passed`, calling the functions
    passed for them, named `new_name`, located at the statement `where`."""
    made = copy.deepcopy(callee)
    made.name = new_name
    keep = [(p, d) for p, d in zip(made.args.args, [None] * (len(made.args.args)
                                                             - len(made.args.defaults))
                                   + list(made.args.defaults)) if p.id not in passed]
    made.args.args = [p for p, _ in keep]
    made.args.defaults = [d for _, d in keep if d is not None]
    for n in gast.walk(made):
        if isinstance(n, gast.Name) and n.id in passed and isinstance(n.ctx, gast.Load):
            n.id = passed[n.id]
    return made


def _rewrite_call(call, callee, new_name, passed):
    params = [p.id for p in callee.args.args]
    call.func = gast.copy_location(gast.Name(id=new_name, ctx=gast.Load(), annotation=None,
                                             type_comment=None), call.func)
    call.args = [a for p, a in zip(params, call.args) if p not in passed]
    call.keywords = [kw for kw in call.keywords if kw.arg not in passed]


def _drop_unused(tree, defs):
    """Remove the nested defs nothing refers to any more (repeatedly: a copy
    may have been the last user of another)."""
    while True:
        used = {n.id for n in gast.walk(tree) if isinstance(n, gast.Name)
                and isinstance(n.ctx, gast.Load)}
        unused = {name for name, d in _nested_defs(tree.body).items()
                  if name in defs and name not in used}
        if not unused:
            return
        for block in _blocks(tree.body):
            block[:] = [s for s in block
                        if not (isinstance(s, gast.FunctionDef) and s.name in unused)]
