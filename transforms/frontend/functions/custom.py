"""Split a TensorFlow-style custom gradient into two plain functions.

    def f(x):                          def f_fwd(x):
        s = np.sqrt(x)                     s = np.sqrt(x)
        def backward(dy):      ->          return s * 2.0, (s,)
            return dy / s
        return s * 2.0, backward       def f_bwd(residuals, dy):
                                           (s,) = residuals
                                           return dy / s

numba cannot return closures; the values `backward` reads from `f` become
residuals passed from the forward sweep to the reverse sweep."""

import gast

from ..pipeline import parse
from ...errors import UnsupportedSyntaxError
from ...syntax import clone, name, names_loaded, names_stored, store


def split_custom_gradient(fn, fwd_name, bwd_name):
    """(parsed function, forward FunctionDef, backward FunctionDef, whether
    the backward returns a tuple literal: one cotangent per input even for
    one input, as JAX's `lambda g: (g * x,)`)."""
    parsed = parse(fn, nested_def_ok=True)
    tree = clone(parsed.tree)
    _lambdas_as_defs(tree)
    for node in gast.walk(tree):
        if isinstance(node, gast.Lambda):
            raise UnsupportedSyntaxError(
                "a lambda in a custom gradient other than its backward", parsed.location,
                node, "Define a module-level function and call it")
    defs = [s for s in tree.body if isinstance(s, gast.FunctionDef)]
    ret = tree.body[-1]
    if (len(defs) != 1 or not isinstance(ret, gast.Return)
            or not isinstance(ret.value, gast.Tuple) or len(ret.value.elts) != 2
            or not isinstance(ret.value.elts[1], gast.Name)
            or ret.value.elts[1].id != defs[0].name):
        raise UnsupportedSyntaxError(
            "a custom gradient not of the form `def backward(dy): ...; return value, backward`",
            parsed.location, ret if isinstance(ret, gast.Return) else tree,
            "Define one backward function in the body and return (value, backward) last")
    backward = defs[0]
    body = [s for s in tree.body[:-1] if not isinstance(s, gast.FunctionDef)]
    own = names_stored(body) | {a.id for a in tree.args.args}
    params = {a.id for a in backward.args.args}
    residuals = sorted((names_loaded(backward.body) - names_stored(backward.body) - params) & own)

    value = ret.value.elts[0]
    packed = gast.Tuple(elts=[name(r) for r in residuals], ctx=gast.Load())
    fwd = gast.FunctionDef(name=fwd_name, args=clone(tree.args),
                           body=body + [gast.Return(value=gast.Tuple(elts=[value, packed],
                                                                       ctx=gast.Load()))],
                           decorator_list=[], returns=None, type_comment=None)
    res_param = "residuals"
    unpack = []
    if residuals:
        unpack = [gast.Assign(targets=[gast.Tuple(elts=[store(r) for r in residuals],
                                                  ctx=gast.Store())],
                              value=name(res_param), type_comment=None)]
    args = clone(backward.args)
    args.args = [name(res_param, gast.Param())] + args.args
    bwd = gast.FunctionDef(name=bwd_name, args=args, body=unpack + backward.body,
                           decorator_list=[], returns=None, type_comment=None)
    returns = [r for r in _own_returns(backward.body)]
    tuple_cotangents = bool(returns) and all(isinstance(r.value, gast.Tuple) for r in returns)
    return parsed, fwd, bwd, tuple_cotangents


def _lambdas_as_defs(tree):
    """`return value, lambda dy: ...` and `backward = lambda dy: ...`, as
    JAX's custom_gradient is written, become `def backward(dy): return ...`."""
    body = []
    for s in tree.body:
        if (isinstance(s, gast.Assign) and len(s.targets) == 1
                and isinstance(s.targets[0], gast.Name) and isinstance(s.value, gast.Lambda)):
            body.append(_def_of(s.targets[0].id, s.value, s))
            continue
        if (isinstance(s, gast.Return) and isinstance(s.value, gast.Tuple)
                and len(s.value.elts) == 2 and isinstance(s.value.elts[1], gast.Lambda)):
            taken = names_loaded(tree) | names_stored(tree)
            backward = next(n for n in ("backward", "backward_", "backward__") if n not in taken)
            body.append(_def_of(backward, s.value.elts[1], s))
            s.value.elts[1] = name(backward)
        body.append(s)
    tree.body = body


def _def_of(fname, lam, where):
    ret = gast.copy_location(gast.Return(value=lam.body), where)
    return gast.copy_location(gast.FunctionDef(name=fname, args=lam.args, body=[ret],
                                               decorator_list=[], returns=None,
                                               type_comment=None), where)


def _own_returns(body):
    """The return statements of a function body, not of functions nested in it."""
    for s in body:
        if isinstance(s, gast.Return):
            yield s
        elif not isinstance(s, (gast.FunctionDef, gast.Lambda)):
            for field in ("body", "orelse", "finalbody", "handlers"):
                block = getattr(s, field, None)
                if isinstance(block, list):
                    yield from _own_returns(block)
