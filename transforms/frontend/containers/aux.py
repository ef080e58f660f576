"""What the rest of s2sad needs of a has_aux function's pair (aux_output.py
rewrites its returns): the output to differentiate, the `(gradients, aux)`
a gradient returns as a function, and the aux rebuilt from the tuple the
compiled code returns."""
import gast

from ...analysis import kinds as K
from ...errors import UnsupportedSyntaxError
from ...syntax import clone, const
from ...errors import S2sadTypeError

HINT = ("With has_aux=True the function returns a pair (output, aux), as in JAX: only "
        "the output is differentiated")


def check_pair(spec, parsed):
    """The output to differentiate of a has_aux function: the first of the
    pair it returns. A function not returning a pair gets JAX's TypeError."""
    ret = spec.tree.body[-1]
    if not spec.returns_tuple or len(spec.outputs) != 2:
        what = (f"a tuple of {len(spec.outputs)} values" if spec.returns_tuple
                else "a single value")
        raise S2sadTypeError(f"{parsed.location.describe(ret)}: expected a function with aux output "
                        f"to return a two-element tuple (output, aux), but {parsed.name} "
                        f"returns {what}. {HINT}; return `output, aux`, or differentiate "
                        f"without has_aux.")
    out = spec.outputs[0]
    if isinstance(out, gast.Name) and spec.kinds.get(out.id, K.UNKNOWN).tag == "tuple":
        raise UnsupportedSyntaxError(
            "a tuple as the output of the pair a has_aux function returns", parsed.location,
            ret, "Differentiate one float or array output (or a tuple output, without "
            "has_aux); put the rest into the aux")
    return spec.outputs[:1]


def gradients_and_aux(gradients, value):
    """What a has_aux gradient returns as a function (grad inside a
    differentiated function), as jax.grad: `(gradients, aux)`, the aux
    taken from `value`, the returned pair."""
    aux = clone(value.elts[1]) if isinstance(value, gast.Tuple) else gast.Subscript(
        value=clone(value), slice=const(1), ctx=gast.Load())
    return gast.Tuple(elts=[gradients, aux], ctx=gast.Load())


def rebuild_aux(structure, value):
    """The aux as the function returned it, from the tuple the compiled
    code returned."""
    if structure is None:
        return value
    tag, parts = structure[0], structure[-1]
    items = [rebuild_aux(p, v) for p, v in zip(parts, value)]
    if tag == "dict":
        return dict(zip(structure[1], items))
    return items if tag == "list" else tuple(items)
