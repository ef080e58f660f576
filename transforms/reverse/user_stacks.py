"""A user's list used as a stack in differentiated code (`stack.append(v)`
... `v = stack.pop()`): it is a tape of the user's own, so in reverse the
adjoints go the other way, through a list of adjoints `dstack`.

A list also read by index or stacked (`v = hs[i]`, `z = stack_list(hs)`:
list_reads.py makes every read such a statement) has a list of adjoints
that mirrors it element by element: zeros shaped like its elements where
the reverse sweep starts (and where it passes the list's binding, for the
list the name held before), an element's adjoint taken off where its
append is reversed and put back where its pop is, and each read adding
its value's adjoint into the element's, `dhs[i] = dhs[i] + dv` (a new
array: the element's adjoint may be another name's array too). At every
point of the reverse sweep it has the length the list had at that point
of the forward one, so the same index, negative ones too, names the same
element."""
import gast

from ..analysis.stack_uses import read_of
from ..errors import UnsupportedSyntaxError
from ..syntax import assign, call, clone, const, name, walk, walk_stmts


class UserStacks:
    """Mixed into ReverseMode, whose `active`, `d`, `fn`, `is_active_atom`,
    `atom_kind`, `kinds`, `tree` and `accumulate_all` it uses."""

    @property
    def indexed_lists(self):
        """The lists read by index or stacked somewhere: their lists of
        adjoints mirror them."""
        if "_indexed_lists" not in self.__dict__:
            lists = {v for v, k in self.kinds.items() if k.tag == "list"}
            self._indexed_lists = {
                (s.value.value if isinstance(s.value, gast.Subscript) else s.value.args[0]).id
                for s in walk_stmts(self.tree.body)
                if isinstance(s, gast.Assign) and read_of(s.value, lists)}
        return self._indexed_lists

    def list_read(self, s, z, value):
        """v = hs[i] or z = stack_list(hs): in reverse, the adjoint of the
        value read goes into the elements' adjoints."""
        dlst, dz = self.d(value.value.id if isinstance(value, gast.Subscript)
                          else value.args[0].id), name(self.d(z))
        if isinstance(value, gast.Subscript):
            slot = gast.Subscript(value=name(dlst), slice=clone(value.slice), ctx=gast.Load())
            target = clone(slot)
            target.ctx = gast.Store()
            add = assign(target, gast.BinOp(left=slot, op=gast.Add(), right=dz))
        else:
            add = gast.Expr(value=call("add_rows", name(dlst), dz))
        add.s2sad_cotangent = self.d(z)
        return [add]

    def list_append(self, s):
        """stack.append(v) in differentiated code (a tape): in reverse, v's
        adjoint comes back from the list of adjoints."""
        c = s.value
        if not (isinstance(c, gast.Call) and isinstance(c.func, gast.Attribute)
                and c.func.attr == "append" and isinstance(c.func.value, gast.Name)):
            return []
        stack, v = c.func.value.id, c.args[0]
        if stack in self.active and not isinstance(v, (gast.Name, gast.Subscript, gast.Constant)) \
                and any(isinstance(n, gast.Name) and n.id in self.active for n in walk(v)):
            # (a stack holds values, as generated tapes push them: an
            # expression's gradient would be lost)
            raise UnsupportedSyntaxError(
                f"{stack}.append(...) of an expression, on a list of values that need a gradient",
                self.fn.location, s, "Build the list as a literal, or with a for loop appending "
                "once per iteration (s2sad fills an array), or preallocate an array")
        if stack not in self.active:
            return []
        pop = call(gast.Attribute(value=name(self.d(stack)), attr="pop", ctx=gast.Load()))
        if stack in self.indexed_lists:  # (its mirror holds every element's adjoint)
            if not self.is_active_atom(v):
                return [gast.Expr(value=pop)]
            return self.accumulate_all([(v, pop)], None)
        if not self.is_active_atom(v):
            # a constant on a stack of values that need a gradient: its
            # adjoint (pushed where it was popped) is taken off and dropped,
            # so each value below gets its own
            drop = gast.If(test=gast.Compare(left=call("len", name(self.d(stack))),
                                             ops=[gast.Gt()], comparators=[const(0)]),
                           body=[gast.Expr(value=pop)], orelse=[])
            return [drop]
        # a value the function left on the stack (pushed, never popped) has
        # no adjoint pushed: it lies below every popped one, so its pop finds
        # the list of adjoints empty, and its adjoint is zero
        pop = gast.IfExp(test=gast.Compare(left=call("len", name(self.d(stack))),
                                           ops=[gast.Gt()], comparators=[const(0)]),
                         body=pop, orelse=self.zero_like_atom(v))
        return self.accumulate_all([(v, pop)], None)

    def zero_like_atom(self, v):
        """A zero of the kind of the atom `v` (a name or a subscript)."""
        k = self.atom_kind(v)
        if k.is_array:
            return call("np.zeros_like", clone(v))
        if k.tag in ("float", "int", "bool"):
            return const(0.0)
        return call("zeros_like", clone(v))

    def list_pop(self, s, z, value):
        """v = stack.pop(): v's adjoint goes onto the list of adjoints."""
        stack = value.func.value.id
        if value.args or value.keywords:
            # (the adjoints are a stack too: a value taken from elsewhere in
            # the list would get another value's adjoint)
            raise UnsupportedSyntaxError(
                f"{stack}.pop(i) with an index, on a list of values that need a gradient",
                self.fn.location, s, f"Pop from the end ({stack}.pop()), or index the list "
                f"({stack}[i]) and build a new one")
        push = call(gast.Attribute(value=name(self.d(stack)), attr="append", ctx=gast.Load()),
                    name(self.d(z)))
        return [gast.Expr(value=push)]
