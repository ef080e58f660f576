"""A for loop over a generator the user wrote is the generator's body with
the loop's body where it yields:

    def squares(x):                          def total(x):
        for i in range(x.shape[0]):              s = 0.0
            yield x[i] * x[i]                    squares_x = x
                                      ->         for i in range(squares_x.shape[0]):
    def total(x):                                    v = squares_x[i] * squares_x[i]
        s = 0.0                                      s = s + v
        for v in squares(x):                     return s
            s = s + v
        return s

which is what Python runs, in the same order: the generator's arguments
are evaluated once where the loop starts, and each yield hands a value to
one run of the loop's body. The generator's own names are renamed where
they would meet the function's, and its module-level names are bound to
what they denote in its module. Its statements are placed at the line of
the loop (an error in them names that line).

Refused with the line: a loop body with `break` or `continue` of its own
(which would stop or skip the generator's loop instead), a generator that
returns early or whose yield is a value (`x = yield v`), `yield from`, a
generator passed anywhere but to a for loop."""
import inspect

import gast

from .bound_copies import raw_tree
from ...errors import UnsupportedSyntaxError
from ...names import fresh_name
from ...syntax import clone, walk

_DEPTH = 8  # generators looping over generators, inlined at most this deep


def run(tree, ctx):
    """Inline, in place, the generators `tree`'s for loops loop over."""
    state = _State(tree, ctx)
    changed = False
    for _ in range(_DEPTH):
        if not state.block(tree.body):
            state.refuse_other_uses(tree)
            return tree if changed else None
        changed = True
    loop = next(s for s in walk(tree) if isinstance(s, gast.For) and state.generator(s))
    raise UnsupportedSyntaxError("generators looping over generators more than "
                                 f"{_DEPTH} deep", ctx.location, loop,
                                 "Write the loop over the values out")


class _State:
    def __init__(self, tree, ctx):
        self.ctx = ctx
        self.local = {n.id for n in walk(tree) if isinstance(n, gast.Name)
                      and not isinstance(n.ctx, gast.Load)} | {a.id for a in tree.args.args}
        self.taken = set(ctx.namespace) | {n.id for n in walk(tree) if isinstance(n, gast.Name)}

    def generator(self, loop):
        """The generator function a for loop loops over, or None."""
        call = loop.iter
        if not (isinstance(call, gast.Call) and isinstance(call.func, gast.Name)) \
                or call.func.id in self.local:
            return None
        fn = self.ctx.namespace.get(call.func.id)
        if not inspect.isgeneratorfunction(fn) or self.ctx.readable(fn) is not fn:
            return None
        return fn

    def refuse_other_uses(self, tree):
        """A generator called anywhere but as a for loop's iterable (given to
        sum, list, a helper): refused at that line."""
        for n in walk(tree):
            if isinstance(n, gast.Call) and isinstance(n.func, gast.Name) \
                    and n.func.id not in self.local \
                    and inspect.isgeneratorfunction(self.ctx.namespace.get(n.func.id)):
                raise UnsupportedSyntaxError(
                    f"a generator ({n.func.id}) used other than as the iterable of a for loop",
                    self.ctx.location, n,
                    f"Loop over it: for v in {n.func.id}(...): total = total + v")

    def block(self, stmts):
        """Inline the generators of `stmts` (and of their blocks); whether
        anything changed."""
        changed, k = False, 0
        while k < len(stmts):
            s = stmts[k]
            if isinstance(s, gast.FunctionDef):
                k += 1
                continue
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(s, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                    changed = self.block(inner) or changed
            if isinstance(s, gast.For) and self.generator(s) is not None:
                new = self.inline(s, self.generator(s))
                stmts[k:k + 1] = new
                k += len(new)
                changed = True
                continue
            k += 1
        return changed

    def inline(self, loop, fn):
        location = self.ctx.location
        if loop.orelse:
            return [loop]  # (loop_else.py lowered them before: not met)
        _check_body(loop.body, location)
        found = raw_tree(fn)
        gen = found.tree
        _check_generator(gen, found.location, fn)
        call = loop.iter
        if any(isinstance(a, gast.Starred) for a in call.args) or any(
                k.arg is None for k in call.keywords):
            raise UnsupportedSyntaxError(f"a loop over {fn.__name__}(...) given *args or "
                                         f"**kwargs", location, loop, "Pass each argument")
        sig = inspect.signature(fn)
        try:
            bound = sig.bind(*call.args, **{k.arg: k.value for k in call.keywords})
        except TypeError as exc:
            raise UnsupportedSyntaxError(f"{fn.__name__}(...) called with arguments that do "
                                         f"not fit it ({exc})", location, loop,
                                         "Pass the arguments it takes") from None
        names, own = self.renaming(gen, fn, found.namespace)
        out = []
        for p in sig.parameters.values():
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise UnsupportedSyntaxError(f"a loop over {fn.__name__}, which takes *args or "
                                             f"**kwargs", location, loop,
                                             "Give the generator plain parameters")
            value = bound.arguments[p.name] if p.name in bound.arguments else \
                self.constant(p.default, f"{fn.__name__}_{p.name}")
            out.append(_assign(gast.Name(id=names[p.name], ctx=gast.Store(), annotation=None,
                                         type_comment=None), value))
        body = [_renamed(s, names) for s in gen.body if not _docstring(s)]
        kept = set()  # ids of the nodes of the loop's body (which keeps its own lines)
        out += _yielding(body, loop, kept)
        for s in out:  # (at the loop's line: the generator's lines are of its own file)
            for n in walk(s):
                if isinstance(n, (gast.stmt, gast.expr)) and id(n) not in kept:
                    gast.copy_location(n, loop)
        self.taken |= set(names.values())
        self.local |= {names[v] for v in own}
        return out

    def renaming(self, gen, fn, namespace):
        """(the generator's names -> the names they have in the function: its
        own fresh where taken, its module-level ones bound to their objects;
        its own names)."""
        own = {n.id for n in walk(gen) if isinstance(n, gast.Name)
               and not isinstance(n.ctx, gast.Load)}
        own |= {n.name for n in walk(gen) if isinstance(n, gast.FunctionDef) and n is not gen}
        names = {}
        for v in sorted(own):
            names[v] = v if v not in self.taken else fresh_name(f"{fn.__name__}_{v}", self.taken)
            self.taken.add(names[v])
        for n in walk(gen):
            if isinstance(n, gast.Name) and isinstance(n.ctx, gast.Load) and n.id not in own \
                    and n.id not in names and n.id in namespace:
                obj = namespace[n.id]
                here = self.ctx.namespace.get(n.id, _NOTHING)
                if here is obj and n.id not in self.local:
                    names[n.id] = n.id
                else:
                    names[n.id] = fresh_name(n.id, self.taken)
                    self.ctx.namespace[names[n.id]] = obj
        return names, own

    def constant(self, value, preferred):
        """A default of the generator, as an expression of the function."""
        if value is None or isinstance(value, (bool, int, float, str)):
            return gast.Constant(value=value, kind=None)
        n = fresh_name(preferred, self.taken)
        self.ctx.namespace[n] = value
        return gast.Name(id=n, ctx=gast.Load(), annotation=None, type_comment=None)


_NOTHING = object()


def _docstring(s):
    return isinstance(s, gast.Expr) and isinstance(s.value, gast.Constant) and isinstance(
        s.value.value, str)


def _assign(target, value):
    return gast.Assign(targets=[target], value=value, type_comment=None)


def _renamed(stmt, names):
    stmt = clone(stmt)
    for n in walk(stmt):
        if isinstance(n, gast.Name) and n.id in names:
            n.id = names[n.id]
        elif isinstance(n, gast.FunctionDef) and n.name in names:
            n.name = names[n.name]
    return stmt


def _yielding(stmts, loop, kept):
    """`stmts` with each `yield e` as `target = e` and the loop's body (the
    ids of whose nodes join `kept`)."""
    out = []
    for s in stmts:
        if isinstance(s, gast.Expr) and isinstance(s.value, gast.Yield):
            value = s.value.value if s.value.value is not None else gast.Constant(value=None,
                                                                                 kind=None)
            out.append(_assign(clone(loop.target), value))
            for b in loop.body:
                copy = clone(b)
                kept.update(id(n) for n in walk(copy))
                out.append(copy)
            continue
        if not isinstance(s, gast.FunctionDef):
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(s, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], gast.stmt):
                    setattr(s, field, _yielding(inner, loop, kept))
        out.append(s)
    return out


def _check_body(body, location):
    """No break or continue of the loop itself (a loop inside it may have them)."""
    todo = list(body)
    while todo:
        s = todo.pop()
        if isinstance(s, (gast.Break, gast.Continue)):
            what = "break" if isinstance(s, gast.Break) else "continue"
            raise UnsupportedSyntaxError(
                f"{what} in a loop over a generator", location, s,
                "Keep a flag and test it in the body (the generator's body runs in place of "
                "the loop, so its own loop would be the one stopped)")
        if isinstance(s, (gast.For, gast.While, gast.FunctionDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(s, field, None)
            if isinstance(inner, list):
                todo.extend(inner)


def _check_generator(gen, location, fn):
    parents = {}
    for n in walk(gen):
        for c in gast.iter_child_nodes(n):
            parents[id(c)] = n
    for n in walk(gen):
        if isinstance(n, (gast.FunctionDef, gast.Lambda)) and n is not gen:
            continue
        if isinstance(n, gast.YieldFrom):
            raise UnsupportedSyntaxError("yield from in a generator a loop runs over", location,
                                         n, "Loop over the inner generator and yield each value")
        if isinstance(n, gast.Return) and _own(n, gen, parents):
            raise UnsupportedSyntaxError(
                f"return in {fn.__name__}, a generator a loop runs over", location, n,
                "Keep a flag that skips the rest of the generator's body")
        if isinstance(n, gast.Yield) and _own(n, gen, parents) and not isinstance(
                parents.get(id(n)), gast.Expr):
            raise UnsupportedSyntaxError(
                "a yield used as a value (x = yield v)", location, n,
                "Yield values only (yield v on a line of its own)")


def _own(node, gen, parents):
    """Whether `node` belongs to the generator itself, not to a function in it."""
    up = parents.get(id(node))
    while up is not None and up is not gen:
        if isinstance(up, (gast.FunctionDef, gast.Lambda)):
            return False
        up = parents.get(id(up))
    return True
