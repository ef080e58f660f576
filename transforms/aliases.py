"""Writes through a second name of an array's memory are refused.

`row = B[0]`, `C = B`, `R = B.reshape((2, 2))` give a second name to (part
of) B's memory; a write through one name (`row[j] = ...`, `C += 1.0`)
changes what the other reads. The derivative follows values by name, not
memory, so it would miss that write and be silently wrong: s2sad refuses
the function instead, naming the assignment that makes the second name and
the write that goes through it.

A second name is harmless, and allowed, when nothing writes into either
name while the other is still read: a read-only view of a row (`xc = x[i]`),
a copy (`row = B[0].copy()`), fancy indexing (`B[idx]` makes a copy), a name
rebound before it is read again."""
import gast

from .errors import UnsupportedSyntaxError
from .syntax import base_name, names_loaded

_VIEW_FUNCTIONS = {"reshape", "transpose", "ravel", "squeeze", "expand_dims", "broadcast_to",
                   "asarray", "ascontiguousarray", "atleast_1d", "atleast_2d", "atleast_3d",
                   "swapaxes", "moveaxis"}
_VIEW_METHODS = {"reshape", "transpose", "ravel", "squeeze", "view", "swapaxes"}
_VIEW_ATTRIBUTES = {"T", "real", "imag"}


def check_aliased_writes(tree, kinds, location):
    """Raise UnsupportedSyntaxError if the function (`tree`, its variables'
    `kinds`) writes into an array through one name while another name of
    the same memory is still read."""
    order = []  # (statement, enclosing loops), statements in source order
    _flatten(tree.body, (), order)
    aliases = [(p, s.targets[0].id, source) for p, (s, _) in enumerate(order)
               for source in sorted(_aliased_sources(s, kinds))]
    if not aliases:
        return
    flow = _Flow(order)
    writes = [(q, name) for q, (s, _) in enumerate(order) for name in _written(s, kinds)]
    reads = [(r, _header_loads(s)) for r, (s, _) in enumerate(order)]
    for p, alias, source in aliases:
        for q, name in writes:
            if name not in (alias, source) or not flow.reaches(p, q, {alias, source}):
                continue  # not while both names hold the memory
            other = source if name == alias else alias
            if not any(other in names and flow.reaches(q, r, {other}) for r, names in reads):
                continue  # the other name is not read after the write
            relation = "is another name for" if isinstance(order[p][0].value, gast.Name) \
                else "is a view of"
            raise UnsupportedSyntaxError(
                f"writing into an array through one of two names of its memory ('{alias}' "
                f"{relation} '{source}'; line {location.line_of(order[q][0])} writes into "
                f"'{name}', and '{other}' is read after that)",
                location, order[p][0],
                f"s2sad follows values by name, so the derivative would miss the write. "
                f"Make a copy ({alias} = ....copy()) or index '{source}' directly")


class _Flow:
    """Which statement can run after which, on the statements in source
    order: later ones, and, within a loop, earlier ones of the loop on its
    next iteration. A path is cut by a statement that rebinds a name (a
    plain assignment to it): after `row = B[1]`, `row` is no longer B[0]."""

    def __init__(self, order):
        self.order = order
        self.spans = _loop_spans(order)
        self.binds = [_rebinds(s) for s, _ in order]

    def reaches(self, a, b, names):
        """Can statement b run after statement a with none of `names`
        rebound in between?"""
        if b > a and not self._rebound(a + 1, b, names):
            return True
        for loop in self.order[a][1]:  # round an enclosing loop again
            first, last = self.spans[id(loop)]
            if first <= b <= last and not self._rebound(a + 1, last + 1, names) \
                    and not self._rebound(first, b, names):
                return True
        return False

    def _rebound(self, start, stop, names):
        return any(self.binds[t] & names for t in range(start, stop))


def _rebinds(s):
    if isinstance(s, gast.Assign) and not getattr(s, "s2sad_inplace", False):
        return {t.id for t in s.targets if isinstance(t, gast.Name)}
    if isinstance(s, gast.For) and isinstance(s.target, gast.Name):
        return {s.target.id}
    return set()


def _flatten(stmts, loops, out):
    for s in stmts:
        out.append((s, loops))
        if isinstance(s, (gast.For, gast.While)):
            _flatten(s.body, loops + (s,), out)
            _flatten(s.orelse, loops, out)
        elif isinstance(s, gast.If):
            _flatten(s.body, loops, out)
            _flatten(s.orelse, loops, out)


def _loop_spans(order):
    """Loop -> (position of its header, position of its last statement)."""
    spans = {}
    for position, (s, loops) in enumerate(order):
        if isinstance(s, (gast.For, gast.While)):
            spans[id(s)] = (position, position)
        for loop in loops:
            first, _ = spans[id(loop)]
            spans[id(loop)] = (first, position)
    return spans


def _header_loads(s):
    if isinstance(s, gast.For):
        return names_loaded(s.iter)
    if isinstance(s, (gast.If, gast.While)):
        return names_loaded(s.test)
    return names_loaded(s)


def _is_array(name, kinds):
    kind = kinds.get(name)
    return kind is None or not kind.is_scalar


def _aliased_sources(s, kinds):
    """The arrays whose memory `v = value` may give a second name to."""
    if not (isinstance(s, gast.Assign) and len(s.targets) == 1
            and isinstance(s.targets[0], gast.Name)) or not _is_array(s.targets[0].id, kinds):
        return set()
    if getattr(s, "s2sad_return", False):
        return set()  # an early return's value: nothing after it runs
    sources = memory_sources(s.value, lambda n: _is_array_kind(n, kinds), calls_share=False)
    return {n for n in sources if _is_array(n, kinds)} - {s.targets[0].id}


def memory_sources(value, is_array, calls_share):
    """The names whose memory `value` may share: `w`, `A[i]` (not fancy
    indexing, which copies: an index `is_array`), `A.T`, `np.reshape(A, s)`,
    `A.ravel()`, `(A, B)`; with `calls_share`, also the arguments of any
    other call (a helper may return its argument)."""
    sources = set()
    if isinstance(value, gast.Name):
        sources.add(value.id)
    elif isinstance(value, gast.Subscript) and isinstance(value.value, gast.Name):
        index = value.slice.elts if isinstance(value.slice, gast.Tuple) else [value.slice]
        if not any(isinstance(i, gast.Name) and is_array(i.id) for i in index):
            sources.add(value.value.id)
    elif isinstance(value, gast.Attribute) and value.attr in _VIEW_ATTRIBUTES:
        sources.add(base_name(value))
    elif isinstance(value, (gast.Tuple, gast.List)):
        sources |= {e.id for e in value.elts if isinstance(e, gast.Name)}
    elif isinstance(value, gast.Call):
        f = value.func
        numpy = isinstance(f, gast.Attribute) and isinstance(f.value, gast.Name) \
            and f.value.id == "np"
        if numpy and f.attr in _VIEW_FUNCTIONS and value.args \
                and isinstance(value.args[0], gast.Name):
            sources.add(value.args[0].id)
        elif isinstance(f, gast.Attribute) and not numpy and f.attr in _VIEW_METHODS:
            sources.add(base_name(f.value))
        elif calls_share and not numpy:
            sources |= {a.id for a in value.args if isinstance(a, gast.Name)}
            if isinstance(f, gast.Attribute):
                sources.add(base_name(f))  # x.T.copy(): perhaps x itself
    sources.discard(None)
    return sources


def _is_array_kind(name, kinds):
    kind = kinds.get(name)
    return kind is not None and kind.is_array


def _written(s, kinds):
    """Names whose memory `s` writes into (element writes, in-place +=)."""
    if isinstance(s, gast.Assign):
        out = {base_name(t) for t in s.targets if isinstance(t, gast.Subscript)} - {None}
        if getattr(s, "s2sad_inplace", False) and _is_array(s.targets[0].id, kinds):
            out.add(s.targets[0].id)  # x += 1.0 on an array writes in place
        return out
    if isinstance(s, gast.AugAssign):
        if isinstance(s.target, gast.Subscript):
            return {base_name(s.target)} - {None}
        if isinstance(s.target, gast.Name) and _is_array(s.target.id, kinds):
            return {s.target.id}
    return set()
