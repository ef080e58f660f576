"""The forward and reverse sweeps of a checkpointed loop (see
checkpoint_loops.py, which lifts the loop): `f_loop_<line>_fwd` runs the
steps, keeping snapshots where the binomial schedule wants them, and stops
before the last step; `f_loop_<line>_bwd` carries the schedule on in the
reverse sweep, calling the step's generated vjp once per step. Both are
written as source text that reads like a hand-written driver; the schedule
itself is s2sad.checkpointing's (runtime helpers)."""
import gast

from .checkpoint_loops import _largest, is_loop, kind_refusal
from ..errors import UnsupportedSyntaxError
from ..syntax import call, const, name
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
    sources = [_forward_source(fwd, names, step, state_kinds),
               _backward_source(bwd, names, step, vjp, state_kinds, const_kinds, mask)]
    for text in sources:
        tree = gast.parse(text).body[0]
        program._add_function(tree.name, text, tree)
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


_DT = {"i": ", dtype=np.int64", "b": ", dtype=np.bool_", "c": ", dtype=np.complex128", "f": ""}


def _snapshot_alloc(v, k):
    if k.is_array:
        return f"{v}_snapshots = np.empty((revolve_slots(schedule),) + {v}.shape, dtype={v}.dtype)"
    return f"{v}_snapshots = np.empty(revolve_slots(schedule){_DT[k.scalar_dtype]})"


def _copy(v, k):
    return f"{v}.copy()" if k.is_array else v


def _schedule_cases(loop, step, state_kinds, indent):
    S = ", ".join(loop.state)
    args = ", ".join(loop.state + loop.consts)
    pad = " " * indent
    lines = [
        "if action == ADVANCE:",
        "    for i in range(revolve_from(schedule), revolve_to(schedule)):",
        f"        {S} = {step}({args}, start + i * stride)",
        "elif action == TAKESHOT:",
    ] + [f"    {v}_snapshots[revolve_slot(schedule)] = {v}" for v in loop.state]
    return [pad + ln for ln in lines]


def _forward_source(fname, loop, step, state_kinds):
    S = ", ".join(loop.state)
    C = ", ".join(loop.consts)
    params = ", ".join(["start", "stop", "stride", "snapshots", "budget"] + loop.state
                       + loop.consts)
    copies = ", ".join(_copy(v, k) for v, k in zip(loop.state, state_kinds))
    sizes = " + ".join(f"state_nbytes({v})" for v in loop.state)
    out = ", ".join(f"{v}_out" for v in loop.state)
    lines = [
        f"def {fname}({params}):",
        f'    """The steps of the checkpointed loop at {loop.where()}, keeping snapshots',
        "    of its state where the binomial schedule (revolve) wants them; stops",
        '    before the last step, the first the reverse sweep turns."""',
        "    steps = trip_count(start, stop, stride)",
        "    # besides the snapshots: one step's tape, adjoints and copies of the state",
        f"    slots = checkpoint_slots(snapshots, budget, steps, {sizes}, "
        f"{loop.assignments} * {_largest(loop.state)} + 2 * ({sizes}))",
        "    if slots == 0:",
        f"        raise MemoryError({_budget_message(loop)!r})",
        "    schedule = revolve_start(steps, slots)",
    ] + ["    " + _snapshot_alloc(v, k) for v, k in zip(loop.state, state_kinds)] + [
        f"    {S}{',' if len(loop.state) == 1 else ''} = {copies}"
        f"{',' if len(loop.state) == 1 else ''}  # the caller's arrays stay as they are",
        "    while True:",
        "        action = revolve(schedule)",
    ] + _schedule_cases(loop, step, state_kinds, 8) + [
        "        else:  # FIRSTURN (the state is before the last step), or TERMINATE",
        "            break",
        f"    {out}{',' if len(loop.state) == 1 else ''} = {S}{',' if len(loop.state) == 1 else ''}",
        "    if steps > 0:",
        f"        {out}{',' if len(loop.state) == 1 else ''} = "
        f"{step}({copies}, {C + ', ' if C else ''}start + (steps - 1) * stride)"
        f"{'' if len(loop.state) > 1 else ','}",
        f"    residuals = (schedule, {', '.join(v + '_snapshots' for v in loop.state)}, "
        f"{S}, {C + ', ' if C else ''}start, stride)",
        f"    return {out}, residuals",
    ]
    return "\n".join(lines) + "\n"


def _budget_message(loop):
    return (f"s2sad: the memory budget is smaller than one snapshot of the state of the "
            f"checkpointed loop at {loop.where()} plus one step's tape; give grad a larger "
            f"memory=")


def _zero(v, k):
    return f"np.zeros_like({v})" if k.is_array else "0.0"


def _backward_source(fname, loop, step, vjp, state_kinds, const_kinds, mask):
    p = len(loop.state)
    S = ", ".join(loop.state)
    C = ", ".join(loop.consts)
    dS = [f"d{v}" for v in loop.state]
    dC = [f"d{v}" for v in loop.consts]
    diff = [d for d, m in zip(dS + dC, mask) if m]
    seed = dS[0] if p == 1 else "(" + ", ".join(dS) + ")"
    step_results = [f"{d}_step" if d in dC else d for d in diff]
    lines = [
        f"def {fname}(residuals, {', '.join(dS)}):",
        f'    """The reverse sweep of the checkpointed loop at {loop.where()}: the',
        "    schedule goes on from where the forward sweep stopped, running steps",
        '    again from snapshots, and reverses each step once."""',
        f"    schedule, {', '.join(v + '_snapshots' for v in loop.state)}, {S}, "
        f"{C + ', ' if C else ''}start, stride = residuals",
    ] + [f"    {d} = {_zero(v, k)}" for d, v, k, m in
         zip(dC, loop.consts, const_kinds, mask[p:]) if m] + [
        "    action = revolve_current(schedule)",
        "    while action != TERMINATE:",
    ] + _schedule_cases(loop, step, state_kinds, 8) + [
        "        elif action == RESTORE:",
    ] + [f"            {v} = {v}_snapshots[revolve_slot(schedule)]"
         f"{'.copy()' if k.is_array else ''}" for v, k in zip(loop.state, state_kinds)] + [
        "        else:  # FIRSTURN, YOUTURN: the adjoint of one step, from the state before it",
    ]
    if vjp is not None and diff:
        targets = ", ".join(step_results)
        lines.append(f"            {targets} = {vjp}({S}, {C + ', ' if C else ''}"
                     f"start + revolve_step(schedule) * stride, {seed})")
        lines += [f"            {d} += {d}_step" for d in diff if d in dC]
    else:
        lines.append("            pass")
    lines += [
        "        action = revolve(schedule)",
        f"    return {', '.join(diff) if diff else '()'}",
    ]
    return "\n".join(lines) + "\n"


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
    from ..syntax import assign, store
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
