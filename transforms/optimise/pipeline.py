"""The optimisations of a reverse-mode derivative, named, in the order they
apply.

The plain adjoint, built from the gradient rules and the tapes alone, is
the specification; every optimisation below is a rewrite that must give
the same numbers, applied only where its precondition is proved. Each can
be switched off by its name (`optimise="-gather"`, `S2SAD_OPTIMISE=-gather`)
and all of them at once (`optimise=False`), which is how a wrong gradient
is bisected to the pass that made it (s2sad/self_check.py does that).

`FRONT_END` rewrites the function before it is differentiated (forward
mode too); `SWEEP` are decisions the reverse pass makes while it builds the sweeps
(transforms/reverse/); `PASSES` rewrite the finished derivative, in this
order, each relying on what the earlier ones left (program.py calls
`optimise_reverse` once the reverse sweep is built)."""
import os
from typing import Callable, NamedTuple

from . import accumulate, cleanup
from .adjoints_into import calls_into
from .copy_fold import fold_copies
from .gather import gather_scatters
from .ordering import ascend_independent_loops
from .parallel import hoist_index_checks, parallelise
from .partial_sums import sum_per_point
from .promote import owned_arrays, promote_accumulators
from .reciprocals import reuse_reciprocals
from .tape_order import reverse_tapes
from .zero_writes import assign_into_zeros
from ..analysis import kinds as K
from ..analysis.aliases import Ownership
from ..checks.bounds import add_index_checks, undo_unproven_promotions
from ..syntax import clone, names_loaded
from ..errors import S2sadValueError


class Optimisation(NamedTuple):
    name: str
    what: str
    run: Callable = None  # (a pass over the finished derivative) run(derivative)


# ---- made by the front end (transforms/frontend/) -------------------------
FRONT_END = (
    Optimisation("inline_helpers", "a small helper with a loop, called in a loop: its body "
                 "inlined, so its vjp does not run its forward sweep again and allocate its "
                 "tapes and adjoints at every call (frontend/functions/small_helpers.py)"),
)

# ---- decided while the sweeps are built (transforms/reverse/) -------------
SWEEP = (
    Optimisation("cheaper_reads", "an array's elements recorded where the reverse sweep reads "
                 "them, when cheaper than restoring the array write by write (reverse/reads.py)"),
    Optimisation("fusion", "a loop that only adds to totals: its adjoint runs inside its own "
                 "iteration, with no tape (reverse/fusion.py)"),
    Optimisation("shape_reads", "an array bound once whose shape alone the reverse sweep reads "
                 "is not recorded; no unbroadcast between regions or operands proved of one shape "
                 "(analysis/shape_classes.py)"),
    Optimisation("lean_tapes", "a value the reversed loop never reads saved once around the "
                 "loop, not taped every iteration (reverse/lean_tapes.py)"),
    Optimisation("recompute", "cheap loop-local scalars recomputed in the reverse iteration "
                 "instead of taped (reverse/recompute.py)"),
    Optimisation("step_inverse", "an integer counter's step `n = n + 1` undone by `n = n - 1` "
                 "instead of taped (reverse/steps_back.py)"),
)


# ---- passes over the finished derivative ----------------------------------
class Derivative:
    """What the passes share: the derivative `fdef`, its ReverseMode `rev`,
    Specialised function `spec`, parameters `args` and Program `program`,
    and facts computed once (`owned`, `dead_stores`, `kinds`, ...)."""

    def __init__(self, fdef, rev, spec, args, program):
        self.fdef, self.rev, self.spec, self.args, self.program = fdef, rev, spec, args, program
        self.body = fdef.body
        self.enabled = program.optimisations
        self.dead_stores = cleanup.DeadStores(lambda v: v not in args,
                                              keep_raising=not rev.primal_ran_before)
        scalars = {v for v, k in spec.kinds.items() if k.is_scalar}
        self.scalars = scalars | {d for v, d in rev.adjoints.items() if v in scalars}
        self.kinds = {**spec.kinds, **{d: spec.kinds[v] for v, d in rev.adjoints.items()
                                       if v in spec.kinds}}
        self.params = [a.id for a in fdef.args.args]
        self._owned = None

    @property
    def owned(self):
        """Arrays the function owns (the same before and after the gather)."""
        if self._owned is None:
            self._owned = owned_arrays(self.body)
        return self._owned


def _dead_stores(d):
    d.dead_stores.run(d.body, names_loaded(d.body[-1]))


def _copy_propagation(d):
    generated = (d.spec.temporaries | d.rev.generated | set(d.rev.adjoints.values())) \
        - set(d.args)
    # (dead_stores, if it runs again, looks only at the statements these rewrite)
    cleanup.propagate_copies(d.body, generated, d.dead_stores.changed)
    cleanup.drop_self_assignments(d.body)


def _scalar_cotangents(d):
    accumulate.broadcast_scalar_cotangents(d.body, d.scalars, d.dead_stores.changed)
    if "dead_stores" in d.enabled:  # (the spreads it leaves dead)
        _dead_stores(d)


def _inline_temporaries(d):
    cleanup.refuse(d.body, (d.spec.temporaries | d.rev.generated) - set(d.rev.adjoints.values()))


def _augmented_updates(d):
    lists = {v for v, k in d.kinds.items() if k.tag == "list"}  # (adjoints included)
    accumulate.augment_scalar_updates(d.body, d.scalars, lists)


def _ascend_loops(d):
    kinds = d.kinds
    ascend_independent_loops(d.body, lambda v: None if v not in kinds else kinds[v].ndim
                             if kinds[v].is_array else 0 if kinds[v].is_scalar else None)


def _gather(d):
    gather_scatters(d.body, d.spec.namer, d.owned)  # (stencil adjoints: gather.py)


def _partial_sums(d):
    sum_per_point(d.body, {dv for v, dv in d.rev.adjoints.items()
                           if d.kinds.get(v, K.UNKNOWN).tag == "float"}, d.spec.namer)


def _promote(d):
    promote_accumulators(d.body, d.spec.namer, d.owned)


def _copy_folds(d):
    fold_copies(d.body, d.owned, d.kinds, set(d.params) | set(d.args))


def _reciprocals(d):
    reuse_reciprocals(d.body, {v for v, k in d.kinds.items() if k.tag == "float"},
                      set(d.params) | set(d.args), set(d.rev.adjoints.values()), d.spec.namer)


def _parallel(d):
    if not d.rev.helper:
        # (a helper may run in a parallel loop: no nested parallel launches)
        parallelise(d.body, d.kinds, d.spec.namer, d.rev.parallel, d.program.chunks,
                    lambda: checked_copy(d.fdef, d.kinds, d.rev.adjoints,
                                         d.spec.parsed.location, d.program),
                    d.spec.parsed.resolve)


def _adjoints_into(d):
    # (last: the parallel loops are made, and the call replaces an `+=` they may read)
    calls_into(d.body, d.program.into_variants, d.rev.adjoints.get, d.kinds, False)


def _zero_writes(d):
    # (after parallelise, which privatises `+=` scatters but not `=`)
    assign_into_zeros(d.body, d.owned)


PASSES = (
    Optimisation("zero_propagation", "an adjoint known to be zero: `dv += e` becomes `dv = e`, "
                 "contributions scaled by it go (cleanup.py)",
                 lambda d: cleanup.ZeroPropagation(d.rev.subscript_updated).run(d.body)),
    Optimisation("dead_stores", "assignments nobody reads removed (cleanup.py)", _dead_stores),
    Optimisation("copy_propagation", "`a = b` copies of generated names folded (cleanup.py)",
                 _copy_propagation),
    Optimisation("scalar_cotangents", "a reduction's cotangent not spread over an array it only "
                 "meets elementwise (accumulate.py)", _scalar_cotangents),
    Optimisation("inline_temporaries", "a temporary read once, by the next statement, "
                 "substituted back: the user's expressions (cleanup.py)", _inline_temporaries),
    Optimisation("augmented_updates", "`s = s + e` written `s += e` (accumulate.py)",
                 _augmented_updates),
    Optimisation("ascend_loops", "reversed loops whose iterations are independent run forwards "
                 "(ordering.py)", _ascend_loops),
    Optimisation("gather", "a stencil's scatters into an adjoint turned into gathers, one write "
                 "per element (gather.py, gather_nests.py)", _gather),
    Optimisation("partial_sums", "additions into one element summed per point before the "
                 "write (partial_sums.py)", _partial_sums),
    Optimisation("tape_order", "tapes read in the order they were written (tape_order.py)",
                 lambda d: reverse_tapes(d.body)),
    Optimisation("promote", "an adjoint element added to in a loop kept in a scalar "
                 "(promote.py)", _promote),
    Optimisation("copy_folds", "copies of arrays nobody writes afterwards not made "
                 "(copy_fold.py)", _copy_folds),
    Optimisation("reciprocals", "`a / b` repeated becomes one reciprocal and products "
                 "(reciprocals.py)", _reciprocals),
    Optimisation("parallel", "loops proved independent run as prange (parallel.py; "
                 "parallel=True)", _parallel),
    Optimisation("zero_writes", "`dv[i] += e` into a fresh zero array becomes `dv[i] = e` "
                 "(zero_writes.py)", _zero_writes),
    Optimisation("adjoints_into", "`dA += vjp_f(A, ...)`: a helper's vjp that only adds into "
                 "its fresh adjoint adds into the caller's instead (adjoints_into.py)",
                 _adjoints_into),
)

OPTIMISATIONS = tuple(o.name for o in FRONT_END + SWEEP + PASSES)
# promotions whose index is not proved in range are undone after this pass
# (before parallelise: they may become totals)
_BEFORE_PARALLEL = "reciprocals"


def optimise_reverse(fdef, rev, spec, args, program):
    """The passes over a reverse-mode derivative `fdef`, in order (`rev` is
    its ReverseMode, `spec` its Specialised function, `args` its parameters;
    `program` the Program it belongs to). The switched-off ones are skipped;
    what keeps the code correct (accumulating out of place where buffers
    may be shared, index checks) always runs."""
    d = Derivative(fdef, rev, spec, args, program)
    for opt in PASSES:
        if opt.name in d.enabled:
            opt.run(d)
        if opt.name == "inline_temporaries":
            # adjoints may share buffers after copy propagation: `dv += e` only
            # into memory of its own (a safeguard, not an optimisation)
            accumulate.out_of_place(d.body, rev, Ownership(d.body, d.params, d.kinds,
                                                           program.runtime_helpers))
        if opt.name == _BEFORE_PARALLEL:
            undo_promotions(fdef, d.kinds, rev.adjoints)
    # last, whatever ran: the indices are proved in range as they will run,
    # after every pass that changes loops or indices (unproved: numba checks them)
    add_checks(fdef, d.kinds, rev.adjoints, spec.parsed.location, program)
    hoist_index_checks(fdef.body)  # (out of the parallel loops, where they read nothing it writes)


def check_indices(fdef, kinds, shadows, location, program):
    """Promotions whose index is not proven in range undone, then (if the
    program checks indices) the function's own index checks added."""
    setup = undo_promotions(fdef, kinds, shadows)
    add_checks(fdef, kinds, shadows, location, program, setup)


def checked_copy(fdef, kinds, shadows, location, program):
    """The statements of a copy of `fdef` with its index checks."""
    copy = clone(fdef)
    if program.index_checks:
        add_index_checks(copy, kinds, _related(shadows), location)
    return copy.body


def undo_promotions(fdef, kinds, shadows):
    """Promotions whose index is not proven in range undone (what
    add_checks may start from, if the function does not change before)."""
    return undo_unproven_promotions(fdef, kinds, _related(shadows))


def add_checks(fdef, kinds, shadows, location, program, setup=None):
    """If the program checks indices: the function's own index checks added,
    and numba's left off for it if that accounts for every index."""
    if program.index_checks and add_index_checks(fdef, kinds, _related(shadows), location,
                                                 setup):
        program.checks_own_indices.add(fdef.name)


def _related(shadows):
    related = {}
    for v, d in shadows.items():
        related.setdefault(v, set()).add(d)
        related.setdefault(d, set()).add(v)
    return related


def enabled_optimisations(setting=None):
    """The names of the optimisations to apply, from `optimise=` (True/None:
    all, or the S2SAD_OPTIMISE environment variable when None; False: none;
    a string or list of names: only those; names with a leading '-': all
    but those). Unknown names are refused (a typo must not silently leave a
    pass on)."""
    if setting is None:
        setting = os.environ.get("S2SAD_OPTIMISE", "").strip() or True
    if setting is True:
        return frozenset(OPTIMISATIONS)
    if setting is False:
        return frozenset()
    if isinstance(setting, str):
        low = setting.strip().lower()
        if low in ("1", "true", "all", "on", "yes"):
            return frozenset(OPTIMISATIONS)
        if low in ("0", "false", "none", "off", "no", ""):
            return frozenset()
        setting = [p.strip() for p in setting.split(",") if p.strip()]
    items = list(setting)
    unknown = [p for p in items if p.lstrip("+-") not in OPTIMISATIONS]
    if unknown:
        raise S2sadValueError(f"unknown optimisation(s) {', '.join(map(repr, unknown))}; the "
                         f"optimisations are {', '.join(OPTIMISATIONS)}")
    removed = {p[1:] for p in items if p.startswith("-")}
    kept = {p.lstrip("+") for p in items if not p.startswith("-")}
    if removed and kept:
        raise S2sadValueError(f"optimise={setting!r} mixes names to keep and names to remove "
                         f"('-name'): give one or the other")
    return frozenset(OPTIMISATIONS) - removed if removed else frozenset(kept)
