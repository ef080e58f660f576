"""How generated code accumulates adjoints, tidied after clean-up:

* an array adjoint is never updated in place (`dv = dv + e`): adjoints may
  share buffers after copy propagation;
* a scalar's update reads `s += e`."""
import ast

import gast

from . import kinds as K
from .syntax import assign, name


def out_of_place(stmts, rev):
    """`dv += e` on a whole array adjoint becomes `dv = dv + e`: adjoints may
    share buffers after zero propagation, so they are never updated in place
    (subscript updates go to arrays the function owns)."""
    for k, s in enumerate(stmts):
        for field in ("body", "orelse"):
            if isinstance(getattr(s, field, None), list):
                out_of_place(getattr(s, field), rev)
        if isinstance(s, gast.AugAssign) and isinstance(s.target, gast.Name):
            var = next((v for v, d in rev.adjoints.items() if d == s.target.id), None)
            if var is None:
                continue  # not an adjoint (e.g. a tape cursor)
            kind = rev.kinds.get(var, K.UNKNOWN)
            if not kind.is_scalar:
                new = assign(s.target.id, gast.BinOp(left=name(s.target.id), op=gast.Add(),
                                                     right=s.value))
                new.__dict__.update({a: b for a, b in s.__dict__.items() if a.startswith("s2sad_")})
                gast.copy_location(new, s)
                stmts[k] = new


_AUGMENTABLE = (gast.Add, gast.Sub, gast.Mult, gast.Div)


def _same_place(target, expr):
    """`s` and `s`, or `x[i]` and `x[i]` (an element: `+=` on it is the same)."""
    if isinstance(target, gast.Name):
        return isinstance(expr, gast.Name) and expr.id == target.id
    if isinstance(target, gast.Subscript) and isinstance(expr, gast.Subscript):
        load = gast.Subscript(value=target.value, slice=target.slice, ctx=gast.Load())
        return ast.dump(gast.gast_to_ast(load)) == ast.dump(gast.gast_to_ast(expr))
    return False


def augment_scalar_updates(stmts, scalars):
    """`s = s + e` reads `s += e` (for scalars only: on arrays `+=` would
    write in place)."""
    for k, s in enumerate(stmts):
        for field in ("body", "orelse"):
            if isinstance(getattr(s, field, None), list):
                augment_scalar_updates(getattr(s, field), scalars)
        if (isinstance(s, gast.Assign) and isinstance(s.value, gast.BinOp)
                and isinstance(s.value.op, _AUGMENTABLE) and _same_place(s.targets[0], s.value.left)
                and (not isinstance(s.targets[0], gast.Name) or s.targets[0].id in scalars)):
            new = gast.AugAssign(target=s.targets[0], op=s.value.op, value=s.value.right)
            new.__dict__.update({a: b for a, b in s.__dict__.items() if a.startswith("s2sad_")})
            gast.copy_location(new, s)
            stmts[k] = new

