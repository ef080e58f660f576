"""Python statements and operators spelled as the plain statements they
mean, early in READ (pipeline.py), so reverse and forward mode, Hessians
and compiled code all see plain assignments:

- `if (y := e) > 1:` (the := operator) is `y = e; if y > 1:`, and
  `while (y := e) > 1: body` is `while True: y = e; if not y > 1: break;
  body`, which evaluates it before every test as Python does. A := that
  Python might not evaluate (after `and`/`or`, in a branch of `a if c else
  b`, in a comprehension or a lambda), or whose name the statement reads
  before it, is refused.
- `del t` of a local name the function does not read again before
  assigning it (a read would raise in Python) goes: the variable is freed
  when the function returns. `del x[i]`, `del a.b` and a `del t` that a
  later read makes an error are refused.
- `global G` / `nonlocal v` of names the function only reads go (the names
  resolve to the module's or the enclosing function's values when the
  derivative is generated); assigning such a name is refused.
- `y: float = e` (an annotated assignment) is `y = e`, and `y: float`
  alone (which binds nothing) goes: Python does not evaluate the
  annotations of a function's local variables.
- `with np.errstate(...):` whose settings are all "ignore" or "warn" is
  its body: it only changes whether numpy warns of a division by zero or
  an overflow, which compiled code never does (a setting of "raise",
  "call", "print" or "log", or `as`, is refused with the other with
  blocks).
- `try: body finally: cleanup` without return, break or continue in it is
  `body; cleanup` (when the body raises, the error propagates either way).
  `try ... except` is refused: its handler runs only when the body raises,
  which compiled code cannot catch by type, and a derivative of the body
  alone would be a guess at what the user meant.
"""
import gast
import numpy as np

from ...errors import UnsupportedSyntaxError
from ...syntax import walk

_TRY_HINT = ("s2sad differentiates the code that runs when nothing is raised, and compiled "
             "code cannot catch an exception by its type. Test for the failing case with "
             "an if (if np.all(x > 0.0): ... else: fallback), or catch the error around "
             "the call of the derivative")


def run(tree, ctx):
    """Rewrite `tree` (a FunctionDef) in place (the function's namespace
    tells np.errstate)."""
    stored = {n.id for n in walk(tree) if isinstance(n, gast.Name)
              and isinstance(n.ctx, gast.Store)}
    _Block(ctx.location, stored, ctx.namespace or {}).block(tree.body, [])
    return tree


class _Block:
    def __init__(self, location, stored, namespace):
        self.location = location
        self.stored = stored
        self.namespace = namespace

    def refuse(self, construct, node, hint):
        return UnsupportedSyntaxError(construct, self.location, node, hint)

    def block(self, stmts, outer):
        """Rewrite the list `stmts` in place; `outer` is the chain of
        (statement list, index, statement) enclosing it, innermost last."""
        if any(isinstance(s, gast.Try) for s in stmts):
            spliced = []  # (first, so that a del in the body sees the statements after it)
            for s in stmts:
                spliced += self.try_(s) if isinstance(s, gast.Try) else [s]
            stmts[:] = spliced
        out = []
        for i, s in enumerate(stmts):
            out.extend(self.statement(s, stmts, i, outer))
        stmts[:] = out or [gast.Pass()]

    def statement(self, s, stmts, i, outer):
        if isinstance(s, (gast.FunctionDef, gast.ClassDef)):
            return [s]  # (a custom gradient's backward: checked on its own)
        if isinstance(s, (gast.Global, gast.Nonlocal)):
            assigned = [n for n in s.names if n in self.stored]
            if assigned:
                kind = "global" if isinstance(s, gast.Global) else "nonlocal"
                raise self.refuse(
                    f"assigning the {kind} variable '{assigned[0]}'", s,
                    "The derivative would not write it back. Pass the value as an argument "
                    "and return the new one")
            return []
        if isinstance(s, gast.Delete):
            return self.delete(s, stmts, i, outer)
        if isinstance(s, gast.With) and self.quiet_errstate(s):
            self.block(s.body, outer + [(stmts, i, s)])
            return s.body
        if isinstance(s, gast.AnnAssign):
            if s.value is None:
                return []
            return [gast.copy_location(gast.Assign(targets=[s.target], value=s.value,
                                                   type_comment=None), s)]
        for field in ("body", "orelse"):
            inner = getattr(s, field, None)
            if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                self.block(inner, outer + [(stmts, i, s)])
        return self.walrus(s)

    # ---- try -------------------------------------------------------------
    def try_(self, s):
        if s.handlers:
            raise self.refuse("try ... except", s, _TRY_HINT)
        jumps = [n for n in walk(s) if isinstance(n, gast.Return)] + _loop_exits(
            s.body + s.finalbody)
        if jumps:
            raise self.refuse(f"{_jump_word(jumps[0])} inside try ... finally", jumps[0],
                              "Move it after the try statement")
        return s.body + s.finalbody

    # ---- del -------------------------------------------------------------
    def quiet_errstate(self, s):
        """`with np.errstate(divide="ignore", ...):` (no `as`) whose settings
        are all quiet."""
        return len(s.items) == 1 and s.items[0].optional_vars is None \
            and isinstance(s.items[0].context_expr, gast.Call) \
            and _errstate(s.items[0].context_expr.func, self.namespace) \
            and _quiet(s.items[0].context_expr)

    def delete(self, s, stmts, i, outer):
        for t in s.targets:
            if not isinstance(t, gast.Name):
                what = "del of an element or a slice" if isinstance(t, gast.Subscript) else \
                    "del of an attribute" if isinstance(t, gast.Attribute) else "this del"
                raise self.refuse(what, s, "s2sad follows values by name and cannot follow "
                                  "the removal: build a new array (np.delete) or list instead")
            if _read_after(t.id, stmts, i, outer):
                raise self.refuse(
                    f"del {t.id} followed by a read of '{t.id}' before it is assigned again "
                    f"(which raises NameError in Python)", s,
                    "Remove the read, or the del")
        return []

    # ---- := --------------------------------------------------------------
    def walrus(self, s):
        exprs = _evaluated(s)
        named = [n for e in exprs for n in _post_order(e) if isinstance(n, gast.NamedExpr)]
        if not named:
            return [s]
        parents = {}
        for e in exprs:
            for n in walk(e):
                for c in gast.iter_child_nodes(n):
                    parents[id(c)] = n
        order = [n for e in exprs for n in walk(e)]  # (a pre-order: Python's order of reads)
        position = {id(n): k for k, n in enumerate(order)}
        hoisted = []
        for ne in named:
            self.check_walrus(ne, parents, exprs)
            target = ne.target.id
            before = [n for n in order[:position[id(ne)]] if isinstance(n, gast.Name)
                      and n.id == target and isinstance(n.ctx, gast.Load)
                      and not _inside(n, ne, parents)]
            if before:
                raise self.refuse(f"the := operator binding '{target}', which the statement "
                                  f"reads before it", ne,
                                  "Assign the value in its own statement first")
            hoisted.append(gast.copy_location(gast.Assign(
                targets=[gast.Name(id=target, ctx=gast.Store(), annotation=None,
                                   type_comment=None)],
                value=ne.value, type_comment=None), s))
            _replace(ne, gast.Name(id=target, ctx=gast.Load(), annotation=None,
                                   type_comment=None), parents, s)
        if isinstance(s, gast.While):
            # evaluated before every test: inside the loop, before a test that breaks
            test = gast.copy_location(gast.If(
                test=gast.UnaryOp(op=gast.Not(), operand=s.test),
                body=[gast.copy_location(gast.Break(), s)], orelse=[]), s)
            s.test = gast.Constant(value=True, kind=None)
            s.body = hoisted + [test] + s.body
            return [s]
        return hoisted + [s]

    def check_walrus(self, ne, parents, exprs):
        node = ne
        while id(node) in parents:
            parent = parents[id(node)]
            conditional = (isinstance(parent, gast.BoolOp) and node is not parent.values[0]) or \
                (isinstance(parent, gast.IfExp) and node is not parent.test)
            if conditional:
                raise self.refuse("the := operator where Python may not evaluate it (after "
                                  "and/or, or in a branch of a conditional expression)", ne,
                                  "Assign the value in its own statement first")
            if isinstance(parent, (gast.ListComp, gast.SetComp, gast.DictComp,
                                   gast.GeneratorExp, gast.Lambda)):
                raise self.refuse("the := operator inside a comprehension or a lambda", ne,
                                  "Write the loop out")
            node = parent
        if not isinstance(ne.target, gast.Name):
            raise self.refuse("this := target", ne, "Use a name")


_QUIET = {"ignore", "warn"}  # (settings under which numpy raises nothing)


def _errstate(func, namespace):
    """Whether `func` (a callee expression) is numpy's errstate."""
    if isinstance(func, gast.Name):
        return namespace.get(func.id) is np.errstate
    return isinstance(func, gast.Attribute) and func.attr == "errstate" \
        and isinstance(func.value, gast.Name) and namespace.get(func.value.id) is np


def _quiet(call):
    return not call.args and all(
        k.arg is not None and isinstance(k.value, gast.Constant) and k.value.value in _QUIET
        for k in call.keywords)


def _evaluated(s):
    """The expressions a statement evaluates itself, in Python's order (not
    those of the statements it holds)."""
    if isinstance(s, gast.Assign):
        return [s.value] + s.targets
    if isinstance(s, gast.AugAssign):
        return [s.target, s.value]
    if isinstance(s, gast.AnnAssign):
        return [e for e in (s.value, s.target) if e is not None]
    if isinstance(s, (gast.If, gast.While)):
        return [s.test]
    if isinstance(s, gast.For):
        return [s.iter]
    if isinstance(s, (gast.Expr, gast.Return)):
        return [s.value] if s.value is not None else []
    if isinstance(s, gast.Assert):
        return [e for e in (s.test, s.msg) if e is not None]
    if isinstance(s, gast.Raise):
        return [s.exc] if s.exc is not None else []
    return []


def _post_order(node):
    for c in gast.iter_child_nodes(node):
        yield from _post_order(c)
    yield node


def _inside(node, ancestor, parents):
    while id(node) in parents:
        node = parents[id(node)]
        if node is ancestor:
            return True
    return False


def _replace(old, new, parents, stmt):
    parent = parents.get(id(old), stmt)
    gast.copy_location(new, old)
    for field, value in gast.iter_fields(parent):
        if value is old:
            setattr(parent, field, new)
            return
        if isinstance(value, list):
            for k, v in enumerate(value):
                if v is old:
                    value[k] = new
                    return
    raise AssertionError("a := without its parent")


def _loop_exits(stmts):
    """break and continue statements of `stmts` outside loops nested in them."""
    out = []
    for s in stmts:
        if isinstance(s, (gast.Break, gast.Continue)):
            out.append(s)
        elif not isinstance(s, (gast.For, gast.While, gast.FunctionDef)):
            for field in ("body", "orelse", "finalbody"):
                out += _loop_exits(getattr(s, field, None) or [])
            for h in getattr(s, "handlers", None) or []:
                out += _loop_exits(h.body)
    return out


def _jump_word(node):
    return {gast.Return: "return", gast.Break: "break", gast.Continue: "continue"}[type(node)]


def _reads(node, var):
    return any(isinstance(n, gast.Name) and n.id == var and isinstance(n.ctx, gast.Load)
               for n in walk(node))


def _rebinds(s, var):
    """`var = <value not reading var>` at the top of a block."""
    return isinstance(s, gast.Assign) and any(
        isinstance(t, gast.Name) and t.id == var for t in s.targets) and not _reads(s.value, var)


def _read_after(var, stmts, i, outer):
    """Whether `var` may be read after statement i of `stmts` before it is
    assigned again: the rest of each enclosing block, and, inside a loop,
    the loop's body from its start (the next iteration)."""
    def scan(block, start):
        for s in block[start:]:
            if _rebinds(s, var):
                return False, True
            if _reads(s, var):
                return True, False
        return False, False

    read, bound = scan(stmts, i + 1)
    if read or bound:
        return read
    for block, k, s in reversed(outer):
        if isinstance(s, (gast.For, gast.While)):
            if isinstance(s, gast.While) and _reads(s.test, var):
                return True
            read, bound = scan(s.body, 0)
            if read:
                return True
        read, bound = scan(block, k + 1)
        if read or bound:
            return read
    return False
