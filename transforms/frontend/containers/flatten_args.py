"""Container arguments (a dict, NamedTuple, list or tuple of floats and
arrays) reach the differentiating passes as one parameter per leaf: the
function's reads of the container become reads of those parameters
(`p["W"]` -> `p_W`), loops over it are unrolled, and a helper it is passed
to whole gets a copy taking the leaves (flatten.py, which also refuses
every use flattening does not follow)."""
from .flatten import flatten_parameters


def run(tree, ctx):
    if not ctx.structures:
        return None
    flatten_parameters(ctx.parsed, ctx.structures, ctx.parse)
    return ctx.parsed.tree
