"""A small helper with a loop, called in a loop, inlined where it is called
(the "inline_helpers" optimisation, transforms/optimise/pipeline.py):

    def logsumexp(v):                       for i in range(n):
        mx = v[0]                               ...
        for c in range(1, v.shape[0]):          logsumexp_mx = beta[0]
            ...                        ->       for logsumexp_c in range(1, beta.shape[0]):
        return mx + math.log(se)                    ...
                                                logsumexp_value = logsumexp_mx + ...
    for i in range(n):                          slse += logsumexp_value
        ...
        slse += logsumexp(beta)

Called, the helper's derivative is its vjp: it runs the helper's forward
sweep again, allocates its tapes and the adjoints of its array parameters
at every call, and returns them to be added into the caller's. For a helper
doing little work per call (GMM's logsumexp over k components, per point),
that was a third of the gradient. Inlined, its loops are the caller's:
recorded once on the forward sweep and reversed where they ran, their
adjoints added into the caller's directly.

Inlined only where that is safe and pays: the helper has a `for` loop, at
most MAX_STATEMENTS statements, writes into none of its parameters (a
write through a parameter inlined is a write through a second name for the
caller's array), calls nothing of s2sad's own (markers, checkpointed loops
keep their helper's boundary), and can run where it is called (one return,
at its end: inlining.py); the call is in a loop of the function's body,
not in a comprehension or lambda there.
The plain twin of a self-checking derivative (`check=True`) is generated
with it switched off, like every optimisation."""
import gast

from .inlining import inline_calls
from ...libraries import of_package
from ..effects.helper_effects import mutated_parameters, written_positions
from ...syntax import walk

MAX_STATEMENTS = 20
NAME = "inline_helpers"
_SCOPES = (gast.ListComp, gast.SetComp, gast.DictComp, gast.GeneratorExp, gast.Lambda)


def run(tree, ctx):
    program = ctx.program
    if program is None or NAME not in getattr(program, "optimisations", ()):
        return None
    # (not in a comprehension or lambda: the inliner would first rewrite a
    # comprehension as the loop it stands for, a change of form for nothing)
    nested = {id(n) for c in walk(tree) if isinstance(c, _SCOPES) for n in walk(c)}
    in_loops = {id(n) for loop in walk(tree) if isinstance(loop, (gast.For, gast.While))
                for s in loop.body for n in walk(s)
                if isinstance(n, gast.Call) and id(n) not in nested}
    if not in_loops:
        return None
    wanted = lambda parsed: _small_loop_helper(parsed, ctx)  # noqa: E731
    changed = inline_calls(tree, ctx, "small_helpers", wanted,
                           where=lambda call: id(call) in in_loops, names_for_reads=True)
    return tree if changed else None


def _small_loop_helper(parsed, ctx):
    body = parsed.tree.body
    statements = [n for s in body for n in walk(s) if isinstance(n, gast.stmt)]
    if len(statements) > MAX_STATEMENTS or not any(isinstance(n, gast.For) for n in statements):
        return False
    if any(isinstance(call, gast.Call) and _of_s2sad(parsed, call.func)
           for s in body for call in walk(s)):
        return False
    always, if_array = written_positions(parsed.fn, ctx.readable, ctx.parse)
    return not always and not if_array and not mutated_parameters(parsed.fn, ctx.readable,
                                                                    ctx.parse)


def _of_s2sad(parsed, func):
    try:
        obj = parsed.resolve(func)
    except Exception:  # noqa: BLE001 - a local: not s2sad's
        return False
    return of_package(obj, "s2sad")
