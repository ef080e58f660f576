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
import numpy as np

from ..errors import UnsupportedSyntaxError
from ..syntax import base_name, names_loaded, walk

_VIEW_FUNCTIONS = {"reshape", "transpose", "ravel", "squeeze", "expand_dims", "broadcast_to",
                   "asarray", "ascontiguousarray", "atleast_1d", "atleast_2d", "atleast_3d",
                   "swapaxes", "moveaxis"}
_VIEW_METHODS = {"reshape", "transpose", "ravel", "squeeze", "view", "swapaxes"}
_VIEW_ATTRIBUTES = {"T", "real", "imag"}


def check_aliased_writes(tree, kinds, location, call_shares=None):
    """Raise UnsupportedSyntaxError if the function (`tree`, its variables'
    `kinds`) writes into an array through one name while another name of
    the same memory is still read. `call_shares(call)`: the arguments a
    helper's result may share memory with (helper_results.py)."""
    order = []  # (statement, enclosing loops), statements in source order
    _flatten(tree.body, (), order)
    aliases = [(_after_write_backs(order, p), alias, source, s)
               for p, (s, _) in enumerate(order)
               for alias, source in _second_names(s, kinds, call_shares)]
    if not aliases:
        return
    flow = _Flow(order)
    aliases = _through_chains(aliases, flow)
    writes = [(q, name) for q, (s, _) in enumerate(order) for name in _written(s, kinds)]
    reads = [(r, _header_loads(s)) for r, (s, _) in enumerate(order)]
    for p, alias, source, made in aliases:
        for q, name in writes:
            if name not in (alias, source) or not flow.reaches(p, q, {alias, source}):
                continue  # not while both names hold the memory
            other = source if name == alias else alias
            if not any(other in names and flow.reaches(q, r, {other}) for r, names in reads):
                continue  # the other name is not read after the write
            raise UnsupportedSyntaxError(
                f"writing into an array through one of two names of its memory ('{alias}' "
                f"{_relation(made, call_shares)} '{source}'; line {location.line_of(order[q][0])} writes into "
                f"'{name}', and '{other}' is read after that)",
                location, made,
                f"s2sad follows values by name, so the derivative would miss the write. "
                + (f"Append a copy ({alias}.append({source}.copy()))" if _appends(made) else
                   f"Put copies in the list ({source}.copy(), or of its part)"
                   if getattr(made, "s2sad_holds", None) else
                   f"Make a copy ({alias} = {made.s2sad_element_of[0]}[...].copy())"
                   if getattr(made, "s2sad_element_of", None) else
                   f"Make a copy ({alias} = ....copy()) or index '{source}' directly"))


def _through_chains(aliases, flow):
    """`aliases` and the second names made through a chain: after `a = h`
    and then `b = a` (while a still holds h's memory), b is a name of h's
    memory too, made where b is bound (a write into h, then a read of b, is
    the same hazard as through a)."""
    out, known = list(aliases), {(alias, source) for _, alias, source, _ in aliases}
    changed = True
    while changed:
        changed = False
        for p1, a, source, _ in list(out):
            for p2, b, via, made in list(out):
                if via != a or b == source or (b, source) in known \
                        or not flow.reaches(p1, p2, {a, source}):
                    continue
                out.append((p2, b, source, made))
                known.add((b, source))
                changed = True
    return out


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


def _second_names(s, kinds, call_shares):
    """(name, source) pairs: `s` makes name another name of (part of) the
    memory of source."""
    pairs = [(s.targets[0].id, source) for source in sorted(_aliased_sources(s, kinds))]
    if _appends(s) and not _a_number(s.value.args[0], kinds):
        # hs.append(h): the list holds h's memory (not hs.append(a[i]) of a
        # vector's element: a number, a copy)
        lst = s.value.func.value.id
        sources = memory_sources(s.value.args[0], lambda n: _is_array_kind(n, kinds),
                                 calls_share=False)
        pairs += [(lst, source) for source in sorted(sources)
                  if _is_array(source, kinds) and source != lst]
    elements = getattr(s, "s2sad_element_of", None)  # v = xs[k] of a list made variables
    if elements:  # (literals.py: in Python v is one of the elements itself)
        pairs += [(s.targets[0].id, source) for source in sorted(elements[1])
                  if _is_array(source, kinds) and _is_array(s.targets[0].id, kinds)]
    holds = getattr(s, "s2sad_holds", None)  # xs[k] = elt of a list made an array
    if holds and isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Subscript):
        lst = base_name(s.targets[0])  # (comprehensions.py: the list held elt itself)
        pairs += [(lst, source) for source in sorted(holds)
                  if _is_array(source, kinds) and source != lst]
    marked = getattr(s, "s2sad_result_shares", None)  # a writing helper's (written_args.py)
    if marked and _is_array(marked[0], kinds):
        pairs += [(marked[0], source) for source in marked[2] if _is_array(source, kinds)]
    if _helper_call(getattr(s, "value", None), call_shares) and len(s.targets) == 1 \
            and not getattr(s, "s2sad_return", False):
        # r = h(u), or a, b = h(u), with h returning u or a view of it
        targets = [t for t in walk(s.targets[0]) if isinstance(t, gast.Name)]
        pairs += [(t.id, source) for t in targets if _is_array(t.id, kinds)
                  for source in sorted(call_shares(s.value)) if _is_array(source, kinds)
                  and source != t.id and (t.id, source) not in pairs]
    return pairs


def _relation(made, call_shares):
    """How the statement `made` makes a second name, for the message."""
    by = getattr(made, "s2sad_returned_by", None)  # r = u, made of r = h(u) (written_args.py)
    marked = getattr(made, "s2sad_result_shares", None)
    if by or marked:
        return f"is what {by or marked[1]}(...) returns, which " + (
            "is" if by else "may be (a view of)")
    if _appends(made) or getattr(made, "s2sad_holds", None):
        return "holds"
    if getattr(made, "s2sad_element_of", None):
        return f"may be the element of the list '{made.s2sad_element_of[0]}' s2sad names"
    if isinstance(made.value, gast.Name):
        return "is another name for"
    if _helper_call(made.value, call_shares):
        return f"is what {_callee_name(made.value)}(...) returns, which may be (a view of)"
    return "is a view of"


def _appends(s):
    """`hs.append(v)` as a statement."""
    return isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) \
        and isinstance(s.value.func, gast.Attribute) and s.value.func.attr == "append" \
        and isinstance(s.value.func.value, gast.Name) and len(s.value.args) == 1


def _after_write_backs(order, p):
    """Where the second name `order[p]` makes takes effect: after the
    write-backs of a writing helper's call (`u[:] = u_written`, written_args.py),
    which in Python happen inside the call, before its result is bound."""
    marked = getattr(order[p][0], "s2sad_result_shares", None)
    while marked and p + 1 < len(order) and isinstance(order[p + 1][0], gast.Assign) \
            and isinstance(order[p + 1][0].value, gast.Name) \
            and order[p + 1][0].value.id in marked[3]:
        p += 1
    return p


def _helper_call(value, call_shares):
    return call_shares is not None and isinstance(value, gast.Call) \
        and bool(call_shares(value))


def _callee_name(call):
    f = call.func
    return f.id if isinstance(f, gast.Name) else getattr(f, "attr", "the helper")


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


def written_memory(tree, augmented=False):
    """Names whose memory the function may write into: the bases of element
    writes, and every name they may share memory with (`buf = a; buf[0] =
    ...`, a view `row = A[i]`, `for row in A`), followed back through
    assignments. `augmented`: `v += e` of a name counts as a write too (in
    place on an array; for a number the answer is then too large)."""
    from ..syntax import walk
    written = set()
    for n in walk(tree):
        if isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store):
            written.add(base_name(n))
        elif augmented and isinstance(n, gast.AugAssign) and isinstance(n.target, gast.Name):
            written.add(n.target.id)
    links = memory_links(tree)
    while True:
        more = {s for t, sources in links if t in written for s in sources} - written
        if not more:
            return written - {None}
        written |= more


def memory_links(tree, displays=True):
    """(name, the names whose memory it may share) for each binding that
    may give a name another's memory, flow-insensitively: `w = v`, a view
    `row = A[i]`, `A.T`, `np.reshape(A, s)`, and `for row in A`; with
    `displays`, also `lst = [A, b]` (an item of lst may be A)."""
    from ..syntax import walk
    links = []
    for n in walk(tree):
        if isinstance(n, gast.Assign) and len(n.targets) == 1 \
                and isinstance(n.targets[0], gast.Name):
            if not displays and isinstance(n.value, (gast.List, gast.Tuple)):
                continue
            links.append((n.targets[0].id, memory_sources(n.value, lambda _: False, False)))
        elif isinstance(n, gast.For) and isinstance(n.target, gast.Name) \
                and isinstance(n.iter, gast.Name):
            links.append((n.target.id, {n.iter.id}))  # for row in A: a view of A's row
    return links


def _a_number(node, kinds):
    """`node` (a name or an index of one) is a number by its kind."""
    from . import kinds as K  # (kinds imports this module's neighbours)
    if not isinstance(node, (gast.Name, gast.Subscript)):
        return False
    try:
        kind = K.of_atom(node, kinds)
    except Exception:  # noqa: BLE001 - an index the kinds do not follow: as an array
        return False
    return kind is not None and kind.is_scalar


def _is_array_kind(name, kinds):
    kind = kinds.get(name)
    return kind is not None and kind.is_array


def _written(s, kinds):
    """Names whose memory `s` writes into (element writes, in-place +=)."""
    if isinstance(s, gast.Assign):
        if getattr(s, "s2sad_holds", None):
            return set()  # (filling a list made an array: no write into its elements' memory)
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


# ---- memory a name owns ------------------------------------------------------

# numpy functions (besides ufuncs) whose result is a new array
_FRESH_FUNCTIONS = {
    "zeros", "zeros_like", "ones", "ones_like", "empty", "empty_like", "full", "full_like",
    "copy", "array", "dot", "outer", "matmul", "concatenate", "stack", "where", "clip",
    "cumsum", "cumprod", "sum", "prod", "mean", "amax", "amin", "max", "min", "diff", "kron",
    "tile", "repeat", "sort", "inv", "solve", "det", "norm", "cholesky", "eye", "identity"}
_FRESH_METHODS = {"copy", "astype", "sum", "mean", "prod", "dot", "cumsum"}


def fresh_value(value):
    """Whether `value` is a new array (or number), sharing no memory: an
    operator's result, a numpy ufunc's or array-making function's (not
    given `out=`), `x.copy()`."""
    if isinstance(value, (gast.BinOp, gast.UnaryOp)):
        operands = [value.left, value.right] if isinstance(value, gast.BinOp) \
            else [value.operand]
        return not any(isinstance(o, (gast.Tuple, gast.List)) for o in operands)
    if not isinstance(value, gast.Call) or any(k.arg == "out" for k in value.keywords):
        return False
    f = value.func
    if isinstance(f, gast.Attribute):
        obj = _numpy_object(f)
        if obj is not None:
            return isinstance(obj, np.ufunc) or f.attr in _FRESH_FUNCTIONS
        return f.attr in _FRESH_METHODS
    return False


class Ownership:
    """Which names hold memory of their own, for adding into it in place.

    `dv += e` on an array writes into dv's memory; written `dv = dv + e`, it
    makes a new array. The two agree when no other name read later refers
    to that memory: after `dx = dz; dy = dz` (the adjoint of x + y), `dx +=
    e` would change dy too. A name owns its memory when every value it, and
    every name it may share memory with (through `w = v`, a view, a call
    that may return its argument, a list it is pushed onto), is bound to is
    a new array: an arithmetic result, a numpy function's, zeros; never an
    argument (the caller's memory) or what an unknown function returns.

    `kinds` maps names to their kinds; `helpers` maps the runtime helpers'
    names to whether their result may be their first argument (or a view
    of it): the others return new arrays."""

    def __init__(self, body, params, kinds, helpers):
        from ..syntax import names_stored
        self.order = []
        _flatten(body, (), self.order)
        self.position = {id(s): p for p, (s, _) in enumerate(self.order)}
        self.flow = _Flow(self.order)
        self.reads = [(r, _header_loads(s)) for r, (s, _) in enumerate(self.order)]
        local = names_stored(body) | set(params)
        # a local whose kind is not known to be a scalar may hold an array
        self.maybe_array = lambda n: n in local and not (n in kinds and kinds[n].is_scalar)
        self.known_array = lambda n: n in kinds and kinds[n].is_array
        self.helpers = dict(helpers)
        self.parent = {}
        self.unowned = set(params)
        for s, _ in self.order:
            self._bindings(s)

    def may_add_in_place(self, s, var):
        """Whether `var += e` (the statement `s`) may write into var's memory."""
        p = self.position.get(id(s))
        if p is None or not self.known_array(var):
            return False
        group = self._group(var)
        if group & self.unowned:
            return False
        others = group - {var}
        if names_loaded(s.value) & others:
            return False  # e reads that memory, perhaps at other elements (a view)
        return not any(w in names and self.flow.reaches(p, r, {w})
                       for w in others for r, names in self.reads)

    # ---- which names may share memory -----------------------------------
    def _find(self, n):
        while self.parent.get(n, n) != n:
            n = self.parent[n]
        return n

    def _link(self, a, b):
        self.parent.setdefault(a, a)
        self.parent.setdefault(b, b)
        ra, rb = self._find(a), self._find(b)
        if ra != rb:
            self.parent[ra] = rb

    def _group(self, var):
        root = self._find(var)
        return {n for n in self.parent if self._find(n) == root} | {var}

    def _bindings(self, s):
        if isinstance(s, gast.Assign):
            target = s.targets[0]
            if isinstance(target, gast.Name):
                self._bind(target.id, s.value)
            elif isinstance(target, (gast.Tuple, gast.List)):
                pairs = isinstance(s.value, (gast.Tuple, gast.List)) \
                    and len(s.value.elts) == len(target.elts)
                for k, t in enumerate(target.elts):
                    if isinstance(t, gast.Name):
                        self._bind(t.id, s.value.elts[k] if pairs else s.value, whole=not pairs)
            elif isinstance(target, gast.Subscript) and isinstance(s.value, gast.Name) \
                    and self.maybe_array(s.value.id):
                self._link(base_name(target), s.value.id)  # a list (or tape) holding it
        elif isinstance(s, gast.Expr) and isinstance(s.value, gast.Call):
            # stack.append(v) keeps v in the stack; any other call may keep it anywhere
            names = [n.id for n in _walk_names(s.value) if self.maybe_array(n.id)]
            for n in names[1:]:
                self._link(names[0], n)
            f = s.value.func
            if not (isinstance(f, gast.Attribute) and f.attr == "append"):
                self.unowned.update(names)

    def _bind(self, target, value, whole=False):
        """`target = value`; `whole`: target is bound to a part of `value`
        (tuple unpacking of something other than a tuple display)."""
        if not self.maybe_array(target):
            return
        self.parent.setdefault(target, target)
        if not whole and self._fresh(value):
            return
        helper = value.func.id if isinstance(value, gast.Call) \
            and isinstance(value.func, gast.Name) and value.func.id in self.helpers else None
        if helper and not whole:
            if self.helpers[helper] and value.args:  # its first argument, or a new array
                self._bind(target, value.args[0])
            return
        if whole or isinstance(value, gast.Call):  # np.flip(x) is a view too
            sources = {n.id for n in _walk_names(value)}
        else:
            sources = memory_sources(value, self.known_array, calls_share=True)
        for source in sources:
            if self.maybe_array(source):
                self._link(target, source)
        if whole or not self._shares_only(value):
            self.unowned.add(target)

    def _fresh(self, value):
        return fresh_value(value)

    def _shares_only(self, value):
        """Whether `value` is another name or a view of names (not what an
        unknown function returns)."""
        if isinstance(value, gast.Call):
            f = value.func
            return isinstance(f, gast.Attribute) and (
                _numpy_object(f) is not None or f.attr in _VIEW_METHODS)
        return isinstance(value, (gast.Name, gast.Subscript, gast.Attribute, gast.Tuple,
                                  gast.List, gast.Constant))


def _walk_names(node):
    from ..syntax import walk
    return [n for n in walk(node) if isinstance(n, gast.Name)]


def _numpy_object(f):
    """The numpy object `np.exp` or `np.linalg.inv` denotes, or None."""
    parts = []
    while isinstance(f, gast.Attribute):
        parts.append(f.attr)
        f = f.value
    if not (isinstance(f, gast.Name) and f.id == "np"):
        return None
    obj = np
    for part in reversed(parts):
        obj = getattr(obj, part, None)
    return obj
