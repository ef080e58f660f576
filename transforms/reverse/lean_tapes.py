"""Record a loop's values only where its reverse sweep reads them.

The reverse sweep restores a variable's old value where the forward sweep
overwrote it, so that each adjoint reads the value its statement read.
Inside a loop that is only needed if the reversed loop reads the variable.
A name the reverse of the loop never reads (a scratch name reused by a
later loop, a value only the code after the loop uses) needs no record in
the loop at all: the value it held when the loop started is saved once,
before the loop, and restored once, after the reversed loop, for the
reverse of the code before it:

    t_old = t                    # not `t_tape[i] = t` in every iteration
    for i in range(n):
        t = x[i] * 2.0
        y = y + t
    ...
    for i in range(n - 1, -1, -1):
        dx[i] += 2.0 * dy
    t = t_old

The same save keeps the value a loop-local variable overwrites when the
name is also used outside the loop (definitions.loop_locals): its own
values are restored at the top of each reverse iteration, which leaves the
name holding the first iteration's value.

Which names a reversed loop reads is known after a sweep is built; the
reverse mode builds its sweeps until what they read is stable (reverse.py)
and decides from the previous round, whose reads only grow."""
import gast

from ..syntax import name, walk, walk_stmts


class LoopReads:
    """The names each reversed loop's body reads, by round."""

    def __init__(self, tree, lean=True):
        self.lean = lean  # False: every reversed loop taken to read every name
        self.known = {}  # id(loop) -> names: the decisions of this round
        self.now = {}    # id(loop) -> names read in this round
        self._inside = {}  # id(loop) -> (loop, how often its names are mentioned in it)
        self.everywhere = _mentions_by_loop(tree.body, self._inside)
        self._outside = {}
        self._asked = {}  # (id(loop), name) -> the answer `reads` gave this round

    def mentioned_outside(self, loop):
        """Names the function mentions outside `loop` (only their adjoints
        can read them after the reversed loop)."""
        if id(loop) not in self._outside:
            held = self._inside.get(id(loop))
            inside = held[1] if held is not None else _mentions([loop])
            self._outside[id(loop)] = (loop, {v for v, k in self.everywhere.items()
                                              if k > inside.get(v, 0)})
        return self._outside[id(loop)][1]

    def note(self, loop, reads):
        self.now[id(loop)] = self.now.get(id(loop), set()) | reads

    def next_round(self):
        """Start a round; whether a decision of the last one would change."""
        merged = {k: self.known.get(k, set()) | v for k, v in self.now.items()}
        merged.update({k: v for k, v in self.known.items() if k not in merged})
        changed = any(_answer(merged, key, var) != answer
                      for (key, var), answer in self._asked.items())
        self.known, self.now, self._asked = merged, {}, {}
        return changed

    def reads(self, loop, var):
        """Whether the reversed `loop` reads `var` (None: not known yet)."""
        if not self.lean:
            return True
        answer = self._asked[(id(loop), var)] = _answer(self.known, id(loop), var)
        return answer

    def unread(self, var, frames):
        """Whether some loop around a definition of `var` never reads it in
        reverse (the definition needs no record: see entry_saves)."""
        return any(self.reads(f.loop, var) is False for f in frames)


def bound_names(loop):
    """Names `loop`'s body binds as a whole (assignments, nested loops'
    counters), not those only written into."""
    out = set()
    for s in walk_stmts(loop.body):
        if isinstance(s, gast.Assign):
            out |= _whole_names(s.targets[0])
        elif isinstance(s, gast.For):
            out |= _whole_names(s.target)
    return out


def _whole_names(target):
    if isinstance(target, gast.Name):
        return {target.id}
    if isinstance(target, (gast.Tuple, gast.List)):
        return {n for e in target.elts for n in _whole_names(e)}
    return set()


def entry_saves(mode, loop, frames):
    """(save before `loop`, restore after its reverse) of the values the
    loop overwrites that the reverse sweep reads after the reversed loop:
    names the reversed loop does not read, and its loop-locals."""
    if id(loop) not in mode.loop_reads.known or not mode.record_enabled:
        return [], []
    counter = {loop.target.id} if isinstance(loop, gast.For) else set()
    local = mode.loop_locals.get(id(loop), ())
    entry = mode.defs.maybe_on_entry(loop) & mode.loop_reads.mentioned_outside(loop)
    saves, restores = [], []
    for var in sorted(bound_names(loop) - counter):
        if var not in mode.needed or var not in entry or (
                mode.loop_reads.reads(loop, var) and var not in local):
            continue
        save, _, restore = mode.record(name(var), loop, frames, maybe=True,
                                       surely=var in mode.defs.surely_before(loop))
        saves += save
        restores += restore
    return saves, restores


def _answer(known, key, var):
    return None if key not in known else var in known[key]


def _mentions(stmts):
    counts = {}
    for n in walk(gast.Module(body=list(stmts), type_ignores=[])):
        if isinstance(n, gast.Name):
            counts[n.id] = counts.get(n.id, 0) + 1
    return counts


def _mentions_by_loop(stmts, loops):
    """_mentions(stmts), and into `loops` that of each loop in them, in one
    walk (not one per loop around a statement)."""
    counts = {}
    for s in stmts:
        if isinstance(s, (gast.For, gast.While, gast.If)):
            own = _mentions([s.target, s.iter] if isinstance(s, gast.For) else [s.test])
            for block in (s.body, s.orelse):
                for v, k in _mentions_by_loop(block, loops).items():
                    own[v] = own.get(v, 0) + k
            if not isinstance(s, gast.If):
                loops[id(s)] = (s, own)
        else:
            own = _mentions([s])
        for v, k in own.items():
            counts[v] = counts.get(v, 0) + k
    return counts
