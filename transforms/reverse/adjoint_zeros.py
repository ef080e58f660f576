"""Where adjoints start at zero, and the zero of each kind of value.

Adjoints are zeroed together before the reverse sweep, with the kind and
shape of their value's last binding (and again after each binding is
reversed). An adjoint of a value of no known kind is zeroed by the
runtime's `zeros_like`, which reads the value: where one branch of an `if`
alone binds that value, its adjoint is zeroed at the start of the
branch's reverse instead."""
import gast

from ..syntax import assign, call, const, name, names_stored, walk


class AdjointZeros:
    """A mixin of ReverseMode: `kinds`, `adjoints`, `active`, `defs`,
    `outputs` and `tree` are its."""

    def zero_of(self, var):
        k = self.kind(var)
        if k.tag == "list" and var in self.indexed_lists:  # zeros mirroring its elements
            return call("zeros_list", name(var))
        if k.tag == "list":  # a tape of differentiated code: a list of adjoints
            return gast.List(elts=[], ctx=gast.Load())
        if k.tag in ("float", "int", "bool", "none", "str"):
            return const(0.0)  # (None or a string a helper returns: no gradient, a zero seed)
        if k.is_array:
            return call("np.zeros_like", name(var))
        return call("zeros_like", name(var))  # runtime helper: any kind

    def of_no_known_kind(self, var):
        """Whether the zero of `var`'s adjoint is `zeros_like(var)`, the
        runtime's zero of any value."""
        k = self.kind(var)
        return not (k.tag in ("list", "float", "int", "bool", "none", "str") or k.is_array)

    def zero_stmt(self, var):
        s = assign(self.d(var), self.zero_of(var))
        s.s2sad_zero = True
        return s

    def zeroed_in_branch(self, s, which, rev):
        """`rev`, the reverse of one branch of the `if` `s` (in no loop),
        after the zeroing of the adjoints of values of no known kind that
        only this branch binds and reads, each surely bound at its end.
        Zeroed with the function's other adjoints, `zeros_like(v)` would
        read `v` where the branch did not run (an early return's `if not
        returned:`); here the branch ran and `v` holds its last value."""
        if not rev:
            return rev
        branch = (s.body, s.orelse)[which]
        bound = self.defs.surely_after_branches(s)[which] & names_stored(branch)
        local = [v for v in sorted(bound) if v in self.adjoints and v in self.active
                 and v not in self.outputs and self.of_no_known_kind(v)]
        if not local:
            return rev
        outside = names_loaded_or_stored_outside(self.tree, s)
        local = [v for v in local if v not in outside]
        self.zeroed_in_branches.update(local)
        return [self.zero_stmt(v) for v in local] + rev


def names_loaded_or_stored_outside(tree, s):
    """Names the function `tree` reads or binds outside the statement `s`."""
    inside = {id(n) for n in walk(s)}
    return {n.id for n in walk(tree) if isinstance(n, gast.Name) and id(n) not in inside}
