"""The optimisation pipeline of a reverse-mode derivative: the passes of
this folder (and the index checks of checks/) in the order they run, each
relying on what the earlier ones left (program.py calls it once the
reverse sweep is built)."""
from . import accumulate, cleanup
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


def optimise_reverse(fdef, rev, spec, args, program):
    """The passes over a reverse-mode derivative `fdef`, in order (`rev` is
    its ReverseMode, `spec` its Specialised function, `args` its parameters;
    `program` the Program it belongs to)."""
    body = fdef.body
    cleanup.ZeroPropagation(rev.subscript_updated).run(body)
    live_out = names_loaded(body[-1])
    dead_stores = cleanup.DeadStores(lambda v: v not in args,
                                     keep_raising=not rev.primal_ran_before)
    dead_stores.run(body, live_out)
    generated = (spec.temporaries | rev.generated | set(rev.adjoints.values())) - set(args)
    # (the second run of dead_stores looks again only at the statements
    # these rewrite: they are told dead_stores.changed)
    cleanup.propagate_copies(body, generated, dead_stores.changed)
    cleanup.drop_self_assignments(body)
    scalars = {v for v, k in spec.kinds.items() if k.is_scalar}
    scalars |= {d for v, d in rev.adjoints.items() if v in scalars}
    # (leaves dead spreads)
    accumulate.broadcast_scalar_cotangents(body, scalars, dead_stores.changed)
    dead_stores.run(body, names_loaded(body[-1]))
    fusable = (spec.temporaries | rev.generated) - set(rev.adjoints.values())
    cleanup.refuse(body, fusable)
    kinds = {**spec.kinds, **{d: spec.kinds[v] for v, d in rev.adjoints.items()
                              if v in spec.kinds}}
    params = [a.id for a in fdef.args.args]
    accumulate.out_of_place(body, rev, Ownership(body, params, kinds, program.runtime_helpers))
    accumulate.augment_scalar_updates(body, scalars)
    ascend_independent_loops(body, lambda v: None if v not in kinds else kinds[v].ndim
                             if kinds[v].is_array else 0 if kinds[v].is_scalar else None)
    owned = owned_arrays(body)  # (the same before and after the gather)
    gather_scatters(body, spec.namer, owned)  # (stencil adjoints: gather.py, partial_sums.py)
    sum_per_point(body, {d for v, d in rev.adjoints.items()
                         if kinds.get(v, K.UNKNOWN).tag == "float"}, spec.namer)
    reverse_tapes(body)
    promote_accumulators(body, spec.namer, owned)
    fold_copies(body, owned, kinds, set(params) | set(args))
    reuse_reciprocals(body, {v for v, k in kinds.items() if k.tag == "float"}, set(params) | set(args),
                      set(rev.adjoints.values()), spec.namer)
    undo_promotions(fdef, kinds, rev.adjoints)  # (before parallelise: they may become totals)
    if not rev.helper:  # a helper may run in a parallel loop: no nested parallel launches
        parallelise(fdef.body, kinds, spec.namer, rev.parallel, program.chunks,
                    lambda: checked_copy(fdef, kinds, rev.adjoints, spec.parsed.location, program))
    # (after parallelise, which privatises `+=` scatters but not `=`)
    assign_into_zeros(fdef.body, owned)
    # last: the indices are proved in range as they will run, after every
    # pass that changes loops or indices (unproved: numba checks them)
    add_checks(fdef, kinds, rev.adjoints, spec.parsed.location, program)
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
