"""A user's list used as a stack in differentiated code (`stack.append(v)`
... `v = stack.pop()`): it is a tape of the user's own, so in reverse the
adjoints go the other way, through a list of adjoints `dstack`."""
import gast

from ..errors import UnsupportedSyntaxError
from ..syntax import call, clone, const, name, walk


class UserStacks:
    """Mixed into ReverseMode, whose `active`, `d`, `fn`, `is_active_atom`,
    `atom_kind` and `accumulate_all` it uses."""

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
