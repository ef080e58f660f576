"""What may be differentiated, checked before the reverse sweep is built:
the arguments named in wrt are floats, a local named in wrt has one value,
and the output is a float (not only integers or bools)."""
import gast

from . import kinds as K
from ..syntax import names_stored, walk_stmts
from ..errors import S2sadTypeError, S2sadValueError


def check_wrt_arguments(spec, wrt_names):
    """TypeError for an argument named in wrt that cannot carry a gradient."""
    parsed = spec.parsed
    for w in wrt_names:
        kind = spec.kinds.get(w, K.UNKNOWN)
        if w in parsed.arg_names and not kind.differentiable:
            raise S2sadTypeError(
                f"{parsed.location.describe()}: argument '{w}' is {kind}; only "
                f"float scalars and float arrays can be differentiated. Pass a float "
                f"(e.g. {w}=float(...)) or leave it out of wrt.")


def check_float_output(spec, parsed, outputs=None):
    """TypeError for a function whose value is an int or bool (a count, a
    comparison, np.argmax) however it is returned, as JAX and TensorFlow
    raise: its gradient would be zeros the user did not ask for."""
    kinds = []
    for out in spec.outputs if outputs is None else outputs:
        if isinstance(out, gast.Name):
            kinds.append(spec.kinds.get(out.id, K.UNKNOWN))
        elif isinstance(out, gast.Constant):
            kinds.append(K.of_value(out.value))
        else:
            return
    if kinds and all(k.known and not k.differentiable for k in kinds):
        what = kinds[0] if len(kinds) == 1 else "(" + ", ".join(map(str, kinds)) + ")"
        raise S2sadTypeError(f"{parsed.location.describe()}: {parsed.name} returns {what}; gradients "
                        f"are defined for float outputs, as in JAX and TensorFlow (an integer "
                        f"or bool value is constant wherever it has a derivative). Return a "
                        f"float value to differentiate.")


def defined_once(tree, var, parsed):
    """A local named in wrt must be assigned exactly once, outside loops."""
    top = [s for s in tree.body if isinstance(s, gast.Assign) and var in names_stored([s])]
    everywhere = [s for s in walk_stmts(tree.body) if isinstance(s, gast.Assign)
                  and var in names_stored([s])]
    if not everywhere:
        raise S2sadValueError(f"{parsed.location.describe()}: wrt names '{var}', which is neither "
                         f"an argument nor a variable of {parsed.name}")
    if len(everywhere) > 1 or len(top) != 1:
        where = "inside a loop or branch" if len(everywhere) == 1 else "more than once"
        raise S2sadValueError(f"{parsed.location.describe(everywhere[-1])}: wrt names the variable "
                         f"'{var}', which is assigned {where}; the derivative w.r.t. a variable "
                         f"is defined for one value. Assign it once, outside loops.")
    return True
