"""Recursive helpers reversed in split mode, so a recursion's derivative
costs O(primal) rather than O(depth x primal).

A helper's `vjp_f(args, seed)` runs f's forward sweep and then its reverse
sweep (joint mode). When f calls itself, the forward sweep calls the primal
`f` and the reverse sweep `vjp_f`, which runs that call's forward sweep
again, and so on down: an activation at depth d runs d + 1 times. In split
mode each activation runs its forward sweep once:

    fwd_f(args, f_records)          the forward sweep; children by fwd_f; at
                                    the end it pushes the values its reverse
                                    sweep reads (one tuple) on f_records
    bwd_f(args, seed, f_records)    pops them and runs the reverse sweep;
                                    children by bwd_f, last child first
    vjp_f(args, seed)               (what callers call, unchanged) creates
                                    f_records, runs the forward sweep,
                                    pushes, and returns bwd_f(...)

Children complete their forward sweeps (and push) before their parent
pushes, and the reverse sweep calls them in the opposite order, so each bwd
call finds its own record on top of the stack. Each record starts with the
stack's length before the activation's forward sweep; bwd_f checks that its
children consumed exactly their records, so a pairing gone wrong is an
error, never a wrong gradient. The stack is one Python list of tuples,
which numba types from the push in vjp_f.

`s2sad.checkpoint(f)` keeps f in joint mode (records for one path down
the recursion at a time). Only direct self-recursion is split, and only when every recursive call in
the forward sweep has its vjp call in the reverse sweep (same count) and
every recorded value has a known kind. Otherwise (mutual recursion,
recursion through another helper, a call whose result is inactive) the
helper stays in joint mode: correct, O(depth x primal).

Nor is a recursive call inside a loop split (det by Laplace expansion, a
call per column): such a recursion tree is wide and shallow, so joint mode
costs only a factor of its depth, while split mode's records would hold
every activation's tape at once (det at 11 x 11: 10^8 activations, tens of
GB) and, with many cheap leaves, were slower even where they fit
(measured: det 6 x 6 to 9 x 9, 1.3-6x the joint time)."""
import ast
import re

import gast

from ..emit.unparse import expr_source, function_source
from ..syntax import (assign, call, clone, compare, const, name, names_loaded, names_stored,
                     plain_copy, store, structure, walk)
from .tapes import placeholder

_MARKER = "s2sad: the reverse sweep starts here"


def sweep_marker():
    """The statement program.derivative puts between the sweeps (split= mode)."""
    return gast.Expr(value=const(_MARKER))


def _is_marker(s):
    return isinstance(s, gast.Expr) and isinstance(s.value, gast.Constant) \
        and s.value.value == _MARKER


def split_recursion(program, fn, arg_kinds, vjp, mask):
    """Replace the generated `vjp` of `fn` (a helper) by the split-mode
    trio when it calls itself (and return True); leave it as it is
    otherwise."""
    source = next((text for n, text in program.functions if n == vjp), None)
    if source is None or not _calls(source, vjp) or getattr(fn, "__s2sad_checkpoint__", False):
        return  # (s2sad.checkpoint(f): joint mode, memory in proportion to depth only)
    info = {}
    program.derivative(fn, list(arg_kinds), [i for i, m in enumerate(mask) if m], "helper",
                       fn_name=vjp, split=info)
    primal = program.helpers.get(fn)  # (copied once a forward sweep wants the value)
    parts = _sweeps(info["fdef"], primal, vjp) if primal is not None else None
    if parts is None:
        return
    at = next(k for k, (n, _) in enumerate(program.functions) if n == vjp)
    forward, reverse, value, grads = parts
    params = [a.id for a in info["fdef"].args.args]
    seed = info["seed"]
    args = [p for p in params if p != seed]
    record = _recorded(forward, reverse, grads)
    inits = _placeholders(forward, record, info["kinds"], set(args))
    if inits is None:
        return
    taken = {n.id for n in walk(info["fdef"]) if isinstance(n, gast.Name)} | set(params)
    records = _fresh(primal + "_records", taken)
    before = _fresh("records_before", taken | {records})
    fwd = program._fresh_module_name("fwd_" + primal)
    bwd = program._fresh_module_name("bwd_" + primal)

    def push(first):
        tup = gast.Tuple(elts=[first] + [name(v) for v in record], ctx=gast.Load())
        out = gast.Expr(value=call(gast.Attribute(value=name(records), attr="append",
                                                  ctx=gast.Load()), tup))
        out.s2sad_comment = f"what the reverse sweep reads ({bwd} pops it)"
        return out

    def with_placeholders():
        out = clone(inits)
        if out:
            out[0].s2sad_comment = "(placeholders: the record holds these on every path)"
        return out

    new_records = assign(records, gast.List(elts=[], ctx=gast.Load()))
    new_records.s2sad_comment = f"one record per activation of {primal}, the latest on top"

    def forward_sweep():
        return _calls_renamed(forward, primal, fwd, records)

    # array arguments passed down unchanged share one adjoint buffer, which
    # every activation adds into (a zeroed copy each would cost O(size x depth))
    wrt = [a for a, m in zip(args, mask) if m]
    reverse, shared = _shared_adjoints(reverse, grads, wrt, args, forward, info["kinds"], vjp)
    reverse = _calls_renamed(reverse, vjp, bwd, records, shared)
    allocations = [assign(d, call("np.zeros_like", name(a))) for a, d in shared]
    bwd_call = call(name(bwd), *[name(a) for a in args], name(seed), name(records),
                    *[name(d) for _, d in shared])
    functions = [
        (vjp, _without_unread_values(
            [new_records] + with_placeholders() + forward_sweep() + [push(const(0))] + allocations + [gast.Return(value=bwd_call)]),
         args + [seed], info["doc"]),
        (fwd, [assign(before, call("len", name(records)))] + with_placeholders() + forward_sweep()
         + [push(name(before)), gast.Return(value=value)],
         args + [records],
         f"The forward sweep of {primal} (split mode): its value; what its reverse sweep "
         f"reads goes onto {records} for {bwd}."),
        (bwd, [assign(gast.Tuple(elts=[store(before)] + [store(v) for v in record],
                                 ctx=gast.Store()),
                      call(gast.Attribute(value=name(records), attr="pop", ctx=gast.Load())))]
         + reverse + [_check(records, before, primal), gast.Return(value=grads)],
         args + [seed, records] + [d for _, d in shared],
         f"The reverse sweep of {primal} (split mode), from the values {fwd} recorded "
         f"on {records}."),
    ]
    texts = []
    for fname, body, fparams, doc in functions:
        fdef = gast.FunctionDef(name=fname, args=gast.arguments(
            args=[name(p, gast.Param()) for p in fparams], posonlyargs=[], vararg=None,
            kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
            body=body, decorator_list=[], returns=None, type_comment=None)
        texts.append((fname, function_source(fdef, info["source_line"], doc)))
        program.names_used.update(n.id for n in walk(fdef) if isinstance(n, gast.Name))
    program.functions[at:at + 1] = texts
    if vjp in program.checks_own_indices:
        program.checks_own_indices.update((fwd, bwd))
    return True


def _calls(source, callee):
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == callee
               for n in ast.walk(ast.parse(source)))


def _sweeps(fdef, primal, vjp):
    """(forward statements, reverse statements, value, gradients) of the
    split= derivative, or None where split mode does not apply."""
    body = fdef.body
    marks = [k for k, s in enumerate(body) if _is_marker(s)]
    if len(marks) != 1 or not isinstance(body[-1], gast.Return) \
            or not isinstance(body[-1].value, gast.Tuple) or len(body[-1].value.elts) != 2:
        return None
    k = marks[0]
    forward, reverse = body[:k], body[k + 1:-1]
    if any(isinstance(n, gast.Return) or _is_marker(n) for n in _walk(forward + reverse)):
        return None  # reset_recording()'s early return, or a marker moved into a block
    value, grads = body[-1].value.elts
    n_forward, n_reverse = _count(forward, primal), _count(reverse, vjp)
    if n_forward == 0 or n_forward != n_reverse or _count(forward, vjp) \
            or _count(reverse, primal) or _count([value, grads], primal) \
            or _count([value, grads], vjp):
        return None  # a recursive call with no reverse (inactive), or used elsewhere
    if any(_count(loop.body + loop.orelse, primal) for loop in _statements(forward)
           if isinstance(loop, (gast.For, gast.While))):
        return None  # a wide recursion: see the module's docstring
    return forward, reverse, value, grads


def _walk(stmts):
    return walk(gast.Module(body=list(stmts), type_ignores=[]))


def _count(nodes, callee):
    return sum(1 for n in _walk([gast.Expr(value=n) if isinstance(n, gast.expr) else n
                                 for n in nodes])
               if isinstance(n, gast.Call) and isinstance(n.func, gast.Name)
               and n.func.id == callee)


def _recorded(forward, reverse, grads):
    """Names the reverse sweep reads that the forward sweep sets, in the
    order the forward sweep first sets them."""
    wanted = _read_before_written(reverse + [gast.Expr(value=grads)]) & names_stored(forward)
    out = []
    for s in _statements(forward):
        for v in sorted(names_stored([s]) if not hasattr(s, "body") else _own_targets(s)):
            if v in wanted and v not in out:
                out.append(v)
    return out + sorted(wanted - set(out))


def _read_before_written(stmts):
    """Names some path through `stmts` reads before writing them (the
    reverse sweep's `for j in range(n - 1, -1, -1)` and its restores from
    tapes need no record)."""
    exposed = set()

    def block(stmts, written):
        written = set(written)
        for s in stmts:
            if isinstance(s, gast.If):
                exposed.update(names_loaded(s.test) - written)
                written |= block(s.body, written) & block(s.orelse, written)
            elif isinstance(s, (gast.For, gast.While)):
                head = s.iter if isinstance(s, gast.For) else s.test
                exposed.update(names_loaded(head) - written)
                inner = written | (names_stored([gast.Assign(targets=[s.target], value=const(0),
                                                             type_comment=None)])
                                   if isinstance(s, gast.For) else set())
                block(s.body, inner)
                block(s.orelse, written)
            else:
                exposed.update(_reads([s]) - written)
                if isinstance(s, gast.Assign):
                    written |= {t.id for t in s.targets if isinstance(t, gast.Name)}
                    written |= {e.id for t in s.targets if isinstance(t, gast.Tuple)
                                for e in t.elts if isinstance(e, gast.Name)}
        return written

    block(stmts, set())
    return exposed


def _reads(stmts):
    """Names `stmts` read, `k` in `k -= 1` too."""
    return names_loaded(stmts) | {s.target.id for s in _statements(stmts)
                                  if isinstance(s, gast.AugAssign)
                                  and isinstance(s.target, gast.Name)}


def _statements(stmts):
    for s in stmts:
        yield s
        for field in ("body", "orelse"):
            yield from _statements(getattr(s, field, None) or [])


def _own_targets(s):
    if isinstance(s, gast.For):
        return names_stored([gast.Assign(targets=[s.target], value=const(0), type_comment=None)])
    return set()


def _placeholders(forward, record, kinds, args):
    """Statements giving each recorded name a value of its kind before the
    forward sweep, where some path through it may not set the name (a tuple
    of the record must be built on every path); None if a kind is unknown."""
    surely = set(args)
    for s in forward:
        if isinstance(s, gast.Assign):
            surely |= {t.id for t in s.targets if isinstance(t, gast.Name)}
            for t in s.targets:
                if isinstance(t, gast.Tuple):
                    surely |= {e.id for e in t.elts if isinstance(e, gast.Name)}
    values = {}
    for v in record:
        if v in surely:
            continue
        kind = kinds.get(v)
        if kind is not None and (kind.is_array or kind.is_scalar):
            value = placeholder(kind)
        else:
            value = _allocation_placeholder(forward, v)
            if value is None:
                return None
        values.setdefault(expr_source(value), (value, []))[1].append(v)
    # one empty array for all names of a kind (never written: a path that
    # writes one has given it its own array first): fewer allocations for
    # the activations that do not run the code that records
    return [gast.Assign(targets=[store(v) for v in names], value=value, type_comment=None)
            for value, names in values.values()]


_ALLOCATIONS = ("np.empty", "np.zeros", "np.ones")
_DTYPE = re.compile(r"np\.(float64|float32|int64|int32|bool_|complex128)|float|int|bool")


def _an_int(shape):
    """Whether a tape's shape argument is one length (`max(n, 0)`,
    `x.shape[0]`, `n - 1`): no tuple, no whole `x.shape` in it."""
    return shape is not None and not any(
        isinstance(n, (gast.Tuple, gast.List)) or isinstance(n, gast.Attribute)
        and n.attr == "shape" and not _subscripted(shape, n) for n in walk(shape))


def _subscripted(root, node):
    return any(isinstance(n, gast.Subscript) and n.value is node for n in walk(root))


def _allocation_placeholder(forward, v):
    """An empty array like the one `v = np.empty(shape, dtype=...)` (a
    tape) makes, if every assignment of `v` is such an allocation."""
    found = None
    for s in _statements(forward):
        if not (isinstance(s, gast.Assign) and v in names_stored([s])) \
                or all(isinstance(t, gast.Subscript) for t in s.targets):
            continue  # (writing elements of the tape is not defining it)
        text = expr_source(s.value) if isinstance(s.value, gast.Call) else ""
        if len(s.targets) != 1 or not isinstance(s.targets[0], gast.Name) \
                or not any(text.startswith(a + "(") for a in _ALLOCATIONS):
            return None
        shape = s.value.args[0] if s.value.args else None
        ndim = len(shape.elts) if isinstance(shape, gast.Tuple) else 1 if _an_int(shape) else 0
        dtype = [k for k in s.value.keywords if k.arg == "dtype"]
        if not ndim or len(s.value.args) > 1 or len(s.value.keywords) > len(dtype) \
                or dtype and not _DTYPE.fullmatch(expr_source(dtype[0].value)):
            return None
        empty = const(0) if ndim == 1 else \
            gast.Tuple(elts=[const(0) for _ in range(ndim)], ctx=gast.Load())
        this = call("np.empty", empty, keywords=[("dtype", plain_copy(dtype[0].value))]
                    if dtype else [])
        if found is not None and structure(found) != structure(this):
            return None
        found = this
    return plain_copy(found) if found else None


def _calls_renamed(stmts, old, new, records, shared=()):
    """Copies of `stmts` calling `new(..., records, <shared adjoints>)`
    where they call `old(...)`."""
    out = clone(stmts)
    for n in _walk(out):
        if isinstance(n, gast.Call) and isinstance(n.func, gast.Name) and n.func.id == old:
            n.func = name(new)
            n.args = list(n.args) + [name(records)] + [name(d) for _, d in shared]
    return out


def _shared_adjoints(reverse, grads, wrt, args, forward, kinds, vjp):
    """(the reverse sweep without the zeroing and the adding back of shared
    adjoints, [(argument, its adjoint)] shared). An array argument `a`
    shares its adjoint `da` with the recursive calls when every recursive
    call passes `a` itself in the same place, the function never rebinds
    or writes `a`, and the reverse sweep only adds into `da`: it starts as
    `da = np.zeros_like(a)`, is only the target of `+=` (elements too), is
    returned as the gradient, and each call's `da_f` is added to it
    (`da += da_f` with nothing touching either in between, or `da +=
    f_vjp(...)`)."""
    out = clone(reverse)
    elts = list(grads.elts) if isinstance(grads, gast.Tuple) and len(wrt) > 1 else [grads]
    sites = [(block, k) for block in _blocks(out) for k, s in enumerate(block)
             if (isinstance(s, gast.Assign) or isinstance(s, gast.AugAssign)
                 and isinstance(s.op, gast.Add) and isinstance(s.target, gast.Name))
             and isinstance(s.value, gast.Call)
             and isinstance(s.value.func, gast.Name) and s.value.func.id == vjp]
    if _count(out, vjp) != len(sites):
        return reverse, []
    stored = names_stored(forward)
    shared, removals, calls = [], [], []
    for w, (a, g) in enumerate(zip(wrt, elts)):
        kind = kinds.get(a)
        if kind is None or not kind.is_array or a in stored or not isinstance(g, gast.Name):
            continue
        d = g.id
        init = [s for s in out if isinstance(s, gast.Assign) and len(s.targets) == 1
                and isinstance(s.targets[0], gast.Name) and s.targets[0].id == d
                and expr_source(s.value) == f"np.zeros_like({a})"]
        if len(init) != 1:
            continue
        found = [_added_back(block, k, args.index(a), w, len(wrt), a, d) for block, k in sites]
        if any(f is None for f in found):
            continue
        allowed = {id(init[0].targets[0])} | {id(s.target) for _, s in found}
        for s in _statements(out):
            if isinstance(s, gast.AugAssign):
                allowed.add(id(_base(s.target)))
        if any(isinstance(n, gast.Name) and n.id == d and id(n) not in allowed
               for n in _walk(out)):
            continue  # read, or rebound: the reverse sweep needs its own
        shared.append((a, d))
        removals.append(init[0])
        removals += [s for r, s in found if r is not None]
        calls += [s for r, s in found if r is None]
    if not shared:
        return reverse, []
    for block in _blocks(out):  # `da += f_vjp(...)`: the call adds into da itself
        block[:] = [gast.Expr(value=s.value) if any(s is c for c in calls) else s
                    for s in block]
    drop = {id(s) for s in removals}
    return _without(out, drop), shared


def _without_unread_values(body):
    """`body` without assignments nothing reads (vjp_f has no use for f's
    value) and that call nothing (`fwd` pushes records; others may have
    effects too)."""
    loaded = _reads(body)
    drop = {id(s) for s in _statements(body)
            if isinstance(s, gast.Assign) and len(s.targets) == 1
            and isinstance(s.targets[0], gast.Name) and s.targets[0].id not in loaded
            and not any(isinstance(n, gast.Call) for n in walk(s.value))}
    return _without(body, drop)


def _blocks(stmts):
    yield stmts
    for s in stmts:
        for field in ("body", "orelse"):
            inner = getattr(s, field, None)
            if isinstance(inner, list) and inner:
                yield from _blocks(inner)


def _added_back(block, k, position, w, n_wrt, a, d):
    """(result name, `d += result`) for the call at block[k], if it passes
    `a` at `position` and its result for `a` is added to `d` just after;
    (None, the call) for `d += f_vjp(...)` (one result)."""
    s = block[k]
    passed = s.value.args[position] if position < len(s.value.args) else None
    if not (isinstance(passed, gast.Name) and passed.id == a):
        return None
    if isinstance(s, gast.AugAssign):
        return (None, s) if n_wrt == 1 and s.target.id == d else None
    target = s.targets[0]
    r = target.elts[w] if isinstance(target, gast.Tuple) and n_wrt > 1 else target
    if not isinstance(r, gast.Name):
        return None
    for later in block[k + 1:]:
        if isinstance(later, gast.AugAssign) and isinstance(later.op, gast.Add) \
                and isinstance(later.target, gast.Name) and later.target.id == d \
                and isinstance(later.value, gast.Name) and later.value.id == r.id:
            return r.id, later
        if {d, r.id} & (names_loaded([later]) | names_stored([later])):
            return None
    return None


def _base(target):
    while isinstance(target, gast.Subscript):
        target = target.value
    return target


def _without(stmts, drop):
    out = []
    for s in stmts:
        if id(s) in drop:
            continue
        for field in ("body", "orelse"):
            inner = getattr(s, field, None)
            if isinstance(inner, list) and inner:
                setattr(s, field, _without(inner, drop) or [gast.Pass()])
        out.append(s)
    return out


def _check(records, before, primal):
    message = (f"s2sad internal error: the records of {primal}'s recursive calls are out of "
               f"step in its derivative; please report this")
    return gast.If(test=compare(call("len", name(records)), "!=", name(before)),
                   body=[gast.Raise(exc=call("RuntimeError", const(message)), cause=None)],
                   orelse=[])


def _fresh(base, taken):
    n = base
    while n in taken:
        n += "_"
    return n
