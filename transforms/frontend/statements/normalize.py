"""Normalise to one primitive operation per statement.

After this pass every assignment has one of the forms

    name = atom                      (copy)
    name = atom <op> atom            (BinOp), name = -atom (UnaryOp)
    name = f(atom, ..., kw=atom)     (Call; list/tuple arguments of atoms)
    name = atom.attr                 (x.T, x.shape)
    name = (atom, ...)               (tuple display)
    name = <condition>               (comparisons and boolean operators: never active)
    a, b = <call or name>            (tuple unpacking)
    x[index] = atom                  (subscript write)

where an atom is a name, a constant or `name[index]`. Index expressions,
conditions and `range(...)` arguments are integer or boolean expressions; they
are kept whole because they are never differentiated. Temporaries are named
after the operation they hold (`tanh`, `prod`, ...), so the adjoints read as
`dtanh`, `dprod`.
"""
import gast
import numpy as np

from .chains import flatten, is_chain
from ...checks.bounds_syntax import same_access, same_index
from ...ops import METHODS
from ...syntax import assign, clone, name, names_loaded, names_stored, store, structure, walk

_OP_NAMES = {
    gast.Add: "total", gast.Sub: "diff", gast.Mult: "prod", gast.Div: "quot",
    gast.Pow: "power", gast.MatMult: "matprod", gast.FloorDiv: "floordiv",
    gast.Mod: "mod",
}


_VARARGS = {"reshape", "transpose"}


def run(fn_tree, ctx):
    """Normalise `fn_tree` in place; the calls it makes are bound
    (calls/binder.py)."""
    local = names_stored(fn_tree.body) | set(ctx.parsed.arg_names)
    fn_tree.body = _Normalizer(ctx.namer, ctx.location, local.__contains__, ctx.marker_of,
                               ctx.binder).block(fn_tree.body)
    return fn_tree


def _is_inactive_expr(node):
    """Expressions whose value is a bool: evaluated whole, never differentiated."""
    return isinstance(node, (gast.Compare, gast.BoolOp)) or (
        isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.Not))


class _Normalizer:
    def __init__(self, namer, location, is_local, marker_of, bind):
        self.namer, self.location, self.is_local = namer, location, is_local
        self.marker_of = marker_of
        self.bind = bind
        self.out = None

    def block(self, stmts):
        saved, self.out = self.out, []
        for s in stmts:
            self.statement(s)
        result, self.out = self.out, saved
        return result

    def emit(self, stmt, src, constant=False):
        gast.copy_location(stmt, src)
        for flag in ("s2sad_constant", "s2sad_reset"):
            if getattr(src, flag, False):
                setattr(stmt, flag, True)
        if constant:
            stmt.s2sad_constant = True
        self.out.append(stmt)

    def statement(self, s):
        if isinstance(s, gast.Assign):
            self.assignment(s.targets[0], s.value, s)
        elif isinstance(s, gast.If):
            test = s.test  # (desugar took the markers out of every test)
            if names_loaded(test) & names_stored(s.body + s.orelse):
                cond = self.namer.fresh("cond")
                self.emit(assign(cond, test), s)
                test = name(cond)
            new = gast.If(test=test, body=self.block(s.body) or [gast.Pass()],
                          orelse=self.block(s.orelse))
            self.emit(new, s)
        elif isinstance(s, gast.For):
            body = self.block(s.body)
            args = []
            written = names_stored(body)
            for a in s.iter.args:
                if names_loaded(a) & written:  # range() arguments are read once
                    bound = self.namer.fresh("stop" if len(s.iter.args) == 1 else "bound")
                    self.emit(assign(bound, a), s)
                    a = name(bound)
                args.append(a)
            s.iter.args = args
            s.body = body or [gast.Pass()]
            self.out.append(s)
        elif isinstance(s, gast.While):
            s.body = self.block(s.body) or [gast.Pass()]
            self.out.append(s)
        elif isinstance(s, gast.Return):
            value = s.value
            if isinstance(value, gast.Tuple):
                value = gast.Tuple(elts=[self.output(e, s) for e in value.elts], ctx=gast.Load())
            else:
                value = self.output(value, s, constant_ok=False)
            self.emit(gast.Return(value=value), s)
        elif isinstance(s, gast.Pass):
            pass
        elif isinstance(s, gast.Expr) and _appends_value(s.value):
            # stack.append(u[1:].copy()), a tape of differentiated code: the
            # value as an atom, whose tangent or adjoint goes with it
            arg = self.atom(s.value.args[0], src=s, hint=s.value.func.value.id + "_item")
            self.emit(gast.Expr(value=gast.Call(func=s.value.func, args=[arg], keywords=[])), s)
        elif isinstance(s, gast.Expr) and _pops_bare(s.value):
            # stack.pop() for its effect: the popped value gets a name (and,
            # from a stack of values that need a gradient, an adjoint)
            self.emit(assign(self.namer.fresh(s.value.func.value.id + "_popped"), s.value), s)
        elif isinstance(s, (gast.Expr, gast.Raise)):
            self.out.append(s)
        else:  # desugar.py and the fence (read/fence.py) leave nothing else
            raise AssertionError(f"unexpected statement {type(s).__name__}")

    def output(self, expr, src, constant_ok=True):
        """A returned value as a name (each output has its own adjoint) or,
        in a tuple, a constant."""
        value = self.atom(expr, src, hint="result")
        if isinstance(value, gast.Name) or (constant_ok and isinstance(value, gast.Constant)):
            return value
        tmp = self.namer.fresh("result")
        self.emit(assign(tmp, value), src)
        return name(tmp)

    def assignment(self, target, value, src):
        if isinstance(target, gast.Name):
            if isinstance(value, gast.IfExp):
                self.conditional(target.id, value, src)
                return
            value = self.simple(value, src, target.id)
            reads_element = any(isinstance(n, gast.Subscript) and n.value.__dict__.get("id") == target.id
                                for n in walk(value))
            if reads_element or isinstance(value, gast.Call) or (
                    isinstance(value, gast.BinOp) and isinstance(value.op, gast.Pow)):
                if target.id in names_loaded(value):
                    # x = f(x), x = x[i] * y: the reverse sweep needs old and
                    # new x (or their adjoints) at once
                    tmp = self.namer.fresh(_hint(value))
                    self.emit(assign(tmp, value), src)
                    value = name(tmp)
            final = assign(target, value)
            for flag in ("s2sad_return", "s2sad_inplace", "s2sad_returned_by",  # aliases.py
                         "s2sad_element_of"):
                if getattr(src, flag, False):
                    setattr(final, flag, getattr(src, flag))
            self.emit(final, src)
        elif isinstance(target, gast.Subscript):
            if is_chain(target):  # A[i][j] = v is A[i, j] = v (checked with the kinds)
                target, value = flatten(target, value, self.location, src)
            base = self.atom(target.value, src) if not isinstance(target.value, gast.Name) else target.value
            chain = getattr(target, "s2sad_chain", None)
            increment = _is_increment(target, value)

            def written(index):
                out = gast.Subscript(value=base, slice=index, ctx=gast.Store())
                if chain is not None:
                    out.s2sad_chain = chain
                return out

            def emit_write(statement):
                if getattr(src, "s2sad_holds", None):  # (comprehensions.py, for aliases.py)
                    statement.s2sad_holds = src.s2sad_holds
                self.emit(statement, src)
            if increment:
                # x[i] += e keeps its form: its adjoint passes dx[i] through.
                # (Python evaluates the index first, then e)
                index = self.written_index(target.slice, base.id, src)
                left = value.left if index is target.slice else same_index(value.left, gast.Subscript(
                    value=value.left.value, slice=clone(index), ctx=gast.Load()))
                step = gast.BinOp(left=left, op=value.op,
                                  right=self.atom(value.right, src, hint=base.id))
                emit_write(assign(written(index), step))
                return
            value = self.atom(value, src, hint=base.id)  # (Python evaluates the value first)
            emit_write(assign(written(self.written_index(target.slice, base.id, src)), value))
        elif isinstance(target, (gast.Tuple, gast.List)):
            if not all(isinstance(e, (gast.Name, gast.Subscript)) for e in target.elts):
                from ...errors import UnsupportedSyntaxError
                raise UnsupportedSyntaxError("unpacking into nested tuples or starred names",
                                             self.location, src, "Unpack into names first")
            if not all(isinstance(e, gast.Name) for e in target.elts):
                self.unpack_into_subscripts(target, value, src)
                return
            if isinstance(value, (gast.Tuple, gast.List)) and len(value.elts) == len(target.elts):
                # a, b = b, a: evaluate every element before binding any
                temps = [self.atom(v, src, hint=t.id) for t, v in zip(target.elts, value.elts)]
                temps = [self._own(t, src, tgt.id) for t, tgt in zip(temps, target.elts)]
                for t, v in zip(target.elts, temps):
                    self.emit(assign(store(t.id), v), src)
                return
            target = gast.Tuple(elts=[store(e.id) for e in target.elts], ctx=gast.Store())
            final = assign(target, self.simple(value, src, "values"))
            if getattr(src, "s2sad_result_shares", None):  # (written_args.py, for aliases.py)
                final.s2sad_result_shares = src.s2sad_result_shares
            self.emit(final, src)

    def unpack_into_subscripts(self, target, value, src):
        """x[i], x[j] = x[j], x[i]: as Python does, every value first, then
        each target from left to right (a view among the values that a later
        target writes into is refused by aliases.py, as any such write)."""
        hints = [t.id if isinstance(t, gast.Name) else getattr(t.value, "id", "value")
                 for t in target.elts]
        if isinstance(value, (gast.Tuple, gast.List)) and len(value.elts) == len(target.elts):
            temps = [self.atom(v, src, hint=h) for h, v in zip(hints, value.elts)]
            temps = [self._own(t, src, h) for t, h in zip(temps, hints)]
        else:
            temps = [name(self.namer.fresh(h + "_new")) for h in hints]
            unpacked = gast.Tuple(elts=[store(t.id) for t in temps], ctx=gast.Store())
            self.emit(assign(unpacked, self.simple(value, src, "values")), src)
        for t, v in zip(target.elts, temps):
            self.assignment(t, v, src)

    def _own(self, atom, src, hint):
        """A temporary holding `atom` unless it is a constant."""
        if isinstance(atom, gast.Constant):
            return atom
        tmp = self.namer.fresh(hint + "_new")
        self.emit(assign(tmp, atom), src)
        return name(tmp)

    def conditional(self, target, node, src):
        """`t = a if c else b` becomes an if statement, so only the branch taken
        is evaluated (and differentiated)."""
        branches = [assign(target, node.body, src=src), assign(target, node.orelse, src=src)]
        for b in branches:  # inside stop_recording() or after a reset, as the statement was
            for flag in ("s2sad_constant", "s2sad_reset"):
                if getattr(src, flag, False):
                    setattr(b, flag, True)
        # as an if statement, whose test is read once if the branches write it
        self.statement(gast.copy_location(
            gast.If(test=node.test, body=branches[:1], orelse=branches[1:]), src))

    def simple(self, node, src, hint):
        """`node` as the right-hand side of a normalised assignment."""
        new = self._simple(node, src, hint)
        if new is not node and hasattr(node, "lineno"):
            gast.copy_location(new, node)  # errors about it name its line
        return new

    def _simple(self, node, src, hint):
        if isinstance(node, gast.BinOp):
            return gast.BinOp(left=self.atom(node.left, src), op=node.op,
                              right=self.atom(node.right, src))
        if isinstance(node, gast.UnaryOp) and not isinstance(node.op, gast.Not):
            if isinstance(node.op, gast.UAdd):
                return self.simple(node.operand, src, hint)
            if isinstance(node.operand, gast.Constant):
                return gast.Constant(value=-node.operand.value, kind=None)
            return gast.UnaryOp(op=node.op, operand=self.atom(node.operand, src))
        if isinstance(node, gast.Call) and self.marker_of(node.func) == "stop_gradient":
            # y = stop_gradient(x) is the copy y = x, a constant for the derivative
            value = self.atom(node.args[0], src)
            tmp = self.namer.fresh(hint + "_stopped" if hint else "stopped")
            self.emit(assign(tmp, value), src, constant=True)
            return name(tmp)
        if isinstance(node, gast.Call):
            node = self.method_as_function(node)
            if node.args and any(k.arg == "keepdims" for k in node.keywords):
                # keepdims=True becomes keep_axes(np.sum(x, ...), x, axis): x once
                node = gast.Call(func=node.func, args=[self.argument(node.args[0], src)]
                                 + node.args[1:], keywords=node.keywords)
            node = self.bind(node)
            if isinstance(node.func, gast.Name):  # (a definition's helper: no temporary takes its name)
                self.namer.reserve(node.func.id)
            args = [self.argument(a, src) for a in node.args]
            # dtype=np.int64 stays spelled out: the kind of the result depends on it
            kws = [gast.keyword(arg=k.arg, value=k.value if k.arg == "dtype" and _is_dotted(k.value)
                                else self.argument(k.value, src)) for k in node.keywords]
            # (a helper's call stays the user's own: kept where it may raise, unread)
            new = same_access(node, gast.Call(func=node.func, args=args, keywords=kws))
            if hasattr(node, "s2sad_augmented"):  # (decided with the kinds: written_args.py)
                new.s2sad_augmented = node.s2sad_augmented
            return new
        if isinstance(node, gast.Attribute):
            base = node.value
            if not isinstance(base, gast.Name) and _is_value_expr(base):
                base = self.atom(base, src)
            return gast.Attribute(value=base, attr=node.attr, ctx=gast.Load())
        if isinstance(node, (gast.Tuple, gast.List)):
            return type(node)(elts=[self.atom(e, src) for e in node.elts], ctx=gast.Load())
        if isinstance(node, gast.IfExp):
            tmp = self.namer.fresh(hint)
            self.conditional(tmp, node, src)
            return name(tmp)
        if isinstance(node, gast.Subscript):
            base = node.value
            if not isinstance(base, gast.Name):
                base = self.atom(base, src)
            # (the index's mark only: not marked the user's own read, so an unread
            # A.T[0, j] in a loop is still dropped with its IndexError)
            return same_index(node, gast.Subscript(value=base, slice=self.index(node.slice, src),
                                                   ctx=gast.Load()))
        return node  # names, constants, conditions

    def written_index(self, node, base, src):
        """The index of a write into `base`, each part of it that tests,
        calls or reads `base` (h[h < 0], x[np.argmax(x)]) made a temporary:
        Python evaluates it once, before the write; the reverse sweep (and
        the tangent, after the write) would evaluate it again on the
        written array."""
        if isinstance(node, gast.Tuple):
            elts = [self.written_index(e, base, src) for e in node.elts]
            return node if all(new is old for new, old in zip(elts, node.elts)) \
                else gast.Tuple(elts=elts, ctx=gast.Load())
        if isinstance(node, gast.Slice):
            parts = [None if p is None else self.written_index(p, base, src)
                     for p in (node.lower, node.upper, node.step)]
            return node if all(new is old for new, old in
                               zip(parts, (node.lower, node.upper, node.step))) \
                else gast.Slice(lower=parts[0], upper=parts[1], step=parts[2])
        if not _evaluated_again_differs(node, base):
            return node
        tests = any(isinstance(n, (gast.Compare, gast.BoolOp)) for n in walk(node))
        return self.atom(node, src, hint="mask" if tests else "index")

    def index(self, node, src):
        """An index with its calls (x[np.argsort(x)], x[np.array([3, 3, 1])])
        made temporaries, so their kinds are known: an index array's
        repeated entries add up, an int's do not. An index without calls
        is returned itself."""
        if isinstance(node, gast.Call):
            return self.atom(node, src)
        if isinstance(node, gast.List):  # x[[0, 0, 2]] is x[np.array([0, 0, 2])], which numba compiles
            return self.atom(gast.Call(func=gast.Attribute(value=name("np"), attr="array",
                                                           ctx=gast.Load()),
                                       args=[node], keywords=[]), src, "indices")
        if isinstance(node, gast.Tuple):
            elts = [self.index(e, src) for e in node.elts]
            if all(new is old for new, old in zip(elts, node.elts)):
                return node
            return gast.Tuple(elts=elts, ctx=gast.Load())
        return node

    def method_as_function(self, node):
        f = node.func
        if not (isinstance(f, gast.Attribute) and f.attr in METHODS):
            return node
        base = f.value
        if isinstance(base, gast.Name) and not self.is_local(base.id) \
                and not isinstance(self.global_value(base.id), np.ndarray):
            return node  # np.sum(...) itself, or a module's function (not W.copy() of a global W)
        args = list(node.args)
        if f.attr in _VARARGS and len(args) > 1:
            args = [gast.Tuple(elts=args, ctx=gast.Load())]
        attr = "ravel" if f.attr == "flatten" else f.attr
        func = gast.Attribute(value=name("np"), attr=attr, ctx=gast.Load())
        keywords = node.keywords
        if attr == "clip" and len(args) <= 2:
            # ndarray.clip(min=None, max=None): by keyword, so np.clip's missing bound is None
            keywords = [gast.keyword(arg=k, value=v) for k, v in zip(("min", "max"), args)] \
                + keywords
            args = []
        return gast.copy_location(gast.Call(func=func, args=[base] + args, keywords=keywords),
                                  node)  # (a refusal of the call names its line)

    def global_value(self, name_):
        parsed = getattr(self.bind, "parsed", None)  # (the binder knows the namespace)
        return parsed.namespace.get(name_) if parsed is not None else None

    def argument(self, node, src):
        if isinstance(node, (gast.Tuple, gast.List)):
            # a tuple, which numba types with its length: np.stack((a, b))
            new = gast.Tuple(elts=[self.argument(e, src) for e in node.elts], ctx=gast.Load())
            if isinstance(node, gast.List):  # (a helper's isinstance(v, list) asks: kinds.py)
                new.s2sad_list = True
            return new
        return self.atom(node, src)

    def atom(self, node, src, hint=None):
        if isinstance(node, (gast.Name, gast.Constant)):
            return node
        if isinstance(node, gast.Subscript) and isinstance(node.value, gast.Name):
            index = self.index(node.slice, src)
            return node if index is node.slice else same_access(node, gast.copy_location(
                gast.Subscript(value=node.value, slice=index, ctx=gast.Load()), node))
        if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub) \
                and isinstance(node.operand, gast.Constant):
            return gast.Constant(value=-node.operand.value, kind=None)
        if _is_inactive_expr(node):
            tmp = self.namer.fresh(hint or "flag")
            self.emit(assign(tmp, node), src)
            return name(tmp)
        value = self.simple(node, src, hint or _hint(node))
        if isinstance(value, (gast.Name, gast.Constant)):
            return value
        tmp = self.namer.fresh(_hint(node) if hint is None or isinstance(value, gast.Call) else hint)
        self.emit(assign(tmp, value), src)
        return name(tmp)


def _pops_bare(node):
    """`name.pop()` (from the end: an index stays, refused where it matters)."""
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
        and node.func.attr == "pop" and isinstance(node.func.value, gast.Name) \
        and not node.args and not node.keywords


def _appends_value(node):
    """`name.append(e)` with `e` not a name or a constant."""
    return isinstance(node, gast.Call) and isinstance(node.func, gast.Attribute) \
        and node.func.attr == "append" and isinstance(node.func.value, gast.Name) \
        and len(node.args) == 1 and not node.keywords \
        and not isinstance(node.args[0], (gast.Name, gast.Constant))


def _is_increment(target, value):
    """`x[i] = x[i] + e` or `- e`, as `x[i] += e` desugars."""
    if not (isinstance(value, gast.BinOp) and isinstance(value.op, (gast.Add, gast.Sub))
            and isinstance(value.left, gast.Subscript)):
        return False
    left = value.left
    return structure(target.value) == structure(left.value) \
        and structure(target.slice) == structure(left.slice)


def _evaluated_again_differs(node, base):
    """Whether the index part `node` of a write into `base` may have another
    value once the write is done: it tests or calls (on anything: a call
    may read `base`), or reads `base` other than its shape."""
    nodes = walk(node)
    if any(isinstance(n, (gast.Compare, gast.BoolOp, gast.Call)) for n in nodes):
        return True
    shapes = {id(n.value) for n in nodes if isinstance(n, gast.Attribute)
              and n.attr in ("shape", "size", "ndim", "dtype")}
    return any(isinstance(n, gast.Name) and n.id == base and id(n) not in shapes for n in nodes)


def _is_value_expr(node):
    return not isinstance(node, (gast.Name, gast.Constant))


def _hint(node):
    if isinstance(node, gast.Call):
        f = node.func
        return getattr(f, "attr", getattr(f, "id", "call"))
    if isinstance(node, gast.BinOp):
        return _OP_NAMES.get(type(node.op), "t")
    if isinstance(node, gast.UnaryOp):
        return "neg"
    if isinstance(node, gast.Subscript):
        return "elem"
    if isinstance(node, gast.Attribute):
        return node.attr
    return "t"


def _is_dotted(node):
    """A name or a dotted name (np.int64)."""
    while isinstance(node, gast.Attribute):
        node = node.value
    return isinstance(node, gast.Name)

