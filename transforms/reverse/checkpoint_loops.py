"""Checkpointed loops: the reverse sweep of a long counted loop from a few
snapshots of its state (binomial checkpointing, s2sad/checkpointing.py)
instead of a tape of every iteration.

Before the function is normalised, a top-level `for t in range(...)` loop
that is marked `s2sad.checkpointed(range(...), snapshots=k)`, or that runs
under a memory budget, has its body lifted into a step function

    def f_step_12(u, v, k, dt, t):     # the loop-carried state, then what the
        <the loop body>                 # body only reads, then the counter
        return u, v

and the loop becomes one call, `u, v = f_loop_12(start, stop, stride,
snapshots, budget, u, v, k, dt)`. Reverse mode (checkpoint_sweeps.py) turns
that call into
`f_loop_12_fwd` (the steps, keeping snapshots where the schedule wants them)
and, in the reverse sweep, `f_loop_12_bwd` (the schedule: steps run again
from snapshots, and the adjoint of each step, `vjp_f_step_12`, once). Under
a budget the original loop stays as the branch taken when its tape fits:

    if trip_count(0, n, 1) * <bytes a step records, estimated> <= budget:
        for t in range(n): ...            # today's tapes
    else:
        u, v = f_loop_12(0, n, 1, 0, budget, u, v, k, dt)

Under the default budget (no memory=) nothing is lifted: the derivative is
generated as without a budget, and `place_memory_checks` then puts one
`check_memory(<that estimate>, budget, line)` line into its forward sweep
before such a loop; s2sad/api.py switches to the lifted variant when it
raises.

The loop-carried state is every variable the body assigns (or writes into)
that an iteration reads before assigning it, or that code after the loop
reads."""
import ast
import itertools
import linecache
import os

import gast

from ..analysis import kinds as K
from ..analysis.aliases import written_memory
from ..errors import UnsupportedSyntaxError
from .tape_estimate import BUILTINS, range_bounds as _bounds, surely_bound, tape_bytes
from ..syntax import (binop, call, compare, const, name, names_loaded, names_stored,
                     plain_copy, walk)

_COUNTER = itertools.count()


class CheckpointedLoop:
    """A lifted loop: what the generated code calls in its place."""

    __s2sad_checkpointed_loop__ = True

    def __init__(self, name, step, state, consts, counter, location, node, assignments=1,
                 budgeted=False):
        self.__name__ = name
        self.budgeted = budgeted  # lifted under a budget (not marked)
        self.assignments = assignments  # per iteration: what its tape is estimated from
        self.step = step            # the step function (a Python function with source)
        self.state, self.consts, self.counter = state, consts, counter
        self.location, self.node = location, node

    def where(self):
        return self.location.describe(self.node)


def is_loop(obj):
    return getattr(obj, "__s2sad_checkpointed_loop__", False)


# ---- lifting --------------------------------------------------------------

def lift_loops(parsed, vocabulary, budget=None, lift=True, stopped=(), skip=(), guard=None):
    """Rewrite the top-level counted loops of `parsed.tree` (in place) that
    are marked checkpointed, or, under `budget` bytes, every one whose body
    can be a step function. `lift` False: only drop the marks. `stopped`:
    the variables `stop_gradients` names (a loop assigning one is not
    lifted: its step function would not know). `skip`: lines of loops
    not to lift under the budget. `guard` (bytes, the default budget, with
    `budget` None): no loop is lifted, but one that could be gets a
    `check_memory(...)` line before it (s2sad.checkpointing.check_memory).
    `vocabulary`: the program, whose `markers` name s2sad.checkpointed and
    reset_recording and whose `runtime_objects` give the functions the
    checks call (the compiler imports neither)."""
    parsed.memory_checks = []  # (loop line, its check_memory statement)
    parsed.budget_choices = []  # lines of the loops lifted under a budget (refine_choices)
    if not lift:
        strip_marks(parsed.tree, parsed, vocabulary)
        return
    body = parsed.tree.body
    out = []
    # what the statements read and bind, found once for all the loops below
    # (the body does not change until the end)
    loads = [None] * len(body)
    local = None
    for k, s in enumerate(body):
        marked = _marked(s, parsed, vocabulary)
        checked = guard is not None and budget is None and marked is None
        if marked is None and ((budget is None and not checked) or not _counted(s)
                               or s.lineno in skip):
            out.append(s)
            continue
        for j in range(k + 1, len(body)):
            if loads[j] is None:
                loads[j] = names_loaded(body[j])
        refusal = _refusal(s, body[k + 1:], parsed, vocabulary, set(stopped),
                           set().union(*loads[k + 1:]))
        if refusal is not None:
            if marked is not None:
                raise UnsupportedSyntaxError(f"a checkpointed loop with {refusal[0]}",
                                             parsed.location, refusal[1], refusal[2])
            out.append(s)  # under a budget: recorded as usual
            continue
        if checked:  # (placed in the generated forward sweep: place_memory_checks)
            if local is None:
                local = set(parsed.arg_names) | names_stored(body)
            check = _tape_check(s, body[k + 1:], parsed, guard, vocabulary, local)
            if check is not None:
                parsed.memory_checks.append((parsed.location.line_of(s), check))
            out.append(s)
            continue
        try:
            out.extend(_lift(s, body[k + 1:], parsed, marked, budget, vocabulary))
        except UnsupportedSyntaxError:
            if marked is not None:
                raise
            out.append(s)  # under a budget: recorded as usual
    parsed.tree.body = out
    for s in walk(parsed.tree):  # a marked loop that is not at the top
        if isinstance(s, gast.For) and s not in out \
                and _marked(s, parsed, vocabulary) is not None:
            raise UnsupportedSyntaxError(
                "s2sad.checkpointed on a loop inside another statement", parsed.location, s,
                "Mark a loop at the top level of the function, or move the loop into a "
                "helper function and mark it there")
    if hasattr(parsed, "_locals"):
        del parsed._locals


def strip_marks(tree, parsed, vocabulary):
    """`for t in s2sad.checkpointed(range(n), snapshots=k)` as `for t in
    range(n)` (forward mode and primal copies run the loop as it is)."""
    for s in walk(tree):
        if isinstance(s, gast.For):
            marked = _marked(s, parsed, vocabulary)
            if marked is not None:
                s.iter = marked[0]


def _marked(s, parsed, vocabulary):
    """For `for t in s2sad.checkpointed(range(...), snapshots=k)`: (the
    range call, the snapshots expression or None)."""
    if not isinstance(s, gast.For) or not isinstance(s.iter, gast.Call):
        return None
    if _marker(parsed.resolve(s.iter.func), vocabulary) != "checkpointed":
        return None
    args = list(s.iter.args)
    kws = {k.arg: k.value for k in s.iter.keywords}
    if len(args) == 2 and "snapshots" not in kws:
        kws["snapshots"] = args.pop()
    if len(args) != 1 or set(kws) - {"snapshots"} or not _is_range(args[0], parsed):
        raise UnsupportedSyntaxError(
            "s2sad.checkpointed of anything but range(...)", parsed.location, s,
            "Write `for t in s2sad.checkpointed(range(n), snapshots=k):`")
    return args[0], kws.get("snapshots")


def _is_range(node, parsed):
    return isinstance(node, gast.Call) and parsed.resolve(node.func) is range \
        and not node.keywords and 1 <= len(node.args) <= 3


def _counted(s):
    return isinstance(s, gast.For) and isinstance(s.target, gast.Name) \
        and isinstance(s.iter, gast.Call) and isinstance(s.iter.func, gast.Name) \
        and s.iter.func.id == "range" and not s.orelse


def _refusal(loop, after, parsed, vocabulary, stopped=frozenset(), after_loads=None):
    """(what, node, hint) if the loop cannot be lifted into a step function.
    `after_loads`: names_loaded(after), if known."""
    stopped_here = sorted(stopped & names_stored(loop.body))
    if stopped_here:
        return (f"a variable named in stop_gradients ('{stopped_here[0]}') assigned in it",
                loop, "Assign it outside the loop, or leave the loop unmarked")
    nodes = walk(gast.Module(body=loop.body, type_ignores=[]))  # (for both walks below)
    for node in nodes:
        if isinstance(node, gast.Call) and _marker(parsed.resolve(node.func), vocabulary) \
                == "reset_recording":
            return ("reset_recording() in its body", node,
                    "Call it outside the loop, or leave the loop unmarked")
    if loop.orelse:
        return "an else clause", loop, "Move the else block after the loop"
    if not isinstance(loop.target, gast.Name):
        return "a tuple target", loop, "Loop over range(...) with one counter"
    for node in _walk_stmts_outer(loop.body):
        if isinstance(node, (gast.Break, gast.Continue)):
            return ("an early exit (break or continue in its body)", node,
                    "Checkpointing reruns whole iterations: remove the exit or the "
                    "checkpointing (the loop is then recorded as usual)")
    for node in nodes:
        if isinstance(node, (gast.Return, gast.Yield, gast.Global, gast.Nonlocal)):
            return ("an early exit (return in its body)", node,
                    "Checkpointing reruns whole iterations: remove the return or the "
                    "checkpointing (the loop is then recorded as usual)")
    counter = loop.target.id
    if counter in names_stored(loop.body):
        return "its counter assigned in its body", loop, "Use another name"
    if counter in (names_loaded(after) if after_loads is None else after_loads):
        return ("its counter read after the loop", loop,
                "Compute the last counter value from the range instead")
    return None


def _walk_stmts_outer(stmts):
    """Statements of `stmts` and of their branches, not of nested loops
    (whose break and continue are their own)."""
    for s in stmts:
        yield s
        if isinstance(s, gast.If):
            yield from _walk_stmts_outer(s.body)
            yield from _walk_stmts_outer(s.orelse)
        elif isinstance(s, (gast.With, gast.Try)):
            yield from _walk_stmts_outer(s.body)


def _exposed(stmts, defined):
    """(names read before they are assigned in `stmts`, given `defined`;
    names surely assigned after them)."""
    out, defined = set(), set(defined)
    for s in stmts:
        if isinstance(s, gast.If):
            out |= names_loaded(s.test) - defined
            e1, d1 = _exposed(s.body, defined)
            e2, d2 = _exposed(s.orelse, defined)
            out |= e1 | e2
            defined = d1 & d2
        elif isinstance(s, gast.For):
            out |= names_loaded(s.iter) - defined
            out |= _exposed(s.body, defined | names_stored(s.target))[0]
        elif isinstance(s, gast.While):
            out |= names_loaded(s.test) - defined
            out |= _exposed(s.body, defined)[0]
        elif isinstance(s, gast.With):
            out |= names_loaded(s.items) - defined
            e, defined = _exposed(s.body, defined)
            out |= e
        elif isinstance(s, gast.Assign):
            out |= names_loaded(s) - defined
            defined |= {t.id for t in _name_targets(s.targets)}
        elif isinstance(s, gast.AugAssign):
            out |= (names_loaded(s) | names_stored(s)) - defined
        else:
            out |= names_loaded(s) - defined
    return out, defined


def _name_targets(targets):
    for t in targets:
        if isinstance(t, gast.Name):
            yield t
        elif isinstance(t, (gast.Tuple, gast.List)):
            yield from _name_targets(t.elts)


def _carried(loop, after, parsed, local=None):
    """(the loop-carried state, what the body only reads) of a loop."""
    body = loop.body
    counter = loop.target.id
    if local is None:  # (or given: the arguments and what the function binds)
        local = set(parsed.arg_names) | names_stored(parsed.tree.body)
    # (and the arrays written through a view or another name: for row in Y:
    # row *= s changes Y, which the step must carry)
    stored = (names_stored(body) | (written_memory(loop, augmented=True) & local)) - {counter}
    exposed = _exposed(body, {counter})[0]
    after_reads = _exposed(after, set())[0]  # (a later `for i` binds its own i)
    ordered = _in_order(body)
    state = [v for v in ordered if v in stored and (v in exposed or v in after_reads)]
    loaded = names_loaded(body)  # (once, not once per name)
    consts = [v for v in ordered if v in local and v not in stored and v != counter
              and v in loaded]
    return state, consts


def _tape_check(loop, after, parsed, guard, vocabulary, local=None):
    """`check_memory(trip_count(start, stop, stride) * <bytes a step records>,
    guard, line)` before a loop the default budget may not hold (None if its
    state is not known before it, or it changes nothing: it is recorded)."""
    state = _carried(loop, after, parsed, local)[0]
    before = _assigned_before(parsed.tree.body, loop) | set(parsed.arg_names)
    if not state or any(v not in before for v in state):
        return None
    line = parsed.location.line_of(loop) or 0
    # (the estimate, 0 here, is read from the generated forward sweep: place_memory_checks)
    check = gast.Expr(value=call("check_memory", const(0), const(int(guard)), const(line)))
    for n in ("check_memory", "trip_count"):
        parsed.namespace.setdefault(n, vocabulary.runtime_objects[n])
    gast.copy_location(check, loop)
    _locate(check, loop)
    return check


def _times_per_step(steps, body, state):
    """`steps * <assignments> * <largest state>`: the bytes a loop's tape
    takes (the estimate of _per_step_bytes)."""
    return binop(binop(steps, "*", const(_assignments(body))), "*", _largest(state))


def place_memory_checks(body, arguments, checks, kinds, location, tape_names=(),
                        shape_classes=None):
    """Put each check_memory statement of `checks` into the generated
    function's `body` before the forward run of its loop (the first
    top-level loop of that line), after the last statement assigning a name
    it reads, so before the loop's tape is allocated. Its estimate is what
    the generated loop records (tape_estimate.py: `tape_names` are the
    tapes' names, `shape_classes` arrays of one shape). Added after the
    derivative is built, no analysis sees it: the rest of the source is the
    one generated without a budget."""
    for line, check in checks:
        at = next((k for k, s in enumerate(body) if isinstance(s, gast.For)
                   and location.line_of(s) == line), None)
        if at is None:
            continue  # (not found as a loop: no check, as without a budget)
        available = surely_bound(body[:at]) | set(arguments)
        estimate = tape_bytes(body[at], body[:at], available, tape_names, kinds,
                              shape_classes or {})
        if isinstance(estimate, gast.Constant) and estimate.value == 0:
            continue  # (it records nothing)
        check = gast.Expr(value=call("check_memory", estimate, *check.value.args[1:]))
        gast.copy_location(check, body[at])
        _locate(check, body[at])
        needs = names_loaded(check) - {"check_memory", "trip_count"} - BUILTINS
        if needs - available:
            continue  # a name the forward sweep calls otherwise: no check
        while at > 0 and not (names_stored(body[at - 1]) & needs) \
                and not _is_check(body[at - 1]):  # (checks stay in the loops' order)
            at -= 1
        body.insert(at, check)


def refine_choices(body, arguments, lines, kinds, location, tape_names=(), shape_classes=None):
    """The run-time choice of each loop lifted under a budget (`if <estimate>
    <= budget: <the recorded loop> else: <the lifted one>`, or its test
    computed into a name just before) takes the estimate of what the
    generated loop records (tape_estimate.py), as the default budget's check
    does, instead of the one written before the derivative existed."""
    for line in lines:
        at = next((k for k, s in enumerate(body) if isinstance(s, gast.If) and any(
            isinstance(b, gast.For) and location.line_of(b) == line for b in s.body)), None)
        if at is None:
            continue
        choice = body[at]
        test, where = choice.test, at
        if isinstance(test, gast.Name):  # (`cond = ... <= budget` just before)
            where = next((k for k in range(at - 1, -1, -1) if isinstance(body[k], gast.Assign)
                          and len(body[k].targets) == 1 and isinstance(body[k].targets[0], gast.Name)
                          and body[k].targets[0].id == test.id), None)
            if where is None:
                continue
            test = body[where].value
        if not (isinstance(test, gast.Compare) and len(test.ops) == 1
                and isinstance(test.ops[0], gast.LtE)):
            continue
        k = next(j for j, b in enumerate(choice.body) if isinstance(b, gast.For)
                 and location.line_of(b) == line)
        available = surely_bound(body[:where]) | set(arguments)
        estimate = tape_bytes(choice.body[k], body[:where] + choice.body[:k], available,
                              tape_names, kinds, shape_classes or {})
        if not (names_loaded(estimate) - BUILTINS - {"trip_count"}) - available:
            _locate(estimate, test)
            test.left = estimate


def _is_check(s):
    return isinstance(s, gast.Expr) and isinstance(s.value, gast.Call) \
        and isinstance(s.value.func, gast.Name) and s.value.func.id == "check_memory"


def _lift(loop, after, parsed, marked, budget, vocabulary):
    body = loop.body
    counter = loop.target.id
    state, consts = _carried(loop, after, parsed)
    before = _assigned_before(parsed.tree.body, loop) | set(parsed.arg_names)
    for v in state + consts:
        if v not in before:
            raise UnsupportedSyntaxError(
                f"a checkpointed loop whose variable '{v}' is first assigned in it", parsed.location,
                loop, f"Give '{v}' a value of its type before the loop")
    if not state:
        raise UnsupportedSyntaxError("a checkpointed loop that changes nothing", parsed.location,
                                     loop, "Remove the loop")
    line = parsed.location.line_of(loop) or 0
    base = f"{parsed.name}_{'step'}_{line}"
    step = _step_function(base, state, consts, counter, body, parsed)
    loop_name = f"s2sad_{parsed.name}_loop_{line}_{next(_COUNTER)}"
    obj = CheckpointedLoop(f"{parsed.name}_loop_{line}", step, state, consts, counter,
                           parsed.location, loop, _assignments(body), marked is None)
    parsed.namespace[loop_name] = obj
    start, stop, stride = _bounds(marked[0] if marked else loop.iter)
    snapshots = marked[1] if marked and marked[1] is not None else const(0)
    # a marked loop without snapshots= takes the derivative's budget
    call_node = call(name(loop_name), start, stop, stride, snapshots,
                     const(int(budget) if budget is not None else 0),
                     *[name(v) for v in state + consts])
    target = name(state[0], gast.Store()) if len(state) == 1 else gast.Tuple(
        elts=[name(v, gast.Store()) for v in state], ctx=gast.Store())
    lifted = gast.Assign(targets=[target], value=call_node, type_comment=None)
    gast.copy_location(lifted, loop)
    _locate(lifted, loop)
    if marked is not None:
        return [lifted]
    # under a budget: the recorded loop when its tape fits
    trips = call("trip_count", *(plain_copy(e) for e in (start, stop, stride)))
    test = compare(_times_per_step(trips, body, state), "<=", const(int(budget)))
    for n in ("trip_count", "state_nbytes"):
        parsed.namespace.setdefault(n, vocabulary.runtime_objects[n])
    choice = gast.If(test=test, body=[loop], orelse=[lifted])
    parsed.budget_choices.append(line)  # (its estimate: refine_choices)
    gast.copy_location(choice, loop)
    _locate(choice, loop)
    return [choice]


def _marker(obj, vocabulary):
    try:
        return vocabulary.markers.get(obj)
    except TypeError:  # (an unhashable object)
        return None


def _assignments(body):
    """Values an iteration may record: assignments, and the operations
    whose results (temporaries once normalised) the reverse sweep may read;
    index arithmetic is not counted."""
    indices = {id(n) for s in walk(gast.Module(body=body, type_ignores=[]))
               if isinstance(s, gast.Subscript) for n in walk(s.slice)}
    return max(1, sum(1 for s in walk(gast.Module(body=body, type_ignores=[]))
                      if isinstance(s, (gast.Assign, gast.AugAssign, gast.BinOp, gast.Call))
                      and id(s) not in indices))


def _largest(variables):
    """`max(state_nbytes(a), state_nbytes(b), ...)`, nested: the bytes of the
    largest loop-carried variable (what one iteration records, per
    assignment in the body: a tape entry per value, or per element written
    in an inner loop)."""
    expr = call("state_nbytes", name(variables[0]))
    for v in variables[1:]:
        expr = call("max", expr, call("state_nbytes", name(v)))
    return expr


def _locate(node, src):
    for n in walk(node):
        if hasattr(n, "lineno") and getattr(n, "lineno", None) is None:
            gast.copy_location(n, src)


def _in_order(body):
    seen, out = set(), []
    for n in walk(gast.Module(body=body, type_ignores=[])):
        if isinstance(n, gast.Name) and n.id not in seen:
            seen.add(n.id)
            out.append(n.id)
    return sorted(out, key=out.index)


def _assigned_before(stmts, loop):
    out = set()
    for s in stmts:
        if s is loop:
            break
        out |= names_stored(s)
    return out


def _step_function(fname, state, consts, counter, body, parsed):
    """The loop body as a Python function with source (what the compiler
    reads): (state..., consts..., counter) -> state."""
    result = name(state[0]) if len(state) == 1 else \
        gast.Tuple(elts=[name(v) for v in state], ctx=gast.Load())
    fdef = gast.FunctionDef(name=fname, args=gast.arguments(
        args=[name(p, gast.Param()) for p in state + consts + [counter]], posonlyargs=[],
        vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=list(body) + [gast.Return(value=result)], decorator_list=[], returns=None,
        type_comment=None, type_params=[])
    module = ast.fix_missing_locations(gast.gast_to_ast(gast.Module(body=[fdef], type_ignores=[])))
    source = ast.unparse(module) + "\n"
    # (a name of its own, without '/': messages show the loop's file and line)
    where = f"{os.path.basename(parsed.location.filename)}:{parsed.location.line_of(body[0])}"
    filename = f"<the loop body at {where}, in {parsed.name} ({next(_COUNTER)})>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = dict(parsed.namespace)
    exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - our own source
    step = namespace[fname]
    step.__s2sad_step__ = True
    return step


# ---- kinds ------------------------------------------------------------------

def kind_refusal(program, loop, arg_kinds):
    """(construct, hint) if the lifted loop's variables have kinds a step
    function cannot carry, else None."""
    p, q = len(loop.state), len(loop.consts)
    state_kinds = list(arg_kinds[5:5 + p])
    const_kinds = list(arg_kinds[5 + p:5 + p + q])
    for v, k in zip(loop.state + loop.consts, state_kinds + const_kinds):
        if not (k.is_array or k.is_scalar):
            return (f"a checkpointed loop carrying '{v}', a {k}",
                    "Carry only numbers and arrays across its iterations")
    returned = program.helper_return_kind(loop.step, state_kinds + const_kinds + [K.INT])
    returned = list(returned.items) if p > 1 and returned.tag == "tuple" else [returned]
    for v, k, r in zip(loop.state, state_kinds, returned):
        if r != k:
            return (f"a checkpointed loop whose variable '{v}' changes from {k} to {r} in an "
                    f"iteration",
                    f"Give '{v}' a value of its final type before the loop (e.g. 0.0, not 0)")
    return None


def unliftable(tree, parsed, kinds, program):
    """Lines of the loops lifted under a budget (not marked) whose
    variables' kinds a step function cannot carry: they are recorded."""
    out = set()
    for s in walk(tree):
        if isinstance(s, gast.Assign) and isinstance(s.value, gast.Call) \
                and isinstance(s.value.func, gast.Name):
            loop = parsed.namespace.get(s.value.func.id)
            if is_loop(loop) and loop.budgeted:
                arg_kinds = [K.of_atom(a, kinds) for a in s.value.args]
                if kind_refusal(program, loop, arg_kinds) is not None:
                    out.add(loop.node.lineno)
    return out


def result_kind(loop, arg_kinds):
    """Kind of `u, v = f_loop(start, stop, stride, snapshots, budget, u, v, ...)`."""
    items = tuple(arg_kinds[5:5 + len(loop.state)])
    return items[0] if len(items) == 1 else K.tuple_of(items)
