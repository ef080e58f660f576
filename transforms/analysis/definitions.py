"""Which variables may, and which must, hold a value before a statement.

A value is saved before it is overwritten only if it may exist (a first
assignment overwrites nothing); a variable that may not exist yet when it
is saved (first assigned inside a loop) gets a typed placeholder first."""
import gast

from ..syntax import names_stored, walk, walk_stmts


def _targets(s):
    return names_stored([s]) if isinstance(s, gast.Assign) else set()


class Definitions:
    def __init__(self, tree):
        args = {a.id for a in tree.args.args}
        self._maybe, self._surely, self._entry = {}, {}, {}
        self._branch_ends = {}
        self._walk_maybe(tree.body, set(args))
        self._walk_surely(tree.body, set(args))

    @classmethod
    def of_iteration(cls, loop, maybe, surely):
        """The same for the body of `loop` taken as one iteration on its own
        (fused sweeps): names not in `maybe` hold no value at its start."""
        self = cls.__new__(cls)
        self._maybe, self._surely, self._entry = {}, {}, {}
        self._branch_ends = {}
        self._walk_maybe(loop.body, set(maybe) | {loop.target.id})
        self._walk_surely(loop.body, set(surely) | {loop.target.id})
        return self

    def maybe_before(self, s):
        return self._maybe.get(id(s), set())

    def maybe_on_entry(self, loop):
        """What may hold a value when `loop` is reached from before it (its
        own back edge not counted)."""
        return self._entry.get(id(loop), set())

    def surely_before(self, s):
        return self._surely.get(id(s), set())

    def surely_after_branches(self, s):
        """What surely holds a value at the end of the `if` statement
        `s`'s body, and at the end of its else branch."""
        return self._branch_ends.get(id(s), (frozenset(), frozenset()))

    def _walk_maybe(self, stmts, seen):
        for s in stmts:
            stored = self._stored(s)
            if isinstance(s, (gast.For, gast.While)):
                self._entry[id(s)] = frozenset(seen)
                seen |= stored  # the back edge brings the body's names
            self._maybe[id(s)] = frozenset(seen)
            if isinstance(s, (gast.For, gast.While)):
                self._walk_maybe(s.body, seen)
            elif isinstance(s, gast.If):
                self._walk_maybe(s.body, seen)
                self._walk_maybe(s.orelse, seen)
            seen |= stored
        return seen

    def _stored(self, s):
        """names_stored([s]), a block's from its statements' (so that nested
        loops are not walked once per loop around them)."""
        if not isinstance(s, (gast.For, gast.While, gast.If)):
            return names_stored([s])
        memo = self.__dict__.setdefault("_stored_in", {})
        held = memo.get(id(s))
        if held is None:
            out = names_stored(s.target) if isinstance(s, gast.For) else set()
            for inner in s.body + s.orelse:
                out |= self._stored(inner)
            held = memo[id(s)] = (s, out)  # (held with its statement: its id stays its own)
        return held[1]

    def _walk_surely(self, stmts, defined):
        defined = set(defined)
        for s in stmts:
            self._surely[id(s)] = frozenset(defined)
            if isinstance(s, gast.If):
                a = self._walk_surely(s.body, defined)
                b = self._walk_surely(s.orelse, defined)
                self._branch_ends[id(s)] = (frozenset(a), frozenset(b))
                defined |= a & b
            elif isinstance(s, gast.For):
                self._walk_surely(s.body, defined | {s.target.id})
            elif isinstance(s, gast.While):
                self._walk_surely(s.body, defined)
            else:
                defined |= _targets(s)
        return defined


def loop_locals(tree):
    """For each loop, the variables that live only inside one iteration:
    assigned once, by a statement directly in the loop body, and read
    only after that statement within the body. Their values are recorded
    right after they are computed and restored at the start of each
    reverse iteration, which reads as a person would write it.

    The same name may be used before or after the loop (a name reused by
    two loops, a result read after the loop): that is a different value
    (lean_tapes.py saves the one the loop overwrites once, before it)."""
    out = {}
    for loop in walk(tree):
        if not isinstance(loop, (gast.For, gast.While)):
            continue
        # the header is read before the body: its names are no iteration's own
        header = _loads(loop.iter if isinstance(loop, gast.For) else loop.test)
        if isinstance(loop, gast.For):
            header |= names_stored(loop.target)
        local = set()
        stores = {}
        for s in walk_stmts(loop.body):
            bound = names_stored(s.target) if isinstance(s, gast.For) else _targets(s)
            for v in bound:  # (a nested loop's counter rebinds its name too)
                stores[v] = stores.get(v, 0) + 1
        seen_loads = set()
        for s in loop.body:
            if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name):
                v = s.targets[0].id
                if (stores.get(v) == 1 and v not in header and v not in seen_loads
                        and v not in _loads(s.value)):
                    local.add(v)
            seen_loads |= _loads_stmt(s)
        out[id(loop)] = local
    return out


def _loads(node):
    return {n.id for n in walk(node) if isinstance(n, gast.Name)
            and isinstance(n.ctx, gast.Load)}


def _loads_stmt(s):
    return _loads(s)


