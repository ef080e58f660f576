"""Clean-up of generated code, so that it reads as a person would write it.

* Zero propagation: an adjoint known to be zero turns `dv += e` into
  `dv = e`, and contributions scaled by a zero adjoint disappear.
* Dead-store elimination: assignments nobody reads go (unused adjoints,
  their zero-initialisations, forward values only the output did not need),
  except the user's own evaluations of subscripts and helper calls: the
  function raises IndexError there, and so must its derivative (`if x[-2]
  > c: continue` at the end of a loop body sets a flag nobody reads, but
  the test still runs, as `if x[-2] > c: pass`).
* Re-fusion: a temporary made by normalisation and read once, by the next
  statement, is substituted back, restoring the user's expressions; a call
  of a function by name keeps its place among such calls (a recursive
  helper's forward sweeps push records its reverse sweep pops in order).

All three work on structured code (if / for / while) with the usual
fixpoints at loops."""
import builtins

import gast

from ..checks.bounds_syntax import users_own
from ..syntax import base_name, clone, names_loaded, names_stored, walk, walk_stmts

_PURE_CALL_ATTRS = {"append"}  # list.append mutates its list: a use, kept
_BUILTINS = frozenset(dir(builtins))


def _is_name_store(s):
    return isinstance(s, (gast.Assign, gast.AugAssign)) and all(
        t.__class__ is gast.Name for t in _targets(s))


def _targets(s):
    if s.__class__ is gast.AugAssign:
        return [s.target]
    return _flat(s.targets[0])


def _flat(target):
    """The names and subscripts a (nested) tuple target stores."""
    if target.__class__ is gast.Tuple or target.__class__ is gast.List:
        return [t for e in target.elts for t in _flat(e)]
    return [target]


def _stored_names(s):
    out = {base_name(t) for t in _targets(s)}
    out.discard(None)
    return out


# ---- zero propagation ---------------------------------------------------

class ZeroPropagation:
    def __init__(self, owned):
        self.owned = owned  # adjoints updated through subscripts: never alias

    def run(self, stmts):
        self.depth = -1
        self.shaped_by = {}  # adjoint -> names its zeros take their shape from
        self.shapes = {}     # and back: name -> adjoints it may have shaped
        self._heads = {}     # id(loop) -> (loop, zeros entering it, zeros at its head)
        self.block(stmts, set(), rewrite=True)

    def block(self, stmts, zero, rewrite):
        out = []
        self.depth += 1
        for k, s in enumerate(stmts):
            self.after = (stmts, k + 1)  # (what follows s: updated_in_place)
            keep = self.statement(s, zero, rewrite)
            if keep is not None:
                out.append(keep)
        self.depth -= 1
        if rewrite:
            stmts[:] = out
        return zero

    def updated_in_place(self, var):
        """Whether `var` may be written through a subscript before it is
        next rebound (looking ahead in the current block; a nested block's
        end is a may)."""
        block, start = self.after  # (unchanged until its block is done)
        for s in block[start:]:
            if isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name) \
                    and s.targets[0].id == var and var not in names_loaded(s.value):
                return False
            if var in {base_name(t) for t in _subscript_stores(s)}:
                return True
            if var in names_stored([s]) and not isinstance(s, gast.Assign):
                return True  # dv += e on an array, or a store inside a block
        return self.depth > 0

    def statement(self, s, zero, rewrite):
        if isinstance(s, gast.Assign):
            targets = _stored_names(s)
            if getattr(s, "s2sad_zero", False):
                t = s.targets[0].id
                if t in zero:
                    return None
                zero.add(t)
                self.shaped_by[t] = names_loaded(s.value)
                for v in self.shaped_by[t]:
                    self.shapes.setdefault(v, set()).add(t)
                return s
            zero -= targets
            # rebinding v gives its adjoint's zeros another shape: not known any more
            zero -= {t for v in targets for t in self.shapes.get(v, ())
                     if t in zero and v in self.shaped_by[t]}
            return s
        if isinstance(s, gast.AugAssign):
            if getattr(s, "s2sad_cotangent", None) in zero:
                return None
            t = s.target
            if isinstance(t, gast.Name) and t.id in zero:
                zero.discard(t.id)
                if t.id in self.owned:
                    return s
                if not rewrite:
                    return s
                value = s.value
                # (unbroadcast(dx[a:b], v) of the same shape is dx[a:b] itself)
                viewed = value.args[0] if isinstance(value, gast.Call) \
                    and isinstance(value.func, gast.Name) and value.func.id == "unbroadcast" \
                    else value
                if (getattr(s, "s2sad_view", False) or (
                        isinstance(value, gast.Name) and value.id in self.owned)) \
                        and self.updated_in_place(base_name(viewed)) \
                        or _read_only_view(viewed) and self.updated_in_place(t.id):
                    # an array of another adjoint that is later updated in
                    # place: dv = e would alias it; or numpy's read-only view
                    # (np.diag of a matrix), which a later dv += e cannot write
                    value = gast.Call(func=gast.Attribute(value=gast.Name(
                        id="np", ctx=gast.Load(), annotation=None, type_comment=None),
                        attr="copy", ctx=gast.Load()), args=[value], keywords=[])
                new = gast.Assign(targets=[t], value=value, type_comment=None)
                gast.copy_location(new, s)
                new.__dict__.update({k: v for k, v in s.__dict__.items() if k.startswith("s2sad_")})
                return new
            zero.discard(base_name(t))
            return s
        if isinstance(s, gast.If):
            zb = self.block(s.body, set(zero), rewrite)
            zo = self.block(s.orelse, set(zero), rewrite)
            zero &= zb & zo
            if rewrite and not s.body:
                s.body = [gast.Pass()]
            return s
        if isinstance(s, (gast.For, gast.While)):
            # (an enclosing loop's rounds enter it with the same zeros again:
            # the head found then holds; s2sad_zero statements come only
            # from reverse_mode.zero_stmt, so what `shaped_by` records of an
            # adjoint is the same whichever of them it met last)
            entry = frozenset(zero)
            held = self._heads.get(id(s))
            if held is not None and held[1] == entry:
                head = set(held[2])
            else:
                head = set(zero)
                while True:
                    end = self.block(s.body, set(head), rewrite=False)
                    new_head = zero & end
                    if new_head == head:
                        break
                    head = new_head
                self._heads[id(s)] = (s, entry, frozenset(head))
            if rewrite:  # (otherwise a round above, or an earlier visit, did this)
                self.block(s.body, set(head), rewrite)
            if isinstance(s, gast.For):
                head.discard(s.target.id)
            zero.intersection_update(head)
            if rewrite and not s.body:
                s.body = [gast.Pass()]
            return s
        return s


# numpy functions whose result may be a read-only view of their argument
# (np.diag and np.diagonal of a matrix, np.broadcast_to)
_READ_ONLY_VIEWS = frozenset({"diag", "diagonal", "broadcast_to"})


def _read_only_view(value):
    return isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute) \
        and isinstance(value.func.value, gast.Name) and value.func.value.id == "np" \
        and value.func.attr in _READ_ONLY_VIEWS


def _subscript_stores(s):
    return [n for n in walk(s) if isinstance(n, gast.Subscript) and isinstance(n.ctx, gast.Store)]


# ---- dead-store elimination ------------------------------------------

def _uses(s):
    if isinstance(s, gast.Assign):
        used = names_loaded(s.value)
        for t in _targets(s):
            if not isinstance(t, gast.Name):
                used |= names_loaded(t)
                used.add(base_name(t))  # a partial write keeps the rest alive
        return used
    if isinstance(s, gast.AugAssign):
        return names_loaded(s.value) | names_loaded(s.target) | {base_name(s.target)}
    return names_loaded(s)


def own_expressions(s):
    """The expressions a statement evaluates itself (a compound statement's
    test or iterator, not its blocks)."""
    if isinstance(s, (gast.If, gast.While)):
        return [s.test]
    if isinstance(s, gast.For):
        return [s.iter]
    return [s]


def _raises(s):
    """Whether `s` evaluates a subscript or a helper call of the user's code
    itself (bounds.users_own; the reverse sweep's and the tapes' are
    copies). Such a statement may raise IndexError where the function does,
    so it stays even when nothing reads what it stores."""
    subscript, call = gast.Subscript, gast.Call
    # (only subscripts and calls may raise: the others are not asked)
    return any(_may_raise(n) for part in own_expressions(s) for n in walk(part)
               if n.__class__ is subscript or n.__class__ is call)


def _may_raise(n):
    if n.__class__ is gast.Subscript:
        if isinstance(n.value, gast.Attribute) and n.value.attr == "shape":
            return False  # (a constant index into a shape: numba checks it compiling)
        items = n.slice.elts if isinstance(n.slice, gast.Tuple) else [n.slice]
        if all(isinstance(i, gast.Slice) for i in items):
            return False  # (numpy clips slices)
    elif n.__class__ is gast.Call:
        if not isinstance(n.func, gast.Name) or n.func.id in _BUILTINS:
            return False  # (numpy's and Python's own: no IndexError)
    else:
        return False
    return users_own(n)


class DeadStores:
    def __init__(self, removable, keep_raising=True):
        self.removable = removable  # predicate on a variable name
        # False where the function's own code already ran before (a helper's
        # vjp: its caller's forward sweep called the helper)
        self.keep_raising = keep_raising
        # what each statement reads, stores and whether it may raise, found
        # once (nested loops revisit statements many times) and kept for a
        # later run over the same statements, but for those changed in
        # between (`changed`); each entry holds its node, so ids stay its own
        self._loads = {}
        self._assignments = {}
        self._raising = {}

    def changed(self, statements):
        """Forget what was found about `statements` (and those nested in
        them): a pass since the last run rewrote them in place."""
        for s in walk_stmts(statements):
            self._assignments.pop(id(s), None)
            self._raising.pop(id(s), None)
            for part in own_expressions(s):
                self._loads.pop((id(part), "loads"), None)

    def run(self, stmts, live_out):
        # liveness only grows as an enclosing loop's fixpoint goes round, so an
        # inner loop's fixpoint starts from its last one (held with its loop)
        self._heads = {}
        self.block(stmts, set(live_out), rewrite=True)

    def raises(self, s):
        if not self.keep_raising:
            return False
        held = self._raising.get(id(s))
        if held is None:
            held = self._raising[id(s)] = (s, _raises(s))
        return held[1]

    def loads(self, node):
        key = (id(node), "loads")
        if key not in self._loads:
            self._loads[key] = (node, names_loaded(node))
        return self._loads[key][1]

    def block(self, stmts, live, rewrite):
        if not rewrite:  # (a round of a loop's fixpoint: only what is live)
            for s in reversed(stmts):
                self.statement(s, live, False)
            return live
        out = []
        for s in reversed(stmts):
            keep = self.statement(s, live, rewrite)
            if keep is not None:
                out.append(keep)
        if rewrite:
            stmts[:] = out[::-1]
        return live

    def assignment(self, s):
        """(the statement, names it stores, whether only whole names, names
        it reads, whether it is the user's own), once per statement."""
        held = self._assignments[id(s)] = (s, _stored_names(s) | _changed_lists(s),
                                           _is_name_store(s), _uses(s),
                                           getattr(s, "s2sad_user", False))
        return held

    def _closed_head(self, loop, live):
        """The names live at `loop`'s head when `live` (after it) adds none
        to its last fixpoint: that head is closed under the body already, so
        it is the fixpoint again (an enclosing loop's confirming round then
        costs one visit of this loop, not a visit of everything in it)."""
        held = self._heads.get(id(loop))
        if held is not None and live <= held[1]:
            return held[1]
        return None

    def statement(self, s, live, rewrite):
        cls = s.__class__
        if cls is _ASSIGN or cls is _AUGASSIGN:
            # (the commonest statement, visited again in every round of the
            # loops around it: what it stores and reads is found once)
            _, stored, whole, uses, user = self._assignments.get(id(s)) or self.assignment(s)
            if user:
                # the user's own statement: kept, even if nothing reads it
                if whole:
                    live -= stored
            elif whole:
                if not stored & live and not self.raises(s):
                    return None
                live -= stored
            elif not stored & live and all(self.removable(v) for v in stored) \
                    and not self.raises(s):
                return None
            live |= uses
            return s
        if isinstance(s, gast.If):
            lb = self.block(s.body, set(live), rewrite)
            lo = self.block(s.orelse, set(live), rewrite)
            live |= lb | lo | self.loads(s.test)
            if rewrite and not s.body and not s.orelse and not self.raises(s):
                return None
            if rewrite and not s.body:
                s.body = [gast.Pass()]
            return s
        if isinstance(s, gast.For):
            head = self._closed_head(s, live)
            if head is None:
                head = set(live) | self._heads.get(id(s), (s, set()))[1]
                while True:
                    body_in = self.block(s.body, set(head), rewrite=False)
                    new_head = head | (body_in - {s.target.id}) | self.loads(s.iter)
                    if new_head == head:
                        break
                    head = new_head
                self._heads[id(s)] = (s, head)
            if rewrite:  # (otherwise the last round above did exactly this)
                self.block(s.body, set(head), rewrite)
            live |= head
            if rewrite and (not s.body or all(isinstance(b, gast.Pass) for b in s.body)):
                if not self.raises(s):
                    return None
                s.body = [gast.Pass()]
            return s
        if isinstance(s, gast.While):
            head = self._closed_head(s, live)
            if head is None:
                head = set(live) | self.loads(s.test) | self._heads.get(id(s), (s, set()))[1]
                while True:
                    body_in = self.block(s.body, set(head), rewrite=False)
                    new_head = head | body_in
                    if new_head == head:
                        break
                    head = new_head
                self._heads[id(s)] = (s, head)
            if rewrite:
                self.block(s.body, set(head), rewrite)
            live |= head
            if rewrite and not s.body:
                s.body = [gast.Pass()]
            return s
        if isinstance(s, gast.Return):  # nothing after it runs
            live.clear()
            live |= names_loaded(s)
            return s
        if _is_push(s):  # stack.append(v): a partial store into the stack
            stack = s.value.func.value.id
            if stack not in live and self.removable(stack):
                return None
        live |= names_loaded(s)
        return s


_ASSIGN, _AUGASSIGN = gast.Assign, gast.AugAssign


def _changed_lists(s):
    """Lists an assignment changes besides its target: `v = stack.pop()`
    takes the last item off `stack`, so it stays while `stack` is read
    later, even when nothing reads `v` (normalisation leaves pops as
    assignments of their own; the reverse sweep's are `dx[i] += dstack.pop()
    if len(dstack) > 0 else 0.0`)."""
    value = s.value
    if value.__class__ is gast.IfExp:  # (a stack of adjoints: `dstack.pop() if ... else 0.0`)
        value = value.body
    if value.__class__ is gast.Call and value.func.__class__ is gast.Attribute \
            and value.func.attr == "pop" and value.func.value.__class__ is gast.Name:
        return {value.func.value.id}
    return _NONE


_NONE = frozenset()


def _is_push(s):
    return (isinstance(s, gast.Expr) and isinstance(s.value, gast.Call)
            and isinstance(s.value.func, gast.Attribute) and s.value.func.attr == "append"
            and isinstance(s.value.func.value, gast.Name))


# ---- re-fusion of single-use temporaries ---------------------------------

def refuse(stmts, temporaries):
    """Substitute single-use temporaries into the statement that reads them."""
    counts = {}
    for n in walk(gast.Module(body=stmts, type_ignores=[])):
        if isinstance(n, gast.Name):
            key = (n.id, "load" if isinstance(n.ctx, gast.Load) else "store")
            counts[key] = counts.get(key, 0) + 1
    fusable = {t for t in temporaries
               if counts.get((t, "load")) == 1 and counts.get((t, "store")) == 1}
    _refuse_block(stmts, fusable)


def _refuse_block(stmts, fusable):
    i = 0
    while i < len(stmts):
        s = stmts[i]
        for field in ("body", "orelse"):
            if isinstance(getattr(s, field, None), list):
                _refuse_block(getattr(s, field), fusable)
        if (isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)
                and s.targets[0].id in fusable):
            var, reads = s.targets[0].id, names_loaded(s.value)
            ordered = _ordered_calls(s.value)
            for j in range(i + 1, len(stmts)):
                nxt = stmts[j]
                if isinstance(nxt, gast.For):
                    break  # (_substitute_in goes into simple statements and tests only)
                if var in names_loaded(nxt.test if isinstance(nxt, (gast.If, gast.While))
                                       else nxt):
                    # (a call that must keep its place among calls: not into a
                    # statement making another, which Python may evaluate first)
                    if not (ordered and _ordered_calls(nxt)) and _substitute_in(nxt, var, s.value):
                        del stmts[i]
                        i -= 1
                    break
                # the value may move down past simple statements that leave
                # its operands alone, and a call of a function (which may
                # change what another reads, or record onto a list a reverse
                # sweep pops in order) past none that calls one
                if not isinstance(nxt, gast.Assign) or reads & names_stored([nxt]) \
                        or (ordered and _ordered_calls(nxt.value)):
                    break
        i += 1


def _ordered_calls(node):
    """Whether `node` calls a function by name that is not Python's own (a
    helper of the user's, or a derivative's forward sweep, which pushes its
    records): such calls keep their order. numpy's and math's functions
    (attributes) and builtins compute values only."""
    return any(n.__class__ is gast.Call and isinstance(n.func, gast.Name)
               and n.func.id not in _BUILTINS for n in walk(node))


def _substitute_in(stmt, var, value):
    """Replace the single load of `var` in the simple statement `stmt`."""
    if isinstance(stmt, (gast.Assign, gast.AugAssign)):
        parts = [stmt.value]
    elif isinstance(stmt, gast.Return):
        parts = [stmt.value]
    elif isinstance(stmt, (gast.If, gast.While)):
        parts = [stmt.test]
    else:
        return False
    for part in parts:
        for node in walk(part):
            for field, child in gast.iter_fields(node):
                if isinstance(child, gast.Name) and child.id == var and isinstance(child.ctx, gast.Load):
                    setattr(node, field, clone(value))
                    return True
                if isinstance(child, list):
                    for k, c in enumerate(child):
                        if isinstance(c, gast.Name) and c.id == var and isinstance(c.ctx, gast.Load):
                            child[k] = clone(value)
                            return True
    if isinstance(stmt, (gast.Assign, gast.AugAssign, gast.Return)) and isinstance(stmt.value, gast.Name) \
            and stmt.value.id == var:
        stmt.value = clone(value)
        return True
    return False


# ---- copy propagation ---------------------------------------------------

def propagate_copies(stmts, candidates, changed=lambda statements: None):
    """After `a = b` (both names, `a` generated), read `b` for `a` until
    either is reassigned; dead-store elimination then drops the copy.
    `changed` is told of each statement it rewrites."""
    # the names each statement mentions and stores, found once: a long
    # straight-line body has many copies, each scanning what follows
    # (a statement is scanned only before its own blocks are processed, and
    # a rename only adds a name to it)
    mentions, stores = {}, {}

    def names_in(t):
        if id(t) not in mentions:
            mentions[id(t)] = {n.id for n in walk(t) if isinstance(n, gast.Name)}
            stores[id(t)] = _all_stores(t)
        return mentions[id(t)], stores[id(t)]

    for k, s in enumerate(stmts):
        for field in ("body", "orelse"):
            if isinstance(getattr(s, field, None), list):
                propagate_copies(getattr(s, field), candidates, changed)
        if (isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)
                and isinstance(s.value, gast.Name) and s.targets[0].id in candidates):
            a, b = s.targets[0].id, s.value.id
            for t in stmts[k + 1:]:
                mentioned, stored = names_in(t)
                if a not in mentioned and b not in stored:
                    continue
                reassigned = {a, b} & stored
                mentioned.add(b)
                changed([t])
                if not reassigned:
                    _rename_loads(t, a, b)
                    continue
                # a simple statement reads before it stores; a compound one
                # may read after its own store (a loop's next iteration)
                if isinstance(t, gast.If):
                    _rename_loads(t.test, a, b)
                elif not isinstance(t, (gast.For, gast.While)):
                    _rename_loads(t, a, b)
                break


def drop_self_assignments(stmts):
    """`a = a`, which copy propagation can leave behind."""
    stmts[:] = [s for s in stmts if not (
        isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)
        and isinstance(s.value, gast.Name) and s.targets[0].id == s.value.id)]
    for s in stmts:
        for field in ("body", "orelse"):
            block = getattr(s, field, None)
            if isinstance(block, list) and block:
                drop_self_assignments(block)
                if not block and field == "body":
                    block.append(gast.Pass())


def _all_stores(s):
    from ..syntax import names_stored
    return names_stored([s])


def _rename_loads(s, a, b):
    parts = []
    if isinstance(s, (gast.Assign, gast.AugAssign)):
        parts.append(s.value)
        targets = _targets(s)
        parts += [t.slice for t in targets if isinstance(t, gast.Subscript)]
    elif isinstance(s, (gast.If, gast.While)):
        parts.append(s.test)
        parts += s.body + s.orelse
    elif isinstance(s, gast.For):
        parts.append(s.iter)
        parts += s.body
    else:
        parts.append(s)
    for part in parts:
        for n in walk(part):
            if isinstance(n, gast.Name) and n.id == a and isinstance(n.ctx, gast.Load):
                n.id = b
