"""A helper that draws random numbers, inlined where it is called, so that the
derivative uses the numbers the call drew:

    def noise(params, n, rs):                 def loss(params, rs):
        mean, log_std = params[:2], params[2:]    noise_params = params
        return rs.randn(n, 2) * np.exp(   ->     noise_rs = rs
            log_std) + mean                       noise_mean, noise_log_std = ...
                                                  samples = noise_rs.randn(40, 2) * ...
    def loss(params, rs):
        samples = noise(params, 40, rs)
        return np.sum(samples ** 2)

A helper's derivative (its vjp) runs the helper again, after the call ran it
on the forward sweep: a draw there would give other numbers, the gradient of
another function. Inlined, the draw is a statement of the caller, made once
on its forward sweep, whose values the reverse sweep reads: the value is one
call of the function from the random state as it was, the gradient that of
the same draws (what autograd, or JAX with a fixed key, computes). A helper
draws when it calls a function of `np.random`, a method of a RandomState or
Generator it reads from its module or closure, a generator method
(`randn`, `normal`, ...) of a name it is given, or a helper that draws (the
helper's tree is read first, with its own drawing helpers inlined, so this
goes up the calls to the function differentiated).

The helper's body runs where the call is, before the statement holding it
(as Python evaluates the call before the rest of the statement), its
parameters bound to the call's arguments, its own names renamed (`noise_mean`),
the names it reads from its module or closure bound to the same objects,
its lines those of the call; the call's place holds the value of its final
`return`. A call in the element of a list comprehension makes the
comprehension the loop it stands for. A call that cannot be inlined (in a
`while` test, a ternary's branch, after `and`/`or`, a lambda or another
comprehension; of a helper returning before its end, with *args or
**kwargs, or recursive) stays a call: its derivative refuses the draw
(analysis/objects.py). A custom gradient is never inlined (its rule is
the user's)."""
from .inlining import draws, inline_calls


def run(tree, ctx):
    """Inline, in place, the calls of `tree` of helpers that draw."""
    return tree if inline_calls(tree, ctx, "draws", _draws_itself) else None


def _draws_itself(parsed):
    # (its own drawing helpers are inlined in it already: its tree was read)
    return draws(parsed.tree, parsed.resolve)
