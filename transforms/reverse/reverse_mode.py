"""Reverse mode: turn a normalised function into one that runs the forward
sweep (the primal, recording what will be overwritten) and then the reverse
sweep (adjoint statements from the gradient templates, in reverse order).

Generated adjoint statements carry two annotations the clean-up pass uses:
`s2sad_zero` marks `dv = 0` initialisations and `s2sad_cotangent` names the
adjoint a contribution is linear in (so it can be dropped when that adjoint
is known to be zero)."""
import weakref

import gast

from . import checkpoint_sweeps
from . import fusion
from ..analysis import kinds as K
from .adjoint_zeros import AdjointZeros
from .contributions import Contributions
from .lean_tapes import LoopReads, entry_saves
from ..errors import UnsupportedSyntaxError
from ..syntax import (assign, base_name, binding_counts, binop, call, clone, const, name,
                      number, plain_copy, store, subscript)
from ..analysis.loop_access import parallel_marks
from .reads import record_reads_where_cheaper
from .recompute import LoopValues
from ..analysis.shape_classes import ShapeOnly, same_region_shapes, shape_classes
from ..checks.repeated_writes import last_writer_mask
from .value_reads import value_reads
from .steps_back import integer_step_inverse, reversed_range
from .unpacking import Unpacking
from .user_stacks import UserStacks
from ..analysis.stack_uses import read_of
from .tapes import (LoopFrame, Tapes, frame_for, names_written_in_place, only_transposes,
                    placeholder)


class ReverseMode(AdjointZeros, Contributions, UserStacks, Unpacking):
    """Builds the body of the derivative of one normalised function.

    `context` provides `registry` (gradient rules) and `helper_vjp(fn,
    arg_kinds)` -> (name of the helper's generated vjp, mask of its
    differentiable arguments)."""

    fuse_loops = True  # fused sweeps for loops that only add to totals (fusion.py)
    parallel = False  # every loop may become a prange (parallel.py): no shared tapes
    helper = False  # the vjp of a helper (which may run inside a parallel loop)

    def __init__(self, fn, tree, kinds, active, namer, context, temporaries=()):
        self.fn, self.tree, self.kinds, self.active = fn, tree, kinds, active
        self.namer, self.context = namer, context
        self.temporaries = set(temporaries)
        self.captures = {}  # local variable in wrt -> name of its gradient
        self.registry = context.registry
        self.adjoints = {}
        self.generated = set()   # names of adjoints and temporaries made here
        self.needed = set()      # primal names the reverse sweep reads
        self.placeholders = {}
        self.subscript_updated = set()
        self.reversed_ranges = {}  # id(loop) -> (loop, its range backwards)
        self.loop_frames = {}      # id(loop) -> (loop, its LoopFrame)

    # ---- names -------------------------------------------------------
    def d(self, var):
        if var not in self.adjoints:
            self.adjoints[var] = self.namer.fresh("d" + var)
            self.generated.add(self.adjoints[var])
        return self.adjoints[var]

    def kind(self, var):
        return self.kinds.get(var, K.UNKNOWN)

    # ---- driver ------------------------------------------------------
    def build(self, outputs, seeds):
        """Forward and reverse statements. `outputs` are the returned
        atoms; `seeds` the matching seed expressions (None: not active)."""
        from ..analysis.definitions import Definitions, loop_locals
        enabled = self.context.optimisations  # (optimise/pipeline.py: SWEEP)
        if "cheaper_reads" in enabled:
            self.temporaries |= record_reads_where_cheaper(self.tree, self.kinds, self.active,
                                                           self.namer)
        self.defs = Definitions(self.tree)
        self.outputs = {o.id for o in outputs if isinstance(o, gast.Name)}
        self.zeroed_in_branches = set()  # (zeroed_in_branch)
        self.loop_locals = loop_locals(self.tree)
        self.loop_restores, self.loop_hoisted = {}, {}
        # what each reversed loop reads (lean_tapes.py; switched off: every value)
        self.loop_reads = LoopReads(self.tree, lean="lean_tapes" in enabled)
        # (a weak reference to this pass: a strong one, a reference cycle,
        # would leave the function's trees to the cyclic collector)
        reads_result = weakref.WeakMethod(self.adjoint_reads_result)
        self.loop_values = LoopValues(self.loop_locals, self.kinds, self.fn.resolve,
                                      lambda value: reads_result()(value),
                                      enabled="recompute" in enabled)
        self.step_inverses = "step_inverse" in enabled
        body = self.tree.body[:-1]  # the final return is the caller's business
        # Recording a value can make the reverse sweep read more (a restored
        # flag brings back the branch that tests it), so repeat until the
        # set of values the reverse sweep reads is stable. Temporaries get
        # the same names on every pass.
        self.bindings = binding_counts(self.tree.body)
        self.fusion = fusion.plan(self.tree, self.kinds, self.active, self.bindings,
                                  self.fn.resolve) \
            if self.fuse_loops and "fusion" in enabled else None
        taken = set(self.namer.taken)
        self.record_enabled = False
        # arrays of one shape throughout: reading only their shape reads no value
        self.shape_classes = shape_classes(self.tree, self.kinds, self.fn.resolve) \
            if "shape_reads" in enabled else {}
        self.fixed_shapes = set(self.shape_classes)
        # An array bound once but in a loop may take another shape each time.
        # An adjoint is zeroed after its value's definition, with the shape
        # of the value the name holds there: a loop-local restored at the top
        # of its reverse iteration would give the next (earlier) iteration's
        # adjoint this one's shape. So a loop-local that may change shape is
        # recorded as a carried value instead: its old value is restored
        # right after its adjoint, and the zero takes that value's shape.
        shape_only = {v for v in self.kinds if self.bindings.get(v, 0) <= 1
                      and (v in self.fixed_shapes or not self.kind(v).is_array)} \
            if "shape_reads" in enabled else set()
        # (so is a list read by index: its list of adjoints, made where the
        # reverse sweep passes its binding, mirrors the list bound before)
        for loop, local in self.loop_locals.items():
            self.loop_locals[loop] = {v for v in local if (v in self.fixed_shapes or not
                                                           self.kind(v).is_array)
                                      and v not in self.indexed_lists}
        shape_only = ShapeOnly(shape_only, self.fixed_shapes)
        self.loop_local_defs = {}
        self.shape_only = shape_only
        _, rev, reads = self.sweeps(body)
        self.needed = self.with_operands_of_recomputed(
            value_reads(reads, shape_only) - self.generated, shape_only)
        self.loop_reads.next_round()
        self.record_enabled = True
        written_in_place = names_written_in_place(self.tree)
        while True:
            self.namer.taken = taken | set(self.adjoints.values())
            self.tapes = Tapes(self.namer, written_in_place)
            self.placeholders, self.loop_restores, self.loop_hoisted = {}, {}, {}
            fwd, rev, reads = self.sweeps(body)
            needed = self.with_operands_of_recomputed(
                self.needed | (value_reads(reads, shape_only) - self.generated
                               - self.tapes.names), shape_only)
            changed = self.loop_reads.next_round()
            if needed == self.needed and not changed:
                break
            self.needed = needed
        if self.fusion is not None \
                and (self.fusion.totals | self.fusion.linear_targets()) & self.needed:
            # a value of a total (or of what the linear statements after the
            # loop compute from them) is read after all: the loop is not a pure sum
            self.fusion, self.fuse_loops = None, False
            return self.build(outputs, seeds)
        seed_stmts, seeded = [], set()
        for out, seed in zip(outputs, seeds):
            if seed is None or not isinstance(out, gast.Name) or out.id not in self.active:
                continue
            dout = self.d(out.id)
            if isinstance(seed, gast.Name) and seed.id == dout:
                pass  # the seed parameter is the output's adjoint
            elif out.id in seeded:
                seed_stmts.append(gast.AugAssign(target=store(dout), op=gast.Add(), value=seed))
            elif dout in self.subscript_updated:  # never write into the caller's seed
                seed_stmts.append(assign(dout, call("np.copy", seed)))
            else:
                seed_stmts.append(assign(dout, seed))
            seeded.add(out.id)
        inits = [self.zero_stmt(v) for v in sorted(self.adjoints)
                 if v not in seeded and v in self.active and v not in self.zeroed_in_branches]
        # An array's adjoint starts as zeros shaped like its final value; one
        # bound only in a branch or loop that may not run needs a value of
        # its type beforehand (its adjoint is then never read).
        at_end = self.defs.surely_before(self.tree.body[-1])
        for v in sorted(self.adjoints):
            if v in self.active and v not in seeded and v not in at_end \
                    and self.kind(v).is_array:
                self.placeholders.setdefault(v, self.kind(v))
        transposes = only_transposes(self.tree)  # (F-ordered placeholders: see placeholder)
        setup = [assign(v, placeholder(k, v in transposes)) for v, k in self.placeholders.items()]
        setup += self.tapes.setup
        return setup + fwd, seed_stmts + inits + rev

    def with_operands_of_recomputed(self, needed, shape_only):
        """`needed` and what recomputing its loop values reads (see
        _record): a chain of recomputed values (RK4's stages) would
        otherwise take a sweep per link to find."""
        out, todo = set(needed), list(needed)
        while todo:
            var = todo.pop()
            for s, loop in self.loop_local_defs.get(var, {}).values():
                if getattr(s, "s2sad_nosave", False) \
                        or self.step_inverse(s, var, self.kind(var)) is not None \
                        or not self.loop_values.recomputable(s, var, loop):
                    continue
                more = value_reads([s], shape_only) - self.generated - out
                out |= more
                todo.extend(more)
        return out

    def step_inverse(self, s, var, kind):
        """The statement undoing `s`'s integer step of `var` (None: record it)."""
        return integer_step_inverse(s, var, kind) if self.step_inverses else None

    def note_loop_reads(self, loop, rev):
        """What the reversed `loop` (body `rev`) reads, with what recomputing
        its values reads (lean_tapes.py)."""
        self.loop_reads.note(loop, self.with_operands_of_recomputed(
            value_reads(rev, self.shape_only), self.shape_only))

    def sweeps(self, body):
        """(forward sweep, reverse sweep, the reverse statements that read
        values as the forward sweep left them: what must be recorded)."""
        if self.fusion is None:
            fwd, rev = self.block(body, [])
            return fwd, rev, rev
        return fusion.fused_sweeps(self, self.fusion)

    # ---- blocks and statements ----------------------------------------
    def block(self, stmts, frames):
        fwd, rev = [], []
        for s in stmts:
            f, r = self.statement(s, frames)
            if isinstance(s, (gast.For, gast.While)) and self.record_enabled:
                f = self.tapes.allocations.pop(id(s), []) + f
            fwd.extend(f)
            for st in r:  # the emitter comments each group with the user's line
                if getattr(st, "s2sad_line", None) is None and getattr(s, "lineno", None):
                    st.s2sad_line = s.lineno
            rev[:0] = r
        return fwd, rev

    def statement(self, s, frames):
        if isinstance(s, gast.Assign):
            if not s.targets[0].__dict__.get("s2sad_temp") and not self._is_temporary(s):
                s.s2sad_user = True
            target = s.targets[0]
            if isinstance(target, gast.Name):
                return self.assign_name(s, target.id, s.value, frames)
            if isinstance(target, gast.Subscript):
                return self.assign_subscript(s, target, frames)
            return self.assign_tuple(s, target, frames)
        if isinstance(s, gast.If):
            bf, br = self.block(s.body, frames)
            of, orr = self.block(s.orelse, frames)
            if not frames:
                br, orr = self.zeroed_in_branch(s, 0, br), self.zeroed_in_branch(s, 1, orr)
            fwd = gast.If(test=s.test, body=bf or [gast.Pass()], orelse=of)
            rev = gast.If(test=clone(s.test), body=br or [gast.Pass()], orelse=orr)
            return [gast.copy_location(fwd, s)], ([rev] if br or orr else [])
        if isinstance(s, gast.For):
            return self.for_loop(s, frames)
        if isinstance(s, gast.While):
            return self.while_loop(s, frames)
        if isinstance(s, gast.Expr):
            if getattr(s, "s2sad_reset", False):
                # reset_recording(): nothing before this point contributes, so
                # the reverse sweep is complete when it gets here
                ret = gast.Return(value=None)
                ret.s2sad_reset = True
                return [], [ret]
            return [s], self.list_append(s)
        if isinstance(s, gast.Pass):  # the body of a loop whose only statement was folded away
            return [], []
        if isinstance(s, gast.Raise):  # the forward sweep raises where the function does
            return [s], []
        raise AssertionError(f"unexpected statement {type(s).__name__}")

    def _is_temporary(self, s):
        return all(n in self.temporaries for n in names_stored_names(s.targets[0]))

    def for_loop(self, s, frames):
        # the loop binds its counter: a value of that name from elsewhere
        # that the reverse sweep reads is saved first
        save, _, restore = self.record(s.target, s, frames,
                                       maybe=self.bindings.get(s.target.id, 0) > 1)
        entry, entry_restore = entry_saves(self, s, frames)
        held = self.loop_frames.get(id(s))
        if held is None:  # (the same every sweep: frames are never changed)
            held = self.loop_frames[id(s)] = (s, frame_for(s))
        bf, br = self.block(s.body, frames + [held[1]])
        br = self.loop_hoisted.pop(id(s), []) + self.loop_restores.pop(id(s), []) + br
        self.note_loop_reads(s, br)
        steps = self.tapes.counted.steps(s) if self.record_enabled else None
        if steps:  # the number of this run of the body, for its tapes (counted_tapes.py)
            bf, br = [steps[0]] + bf, br + [steps[1]]
        fwd = gast.For(target=s.target, iter=s.iter, body=bf or [gast.Pass()], orelse=[],
                       type_comment=None)
        gast.copy_location(fwd, s)
        parallel_marks(fwd, s)  # a prange (parallel.py)
        return (entry + save + [fwd],
                ([self.reversed_for(s, br)] if br else []) + restore + entry_restore)

    def reversed_for(self, s, body):
        i = s.target.id
        args = s.iter.args
        step = args[2] if len(args) == 3 else const(1)
        if isinstance(step, gast.Constant) and isinstance(step.value, int) and step.value != 0:
            # (the same range every sweep: made once, copied)
            held = self.reversed_ranges.get(id(s))
            if held is None:
                held = self.reversed_ranges[id(s)] = (s, reversed_range(args, step.value))
            it = clone(held[1])
            loop = gast.For(target=store(i), iter=it, body=body, orelse=[], type_comment=None)
            loop.s2sad_ascending = clone(s.iter)  # if its iterations are independent (ordering.py)
            parallel_marks(loop, s)
            return gast.copy_location(loop, s)
        start = plain_copy(args[0]) if len(args) > 1 else const(0)
        k = self.namer.fresh(i + "_iter")
        self.generated.add(k)
        it = call("range", binop(call("len", plain_copy(s.iter)), "-", const(1)), number(-1),
                  number(-1))
        head = assign(i, binop(start, "+", binop(name(k), "*", plain_copy(step))))
        loop = gast.For(target=store(k), iter=it, body=[head] + body, orelse=[], type_comment=None)
        return gast.copy_location(loop, s)

    def while_loop(self, s, frames):
        count = getattr(s, "s2sad_counter", None)
        if count is None:
            count = s.s2sad_counter = self.namer.fresh("n_iters")
        init = assign(count, const(0), src=s)
        bump = assign(count, binop(name(count), "+", const(1)), src=s)
        bump.s2sad_nosave = True
        self.kinds[count] = K.INT
        # in an enclosing loop the counter is overwritten every iteration
        save, _, restore = self.record(init.targets[0], init, frames,
                                       maybe=bool(frames), surely=not frames)
        entry, entry_restore = entry_saves(self, s, frames)
        fi, ri = entry + save + [init], restore + entry_restore
        bf, br = self.block(s.body, frames + [LoopFrame(s)])
        br = self.loop_hoisted.pop(id(s), []) + self.loop_restores.pop(id(s), []) + br
        self.note_loop_reads(s, br)
        # (no reverse sweep: no count, neither its start nor its steps)
        fwd = gast.While(test=s.test, body=([bump] if br else []) + (bf or [gast.Pass()]),
                         orelse=[])
        gast.copy_location(fwd, s)
        if not br:
            return entry + [fwd], entry_restore
        rev = gast.For(target=store("_"), iter=call("range", name(count)), body=br,
                       orelse=[], type_comment=None)
        return fi + [fwd], [gast.copy_location(rev, s)] + ri

    # ---- recording -------------------------------------------------------
    def record(self, target, s, frames, maybe=None, surely=None):
        """(save before `s`, save after `s`, restore) for the value `s`
        overwrites in `target`, if the reverse sweep needs it."""
        var = base_name(target)
        if frames and isinstance(target, gast.Name) \
                and var in self.loop_locals.get(id(frames[-1].loop), ()):
            self.loop_local_defs.setdefault(var, {})[id(s)] = (s, frames[-1].loop)
        if not self.record_enabled or var not in self.needed or getattr(s, "s2sad_nosave", False):
            return [], [], []
        if isinstance(target, gast.Name) and self.loop_reads.unread(var, frames):
            return [], [], []  # saved once before that loop instead (lean_tapes.py)
        kind = self.atom_kind(gast.Subscript(value=name(var), slice=target.slice,
                                             ctx=gast.Load())
                              if isinstance(target, gast.Subscript) else target)
        hoist = frames and isinstance(target, gast.Name) \
            and self.loop_values.hoistable(s, var, frames[-1].loop)
        save, after, restore = self._record(target, s, frames, var, kind, maybe, surely)
        if hoist and restore:  # restored on entering the reverse iteration
            self.loop_hoisted.setdefault(id(frames[-1].loop), []).extend(restore)
            return save, after, []
        return save, after, restore

    def _record(self, target, s, frames, var, kind, maybe, surely):
        inverse = self.step_inverse(s, var, kind)
        if inverse is not None:  # n = n + 1 is undone by n = n - 1: nothing to record
            return [], [], [inverse]
        loop = frames[-1].loop if frames else None
        if loop is not None and isinstance(target, gast.Name) \
                and var in self.loop_locals.get(id(loop), ()):
            # a value of this iteration only: recompute it, or record it once
            # computed, when the reverse sweep enters the iteration
            if self.loop_values.recomputable(s, var, loop):
                self.loop_restores.setdefault(id(loop), []).append(clone(s))
                return [], [], []
            save, restore = self.tapes.record(target, kind, frames, var)
            self.loop_restores.setdefault(id(loop), []).extend(restore)
            return [], save, []
        if not (maybe if maybe is not None else var in self.defs.maybe_before(s)):
            return [], [], []
        if not (surely if surely is not None else var in self.defs.surely_before(s)):
            if not self.kind(var).known:
                raise UnsupportedSyntaxError(
                    f"a variable ('{var}') whose type s2sad cannot infer, first assigned inside a loop or branch",
                    self.fn.location, s, "Assign it once before the loop")
            self.placeholders[var] = self.kind(var)
        save, restore = self.tapes.record(target, kind, frames, var)
        return save, [], restore

    # ---- assignments ---------------------------------------------------------
    def custom_call(self, value):
        """(forward, backward, tuple-cotangents) if `value` calls a custom
        gradient function."""
        if not isinstance(value, gast.Call):
            return None
        obj = self.fn.resolve(value.func)
        if not getattr(obj, "__s2sad_custom__", None):
            return None
        fwd, bwd, _, tuple_cots = self.context.custom_pair(
            obj, [self.atom_kind(a) for a in value.args])
        return fwd, bwd, tuple_cots

    def assign_custom(self, s, z, value, frames, custom):
        """z = f(args) for a custom gradient f: `z, res = f_fwd(args)` and, in
        reverse, `f_bwd(res, dz)`. The residuals are pushed once computed and
        popped where they are used, which pairs up in any control flow."""
        fwd_name, bwd_name, tuple_cots = custom
        save, after, restore = self.record(s.targets[0], s, frames)
        args = [clone(a) for a in value.args]
        if z not in self.active:
            first = gast.Subscript(value=call(name(fwd_name), *args), slice=const(0),
                                   ctx=gast.Load())
            return save + [assign(z, first, src=s)] + after, restore
        res = self.namer.fresh(self.fn.resolve(value.func).__name__ + "_residuals")
        fwd = assign(gast.Tuple(elts=[store(z), store(res)], ctx=gast.Store()),
                     call(name(fwd_name), *args), src=s)
        push, pop = [], []
        if frames and self.record_enabled:
            push, pop = self.tapes.record(name(res), K.UNKNOWN, frames, res)
        results = [self.namer.fresh("d" + (base_name(a) or "arg") + "_custom") for a in args]
        self.generated.update(results)
        if len(results) == 1 and not tuple_cots:
            target = store(results[0])
        else:
            target = gast.Tuple(elts=[store(r) for r in results], ctx=gast.Store())
        bind = assign(target, call(name(bwd_name), name(res), name(self.d(z))))
        pairs = [(a, name(r)) for a, r in zip(value.args, results)]
        rev = pop + [bind] + self.accumulate_all(pairs, self.d(z)) + restore + [self.zero_stmt(z)]
        return save + [fwd] + after + push, rev

    def assign_name(self, s, z, value, frames):
        lifted = checkpoint_sweeps.reverse_call(self, s, frames)
        if lifted is not None:
            return lifted
        custom = self.custom_call(value)
        if custom is not None:
            return self.assign_custom(s, z, value, frames, custom)
        save, after, restore = self.record(s.targets[0], s, frames)
        fwd = save + [s] + after
        if z not in self.active:
            return fwd, restore
        if _is_pop(value, self.fn) and value.func.value.id in self.active:
            return fwd, self.list_pop(s, z, value) + restore + [self.zero_stmt(z)]
        if read_of(value, self.indexed_lists & self.active):
            return fwd, self.list_read(s, z, value) + restore + [self.zero_stmt(z)]
        if isinstance(value, gast.List) and not value.elts and self.kind(z).tag == "list" \
                and self.fn.location.is_generated:
            # a tape's creation in a derivative differentiated again: every
            # value appended to it has taken its adjoint back from the list
            # of adjoints (a user's list stays refused by contributions)
            return fwd, restore
        prelude, pairs = self.contributions(s, z, value)
        if z in self.captures:  # wrt names this variable: its adjoint here
            prelude = [assign(self.captures[z], name(self.d(z)))] + prelude
            self.generated.add(self.captures[z])
        if getattr(s, "s2sad_constant", False):
            prelude, pairs = prelude[:1] if z in self.captures else [], []
        if z in self.operand_names(value):
            # z = z * b: the old z is an operand, so restore it first; its
            # adjoint is then *replaced* by the contribution it receives.
            mine = [p for p in pairs if isinstance(p[0], gast.Name) and p[0].id == z]
            others = [p for p in pairs if not (isinstance(p[0], gast.Name) and p[0].id == z)]
            rev = restore + prelude + self.accumulate_all(others, self.d(z))
            total = None
            for _, expr in mine:
                total = expr if total is None else gast.BinOp(left=total, op=gast.Add(), right=expr)
            if not (isinstance(total, gast.Name) and total.id == self.d(z)):  # not dz = dz
                rev.append(assign(self.d(z), total if total is not None else self.zero_of(z)))
            return fwd, rev
        # the adjoint restarts at zero shaped like the value z held before
        rev = prelude + self.accumulate_all(pairs, self.d(z)) + restore
        return fwd, rev + [self.zero_stmt(z)]

    def assign_subscript(self, s, target, frames):
        save, after, restore = self.record(target, s, frames)
        x = base_name(target)
        rev = []
        if x in self.active and _is_increment(s) and getattr(s, "s2sad_constant", False):
            # x[i] += v inside stop_recording(): x[i] is a constant from here
            zero = subscript(self.d(x), clone(target.slice), ctx=gast.Store())
            rev.append(assign(zero, const(0.0)))
            self.subscript_updated.add(self.d(x))
        elif x in self.active and _is_increment(s):
            # x[i] += v: dx[i] is unchanged, and v receives it
            v, g = s.value.right, subscript(self.d(x), clone(target.slice))
            mask = last_writer_mask(target, self.atom_kind, self.fn.location, s,
                                        self.distinct_indices.distinct,
                                        self.distinct_indices.distinct_points)
            if mask is not None:
                g = mask(g)
            # dx[a:b] itself (a view) is v's cotangent: when v reads x, v's
            # adjoint updates dx[a:b] while reading it, so it must not alias it
            view = mask is None and isinstance(g, gast.Subscript) and \
                self.atom_kind(gast.Subscript(value=name(x), slice=target.slice,
                                              ctx=gast.Load())).is_array
            if isinstance(s.value.op, gast.Sub):
                g = gast.UnaryOp(op=gast.USub(), operand=g)
            if self.is_active_atom(v) and not getattr(s, "s2sad_constant", False):
                if self.atom_kind(v).is_scalar and self.atom_kind(s.value.left).is_array:
                    g = call("np.sum", g)
                elif self.atom_kind(v).is_array and self.atom_kind(s.value.left).is_array:
                    if not same_region_shapes(s.value.left, v, self.shape_classes,
                                              self.atom_kind):
                        g = call("unbroadcast", g, clone(v))  # (as above)
                    view = view and not _broadcast_into(self.atom_kind(v),
                                                        self.atom_kind(s.value.left))
                elif not (self.atom_kind(v).known and self.atom_kind(s.value.left).known):
                    g, view = call("unbroadcast", g, clone(v)), False  # (no guess: any shapes)
                contributions = self.accumulate_all([(v, g)], self.d(x))
                for st in contributions:
                    st.s2sad_view = view and isinstance(_under_unbroadcast(g), gast.Subscript)
                rev += contributions
        elif x in self.active:
            dslot = subscript(self.d(x), clone(target.slice))
            value = s.value
            if self.is_active_atom(value) and not getattr(s, "s2sad_constant", False):
                g = dslot
                slot = gast.Subscript(value=name(x), slice=target.slice, ctx=gast.Load())
                view = self.atom_kind(slot).is_array
                mask = last_writer_mask(target, self.atom_kind, self.fn.location, s,
                                        self.distinct_indices.distinct,
                                        self.distinct_indices.distinct_points)
                if mask is not None:  # y[[0, 0]] = v: v[0] is overwritten (numpy)
                    g = mask(clone(dslot))
                if view and self.atom_kind(value).is_scalar:
                    g, view = call("np.sum", g), False
                elif view and self.atom_kind(value).is_array:
                    # y[:] = row: a row broadcast, its cotangent summed back
                    # (numba's `+=` into a smaller array gives a wrong value, no error)
                    if not same_region_shapes(slot, value, self.shape_classes, self.atom_kind):
                        g = call("unbroadcast", g, clone(value))
                    view = not _broadcast_into(self.atom_kind(value), self.atom_kind(slot))
                elif not (self.atom_kind(value).known and self.atom_kind(slot).known):
                    g, view = call("unbroadcast", g, clone(value)), False  # (no guess)
                view = view and mask is None  # a masked cotangent is a new array
                zero = clone(dslot)
                zero.ctx = gast.Store()
                if base_name(value) == x:
                    # x[i] = x[j] may have i == j: take dx[i] before zeroing it
                    held = self.namer.fresh(self.d(x) + "_slot")
                    rev += [assign(held, call("np.copy", g) if view else g),
                            assign(zero, const(0.0))]
                    rev += self.accumulate_all([(value, name(held))], self.d(x))
                else:
                    contributions = self.accumulate_all([(value, g)], self.d(x))
                    for st in contributions:  # dx[a:b] is zeroed next: never alias it
                        st.s2sad_view = view
                    rev += contributions + [assign(zero, const(0.0))]
            else:
                zero = clone(dslot)
                zero.ctx = gast.Store()
                rev.append(assign(zero, const(0.0)))
            self.subscript_updated.add(self.d(x))
        return save + [s] + after, rev + restore


def _is_increment(s):
    """x[i] = x[i] + v (normalisation keeps `x[i] += v` in this form)."""
    return isinstance(s.value, gast.BinOp) and isinstance(s.value.op, (gast.Add, gast.Sub)) \
        and isinstance(s.value.left, gast.Subscript)


def _under_unbroadcast(g):
    """`dx[a:b]` of `unbroadcast(dx[a:b], v)` (the same array when no axis
    was broadcast), else `g`."""
    if isinstance(g, gast.Call) and isinstance(g.func, gast.Name) and g.func.id == "unbroadcast":
        return g.args[0]
    return g


def _broadcast_into(value_kind, slot_kind):
    """Whether an array of `value_kind` written into a region of
    `slot_kind` is broadcast along axes it lacks (`y[:] = x[0]`)."""
    return value_kind.is_array and slot_kind.is_array and value_kind.ndim < slot_kind.ndim


def _is_pop(value, fn):
    return (isinstance(value, gast.Call) and isinstance(value.func, gast.Attribute)
            and value.func.attr == "pop" and isinstance(value.func.value, gast.Name)
            and value.func.value.id in fn.local_names)


def names_stored_names(target):
    if isinstance(target, (gast.Tuple, gast.List)):
        return [base_name(t) for t in target.elts]
    return [base_name(target)]
