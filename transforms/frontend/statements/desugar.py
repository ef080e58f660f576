"""Rewrite the user's control flow into the small language the reverse pass
understands: `for` over `range(...)`, `while`, `if`, and a single `return`
at the end of the function.

* `a += b` becomes `a = a + b`.
* `for row in X:` becomes `for k in range(X.shape[0]): row = X[k]`.
* `break`, `continue` and early `return` become guard flags: the rest of the
  block runs under `if not flag:`. A `for` loop that can be left early is
  turned into a `while` loop over an explicit counter, so the reverse sweep
  replays exactly the iterations that ran.
"""
import ast

import gast

from ...emit.unparse import stmt_source
from ...errors import UnsupportedSyntaxError
from ...syntax import Transformer, assign, binop, call, clone, const, name, store, walk

_EXITS = (gast.Break, gast.Continue, gast.Return)


def run(fn_tree, ctx):
    """Desugar `fn_tree` in place (`ctx.marker_of(expr)` names the s2sad
    marker an expression denotes)."""
    location, namer, marker_of = ctx.location, ctx.namer, ctx.marker_of
    body = [s for s in fn_tree.body if not _is_docstring(s)]
    for s in body:
        _TestsWithoutMarkers(marker_of).visit(s)
        _FoldConditionals().visit(s)
    body = _fold_constant_tests(body)
    body = [_rewrite_simple(s, location, namer, marker_of) for s in body]
    body = _flatten(body)
    returns = [n for n in walk(gast.Module(body=body, type_ignores=[]))
               if isinstance(n, gast.Return)]
    if not returns:
        raise UnsupportedSyntaxError("a function without a return statement",
                                     location, fn_tree, "Return the value to differentiate")
    for r in returns:
        if r.value is None:
            raise UnsupportedSyntaxError("a return without a value", location, r,
                                         "Return the value to differentiate")
    simple_return = (len(returns) == 1 and body[-1] is returns[0])
    # returns of tuples of one length keep one variable per element, so that
    # each output has its own adjoint
    arities = {len(r.value.elts) if isinstance(r.value, gast.Tuple) else None for r in returns}
    arity = arities.pop() if len(arities) == 1 else None
    lowering = _Lowering(location, namer, simple_return, arity)
    if simple_return:
        body = lowering.block(body[:-1], None) + [body[-1]]
    else:
        init = [assign(lowering.returned, const(False))]
        body = init + lowering.block(body, None)
        body.append(gast.Return(value=lowering.result_expr(gast.Load())))
    fn_tree.body = body
    return fn_tree


def _is_docstring(s):
    return isinstance(s, gast.Expr) and isinstance(s.value, gast.Constant) \
        and isinstance(s.value.value, str)


def _flatten(stmts):
    out = []
    for s in stmts:
        out.extend(s if isinstance(s, list) else [s])
    return out


def _mark_constant(stmts):
    for s in stmts:
        s.s2sad_constant = True
        for field in ("body", "orelse"):
            _mark_constant(getattr(s, field, []) or [])


def _rewrite_simple(stmt, location, namer, marker_of):
    """Augmented assignment, iteration over arrays, and the markers."""
    if isinstance(stmt, gast.With):
        items = stmt.items
        if len(items) == 1 and isinstance(items[0].context_expr, gast.Call) \
                and marker_of(items[0].context_expr.func) == "stop_recording" \
                and items[0].optional_vars is None:
            body = _flatten([_rewrite_simple(s, location, namer, marker_of) for s in stmt.body])
            _mark_constant(body)  # the block's results are constants
            return body
        if len(items) == 1 and isinstance(items[0].context_expr, gast.Call) \
                and stmt_source(items[0].context_expr.func) == "numba.objmode" \
                and not items[0].context_expr.keywords \
                and all(isinstance(s, gast.Expr) for s in stmt.body):
            # (a derivative differentiated again: a block assigning nothing, the
            # user's print(i, end=" "), runs where it ran, as the user's line)
            body = _flatten([_rewrite_simple(s, location, namer, marker_of) for s in stmt.body])
            _mark_constant(body)
            return body
        if len(items) == 1 and isinstance(items[0].context_expr, gast.Call) \
                and stmt_source(items[0].context_expr.func) == "numba.objmode":
            raise UnsupportedSyntaxError(
                "code a derivative runs in numba's object mode (a random generator, print "
                "with keywords, try ... except) in a derivative differentiated again",
                location, stmt, "Take the second derivative of a function without it: draw "
                "the random numbers outside and pass them as an argument")
        raise UnsupportedSyntaxError("a with block", location, stmt,
                                     "Only `with s2sad.stop_recording():` and `with "
                                     "np.errstate(...)` set to \"ignore\" or \"warn\" are "
                                     "understood")
    if isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) \
            and marker_of(stmt.value.func) == "reset_recording":
        stmt.s2sad_reset = True
        return stmt
    if isinstance(stmt, gast.Assert):  # runs in the forward sweep, as a raise does
        error = call("AssertionError", *([stmt.msg] if stmt.msg is not None else []))
        check = gast.If(test=gast.UnaryOp(op=gast.Not(), operand=stmt.test),
                        body=[gast.copy_location(gast.Raise(exc=error, cause=None), stmt)],
                        orelse=[])
        return gast.copy_location(check, stmt)
    if isinstance(stmt, gast.AugAssign):
        target_load = clone(stmt.target)
        for n in walk(target_load):
            if hasattr(n, "ctx"):
                n.ctx = gast.Load()
        new = assign(stmt.target, binop(target_load, stmt.op, stmt.value), src=stmt)
        if isinstance(stmt.target, gast.Name):
            new.s2sad_inplace = True  # on an array, x += e writes in place: aliases.py
        return new
    if isinstance(stmt, gast.Assign) and len(stmt.targets) > 1:
        raise UnsupportedSyntaxError("chained assignment (a = b = ...)", location, stmt,
                                     "Assign each name separately")
    for field in ("body", "orelse"):
        if hasattr(stmt, field):
            setattr(stmt, field, _flatten([_rewrite_simple(s, location, namer, marker_of)
                                           for s in getattr(stmt, field)]))
    if isinstance(stmt, gast.For):
        _mark_parallel(stmt, location, marker_of)
        return _rewrite_for_target(stmt, location, namer)
    return stmt


def _mark_parallel(stmt, location, marker_of):
    """`for i in prange(n)` (numba's): a loop over range(n) marked
    `s2sad_parallel` (its independence is checked by parallel.py)."""
    it = stmt.iter
    if not (isinstance(it, gast.Call) and marker_of(it.func) == "prange"):
        return
    if it.keywords or not 1 <= len(it.args) <= 2:
        raise UnsupportedSyntaxError("prange with a step or keywords", location, stmt,
                                     "Write prange(n) or prange(start, stop), as numba takes")
    if _contains(stmt.body, (gast.Break,), False) or _contains(stmt.body, (gast.Return,), True):
        raise UnsupportedSyntaxError("break or return in a prange loop", location, stmt,
                                     "numba runs the iterations of a prange loop in any "
                                     "order: leave the loop after it, or use range")
    it.func = name("range")
    stmt.s2sad_parallel = True


def _is_range(node):
    return (isinstance(node, gast.Call) and isinstance(node.func, gast.Name)
            and node.func.id == "range" and not node.keywords and 1 <= len(node.args) <= 3)


def _rewrite_for_target(stmt, location, namer):
    if not isinstance(stmt.target, gast.Name):
        raise UnsupportedSyntaxError("a for loop with a tuple target", location, stmt,
                                     "Loop over range(...) and index inside the loop")
    if _is_range(stmt.iter):
        return stmt
    if isinstance(stmt.iter, gast.Call) and not getattr(stmt.iter, "s2sad_array", False):
        fname = getattr(stmt.iter.func, "id", getattr(stmt.iter.func, "attr", "?"))
        raise UnsupportedSyntaxError(f"a for loop over {fname}(...)", location, stmt,
                                     "Loop over range(...) and index inside the loop")
    # for row in X:  ->  for k in range(len(X)): row = X[k]  (an array or a tuple)
    pre = []
    seq = stmt.iter
    if not isinstance(seq, gast.Name):
        seq_name = namer.fresh("seq")
        pre.append(assign(seq_name, seq, src=stmt))
        seq = name(seq_name)
    k = namer.fresh(stmt.target.id + "_index")
    length = call("len", clone(seq))
    element = assign(stmt.target, gast.Subscript(value=clone(seq), slice=name(k),
                                                 ctx=gast.Load()), src=stmt)
    stmt.target = store(k)
    stmt.iter = call("range", length)
    stmt.body = [element] + stmt.body
    return pre + [stmt]


def _contains(stmts, kinds, into_loops):
    for s in stmts:
        if isinstance(s, kinds):
            return True
        if isinstance(s, (gast.For, gast.While)) and not into_loops:
            # break/continue inside an inner loop belong to that loop
            if gast.Return in kinds and _contains(s.body, (gast.Return,), True):
                return True
            continue
        for field in ("body", "orelse"):
            if _contains(getattr(s, field, []) or [], kinds, into_loops):
                return True
    return False


class _Loop:
    def __init__(self, break_flag, continue_flag):
        self.break_flag = break_flag
        self.continue_flag = continue_flag


class _Lowering:
    def __init__(self, location, namer, simple_return, arity=None):
        self.location = location
        self.namer = namer
        self.returned = None if simple_return else namer.fresh("returned")
        self.result = None if simple_return else (
            namer.fresh("result") if arity is None else [namer.fresh("result") for _ in range(arity)])

    def result_expr(self, ctx):
        if isinstance(self.result, list):
            return gast.Tuple(elts=[gast.Name(id=r, ctx=ctx, annotation=None, type_comment=None)
                                    for r in self.result], ctx=ctx)
        return gast.Name(id=self.result, ctx=ctx, annotation=None, type_comment=None)

    def _not(self, flags):
        test = name(flags[0]) if len(flags) == 1 else gast.BoolOp(
            op=gast.Or(), values=[name(f) for f in flags])
        return gast.UnaryOp(op=gast.Not(), operand=test)

    def block(self, stmts, loop):
        """Lower `stmts`; flags set by an exit guard every statement after it."""
        out = []
        for idx, s in enumerate(stmts):
            if isinstance(s, gast.Return):
                result = assign(self.result_expr(gast.Store()), s.value, src=s)
                result.s2sad_return = True  # nothing after it runs: aliases.py
                out.append(result)
                out.append(assign(self.returned, const(True), src=s))
                return out
            if isinstance(s, gast.Break):
                out.append(assign(loop.break_flag, const(True), src=s))
                return out
            if isinstance(s, gast.Raise):  # nothing after it runs
                out.append(s)
                return out
            if isinstance(s, gast.Continue):
                out.append(assign(loop.continue_flag, const(True), src=s))
                return out
            flags = self._flags_set_by(s, loop)
            out.extend(self.statement(s, loop))
            if flags:
                rest = self.block(stmts[idx + 1:], loop)
                if rest:
                    out.append(gast.If(test=self._not(flags), body=rest, orelse=[]))
                return out
        return out

    def _flags_set_by(self, s, loop):
        if isinstance(s, (gast.For, gast.While)):
            return [self.returned] if self.returned and _contains(s.body, (gast.Return,), True) else []
        if not isinstance(s, gast.If):
            return []
        flags = []
        if loop is not None and _contains([s], (gast.Break,), False):
            flags.append(loop.break_flag)
        if loop is not None and _contains([s], (gast.Continue,), False):
            flags.append(loop.continue_flag)
        if self.returned and _contains([s], (gast.Return,), True):
            flags.append(self.returned)
        return flags

    def statement(self, s, loop):
        if isinstance(s, gast.If):
            s.body = self.block(s.body, loop) or [gast.Pass()]
            s.orelse = self.block(s.orelse, loop)
            return [s]
        if isinstance(s, (gast.For, gast.While)):
            return self.loop(s)
        return [s]

    def loop(self, s):
        has_break = _contains(s.body, (gast.Break,), False)
        has_continue = _contains(s.body, (gast.Continue,), False)
        has_return = self.returned is not None and _contains(s.body, (gast.Return,), True)
        brk = self.namer.fresh("stop_loop") if has_break else None
        cont = self.namer.fresh("skip_rest") if has_continue else None
        inner = _Loop(brk, cont)
        body = self.block(s.body, inner)
        if cont:
            body = [assign(cont, const(False))] + body
        exits = [f for f in (brk, self.returned if has_return else None) if f]
        pre = [assign(brk, const(False), src=s)] if brk else []
        if not exits:
            s.body = body or [gast.Pass()]
            return pre + [s]
        keep_going = self._not(exits)
        if isinstance(s, gast.While):
            forever = isinstance(s.test, gast.Constant) and s.test.value is True
            s.test = keep_going if forever else gast.BoolOp(op=gast.And(),
                                                            values=[keep_going, s.test])
            s.body = body
            return pre + [s]
        return pre + self._for_as_while(s, body, keep_going)

    def _for_as_while(self, s, body, keep_going):
        """`for i in range(a, b, c)` that may stop early, as a counted while."""
        i = s.target.id
        args = s.iter.args
        start = args[0] if len(args) > 1 else const(0)
        step = args[2] if len(args) == 3 else const(1)
        count = self.namer.fresh(i + "_count")
        k = self.namer.fresh(i + "_iter")
        pre = [assign(count, call("len", clone(s.iter)), src=s), assign(k, const(0), src=s)]
        value = name(k)
        if not (isinstance(step, gast.Constant) and step.value == 1):
            value = binop(value, gast.Mult(), clone(step))
        if not (isinstance(start, gast.Constant) and start.value == 0):
            value = binop(clone(start), gast.Add(), value)
        head = [assign(i, value, src=s), assign(k, binop(name(k), gast.Add(), const(1)), src=s)]
        test = gast.BoolOp(op=gast.And(), values=[
            keep_going, gast.Compare(left=name(k), ops=[gast.Lt()], comparators=[name(count)])])
        loop = gast.While(test=test, body=head + body, orelse=[])
        gast.copy_location(loop, s)
        return pre + [loop]


def _fold_constant_tests(stmts):
    """`if 0.5 > 1.0:` keeps only the branch that runs: a dead branch's exits
    would otherwise shape the loop around it, and numba prunes dead
    branches, leaving a tape appended only there without a type. In `if
    f(x) > 0 and 0.5 > 1.0:` the test still runs (it may raise), its body
    never (Python compiles it away)."""
    out = []
    for s in stmts:
        truth = _constant_truth(s.test) if isinstance(s, (gast.If, gast.While)) else None
        if truth is not None and isinstance(s, gast.If):
            out += _fold_constant_tests(s.body if truth else s.orelse)
            continue
        if truth is None and isinstance(s, gast.If):
            decided = _decided_by_a_constant(s.test)
            if decided is False:
                s.body = [gast.Pass()]
            elif decided is True:
                s.orelse = []
        if truth is False:  # a while loop that never runs
            out += _fold_constant_tests(s.orelse)
            continue
        for field in ("body", "orelse"):
            if isinstance(getattr(s, field, None), list):
                setattr(s, field, _fold_constant_tests(getattr(s, field)))
        out.append(s)
    return out


class _TestsWithoutMarkers(Transformer):
    """A test is never differentiated: `stop_gradient(e)` in it is `e` (the
    derivative module does not import the markers). So `if
    stop_gradient(0.5) <= 0.7:` is seen to be constant, as numba sees it
    once the marker is gone (it prunes the branch that never runs)."""

    def __init__(self, marker_of):
        self.marker_of = marker_of

    def visit_If(self, node):
        self.generic_visit(node)
        node.test = _without_stop_gradient(node.test, self.marker_of)
        return node

    visit_While = visit_IfExp = visit_If


def _without_stop_gradient(test, marker_of):
    """`test` with every `stop_gradient(e)` in it replaced by `e`."""
    return _StripStopGradient(marker_of).visit(test)


class _StripStopGradient(Transformer):
    def __init__(self, marker_of):
        self.marker_of = marker_of

    def visit_Call(self, node):
        self.generic_visit(node)
        if self.marker_of(node.func) == "stop_gradient" and len(node.args) == 1:
            return node.args[0]
        return node


class _FoldConditionals(Transformer):
    """`a if 0.3 >= 0.5 else b` is `b`."""

    def visit_IfExp(self, node):
        self.generic_visit(node)
        truth = _constant_truth(node.test)
        if truth is None:
            return node
        return node.body if truth else node.orelse


def _decided_by_a_constant(test):
    """The truth of `a and 0.5 > 1.0` (False) or `a or 1 < 2` (True): an
    and/or with an operand that decides it, whatever the others are."""
    if not isinstance(test, gast.BoolOp):
        return None
    deciding = isinstance(test.op, gast.Or)
    if any(_constant_truth(v) is deciding for v in test.values):
        return deciding
    return None


def _constant_truth(test):
    """The truth of a test made of constants only (None if it reads
    anything), or of `and`/`or` decided by a constant operand ahead of any
    that reads something (`0.5 > 1.0 and x > 0` is False)."""
    if isinstance(test, gast.BoolOp):
        for value in test.values:
            truth = _constant_truth(value)
            if truth is None:
                return None
            if truth == isinstance(test.op, gast.Or):  # decides the whole test
                return truth
        return not isinstance(test.op, gast.Or)
    if any(isinstance(n, (gast.Name, gast.Call, gast.Attribute, gast.Subscript))
           for n in walk(test)):
        return None
    expr = ast.Expression(body=gast.gast_to_ast(test))
    try:
        return bool(eval(compile(ast.fix_missing_locations(expr), "<test>", "eval"), {}))
    except Exception:  # noqa: BLE001 - anything unusual is left to run time
        return None

