"""Comprehensions become the arrays and loops the later passes differentiate.

Python semantics are kept exactly, or the construct is refused:

- `sum(e for i in range(n))` (a generator or list comprehension summed
  by the builtin) is a loop adding into a total that starts at 0, as
  Python's sum does;
- any other list comprehension `[e for i in seq]` is materialised into an
  array, filled by a loop whose first iteration is peeled to learn the
  element's shape (`empty_stack`): numpy takes the array wherever it took
  the list (`np.array`, `np.stack`, `np.sum`, `max`, indexing, `len`,
  iteration). A name bound to one may not be used as a list (`+`, `*`,
  methods, comparisons, passed to a helper), since an array behaves
  differently there (materialised_lists.py refuses those uses).

The comprehension's variables are renamed (they do not leak into the
function, as in Python 3)."""
import builtins

import gast

from .common import (changed_while_iterated, has_comprehension, is_builtin, is_range, mentions,
                     range_element, stacks)
from ...analysis.aliases import memory_sources
from ...errors import UnsupportedSyntaxError
from ...syntax import Transformer, assign, attr, call, clone, const, name, store, walk

EMPTY_STACK = "empty_stack"  # the runtime helper allocating a materialised list
STACK_ELEMENT = "stack_element"  # an element after the first: shaped as the first, or raises
_COMPREHENSIONS = (gast.ListComp, gast.GeneratorExp)


def run(tree, ctx):
    """Comprehensions lowered to loops (the names bound to the arrays they
    fill: `ctx.materialised`, which materialised_lists.py checks)."""
    location = ctx.location
    lowering = _Comprehensions(location, ctx.namer, ctx.resolve, location.is_generated)
    tree.body = lowering.block(tree.body)
    for runtime_name in (EMPTY_STACK, STACK_ELEMENT) if lowering.allocates else ():
        helper = ctx.runtime_objects.get(runtime_name)
        if ctx.namespace.setdefault(runtime_name, helper) is not helper:
            raise UnsupportedSyntaxError(
                f"a list comprehension in a module with a global named '{runtime_name}'",
                location, tree, f"Rename the global '{runtime_name}'")
    ctx.materialised = lowering.materialised
    return tree


# ---- comprehensions ---------------------------------------------------------

class _Comprehensions:
    def __init__(self, location, namer, resolve, generated=False):
        self.location = location
        self.generated = generated  # lists a derivative uses as tapes stay stacks
        self.namer = namer
        self.resolve = resolve
        self.materialised = {}  # name bound to a materialised list -> its comprehension
        self.allocates = False  # whether the function now calls empty_stack

    def block(self, stmts):
        out, i = [], 0
        while i < len(stmts):
            appended = self.appended_loop(stmts, i)
            if appended is not None:
                more, i = appended
                out += more
                continue
            out += self.statement(stmts[i])
            i += 1
        return out

    def statement(self, s):
        if isinstance(s, gast.While):
            if has_comprehension(s.test):
                raise self.refuse(s.test, "a comprehension in a while condition",
                                  "Compute it in the loop body into a variable")
            s.body, s.orelse = self.block(s.body), self.block(s.orelse)
            return [s]
        if isinstance(s, gast.If):
            # (hoist makes a visitor class: only for a test with a comprehension)
            before = []
            if has_comprehension(s.test):
                before, s.test = self.hoist(s.test)
            s.body, s.orelse = self.block(s.body), self.block(s.orelse)
            return before + [s]
        if isinstance(s, gast.For):
            before = []
            if has_comprehension(s.iter):
                before, s.iter = self.hoist(s.iter)
            s.body, s.orelse = self.block(s.body), self.block(s.orelse)
            if self.needs_counter(s):
                return before + self.counted(s)
            return before + [s]
        if isinstance(s, (gast.FunctionDef, gast.With)):
            s.body = self.block(s.body)
            return [s]
        if not has_comprehension(s):
            return [s]
        if isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(
                s.targets[0], gast.Name) and isinstance(s.value, gast.ListComp) \
                and not mentions(s.value, s.targets[0].id):
            # v = [e for ...]: filled in place, under the user's name
            target = s.targets[0].id
            self.materialised[target] = s.value
            return self.materialise(s.value, target)
        before = []
        for field in ("value", "test", "msg", "exc", "target"):
            node = getattr(s, field, None)
            if isinstance(node, gast.AST):
                more, new = self.hoist(node)
                before += more
                setattr(s, field, new)
        return before + [s]

    def hoist(self, expr):
        """(statements computing the comprehensions in `expr`, `expr` reading them)."""
        stmts = []
        lowering = self

        class Hoist(Transformer):
            conditional = 0

            def visit_IfExp(self, node):
                node.test = self.visit(node.test)
                self.conditional += 1
                node.body, node.orelse = self.visit(node.body), self.visit(node.orelse)
                self.conditional -= 1
                return node

            def visit_BoolOp(self, node):
                node.values[0] = self.visit(node.values[0])
                self.conditional += 1
                node.values[1:] = [self.visit(v) for v in node.values[1:]]
                self.conditional -= 1
                return node

            def visit_Lambda(self, node):
                return node  # its own scope: lowered when it is lifted

            def visit_Call(self, node):
                if is_builtin(lowering.resolve, node.func, builtins.sum) and node.args \
                        and isinstance(node.args[0], _COMPREHENSIONS):
                    self.check_unconditional(node)
                    start = node.args[1] if len(node.args) > 1 else next(
                        (k.value for k in node.keywords if k.arg == "start"), const(0))
                    start = self.visit(start)
                    total = lowering.namer.fresh("total")
                    stmts.extend(lowering.accumulate(node.args[0], total, start))
                    return name(total)
                test = next((f for f in (builtins.any, builtins.all) if is_builtin(
                    lowering.resolve, node.func, f)), None)
                if test is not None and len(node.args) == 1 and not node.keywords \
                        and isinstance(node.args[0], _COMPREHENSIONS):
                    self.check_unconditional(node)
                    flag = lowering.namer.fresh("found" if test is builtins.any else "holds")
                    stmts.extend(lowering.first_match(node.args[0], flag, test is builtins.any))
                    return name(flag)
                reduce = next((f for f in (builtins.max, builtins.min, builtins.list,
                                           builtins.tuple) if is_builtin(
                    lowering.resolve, node.func, f)), None)
                if reduce is not None and len(node.args) == 1 and not node.keywords \
                        and isinstance(node.args[0], _COMPREHENSIONS):
                    self.check_unconditional(node)
                    vals = lowering.namer.fresh("vals")
                    stmts.extend(lowering.materialise(node.args[0], vals))
                    filtered = _filtered(node.args[0])
                    if reduce in (builtins.list, builtins.tuple):
                        if not filtered:  # (a filtered one is the list it is)
                            lowering.materialised[vals] = node.args[0]
                        return name(vals)
                    # max over the elements, as Python's max iterates them
                    return call(attr(name("np"), reduce.__name__),
                                call("np.array", name(vals)) if filtered else name(vals))
                if len(node.args) == 1 and not node.keywords and isinstance(
                        node.args[0], gast.ListComp) and stacks(lowering.resolve, node.func):
                    # np.array([e for ...]) is the materialised array itself
                    self.check_unconditional(node)
                    vals = lowering.namer.fresh("vals")
                    stmts.extend(lowering.materialise(node.args[0], vals))
                    if _filtered(node.args[0]):  # (the list grown: stacked)
                        return gast.Call(func=node.func, args=[name(vals)], keywords=[])
                    return name(vals)
                return self.generic_visit(node)

            def visit_GeneratorExp(self, node):
                raise lowering.refuse(
                    node, "a generator expression outside sum(), max(), min(), any(), all(), "
                    "list() or tuple()", "Use a list comprehension")

            def visit_ListComp(self, node):
                self.check_unconditional(node)
                vals = lowering.namer.fresh("vals")
                lowering.materialised[vals] = node
                stmts.extend(lowering.materialise(node, vals))
                return name(vals)

            def check_unconditional(self, node):
                if self.conditional:
                    raise lowering.refuse(
                        node, "a comprehension evaluated only under a condition (in a "
                        "conditional expression or after `and`/`or`)",
                        "Assign it to a variable in an if statement")

        new = Hoist().visit(expr)
        return stmts, new

    # ---- loops ------------------------------------------------------------------
    def accumulate(self, comp, total, start):
        """`total = start; for ...: [if c:] total = total + e`."""
        comp = self.renamed(comp)
        inner = [assign(total, gast.BinOp(left=name(total), op=gast.Add(), right=comp.elt))]
        for gen in reversed(comp.generators):
            for cond in reversed(gen.ifs):
                inner = [gast.If(test=cond, body=inner, orelse=[])]
            inner = self.loop(gen, inner)
        stmts = [assign(total, start)] + inner
        return self.block(stmts)  # comprehensions inside the element

    def first_match(self, comp, flag, is_any):
        """any(e for ...): `flag = False; for ...: [if c:] if e: flag = True;
        break` (all: the first false element), stopping where Python's any
        and all stop (an inner loop's break ends only that loop: the flag
        stays set)."""
        comp = self.renamed(comp)
        test = comp.elt if is_any else gast.UnaryOp(op=gast.Not(), operand=comp.elt)
        inner = [gast.If(test=test, body=[assign(flag, const(is_any)), gast.Break()], orelse=[])]
        for gen in reversed(comp.generators):
            for cond in reversed(gen.ifs):
                inner = [gast.If(test=cond, body=inner, orelse=[])]
            inner = self.loop(gen, inner)
        return self.block([assign(flag, const(not is_any))] + inner)

    def loop(self, gen, body):
        """`for target in iter: body`, over a range as written, over anything
        else by index (lists and tuples of arrays included)."""
        if is_range(self.resolve, gen.iter) and isinstance(gen.target, gast.Name):
            return [gast.For(target=gen.target, iter=gen.iter, body=body, orelse=[],
                             type_comment=None)]
        count, prelude, bind = self.sequence(gen)
        k = self.namer.fresh("k")
        return prelude + [gast.For(target=store(k), iter=call("range", count),
                                   body=bind(name(k)) + body, orelse=[], type_comment=None)]

    def needs_counter(self, loop):
        """`for i, a in enumerate(x)`, `for a, b in zip(x, y)`, `for a in
        reversed(x)`, `for a, b in pairs`: loops the reverse pass takes as a
        counted loop binding the targets from the counter."""
        it = loop.iter
        return not loop.orelse and (isinstance(loop.target, (gast.Tuple, gast.List)) or (
            isinstance(it, gast.Call) and any(is_builtin(self.resolve, it.func, f) for f in (
                builtins.enumerate, builtins.zip, builtins.reversed))))

    def counted(self, loop):
        found = changed_while_iterated(loop, self.resolve)
        if found is not None:  # (read once below, where Python reads it every step)
            raise self.refuse(found[1], f"a loop over the list '{found[0]}' that also changes "
                              f"it ({found[0]}.{found[1].func.attr})",
                              f"Loop over the indices it has before the loop (`n = "
                              f"len({found[0]})`, then `for k in range(n):`)")
        gen = gast.comprehension(target=loop.target, iter=loop.iter, ifs=[], is_async=0)
        count, prelude, bind = self.sequence(gen)
        k = self.namer.fresh("k")
        new = gast.For(target=store(k), iter=call("range", count), body=bind(name(k)) + loop.body,
                       orelse=[], type_comment=None)
        return prelude + [gast.copy_location(new, loop)]

    def sequence(self, gen):
        """(number of elements, statements before the loop, k -> statements
        binding the target to element k)."""
        it = gen.iter
        if is_range(self.resolve, it):
            args = list(it.args)
            start, step = (args[0], args[2] if len(args) > 2 else const(1)) if len(args) > 1 \
                else (const(0), const(1))
            return call("len", clone(it)), [], lambda k: [
                assign(clone(gen.target), range_element(start, step, k))]
        if isinstance(it, gast.Call) and is_builtin(self.resolve, it.func, builtins.enumerate) \
                and _enumerate_start(it) is not None and isinstance(gen.target, gast.Tuple) \
                and len(gen.target.elts) == 2:
            inner = gast.comprehension(target=gen.target.elts[1], iter=it.args[0], ifs=[],
                                       is_async=0)
            count, prelude, bind = self.sequence(inner)
            start = _enumerate_start(it)
            return count, prelude, lambda k: [assign(clone(gen.target.elts[0]), k if (
                isinstance(start, gast.Constant) and start.value == 0) else gast.BinOp(
                left=clone(k), op=gast.Add(), right=clone(start)))] + bind(k)
        if isinstance(it, gast.Call) and is_builtin(self.resolve, it.func, builtins.reversed) \
                and len(it.args) == 1 and not it.keywords:
            inner = gast.comprehension(target=gen.target, iter=it.args[0], ifs=[], is_async=0)
            count, prelude, bind = self.sequence(inner)
            if not isinstance(count, gast.Name):  # the count is read in every iteration
                n = self.namer.fresh("n")
                prelude, count = prelude + [assign(n, count)], name(n)
            return count, prelude, lambda k: bind(gast.BinOp(
                left=gast.BinOp(left=clone(count), op=gast.Sub(), right=const(1)),
                op=gast.Sub(), right=clone(k)))
        if isinstance(it, gast.Call) and is_builtin(self.resolve, it.func, builtins.zip) \
                and it.args and not it.keywords and isinstance(gen.target, gast.Tuple) \
                and len(gen.target.elts) == len(it.args):
            parts = [self.sequence(gast.comprehension(target=t, iter=a, ifs=[], is_async=0))
                     for t, a in zip(gen.target.elts, it.args)]
            count = parts[0][0] if len(parts) == 1 else call("min", *[p[0] for p in parts])
            return count, [s for p in parts for s in p[1]], \
                lambda k: [s for p in parts for s in p[2](k)]
        if isinstance(it, gast.Call) and any(is_builtin(self.resolve, it.func, f) for f in (
                builtins.map, builtins.filter, builtins.iter, builtins.sorted)):
            raise self.refuse(it, "a loop over this call",
                              "Iterate over range(...), enumerate, zip or a variable")
        # any other iterable (x.ravel(), np.linspace(...), a helper's array):
        # evaluated once, then indexed
        seq = it
        prelude = []
        if not isinstance(it, gast.Name):
            seq = name(self.namer.fresh("seq"))
            prelude = [assign(seq.id, it)]
        return call("len", clone(seq)), prelude, \
            lambda k: [assign(clone(gen.target), gast.Subscript(value=clone(seq), slice=k,
                                                                ctx=gast.Load()))]

    def materialise(self, comp, vals):
        """`vals`: the comprehension as an array."""
        comp = self.renamed(comp)
        if _filtered(comp):
            return self.filtered(comp, vals)
        if len(comp.generators) != 1:
            raise self.refuse(comp, "a list comprehension with several `for`s, other than "
                              "summed by sum()", "Write the loop out, filling a "
                              "preallocated array")
        if getattr(comp, "s2sad_copy_of_slice", False):
            # `a, *rest = x` of an array (star_forms.py): the elements are the
            # slice's, whose shape is known even when it is empty
            return [assign(vals, call("np.copy", comp.generators[0].iter))]
        count, prelude, bind = self.sequence(comp.generators[0])
        return self.filled(vals, count, prelude, bind, [], comp.elt, [], comp,
                           "a list comprehension")

    def filtered(self, comp, vals):
        """`[e for t in seq if c]`: its length known only as it runs, so the
        list it is, grown as Python grows it (growing_lists.py then makes it
        a stack: read by index, stacked, looped over, its len)

            vals = []
            for t in seq:
                if c:
                    vals.append(e)"""
        self.materialised.pop(vals, None)  # (a list, not an array filled in place)
        gen = comp.generators[0]
        test = gen.ifs[0] if len(gen.ifs) == 1 else gast.BoolOp(op=gast.And(), values=gen.ifs)
        append = gast.Expr(value=call(gast.Attribute(value=name(vals), attr="append",
                                                     ctx=gast.Load()), comp.elt))
        loop = gast.For(target=gen.target, iter=gen.iter, body=[
            gast.If(test=test, body=[append], orelse=[])], orelse=[], type_comment=None)
        for node in (append, loop, loop.body[0]):
            gast.copy_location(node, comp)
        start = gast.copy_location(assign(vals, gast.List(elts=[], ctx=gast.Load())), comp)
        return [start] + self.block([loop])

    def filled(self, vals, count, prelude, bind, before, elt, after, node, what):
        """A loop filling the array `vals` with `elt` after the statements
        `before` (and then `after`) of each iteration; its first iteration
        is peeled, to allocate `vals` with the element's shape and type."""
        self.allocates = True
        n = self.namer.fresh("n_" + vals)
        k = self.namer.fresh("k")
        first = self.namer.fresh(vals + "_first")
        empty = gast.If(test=gast.Compare(left=name(n), ops=[gast.Eq()], comparators=[const(0)]),
                        body=[gast.Raise(exc=call("ValueError", const(
                            f"{self.location.describe(node)}: s2sad needs at least one "
                            f"element in {what}, to know its shape")), cause=None)],
                        orelse=[])
        # In Python the list holds the elements themselves: an element that
        # is an array (or a view of one) written in place later changes the
        # list too. The array s2sad makes holds copies, so each element
        # write carries the names whose memory the element may be
        # (analysis/aliases.py refuses a write into them while the list is read)
        holds = frozenset(memory_sources(elt, lambda n: False, calls_share=False))
        first_write = assign(gast.Subscript(value=name(vals), slice=const(0), ctx=gast.Store()),
                             name(first))
        later_write = assign(gast.Subscript(value=name(vals), slice=name(k), ctx=gast.Store()),
                             call(STACK_ELEMENT, elt, name(first)))
        if holds:
            first_write.s2sad_holds = later_write.s2sad_holds = holds
            gast.copy_location(first_write, node)  # (a refusal names the user's line)
            gast.copy_location(later_write, node)
        stmts = prelude + [assign(n, count), empty] + bind(const(0)) + clone(before) + [
            assign(first, clone(elt)),
            assign(vals, call(EMPTY_STACK, name(n), name(first))),
            first_write] + clone(after) + [
            gast.For(target=store(k), iter=call("range", const(1), name(n)),
                     body=bind(name(k)) + before + [later_write] + after,
                     orelse=[], type_comment=None)]
        return self.block(stmts)

    def appended_loop(self, stmts, i):
        """`out = []` and, before any other use of `out`, a for loop appending
        to it once per iteration (not under an if, no break, continue or
        return): an array filled as a comprehension's. (statements, index
        of the statement after the loop), or None."""
        s = stmts[i]
        if not (isinstance(s, gast.Assign) and len(s.targets) == 1 and isinstance(
                s.targets[0], gast.Name) and isinstance(s.value, gast.List) and not s.value.elts):
            return None
        out = s.targets[0].id
        if any(_pops(n, out) for later in stmts[i + 1:] for n in walk(later)):
            # a stack (the user's, or a tape of a generated derivative
            # differentiated again by hessian, hvp, grad of grad): the stack
            # it is, whose .append and .pop the reverse and forward passes
            # differentiate as a pair
            return None
        j = next((j for j in range(i + 1, len(stmts)) if mentions(stmts[j], out)), None)
        loop = stmts[j] if j is not None else None
        if j is not None and any(_appends_to(n, out) for later in stmts[j + 1:]
                                 for n in walk(later) if isinstance(n, gast.Expr)):
            return None  # grown after the loop too: a list (growing_lists.py)
        if not isinstance(loop, gast.For) or loop.orelse or any(
                isinstance(n, (gast.Break, gast.Continue, gast.Return, gast.FunctionDef,
                               gast.Lambda)) for n in walk(loop)):
            return None
        appends = [k for k, b in enumerate(loop.body) if _appends_to(b, out)]
        if len(appends) != 1 or any(mentions(b, out) for k, b in enumerate(loop.body)
                                    if k != appends[0]) or mentions(loop.iter, out):
            return None
        p = appends[0]
        elt = loop.body[p].value.args[0]
        if mentions(elt, out):
            return None
        gen = gast.comprehension(target=loop.target, iter=loop.iter, ifs=[], is_async=0)
        try:
            count, prelude, bind = self.sequence(gen)
        except UnsupportedSyntaxError:
            return None
        self.materialised[out] = s
        lowered = self.filled(out, count, prelude, bind, loop.body[:p], elt, loop.body[p + 1:],
                              loop.body[p], "a list built by appending in a loop")
        return self.block(stmts[i + 1:j]) + lowered, j + 1

    def renamed(self, comp):
        """The comprehension with its variables given fresh names (they are
        local to it in Python 3)."""
        comp = clone(comp)
        for gen in comp.generators:
            for target in walk(gen.target):
                if not isinstance(target, gast.Name):
                    if not isinstance(target, (gast.Tuple, gast.List, gast.expr_context)):
                        raise self.refuse(gen.target, "this comprehension target",
                                          "Use a name or a tuple of names")
                    continue
                old, new = target.id, self.namer.fresh(target.id)
                later = [comp.elt] + [c for g in comp.generators[comp.generators.index(gen):]
                                      for c in g.ifs] + [
                    g.iter for g in comp.generators[comp.generators.index(gen) + 1:]] + [
                    g.target for g in comp.generators[comp.generators.index(gen) + 1:]]
                target.id = new
                for node in later:
                    for n in walk(node):
                        if isinstance(n, gast.Name) and n.id == old:
                            n.id = new
        return comp

    def refuse(self, node, construct, hint):
        return UnsupportedSyntaxError(construct, self.location, node, hint)


def _filtered(comp):
    """`[e for t in seq if c]`: one `for`, with an `if` (materialised as
    the list it is: filtered)."""
    return len(comp.generators) == 1 and bool(comp.generators[0].ifs)


def _pops(node, out):
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
        and node.func.attr == "pop" and isinstance(node.func.value, gast.Name) \
        and node.func.value.id == out


def _appends_to(stmt, out):
    return isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call) and isinstance(
        stmt.value.func, gast.Attribute) and stmt.value.func.attr == "append" and isinstance(
        stmt.value.func.value, gast.Name) and stmt.value.func.value.id == out \
        and len(stmt.value.args) == 1 and not stmt.value.keywords


def _enumerate_start(call):
    """enumerate(x) or enumerate(x, start): the start, or None for another form."""
    if len(call.args) == 1 and not call.keywords:
        return const(0)
    if len(call.args) == 2 and not call.keywords:
        return call.args[1]
    if len(call.args) == 1 and len(call.keywords) == 1 and call.keywords[0].arg == "start":
        return call.keywords[0].value
    return None
