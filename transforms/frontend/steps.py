"""The steps of the front end's lists that are not passes of a family
folder: where the pipeline calls the compiler's other stages (checkpointed
loops, index marks, kinds, alias and independence checks, derivative
calls) and keeps its own books (the copy of the tree read, fresh names).
Each is `step(tree, ctx)`, as a pass's `run`."""
from ..analysis.aliases import check_aliased_writes, written_memory
from ..analysis.helper_results import call_shares
from ..checks.bounds_syntax import mark_accesses as _mark_accesses
from ..names import Namer
from ..optimise.parallel import check_independent
from ..reverse import checkpoint_loops
from ..syntax import clone
from .context import Restart


def lift_loops(tree, ctx):
    """Top-level counted loops marked s2sad.checkpointed (or, under a memory
    budget, every one whose body can be) become calls of step functions
    (reverse/checkpoint_loops.py); with the default budget, a check_memory
    line is noted for the loops that could be."""
    budgeted = ctx.loops == "budget"
    checkpoint_loops.lift_loops(
        ctx.parsed, ctx.program, ctx.program.memory_budget if budgeted else None,
        lift=ctx.loops is not None, stopped=ctx.stopped, skip=ctx.skip,
        guard=ctx.program.memory_guard if budgeted else None)
    return ctx.parsed.tree


def copy_tree(tree, ctx):
    """The tree read stays the function's (the checkpointed loops' analysis
    reads it); the passes after this one change a copy."""
    return clone(tree)


def new_names(tree, ctx):
    """Fresh names from here on avoid every name the tree uses (and the
    names reserved, the generated module's own)."""
    ctx.namer = Namer.for_function(tree, extra=ctx.reserved)
    ctx.names_before = set(ctx.namer.taken)
    return None


def mark_accesses(tree, ctx):
    """Every subscript's index gets a mark its copies keep, for the index
    checks (checks/bounds_syntax.py)."""
    _mark_accesses(tree)
    return None


def infer_kinds(tree, ctx):
    """The kinds of the function's variables; the names made since
    `new_names` are the temporaries later passes may fold away."""
    ctx.temporaries = ctx.namer.taken - ctx.names_before
    ctx.infer_kinds()
    return None


def unliftable(tree, ctx):
    """Under a budget, loops lifted whose variables' kinds a step function
    cannot carry: specialise again with them recorded as usual."""
    if ctx.loops != "budget" or ctx.program.memory_budget is None:
        return None
    more = checkpoint_loops.unliftable(tree, ctx.parsed, ctx.kinds, ctx.program)
    if more:
        raise Restart(skip=more)
    return None


def aliased_writes(tree, ctx):
    """A write through one name of an array's memory while another name of
    it is still read: refused (analysis/aliases.py)."""
    check_aliased_writes(tree, ctx.kinds, ctx.location,
                         call_shares(ctx.parsed, ctx.readable, ctx.parse))
    return None


def independent_loops(tree, ctx):
    """A loop the user marked parallel must have independent iterations."""
    if any(getattr(n, "s2sad_parallel", False) for n in ctx.nodes):
        check_independent(tree, ctx.kinds, ctx.location)
    return None


def derivative_calls(tree, ctx):
    """`g = s2sad.grad(loss)(x, W)` calls the generated gradient of loss for
    these argument kinds (program.py)."""
    ctx.program.name_derivative_calls(tree, ctx.parsed, ctx.kinds)
    return None


def note_written_arguments(tree, ctx):
    """A helper's copy writing into its arguments: a call stopped by the
    default memory budget could not be repeated (generate.py)."""
    if written_memory(tree) & set(ctx.parsed.arg_names):
        ctx.program.copies_writing_arguments.append(tree.name)
    return None


def strip_checkpoint_marks(tree, ctx):
    """`for t in s2sad.checkpointed(range(n))` runs as `for t in range(n)` in
    a primal copy."""
    checkpoint_loops.strip_marks(tree, ctx.parsed, ctx.program)
    return tree
