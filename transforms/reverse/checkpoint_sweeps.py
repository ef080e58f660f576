"""The forward and reverse sweeps of a checkpointed loop (see
checkpoint_loops.py, which lifts the loop): `f_loop_<line>_fwd` runs the
steps, keeping snapshots where the binomial schedule wants them, and stops
before the last step; `f_loop_<line>_bwd` carries the schedule on in the
reverse sweep, calling the step's generated vjp once per step. Both read
like a hand-written driver; the schedule itself is s2sad.checkpointing's
(runtime helpers)."""
import gast

from .checkpoint_loops import _largest, is_loop, kind_refusal
from ..errors import UnsupportedSyntaxError
from ..emit.unparse import function_source
from ..expressions import raising
from ..syntax import (assign, attr, binop, call, compare, const, dotted, name, store,
                      subscript)
from ..analysis import kinds as K


# ---- the generated functions ------------------------------------------------

def loop_functions(program, loop, arg_kinds):
    """(forward name, backward name, which state variables and which
    consts get adjoints) of the lifted loop, generated into the module."""
    key = ("checkpointed loop", loop, tuple(arg_kinds))
    cache = program.__dict__.setdefault("_checkpointed_loops", {})
    if key in cache:
        return cache[key]
    from ..ops import Helper
    p, q = len(loop.state), len(loop.consts)
    state_kinds = list(arg_kinds[5:5 + p])
    const_kinds = list(arg_kinds[5 + p:5 + p + q])
    refusal = kind_refusal(program, loop, arg_kinds)
    if refusal is not None:
        raise UnsupportedSyntaxError(refusal[0], loop.location, loop.node, refusal[1])
    step_kinds = state_kinds + const_kinds + [K.INT]
    step = program.provide(loop.step)
    vjp, mask = program.helper_vjp(Helper(loop.step), step_kinds, None, None)
    base = program._fresh_module_name(loop.__name__)
    fwd, bwd = base + "_fwd", base + "_bwd"
    program.module_names.update((fwd, bwd))
    state_mask, const_mask = list(mask[:p]), list(mask[p:p + q])
    names = _LocalNames(loop)
    for tree, doc in [_forward(fwd, names, step, state_kinds),
                      _backward(bwd, names, step, vjp, state_kinds, const_kinds, mask)]:
        program._add_function(tree.name, function_source(tree, docstring=doc), tree)
    cache[key] = (fwd, bwd, state_mask, const_mask)
    return cache[key]


_RESERVED = {"start", "stop", "stride", "snapshots", "budget", "steps", "slots", "schedule",
             "action", "i", "residuals", "np"}


class _LocalNames:
    """The loop's variables as the forward and backward functions name
    them: the user's names, unless one would clash with the functions' own
    (`steps`, `schedule`, ...) or with another's adjoint or snapshots."""

    def __init__(self, loop):
        taken = set(_RESERVED)
        renamed = []
        for v in loop.state + loop.consts:
            n = v
            while {n, "d" + n, n + "_snapshots", n + "_out", "d" + n + "_step"} & taken:
                n += "_"
            taken |= {n, "d" + n, n + "_snapshots", n + "_out", "d" + n + "_step"}
            renamed.append(n)
        self.state, self.consts = renamed[:len(loop.state)], renamed[len(loop.state):]
        self.where = loop.where
        self.assignments = loop.assignments


_DT = {"i": "np.int64", "b": "np.bool_", "c": "np.complex128", "f": None}


def _names(vs):
    return [name(v) for v in vs]


def _target(vs):
    """`a = ...` or `a, b = ...` of the names `vs`."""
    if len(vs) == 1:
        return store(vs[0])
    return gast.Tuple(elts=[store(v) for v in vs], ctx=gast.Store())


def _values(nodes):
    return nodes[0] if len(nodes) == 1 else gast.Tuple(elts=nodes, ctx=gast.Load())


def _sum(nodes):
    total = nodes[0]
    for n in nodes[1:]:
        total = binop(total, "+", n)
    return total


def _if(test, body, orelse=()):
    return gast.If(test=test, body=body, orelse=list(orelse))


def _commented(stmt, comment):
    stmt.s2sad_comment = comment
    return stmt


def _snapshot_alloc(v, k):
    slots = call(name("revolve_slots"), name("schedule"))
    if k.is_array:
        shape = binop(gast.Tuple(elts=[slots], ctx=gast.Load()), "+", attr(name(v), "shape"))
        keywords = [("dtype", attr(name(v), "dtype"))]
    else:
        shape = slots
        keywords = [("dtype", dotted(_DT[k.scalar_dtype]))] if _DT[k.scalar_dtype] else []
    return assign(v + "_snapshots", call("np.empty", shape, keywords=keywords))


def _copy(v, k):
    return call(attr(name(v), "copy")) if k.is_array else name(v)


def _schedule_cases(loop, step, state_kinds, rest):
    """`if action == ADVANCE: ... elif action == TAKESHOT: ...`, then `rest`
    (the other cases)."""
    def action_is(what):
        return compare(name("action"), "==", name(what))
    advance = gast.For(target=store("i"), iter=call(
        "range", call(name("revolve_from"), name("schedule")),
        call(name("revolve_to"), name("schedule"))), body=[assign(_target(loop.state), call(
            name(step), *_names(loop.state + loop.consts),
            binop(name("start"), "+", binop(name("i"), "*", name("stride")))))],
        orelse=[], type_comment=None)
    shots = []
    for v, k in zip(loop.state, state_kinds):
        if k.is_array:  # a snapshot slot has the shape the state had on entry
            kept = gast.Subscript(value=attr(name(v + "_snapshots"), "shape"), slice=gast.Slice(
                lower=const(1), upper=None, step=None), ctx=gast.Load())
            shots.append(_if(compare(attr(name(v), "shape"), "!=", kept),
                             [raising("ValueError", _shape_message(loop, v))]))
        shots.append(assign(subscript(v + "_snapshots", call(name("revolve_slot"),
                                                             name("schedule")), gast.Store()),
                            name(v)))
    return _if(action_is("ADVANCE"), [advance], [_if(action_is("TAKESHOT"), shots, rest)])


def _shape_message(loop, v):
    return (f"s2sad: '{v}' changes shape between iterations of the checkpointed loop at "
            f"{loop.where()}, and a snapshot keeps the shape it had when the loop started; "
            f"leave that loop unmarked and without memory= (it is then recorded)")


def _function(fname, params, body):
    return gast.FunctionDef(name=fname, args=gast.arguments(
        args=[name(p, gast.Param()) for p in params], posonlyargs=[], vararg=None,
        kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=body, decorator_list=[], returns=None, type_comment=None)


def _forward(fname, loop, step, state_kinds):
    """(the forward sweep's FunctionDef, its docstring)."""
    state, consts = loop.state, loop.consts
    sizes = lambda: _sum([call(name("state_nbytes"), name(v)) for v in state])  # noqa: E731
    per_step = binop(binop(const(loop.assignments), "*", _largest(state)), "+",
                     binop(const(2), "*", sizes()))
    outs = [v + "_out" for v in state]
    last = binop(name("start"), "+", binop(binop(name("steps"), "-", const(1)), "*",
                                           name("stride")))
    residuals = gast.Tuple(elts=_names(["schedule"] + [v + "_snapshots" for v in state] + state
                                       + consts + ["start", "stride"]), ctx=gast.Load())
    body = [
        assign("steps", call(name("trip_count"), *_names(["start", "stop", "stride"]))),
        _commented(assign("slots", call(name("checkpoint_slots"), *_names(
            ["snapshots", "budget", "steps"]), sizes(), per_step)),
            "besides the snapshots: one step's tape, adjoints and copies of the state"),
        _if(compare(name("slots"), "==", const(0)), [raising("MemoryError",
                                                             _budget_message(loop))]),
        assign("schedule", call(name("revolve_start"), name("steps"), name("slots"))),
    ] + [_snapshot_alloc(v, k) for v, k in zip(state, state_kinds)] + [
        _commented(assign(_target(state), _values(
            [_copy(v, k) for v, k in zip(state, state_kinds)])),
            "the caller's arrays stay as they are"),
        gast.While(test=const(True), body=[
            assign("action", call(name("revolve"), name("schedule"))),
            _schedule_cases(loop, step, state_kinds, [_commented(
                gast.Break(), "FIRSTURN (the state is before the last step), or TERMINATE")])],
            orelse=[]),
        assign(_target(outs), _values(_names(state))),
        _if(compare(name("steps"), ">", const(0)), [assign(_target(outs), call(
            name(step), *[_copy(v, k) for v, k in zip(state, state_kinds)], *_names(consts),
            last))]),
        assign("residuals", residuals),
        gast.Return(value=gast.Tuple(elts=_names(outs) + [name("residuals")], ctx=gast.Load())),
    ]
    doc = (f"The steps of the checkpointed loop at {loop.where()}, keeping snapshots\n"
           "    of its state where the binomial schedule (revolve) wants them; stops\n"
           "    before the last step, the first the reverse sweep turns.")
    params = ["start", "stop", "stride", "snapshots", "budget"] + state + consts
    return _function(fname, params, body), doc


def _budget_message(loop):
    return (f"s2sad: the memory budget is smaller than one snapshot of the state of the "
            f"checkpointed loop at {loop.where()} plus one step's tape; give grad a larger "
            f"memory=")


def _zero(v, k):
    return call("np.zeros_like", name(v)) if k.is_array else const(0.0)


def _backward(fname, loop, step, vjp, state_kinds, const_kinds, mask):
    """(the reverse sweep's FunctionDef, its docstring)."""
    p = len(loop.state)
    dS = [f"d{v}" for v in loop.state]
    dC = [f"d{v}" for v in loop.consts]
    diff = [d for d, m in zip(dS + dC, mask) if m]
    step_results = [f"{d}_step" if d in dC else d for d in diff]
    slot = lambda: call(name("revolve_slot"), name("schedule"))  # noqa: E731
    restore = [assign(v, call(attr(subscript(v + "_snapshots", slot()), "copy"))
                      if k.is_array else subscript(v + "_snapshots", slot()))
               for v, k in zip(loop.state, state_kinds)]
    if vjp is not None and diff:
        at = binop(name("start"), "+", binop(call(name("revolve_step"), name("schedule")), "*",
                                             name("stride")))
        turn = [assign(_target(step_results), call(
            name(vjp), *_names(loop.state + loop.consts), at, _values(_names(dS))))]
        turn += [gast.AugAssign(target=store(d), op=gast.Add(), value=name(d + "_step"))
                 for d in diff if d in dC]
    else:
        turn = [gast.Pass()]
    turn[0].s2sad_comment = "FIRSTURN, YOUTURN: the adjoint of one step, from the state before it"
    unpacked = gast.Tuple(elts=[store(v) for v in ["schedule"] + [
        v + "_snapshots" for v in loop.state] + loop.state + loop.consts + ["start", "stride"]],
        ctx=gast.Store())
    body = [assign(unpacked, name("residuals"))] + [
        assign(d, _zero(v, k)) for d, v, k, m in zip(dC, loop.consts, const_kinds, mask[p:]) if m
    ] + [
        assign("action", call(name("revolve_current"), name("schedule"))),
        gast.While(test=compare(name("action"), "!=", name("TERMINATE")), body=[
            _schedule_cases(loop, step, state_kinds, [_if(
                compare(name("action"), "==", name("RESTORE")), restore, turn)]),
            assign("action", call(name("revolve"), name("schedule")))], orelse=[]),
        gast.Return(value=_values(_names(diff)) if diff else gast.Tuple(elts=[], ctx=gast.Load())),
    ]
    doc = (f"The reverse sweep of the checkpointed loop at {loop.where()}: the\n"
           "    schedule goes on from where the forward sweep stopped, running steps\n"
           "    again from snapshots, and reverses each step once.")
    return _function(fname, ["residuals"] + dS, body), doc


# ---- reverse mode -------------------------------------------------------------

def reverse_call(rev, s, frames):
    """(forward, reverse) statements for `u, v = f_loop(...)` in reverse
    mode (rev: a ReverseMode), or None if `s` is no lifted loop."""
    value = s.value
    if not isinstance(value, gast.Call):
        return None
    loop = rev.fn.resolve(value.func)
    if not is_loop(loop):
        return None
    if frames:
        raise UnsupportedSyntaxError("a checkpointed loop inside another loop", loop.location,
                                     loop.node, "Checkpoint the outer loop")
    target = s.targets[0]
    outs = [target.id] if isinstance(target, gast.Name) else [e.id for e in target.elts]
    arg_kinds = [rev.atom_kind(a) for a in value.args]
    fwd_name, bwd_name, state_mask, const_mask = loop_functions(rev.context, loop, arg_kinds)
    saves, restores = [], []
    for e in ([target] if isinstance(target, gast.Name) else target.elts):
        sv, af, rs = rev.record(e, s, frames)
        saves += sv + af
        restores += rs
    res = rev.namer.fresh(loop.__name__ + "_residuals")
    rev.generated.add(res)
    fwd = assign(gast.Tuple(elts=[store(o) for o in outs] + [store(res)], ctx=gast.Store()),
                 call(name(fwd_name), *value.args), src=s)
    if not any(o in rev.active for o in outs):
        return saves + [fwd], restores
    p = len(loop.state)
    state_args, const_args = value.args[5:5 + p], value.args[5 + p:]
    seeds = []
    for o, k in zip(outs, arg_kinds[5:5 + p]):
        if o in rev.active and k.differentiable:
            seeds.append(name(rev.d(o)))
        else:
            seeds.append(call("np.zeros_like", name(o)) if k.is_array else const(0.0))
    diff_atoms = [a for a, m in zip(list(state_args) + list(const_args), state_mask + const_mask)
                  if m]
    results = [rev.namer.fresh("d" + (a.id if isinstance(a, gast.Name) else "arg") + "_loop")
               for a in diff_atoms]
    rev.generated.update(results)
    stmts = []
    if results:
        tgt = store(results[0]) if len(results) == 1 else gast.Tuple(
            elts=[store(r) for r in results], ctx=gast.Store())
        stmts.append(assign(tgt, call(name(bwd_name), name(res), *seeds)))
    # the outputs' adjoints are spent: zero them, then add what flows to the inputs
    stmts += [rev.zero_stmt(o) for o in outs if o in rev.active]
    stmts += rev.accumulate_all([(a, name(r)) for a, r in zip(diff_atoms, results)], None)
    return saves + [fwd], stmts + restores
