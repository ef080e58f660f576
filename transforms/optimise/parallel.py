"""Parallel loops.

`for i in prange(n)` (numba's) in a differentiated function is a loop over
range(n) marked `s2sad_parallel` (desugar.py). Its iterations must be
independent, as numba assumes: `check_independent` refuses the function
otherwise, naming what one iteration passes to another.

`parallelise` runs loops of a generated derivative as prange where that is
safe (those from a user's prange, or with `s2sad.grad(..., parallel=True)`
every top-level loop of the derivative): the loop's iterations may run in
any order on any thread when every name it writes is

* private: each iteration writes it before reading it (and nothing after
  the loop reads the value the last iteration left), or
* a total: a scalar the loop only adds to (`s += e`), which numba sums per
  thread (a reduction),

and every array it writes into is

* its own: written and read only at `[i, ...]`, i the loop's counter, or
* private: made in the iteration (`np.empty(d)`), or
* an accumulator: only added to (`dmu[c, j] += e`, the scatter of an
  adjoint), never read in the loop. Accumulators are privatised: the
  range is cut into one chunk per thread, each chunk adds into its own
  zeroed copy, and the copies are summed after the loop, in chunk order.
  No two threads write the same element, and the sums do not depend on
  which thread ran which chunk.

Calls must be to functions known not to write their arguments (math,
numpy's pure functions). An index check (`if x.shape[1] <= 2: raise
IndexError`) that reads nothing the loop writes is made before the loop
(numba runs a loop that may raise serially). Anything else keeps the loop
serial (a user's prange loop then says why in a comment): a serial
derivative is slower, never wrong.
"""
import gast

from ..errors import UnsupportedSyntaxError
from ..analysis.objects import effect_of
from ..analysis.loop_access import (Exposure, bindings, children_using, first_index_is, is_allocation,
                          is_pure, loaded_elsewhere, loaded_outside_updates,
                          loops_with_following_reads, reads_own_rows, statements, stores,
                          target_names, unparse, values_read)
from ..syntax import (Transformer, assign, attr, binop, call, callee_name, clone, const, name,
                     names_loaded, store, subscript, unit_range, walk)
from ..templates import fold

class Analysis:
    """How the iterations of `loop` share data, or `problem`: why they
    depend on each other (None if they do not)."""

    def __init__(self, loop, reads_after, kinds, generated, stacks=frozenset()):
        self.loop, self.kinds, self.generated = loop, kinds, generated
        self.stacks = stacks  # list tapes each iteration makes for itself
        self.i = loop.target.id
        self.accumulators = []  # arrays to privatise
        self.private = frozenset()  # names each iteration writes before reading
        self.problem = self._analyse(reads_after)

    def _analyse(self, reads_after):
        loop, i = self.loop, self.i
        body = loop.body
        stored, element_stores = stores(body)
        if i in stored:
            return f"the counter {i} is assigned in the loop"
        exposed = Exposure({}).exposed(body, {i})
        for v in sorted(stored & exposed):
            if not self._is_total(body, v):
                return f"'{v}' carries a value from one iteration to the next"
        private = stored - exposed
        self.private = frozenset(private)
        leaked = private & reads_after
        if leaked:
            return f"'{sorted(leaked)[0]}', assigned in each iteration, is read after the loop"
        for a in sorted(element_stores):
            writes = element_stores[a]
            if a in private:
                if not all(is_allocation(v) for v in bindings(body, a)):
                    return f"'{a}' names an array from outside the loop, written in it"
            elif a == i or a in stored:
                return f"'{a}' is written into and rebound in the loop"
            elif all(first_index_is(t, i) for t, _ in writes) and reads_own_rows(body, a, i):
                pass
            elif self.generated and all(aug for _, aug in writes) and \
                    not loaded_elsewhere(body, a, [t for t, _ in writes]):
                self.accumulators.append(a)
            else:
                return (f"iterations write '{a}' at elements other iterations read or "
                        f"write (only {a}[{i}, ...] is an iteration's own)")
        if self.generated:
            for node in walk(gast.Module(body=body, type_ignores=[])):
                if isinstance(node, gast.Raise):
                    return "it may raise (numba runs such a loop serially)"
            for node in walk(gast.Module(body=body, type_ignores=[])):
                if isinstance(node, gast.Call) and not is_pure(node.func, self.stacks):
                    return f"it calls {unparse(node.func)}, which may write its arguments"
                if isinstance(node, (gast.Return, gast.Break)):
                    return "it may leave the loop early"
        return None

    def _is_total(self, body, v):
        """`v` is a scalar the loop only adds to."""
        kind = self.kinds.get(v)
        if kind is None or not getattr(kind, "is_scalar", False):
            return False
        seen = False
        for s in statements(body):
            if isinstance(s, gast.AugAssign) and isinstance(s.target, gast.Name) \
                    and s.target.id == v:
                if not isinstance(s.op, (gast.Add, gast.Sub)) or v in names_loaded(s.value):
                    return False
                seen = True
            elif isinstance(s, gast.Assign) and v in target_names(s.targets[0]):
                value = s.value
                if not (isinstance(s.targets[0], gast.Name) and isinstance(value, gast.BinOp)
                        and isinstance(value.op, (gast.Add, gast.Sub))
                        and isinstance(value.left, gast.Name) and value.left.id == v
                        and v not in names_loaded(value.right)):
                    return False
                seen = True
            elif isinstance(s, gast.For) and s.target.id == v:
                return False
            elif v in loaded_outside_updates(s, v):
                return False
        return seen


def check_independent(tree, kinds, location):
    """Refuse a user's prange loop whose iterations depend on each other."""
    for loop, reads_after in loops_with_following_reads(tree.body, ()):
        if not getattr(loop, "s2sad_parallel", False):
            continue
        analysis = Analysis(loop, reads_after, kinds, generated=False)
        problem = analysis.problem
        loop.s2sad_private = analysis.private  # values no iteration passes on
        if problem is not None:
            raise UnsupportedSyntaxError(
                f"a prange loop whose iterations depend on each other ({problem})", location,
                loop, "numba would run it with races and give wrong results too. Use range, or "
                "let each iteration write only its own elements (a[i] = ...) and add to totals "
                "(s += ...)")


def parallelise(body, kinds, namer, everywhere=False, chunks=2, checked=None, resolve=None):
    """Run the top-level loops of a generated function's `body` that came
    from a user's prange (or all, if `everywhere`) as prange where safe;
    a loop with accumulators runs in `chunks` chunks (the number of threads:
    any number gives the same sums, in the same order). `checked()`, if
    given, makes a copy of the function with its index checks (the checks
    are made after this pass, on the loops as they run; a loop that would
    keep one inside runs serially); `resolve(node)` the object a callee
    denotes (a loop drawing random numbers or printing runs serially, its
    draws and prints in order). Returns whether any loop was."""
    candidates = [s for s in body if isinstance(s, gast.For)
                  and (everywhere or getattr(s, "s2sad_parallel", False))]
    raising = _checked_inside(candidates, checked) if candidates and checked else set()
    changed = False
    k = 0
    while k < len(body):
        loop = body[k]
        if any(loop is c for c in candidates):
            stacks = _iteration_stacks(loop, body[:k], body[k + 1:])
            new = None
            if id(loop) in raising:
                loop.s2sad_serial_reason = "it may raise (numba runs such a loop serially)"
            elif resolve is not None and effect_of(loop, kinds, resolve):
                loop.s2sad_serial_reason = ("it draws random numbers, prints or runs code kept "
                                            "as Python, in order")
            else:
                new = _parallel_form(loop, body[k + 1:], kinds, namer, chunks, set(stacks))
            if new is not None:
                body[k:k + 1] = new
                k += len(new) - 1
                for init in stacks.values():  # each iteration has its own now
                    body.remove(init)
                    k -= 1
                changed = True
            elif getattr(loop, "s2sad_parallel", False):
                loop.s2sad_comment = ("prange in the function, but this loop of the derivative "
                                      "runs serially: " + loop.s2sad_serial_reason)
        k += 1
    return changed


def _checked_inside(loops, checked):
    """ids of the `loops` that keep an index check inside once the checks
    that read nothing the loop writes are made before it (in `checked()`,
    a copy of the function with its checks)."""
    for k, loop in enumerate(loops):
        loop.s2sad_candidate = k  # (a mark: copies keep it)
    copies = {s.s2sad_candidate: s for s in checked()
              if getattr(s, "s2sad_candidate", None) is not None}
    out = set()
    for k, loop in enumerate(loops):
        del loop.s2sad_candidate
        copy = copies.get(k)
        if copy is not None and _raises(_hoist_checks(copy)[1]) > _raises(_hoist_checks(loop)[1]):
            out.add(id(loop))
    return out


def _raises(body):
    return sum(isinstance(n, gast.Raise) for n in walk(gast.Module(body=body, type_ignores=[])))


def _iteration_stacks(loop, before, after):
    """Tapes that are lists (`prod_stack = []` before the loop) used only in
    the loop, by append and pop: in a fused sweep each iteration pops what
    it pushed, so each iteration can have its own. name -> its `= []`."""
    if not getattr(loop, "s2sad_fused", False):
        return {}
    inits = {s.targets[0].id: s for s in before if isinstance(s, gast.Assign)
             and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.List)
             and not s.value.elts}
    if not inits:
        return {}
    uses = {}
    for node in walk(gast.Module(body=loop.body + before + after, type_ignores=[])):
        for child in children_using(node, None):
            uses.setdefault(child[1], []).append(child[0])
    stacks = {}
    for v, init in inits.items():
        parents = uses.get(v, [])
        in_loop = {id(n) for n in walk(gast.Module(body=loop.body, type_ignores=[]))}
        if parents and all(isinstance(p, gast.Attribute) and p.attr in ("append", "pop")
                           and id(p) in in_loop for p in parents):
            stacks[v] = init
    return stacks


def _parallel_form(loop, after, kinds, namer, chunks, stacks=frozenset()):
    bounds = _ascending_bounds(loop)
    if bounds is None:
        loop.s2sad_serial_reason = "its range has a step"
        return None
    checks, loop_body = _hoist_checks(loop)
    loop_body = [assign(v, gast.List(elts=[], ctx=gast.Load())) for v in sorted(stacks)] \
        + loop_body
    trial = gast.For(target=loop.target, iter=loop.iter, body=loop_body, orelse=[],
                     type_comment=None)
    reads_after = Exposure({}).exposed(after, set())
    analysis = Analysis(trial, reads_after, kinds, generated=True, stacks=stacks)
    carried = _carried_privates(analysis, loop, loop_body, kinds)
    if carried:
        # the user's iterations write these before reading them: the value a
        # recording reads at the start of an iteration (to restore it at the
        # end of its adjoint) is never used, so it may be any value
        loop_body = [assign(v, const(0 if kinds[v].tag == "int" else 0.0)) for v in carried] \
            + loop_body
        trial.body = loop_body
        analysis = Analysis(trial, reads_after, kinds, generated=True, stacks=stacks)
    if analysis.problem is not None:
        loop.s2sad_serial_reason = analysis.problem
        return None
    loop_body = _defined_first(loop_body, analysis.private, kinds) + loop_body
    start, stop = bounds
    runs = fold(gast.Compare(left=clone(start), ops=[gast.Lt()], comparators=[clone(stop)]))
    pre = [gast.If(test=runs, body=checks, orelse=[])] if checks else []
    comment = getattr(loop, "s2sad_comment", None)
    if not analysis.accumulators:
        args = [stop] if isinstance(start, gast.Constant) and start.value == 0 else [start, stop]
        new = gast.For(target=loop.target, iter=call("prange", *args), body=loop_body,
                       orelse=[], type_comment=None)
        gast.copy_location(new, loop)
        new.s2sad_comment = comment
        new.s2sad_line = getattr(loop, "s2sad_line", None)
        _runs(new, runs, loop)
        return pre + [new]
    made = _chunked(loop, loop_body, start, stop, analysis.accumulators, namer, comment, chunks)
    _runs(made[-2], runs, loop)
    made[-2].s2sad_preamble = len(made) - 2  # (the chunks' copies made before it)
    return pre + made


def _runs(new, runs, loop):
    """Mark the parallel loop `new` made from `loop` for hoist_index_checks:
    `runs` is the test that it runs, and whether it is a user's prange."""
    new.s2sad_runs = clone(runs)
    new.s2sad_users_prange = getattr(loop, "s2sad_parallel", False)


def hoist_index_checks(body):
    """Once the index checks are made (checks/bounds.py, after every pass):
    the checks inside the top-level parallel loops of a function's `body`
    that read nothing the loop writes are made before the loop, under the
    test that it runs, as parallelise does with a user's checks (numba
    runs a loop that may raise serially); a loop that still may raise runs
    serially, and says so."""
    k = 0
    while k < len(body):
        loop = body[k]
        runs = getattr(loop, "s2sad_runs", None)
        if runs is not None and isinstance(loop, gast.For) and callee_name(loop.iter) == "prange" \
                and _raises(loop.body):
            checks, loop.body = _hoist_checks(loop)
            if checks:  # (before the copies of a chunked loop too)
                body.insert(k - getattr(loop, "s2sad_preamble", 0),
                            gast.If(test=clone(runs), body=checks, orelse=[]))
                k += 1
            if _raises(loop.body):  # (not as the checks made on a copy before: serially)
                loop.iter.func = name("range")
                reason = "an index is checked in it (numba runs a loop that may raise serially)"
                said = "prange in the function, but this loop of the derivative runs serially: " \
                    if loop.s2sad_users_prange else "runs serially: "
                comment = getattr(loop, "s2sad_comment", None)
                loop.s2sad_comment = (comment + "; " if comment else "") + said + reason
        k += 1


def _carried_privates(analysis, loop, body, kinds):
    """Scalars private to the user's prange iterations that the derivative's
    iteration reads before writing (a recording of their previous value, to
    restore it at the end of the iteration's adjoint). Only in a fused
    sweep, whose iterations each run their own adjoint: a separate reverse
    loop would read what one iteration's adjoint restores in the next."""
    if analysis.problem is None or not getattr(loop, "s2sad_private", None) \
            or not getattr(loop, "s2sad_fused", False):
        return []
    stored = stores(body)[0]
    exposed = Exposure({}).exposed(body, {loop.target.id})
    return sorted(v for v in stored & exposed & loop.s2sad_private
                  if getattr(kinds.get(v), "tag", None) in ("int", "float"))


def _defined_first(body, private, kinds):
    """`v = 0.0` for each scalar private to the iterations that the body may
    read where it is not bound on every path (bound in one `if`, read in
    another): numba 0.68's prange then gives a reduction in the same loop
    the value 0 (a wrong total with no error). Each iteration writes these
    names before reading them, so the value given here is never read."""
    zero = {"int": 0, "float": 0.0, "bool": False}
    scalars = {v for v in private if getattr(kinds.get(v), "tag", None) in zero}
    unbound = set()

    def block(stmts, bound):
        for s in stmts:
            if isinstance(s, gast.If):
                unbound.update((names_loaded(s.test) & scalars) - bound)
                bound = block(s.body, set(bound)) & block(s.orelse, set(bound))
            elif isinstance(s, (gast.For, gast.While)):
                head = s.iter if isinstance(s, gast.For) else s.test
                unbound.update((names_loaded(head) & scalars) - bound)
                inner = set(bound) | (target_names(s.target) if isinstance(s, gast.For) else set())
                block(s.body, inner)
                block(s.orelse, set(bound))
            else:
                unbound.update((names_loaded(s) & scalars) - bound)
                bound |= stores([s])[0]
        return bound
    block(body, set())
    return [assign(v, const(zero[kinds[v].tag])) for v in sorted(unbound)]


def _chunked(loop, body, start, stop, accumulators, namer, comment, chunks):
    """The loop cut into one chunk per thread, each adding into its own
    copies of `accumulators`, summed after it in chunk order."""
    n = namer.fresh("n_chunks")
    chunk = namer.fresh("chunk")
    own = {a: namer.fresh(a + "_chunk") for a in accumulators}
    parts = {a: namer.fresh(a + "_chunks") for a in accumulators}
    for s in statements(body):
        if isinstance(s, gast.AugAssign) and isinstance(s.target, gast.Subscript) \
                and isinstance(s.target.value, gast.Name) and s.target.value.id in own:
            s.target.value = name(own[s.target.value.id])
    # a number, not numba.get_num_threads(), which numba cannot cache
    pre = [assign(n, const(int(chunks)))]
    pre += [assign(parts[a], call("np.zeros", binop(gast.Tuple(elts=[name(n)], ctx=gast.Load()),
                                                     gast.Add(), attr(name(a), "shape")),
                                  attr(name(a), "dtype")))
            for a in accumulators]
    inner_range = fold(call("range", _chunk_end(chunk, start, stop, n, 0),
                            _chunk_end(chunk, start, stop, n, 1)))
    inner = gast.For(target=loop.target, iter=inner_range, body=body, orelse=[],
                     type_comment=None)
    gast.copy_location(inner, loop)
    chunk_body = [assign(own[a], call("np.zeros_like", name(a))) for a in accumulators]
    chunk_body += [inner] + [gast.Assign(
        targets=[gast.Subscript(value=name(parts[a]), slice=name(chunk), ctx=gast.Store())],
        value=name(own[a]), type_comment=None) for a in accumulators]
    outer = gast.For(target=store(chunk), iter=call("prange", name(n)), body=chunk_body,
                     orelse=[], type_comment=None)
    gast.copy_location(outer, loop)
    outer.s2sad_line = getattr(loop, "s2sad_line", None)
    outer.s2sad_comment = ((comment + "; " if comment else "")
                           + f"one chunk per thread, each adding into its own "
                           f"{', '.join(own[a] for a in accumulators)}")
    sums = gast.For(target=store(chunk), iter=call("range", name(n)), body=[
        gast.AugAssign(target=name(a, gast.Store()), op=gast.Add(),
                       value=gast.Subscript(value=name(parts[a]), slice=name(chunk),
                                            ctx=gast.Load())) for a in accumulators],
        orelse=[], type_comment=None)
    return pre + [outer, sums]


def _chunk_end(chunk, start, stop, n, past):
    """Where chunk number `chunk` (+ `past`) of `n` starts in range(start,
    stop): `start + chunk * (stop - start) // n` (`chunk * stop // n` from 0)."""
    k = name(chunk) if not past else binop(name(chunk), gast.Add(), const(past))
    zero = isinstance(start, gast.Constant) and start.value == 0
    size = clone(stop) if zero else binop(clone(stop), gast.Sub(), clone(start))
    part = binop(binop(k, gast.Mult(), size), gast.FloorDiv(), name(n))
    return part if zero else binop(clone(start), gast.Add(), part)


def _ascending_bounds(loop):
    """(start, stop) of the values `loop` runs over, ascending, or None."""
    bounds = unit_range(loop.iter)
    if bounds is not None:
        return bounds
    it = loop.iter
    if isinstance(it, gast.Call) and isinstance(it.func, gast.Name) and it.func.id == "range" \
            and not it.keywords and len(it.args) == 3 and _int_value(it.args[2]) == -1:
        return _plus_one(it.args[1]), _plus_one(it.args[0])  # b + 1 ... a of range(a, b, -1)
    return None


def _int_value(node):
    if isinstance(node, gast.Constant) and isinstance(node.value, int):
        return node.value
    if isinstance(node, gast.UnaryOp) and isinstance(node.op, gast.USub):
        inner = _int_value(node.operand)
        return None if inner is None else -inner
    return None


def _plus_one(node):
    value = _int_value(node)
    if value is not None:
        return const(value + 1)
    if isinstance(node, gast.BinOp) and isinstance(node.op, gast.Sub) \
            and _int_value(node.right) == 1:
        return node.left  # n - 1 + 1
    return fold(gast.BinOp(left=clone(node), op=gast.Add(), right=const(1)))


def _hoist_checks(loop):
    """(index checks reading nothing the loop writes, the body without them).
    The shape of an array the iteration allocates is its allocation's size:
    `if mu.shape[0] > buf.shape[0]` for `buf = np.empty(mu.shape[0])` is
    never true and is dropped."""
    names, elements = stores(loop.body)
    rebound = names | {loop.target.id}
    written = rebound | set(elements)
    sizes = _allocation_sizes(loop.body, rebound)
    hoisted = []

    def strip(stmts):
        out = []
        for s in stmts:
            if isinstance(s, gast.If) and not s.orelse and len(s.body) == 1 \
                    and isinstance(s.body[0], gast.Raise):
                test = _with_sizes(s.test, sizes)
                if not names_loaded(test) & rebound and not values_read(test) & written:
                    if not _never(test):
                        hoisted.append(gast.If(test=test, body=s.body, orelse=[]))
                    continue
            for field in ("body", "orelse"):
                if getattr(s, field, None):
                    setattr(s, field, strip(getattr(s, field)) or [gast.Pass()])
            out.append(s)
        return out

    body = strip([clone(s) for s in loop.body])
    seen, unique = set(), []
    for s in hoisted:  # the same check for two reads of an element: once
        key = unparse(s.test)
        if key not in seen:
            seen.add(key)
            unique.append(s)
    return unique, body


def _allocation_sizes(body, rebound):
    """(array, axis) -> size expression, for arrays bound once in `body`, to
    an allocation whose size reads nothing the loop rebinds."""
    counts = {}
    for s in statements(body):
        if isinstance(s, gast.Assign):
            for v in target_names(s.targets[0]):
                counts[v] = counts.get(v, 0) + 1
    sizes = {}
    for s in statements(body):
        if not (isinstance(s, gast.Assign) and isinstance(s.targets[0], gast.Name)
                and counts.get(s.targets[0].id) == 1 and is_allocation(s.value)
                and s.value.args):
            continue
        a, f, arg = s.targets[0].id, s.value.func.attr, s.value.args[0]
        if f.endswith("_like") or f == "copy":  # (b's own shape is substituted in turn)
            if isinstance(arg, gast.Name) and arg.id != a:
                for k in range(8):
                    sizes[(a, k)] = subscript(attr(name(arg.id), "shape"), const(k))
        elif names_loaded(arg) & rebound:
            continue
        elif isinstance(arg, gast.Tuple):
            for k, e in enumerate(arg.elts):
                sizes[(a, k)] = e
        else:
            sizes[(a, 0)] = arg
    return sizes


def _with_sizes(test, sizes):
    """`test` with `a.shape[k]` of allocated arrays replaced by their sizes."""
    class Sizes(Transformer):
        depth = 0

        def visit_Subscript(self, node):
            v = node.value
            if isinstance(v, gast.Attribute) and v.attr == "shape" and self.depth < 8 \
                    and isinstance(v.value, gast.Name) and isinstance(node.slice, gast.Constant) \
                    and (v.value.id, node.slice.value) in sizes:
                self.depth += 1  # (a = np.zeros_like(b), b = np.zeros_like(a): stops)
                return self.visit(clone(sizes[(v.value.id, node.slice.value)]))
            return self.generic_visit(node)
    return Sizes().visit(clone(test))


def _never(test):
    """`e > e`, `e < e` or `e != e` (of the same integer expression)."""
    return (isinstance(test, gast.Compare) and len(test.ops) == 1
            and isinstance(test.ops[0], (gast.Gt, gast.Lt, gast.NotEq))
            and unparse(test.left) == unparse(test.comparators[0]))
